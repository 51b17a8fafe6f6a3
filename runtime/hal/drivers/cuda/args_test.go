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
