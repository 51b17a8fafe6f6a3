package vulkan_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

// f16Bytes encodes small integers, exact in f16, as f16 bytes.
func f16Bytes(v ...int) []byte {
	out := make([]byte, 2*len(v))
	for i, x := range v {
		var h uint16
		if x != 0 {
			a := x
			if a < 0 {
				a, h = -a, 0x8000
			}
			e := 0
			for 1<<(e+1) <= a {
				e++
			}
			h |= uint16(e+15)<<10 | uint16((a<<10>>e)&0x3ff)
		}
		binary.LittleEndian.PutUint16(out[2*i:], h)
	}
	return out
}

// TestCooperativeMatrix: a module with NVIDIA's cooperative matrices is
// refused, naming the feature, by a device without VK_NV_cooperative_matrix
// (lavapipe); a device with it runs it (an NVIDIA GPU), multiplying two
// 16 x 16 f16 matrices of small integers exactly.
func TestCooperativeMatrix(t *testing.T) {
	d := device(t)
	cache, err := d.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	exe := &spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main", BindingCount: 3}}, Code: glslc(t, "coop_matmul_nv")}
	mm, err := cache.PrepareExecutable(hal.ExecutableParams{Name: "@coop", Format: spirv.Format, Data: exe.Marshal()})
	features := strings.Join(d.Features(), " ")
	if !strings.Contains(features, "VK_NV_cooperative_matrix") || !strings.Contains(features, "vulkanMemoryModel") {
		want := "preparing vulkan executable @coop: its SPIR-V declares capability "
		if status.CodeOf(err) != status.Unimplemented || err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("device features %q: error %v, want Unimplemented containing %q", features, err, want)
		}
		if strings.Contains(features, "vulkanMemoryModel") && !strings.Contains(err.Error(), "CooperativeMatrixNV, which needs the device feature cooperativeMatrix (VK_NV_cooperative_matrix)") {
			t.Fatalf("error %v does not name the cooperative matrices", err)
		}
		t.Log(err)
		return
	}
	if err != nil {
		t.Fatalf("device features %q: %v", features, err)
	}
	defer mm.Release()
	a, b := make([]int, 256), make([]int, 256)
	for i := range a {
		a[i], b[i] = i%7-3, (i*5)%9-4
	}
	ba, bb, bc := alloc(t, d, 0, 512), alloc(t, d, 0, 512), alloc(t, d, 0, 1024)
	if err := ba.Write(0, f16Bytes(a...)); err != nil {
		t.Fatal(err)
	}
	if err := bb.Write(0, f16Bytes(b...)); err != nil {
		t.Fatal(err)
	}
	err = submit(t, d, func(cb *hal.CommandBuffer) error {
		return cb.DispatchWith(mm, 0, [3]uint32{1, 1, 1}, nil,
			[]hal.Binding{{Buffer: ba, Length: hal.WholeBuffer}, {Buffer: bb, Length: hal.WholeBuffer}, {Buffer: bc, Length: hal.WholeBuffer}})
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 1024)
	if err := bc.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	got := floats(raw)
	for i := 0; i < 16; i++ {
		for j := 0; j < 16; j++ {
			want := 0
			for k := 0; k < 16; k++ {
				want += a[i*16+k] * b[k*16+j]
			}
			if g := got[i*16+j]; g != float32(want) || math.IsNaN(float64(g)) {
				t.Fatalf("c[%d][%d] = %v, want %d", i, j, g, want)
			}
		}
	}
}
