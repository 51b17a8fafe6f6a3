package cuda_test

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestAccumulate16 runs IREE's large_linalg_matmul case in small (rows
// of 1024 ones times columns of 1024 f16 0.01s, accumulated in f16; IREE
// has 2048) in the interpreter: as written, each step rounds to f16 and
// the sum is 10.140625, what the CPU targets compute (numpy's f16 loop
// gives the same); with --iree-cuda-accumulate-16bit-in-f32=true the
// tensor cores sum in f32 and round once, to about the exact 10.2421875
// (f32's own roundings may move it by an f16 ulp).
func TestAccumulate16(t *testing.T) {
	const m, n, k = 3, 5, 1024
	for _, tc := range []struct {
		name  string
		flags map[string]string
		want  float64
		ulps  float64 // allowed distance, in f16 ulps at 8..16 (2^-7)
	}{
		{"per step", nil, 10.140625, 0},
		{"f32 sums", map[string]string{"iree-cuda-accumulate-16bit-in-f32": "true"}, 10.2421875, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ks, _ := mmaKernels(t, "sm_80", tc.flags)
			sm := ks["f16_f16_dyn"]
			if sm.kernel == nil {
				t.Fatal("no kernel for @f16_f16_dyn")
			}
			one, hundredth := simHalfBits("f16", 1), simHalfBits("f16", 0.01)
			fill := func(count int, h uint16) []byte {
				b := make([]byte, 2*count)
				for i := 0; i < count; i++ {
					binary.LittleEndian.PutUint16(b[2*i:], h)
				}
				return b
			}
			sizes := make([]int, len(sm.k.Ranges))
			sizes[sm.m.I], sizes[sm.m.J], sizes[sm.m.R] = m, n, k
			var params, consts []uint64
			var bufs []*simBuffer
			var out *simBuffer
			for bi, b := range sm.k.Bindings() {
				count := 1
				for _, e := range b.Map.Results {
					count *= sizes[e.Pos]
				}
				buf := &simBuffer{addr: uint64(bi+1) << 32}
				switch {
				case b.Role == "in" && b.Index == 0:
					buf.data = fill(count, one)
				case b.Role == "in":
					buf.data = fill(count, hundredth)
				case b.Role == "init":
					buf.data = fill(count, 0)
				default:
					buf.data = fill(count, 0x7fff) // a NaN the kernel must overwrite
					out = buf
				}
				bufs = append(bufs, buf)
				params = append(params, buf.addr)
			}
			for _, b := range sm.k.Bindings() {
				for i, e := range b.Map.Results {
					if b.Type.Shape[i] < 0 {
						consts = append(consts, uint64(sizes[e.Pos]))
					}
				}
			}
			params = append(params, consts...)
			tiles := (sizes[sm.k.OuterParallel()] + int(sm.k.Tile) - 1) / int(sm.k.Tile)
			if err := sm.kernel.run([3]int{max(tiles, 1), 1, 1}, params, bufs); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < m*n; i++ {
				if got := simHalfValue("f16", binary.LittleEndian.Uint16(out.data[2*i:])); math.Abs(got-tc.want) > tc.ulps/128 {
					t.Fatalf("element %d = %g, want %g within %g ulps", i, got, tc.want, tc.ulps)
				}
			}
		})
	}
}
