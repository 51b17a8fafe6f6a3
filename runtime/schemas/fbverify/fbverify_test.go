package fbverify_test

import (
	"encoding/binary"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/fbverify"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

func TestValidPayloads(t *testing.T) {
	c := (&cuda.Executable{PTX: "ptx", EntryPoints: []cuda.EntryPoint{{Name: "k", BlockSize: [3]uint32{1, 1, 1}}}}).Marshal()
	if err := fbverify.CUDAExecutableDef(c); err != nil {
		t.Errorf("CUDA: %v", err)
	}
	s := (&spirv.Executable{Code: []uint32{spirv.Magic, 0, 0, 0, 0}, EntryPoints: []spirv.EntryPoint{{Name: "main"}}}).Marshal()
	if err := fbverify.SpirVExecutableDef(s); err != nil {
		t.Errorf("SPIR-V: %v", err)
	}
	if err := fbverify.CUDAExecutableDef(s); err == nil || !strings.Contains(err.Error(), `file identifier is "SPVE", want "CUDA"`) {
		t.Errorf("SPIR-V payload as CUDA: %v", err)
	}
}

func TestSizePrefixed(t *testing.T) {
	tests := []struct {
		data []byte
		ok   bool
	}{
		{[]byte{1, 2}, false},
		{[]byte{4, 0, 0, 0, 1, 2, 3}, false},
		{[]byte{3, 0, 0, 0, 1, 2, 3}, true},
	}
	for _, tt := range tests {
		fb, end, err := fbverify.SizePrefixed(tt.data)
		if (err == nil) != tt.ok {
			t.Errorf("SizePrefixed(%v): err %v", tt.data, err)
		}
		if tt.ok && (len(fb) != 3 || end != 7) {
			t.Errorf("SizePrefixed(%v) = %v, %d", tt.data, fb, end)
		}
	}
}

// TestVisitBudget builds a payload whose entry point vector references one
// string millions of times: the verifier must stop at its budget.
func TestVisitBudget(t *testing.T) {
	b := flatbuffers.NewBuilder(1 << 20)
	name := b.CreateString("k")
	n := fbverify.MaxVisits + 1
	cuda.CUDAExecutableDefStartEntryPointsVector(b, n)
	for i := 0; i < n; i++ {
		b.PrependUOffsetT(name)
	}
	v := b.EndVector(n)
	cuda.CUDAExecutableDefStart(b)
	cuda.CUDAExecutableDefAddEntryPoints(b, v)
	b.FinishWithFileIdentifier(cuda.CUDAExecutableDefEnd(b), []byte("CUDA"))
	err := fbverify.CUDAExecutableDef(b.FinishedBytes())
	if err == nil || !strings.Contains(err.Error(), "tables and vector elements to visit") {
		t.Errorf("got %v", err)
	}
}

func TestCorruptPayloads(t *testing.T) {
	good := (&cuda.Executable{PTX: "ptx", EntryPoints: []cuda.EntryPoint{{Name: "k", BlockSize: [3]uint32{1, 1, 1}}}}).Marshal()
	root := int(binary.LittleEndian.Uint32(good))
	vt := root - int(int32(binary.LittleEndian.Uint32(good[root:])))
	tests := []struct {
		name   string
		mutate func(d []byte)
		text   string
	}{
		{"root outside", func(d []byte) { binary.LittleEndian.PutUint32(d, 1<<30) }, "table offset"},
		{"vtable outside", func(d []byte) { binary.LittleEndian.PutUint32(d[root:], 1<<31) }, "vtable offset"},
		{"odd vtable", func(d []byte) { binary.LittleEndian.PutUint16(d[vt:], 5) }, "bad vtable size 5"},
		{"tiny table", func(d []byte) { binary.LittleEndian.PutUint16(d[vt+2:], 2) }, "bad table size 2"},
		{"huge table", func(d []byte) { binary.LittleEndian.PutUint16(d[vt+2:], 0xFFFF) }, "outside buffer"},
		{"entry point offset outside", func(d []byte) {
			off := int(binary.LittleEndian.Uint16(d[vt+4:]))
			binary.LittleEndian.PutUint32(d[root+off:], 1<<30)
		}, "CUDAExecutableDef.entry_points: offset"},
	}
	for _, tt := range tests {
		d := append([]byte(nil), good...)
		tt.mutate(d)
		err := fbverify.CUDAExecutableDef(d)
		if err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.text)
		}
	}
}
