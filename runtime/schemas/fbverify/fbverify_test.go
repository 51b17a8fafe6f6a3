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

func cudaPayload() []byte {
	return (&cuda.Executable{
		Name:        "exe",
		Images:      []cuda.Image{{Arch: "sm_52", PTX: "ptx52"}, {Arch: "sm_80", PTX: "ptx80"}},
		EntryPoints: []cuda.EntryPoint{{Name: "k", BlockSize: [3]uint32{1, 1, 1}}},
	}).Marshal()
}

func TestValidPayloads(t *testing.T) {
	c := cudaPayload()
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
	good := cudaPayload()
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
		{"image vector outside", func(d []byte) {
			off := int(binary.LittleEndian.Uint16(d[vt+4+2*6:]))
			binary.LittleEndian.PutUint32(d[root+off:], 1<<30)
		}, "CUDAExecutableDef.ptx_images: offset"},
		{"image arch outside", func(d []byte) {
			img := tableAt(d, root, vt, 6, 1)
			ivt := img - int(int32(binary.LittleEndian.Uint32(d[img:])))
			off := int(binary.LittleEndian.Uint16(d[ivt+4:]))
			binary.LittleEndian.PutUint32(d[img+off:], 1<<30)
		}, "CUDAExecutableDef.ptx_images[1].arch: offset"},
		{"image ptx unterminated", func(d []byte) {
			img := tableAt(d, root, vt, 6, 0)
			ivt := img - int(int32(binary.LittleEndian.Uint32(d[img:])))
			off := int(binary.LittleEndian.Uint16(d[ivt+6:]))
			s := img + off + int(binary.LittleEndian.Uint32(d[img+off:]))
			n := int(binary.LittleEndian.Uint32(d[s:]))
			d[s+4+n] = 'x'
		}, "CUDAExecutableDef.ptx_images[0].ptx"},
		{"null image", func(d []byte) {
			off := int(binary.LittleEndian.Uint16(d[vt+4+2*6:]))
			vec := root + off + int(binary.LittleEndian.Uint32(d[root+off:]))
			binary.LittleEndian.PutUint32(d[vec+4:], 0)
		}, "CUDAExecutableDef.ptx_images[0]: null table offset"},
		{"name outside", func(d []byte) {
			off := int(binary.LittleEndian.Uint16(d[vt+4+2*7:]))
			binary.LittleEndian.PutUint32(d[root+off:], 1<<30)
		}, "CUDAExecutableDef.name: offset"},
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

// tableAt returns the position of element i of the vector of tables in
// field slot of the table at root (vtable vt).
func tableAt(d []byte, root, vt, slot, i int) int {
	off := int(binary.LittleEndian.Uint16(d[vt+4+2*slot:]))
	vec := root + off + int(binary.LittleEndian.Uint32(d[root+off:]))
	e := vec + 4 + 4*i
	return e + int(binary.LittleEndian.Uint32(d[e:]))
}
