package cuda_test

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// TestIndexedReadsInterpreted runs testdata/gather.mlir's kernels, whose
// bodies read a table at indices they compute, in the PTX interpreter for
// sm_52 and sm_80 and checks every element against Go loops: one direct
// load per read (no search over the table), indices outside the table
// clamped into it.
func TestIndexedReadsInterpreted(t *testing.T) {
	clamp := func(i int32, n int) int {
		return int(max(0, min(i, int32(n-1))))
	}
	for _, arch := range []string{"sm_52", "sm_80"} {
		t.Run(arch, func(t *testing.T) {
			ds := simDispatches(t, "gather.mlir", arch)

			g := find(t, ds, "pick_rows", "tensor.extract")
			if g.nest.FirstIndexed() < 0 {
				t.Fatalf("the gather kernel has no indexed input")
			}
			if !strings.Contains(g.ptx, "ld.global.f32") {
				t.Errorf("gather kernel: no f32 load from the table")
			}
			table := make([]float32, 15)
			for i := range table {
				table[i] = float32(i)*1.5 - 4
			}
			idx := []int32{4, 0, -3, 9, 2, math.MaxInt32}
			out := runNest(t, g, map[string][]byte{"in0": i32Bytes(idx), "in1": f32Bytes(table)})["out0"]
			// One read of the table per output element: a direct load,
			// not a search over the table's 15 elements.
			if n := g.kernel.executed["ld.global.f32"]; n != len(idx)*3 {
				t.Errorf("gather kernel: %d table loads run, want %d (one per output element)", n, len(idx)*3)
			}
			for i, x := range idx {
				for j := 0; j < 3; j++ {
					want := table[clamp(x, 5)*3+j]
					if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*(i*3+j):])); got != want {
						t.Errorf("gather[%d][%d] = %v, want %v", i, j, got, want)
					}
				}
			}

			s := find(t, ds, "pick_sum", "tensor.extract")
			tb := []int8{-128, 7, 100, -1, 55, 127, -60}
			pairs := []int32{0, 6, 5, 5, -1, 20, 3, 2}
			raw := make([]byte, len(tb))
			for i, v := range tb {
				raw[i] = byte(v)
			}
			out = runNest(t, s, map[string][]byte{"in0": i32Bytes(pairs), "in1": raw})["out0"]
			for i := 0; i < 4; i++ {
				want := int32(tb[clamp(pairs[2*i], 7)]) + int32(tb[clamp(pairs[2*i+1], 7)])
				if got := int32(binary.LittleEndian.Uint32(out[4*i:])); got != want {
					t.Errorf("gather_sum[%d] = %d, want %d", i, got, want)
				}
			}

			p := find(t, ds, "pick_types", "tensor.extract")
			halfBits := []uint16{0x3800, 0xbd00, 0x4000, 0x4300, 0xc700} // 0.5 -1.25 2 3.5 -7
			bools := []byte{1, 0, 0, 1, 1}
			at := []int32{4, 1, -2, 9}
			hb := make([]byte, 2*len(halfBits))
			for i, h := range halfBits {
				binary.LittleEndian.PutUint16(hb[2*i:], h)
			}
			res := runNest(t, p, map[string][]byte{"in0": i32Bytes(at), "in1": hb, "in2": bools})
			for i, x := range at {
				if got, want := binary.LittleEndian.Uint16(res["out0"][2*i:]), halfBits[clamp(x, 5)]; got != want {
					t.Errorf("pick_types f16[%d] = %#x, want %#x", i, got, want)
				}
				if got, want := res["out1"][i], bools[clamp(x, 5)]; got != want {
					t.Errorf("pick_types i1[%d] = %d, want %d", i, got, want)
				}
			}
		})
	}
}

func i32Bytes(v []int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

func f32Bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}
