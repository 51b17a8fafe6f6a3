package cuda

import (
	"bytes"
	"testing"
)

func TestPackKernelArgs(t *testing.T) {
	for _, tc := range []struct {
		name      string
		ptrs      []uint64
		constants []uint32
		want      []byte
	}{
		{"empty", nil, nil, []byte{}},
		{"one pointer", []uint64{0x0102030405060708}, nil, []byte{8, 7, 6, 5, 4, 3, 2, 1}},
		{"constants only", nil, []uint32{1, 0xAABBCCDD}, []byte{1, 0, 0, 0, 0xDD, 0xCC, 0xBB, 0xAA}},
		{"pointers then constants", []uint64{0x10, 0x7f0000001000}, []uint32{8},
			[]byte{0x10, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x10, 0, 0, 0, 0x7f, 0, 0, 8, 0, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			buf := make([]byte, MaxArgBytes)
			got, err := PackKernelArgs(buf, tc.ptrs, tc.constants)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != ArgSize(len(tc.ptrs), len(tc.constants)) {
				t.Errorf("packed %d bytes, ArgSize says %d", len(got), ArgSize(len(tc.ptrs), len(tc.constants)))
			}
			if !bytes.Equal(got, tc.want) {
				t.Errorf("got % x, want % x", got, tc.want)
			}
		})
	}
}

func TestPackKernelArgsTooSmall(t *testing.T) {
	_, err := PackKernelArgs(make([]byte, 11), []uint64{1}, []uint32{1})
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("need 12 bytes")) {
		t.Fatalf("got %v, want an error naming the 12 bytes needed", err)
	}
}

// TestLaunchBatch checks the batch's parameter layout: each launch's bytes
// are copied to a 16-byte aligned offset, and the batch grows and empties.
func TestLaunchBatch(t *testing.T) {
	var b launchBatch
	var want []int
	for i, size := range []int{28, 8, 4, 40, 16} {
		args := make([]byte, size)
		for j := range args {
			args[j] = byte(i + 1)
		}
		b.add(nil, [3]uint32{1, 1, 1}, [3]uint32{64, 1, 1}, 0, args)
		want = append(want, size)
	}
	end := 0
	for i, l := range b.launches {
		off, size := int(l.offset), int(l.size)
		if off%16 != 0 || off < end || size != want[i] {
			t.Fatalf("launch %d at offset %d size %d (previous end %d), want aligned, size %d", i, off, size, end, want[i])
		}
		for _, v := range b.args[off : off+size] {
			if v != byte(i+1) {
				t.Fatalf("launch %d parameters %v", i, b.args[off:off+size])
			}
		}
		end = off + size
	}
	if len(b.args) != end {
		t.Errorf("args length %d, want %d", len(b.args), end)
	}
	if i, err := (&launchBatch{}).flush(nil, nil); i != 0 || err != nil {
		t.Errorf("flushing an empty batch: %d, %v", i, err)
	}
}
