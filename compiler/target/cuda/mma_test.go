package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/cuda"
)

// mmaKernels compiles testdata/mma.mlir with the cuda target's flags
// and generates PTX for arch, returning each dispatch's kernel by its
// function's name and the PTX.
func mmaKernels(t *testing.T, arch string, flags map[string]string) (map[string]simMatmul, string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "mma.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	opts := cudaOptions
	opts.TargetFlags = flags
	s, err := pipeline.Compile("mma.mlir", src, opts, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]simMatmul{}
	var all strings.Builder
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" || hal.InnerModule(op) == nil {
			return true
		}
		mod, err := cuda.GeneratePTX(op, arch)
		if err != nil {
			t.Fatal(err)
		}
		checkPTX(t, mod.PTX)
		all.WriteString(mod.PTX)
		for _, f := range hal.InnerModule(op).Body().Ops {
			d, ok := f.Attr(loopnest.Attr).(*ir.DictAttr)
			if !ok {
				continue
			}
			k, err := loopnest.Decode(d)
			if err != nil {
				t.Fatal(err)
			}
			name := mod.Kernels[0].Name
			sk, err := parseSimKernel(mod.PTX, name)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name[:strings.Index(name, "_linalg")]] = simMatmul{k: k, m: gpuloops.MatmulOf(k), kernel: sk}
		}
		return false
	})
	return out, all.String()
}

// TestMMAPTX checks which matmuls take the tensor-core path: f16 and
// bf16 multiply-adds into f32 on sm_80 and newer, not before, and not a
// body that only has the matmul's shape; 16-bit accumulators only with
// --iree-cuda-accumulate-16bit-in-f32=true.
func TestMMAPTX(t *testing.T) {
	acc16 := map[string]string{"iree-cuda-accumulate-16bit-in-f32": "true"}
	for _, tc := range []struct {
		arch  string
		flags map[string]string
		want  map[string]bool
	}{
		{"sm_80", nil, map[string]bool{"f16_f32": true, "f16_f32_dyn": true, "f16_f16_dyn": false, "bf16_f32_dyn": true, "bf16_bf16_dyn": false, "f16_bmm": true, "f16_maxplus": false, "f32_dyn": false}},
		{"sm_80", acc16, map[string]bool{"f16_f32": true, "f16_f16_dyn": true, "bf16_bf16_dyn": true, "f16_maxplus": false, "f32_dyn": false}},
		{"sm_90", acc16, map[string]bool{"f16_f32": true, "bf16_bf16_dyn": true, "f16_maxplus": false}},
		{"sm_75", acc16, map[string]bool{"f16_f32": false, "f16_f16_dyn": false, "f16_maxplus": false}},
	} {
		ks, _ := mmaKernels(t, tc.arch, tc.flags)
		for fn, want := range tc.want {
			sm, ok := ks[fn]
			if !ok {
				t.Fatalf("%s: no kernel for @%s", tc.arch, fn)
			}
			got := false
			for _, in := range sm.kernel.insts {
				if strings.HasPrefix(in.op, "mma.sync") {
					got = true
				}
			}
			if got != want {
				t.Errorf("%s @%s: mma.sync %v, want %v", tc.arch, fn, got, want)
			}
		}
	}
}

// TestMMAMatmulPTX runs the tensor-core kernels in the interpreter
// against Go loops, on shapes that take the asynchronous copies (rows of
// A and B 16-byte aligned) with whole and partial blocks and steps, and
// the element-by-element ones (ragged K or N, misaligned bindings),
// under both orders of cp.async's writes. Inputs are multiples of 1/4 up
// to 2, so that every product and partial sum is exact in f32 and the
// results must match exactly (16-bit outputs: the exact sum rounded
// once).
func TestMMAMatmulPTX(t *testing.T) {
	ks, _ := mmaKernels(t, "sm_80", map[string]string{"iree-cuda-accumulate-16bit-in-f32": "true"})
	r := rand.New(rand.NewSource(17))
	type shape struct{ b, m, n, k, z int }
	for _, tc := range []struct {
		fn     string
		shapes []shape
	}{
		{"f16_f32", []shape{{1, 256, 256, 256, 2}}},
		{"f16_f32_dyn", []shape{{1, 130, 136, 96, 1}, {1, 130, 70, 96, 1}, {1, 1, 1, 32, 1}, {1, 129, 264, 40, 3}, {1, 17, 8, 0, 1}, {1, 33, 40, 37, 1}}},
		{"f16_f16_dyn", []shape{{1, 130, 136, 96, 2}, {1, 45, 70, 96, 1}}},
		{"bf16_f32_dyn", []shape{{1, 64, 128, 72, 1}, {1, 30, 33, 35, 1}}},
		{"bf16_bf16_dyn", []shape{{1, 144, 72, 64, 1}, {1, 7, 5, 3, 1}}},
		{"f16_bmm", []shape{{2, 48, 40, 64, 1}, {2, 20, 12, 9, 1}}},
	} {
		sm, ok := ks[tc.fn]
		if !ok || sm.m == nil {
			t.Fatalf("no matmul kernel for @%s", tc.fn)
		}
		for _, s := range tc.shapes {
			for _, misalign := range []uint64{0, 4} {
				for _, early := range []bool{false, true} {
					name := fmt.Sprintf("%s/%dx%dx%dx%d/z%d/offset%d/early%v", tc.fn, s.b, s.m, s.n, s.k, s.z, misalign, early)
					t.Run(name, func(t *testing.T) {
						simAsyncEarly(sm.kernel, early)
						fast := misalign == 0 && s.k%8 == 0 && s.n%8 == 0
						simMMACase(t, sm, r, s.b, s.m, s.n, s.k, s.z, misalign, fast, nil)
					})
				}
			}
		}
	}
}

// TestMMAFallbackPTX runs 16-bit matmuls compiled for sm_75, which has
// no mma.sync m16n8k16, in the interpreter: they take the register-blocked
// tiled kernel with 16-bit elements staged one at a time, which must give
// the same results (exact, from inputs whose sums are exact).
func TestMMAFallbackPTX(t *testing.T) {
	ks, _ := mmaKernels(t, "sm_75", nil)
	r := rand.New(rand.NewSource(29))
	for _, fn := range []string{"f16_f32_dyn", "f16_f16_dyn", "bf16_f32_dyn"} {
		for _, sh := range [][4]int{{130, 70, 40, 1}, {7, 300, 9, 2}} {
			t.Run(fmt.Sprintf("%s/%dx%dx%d", fn, sh[0], sh[1], sh[2]), func(t *testing.T) {
				simMMACase(t, ks[fn], r, 1, sh[0], sh[1], sh[2], sh[3], 0, false, nil)
			})
		}
	}
}

// simElem reads and writes one element type in memory.
type simElem struct {
	size int
	enc  func(v float64, e []byte)
	dec  func(e []byte) float64
}

func simElemOf(t ir.Type) simElem {
	switch typ := ir.TypeString(t); typ {
	case "f16", "bf16":
		return simElem{2, func(v float64, e []byte) { binary.LittleEndian.PutUint16(e, simHalfBits(typ, float32(v))) },
			func(e []byte) float64 { return simHalfValue(typ, binary.LittleEndian.Uint16(e)) }}
	}
	return simElem{4, func(v float64, e []byte) { binary.LittleEndian.PutUint32(e, math.Float32bits(float32(v))) },
		func(e []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(e))) }}
}

// simMMACase runs one matmul of nb matrices m x kk times kk x n onto
// random inits (or the kernel's zero fill) and checks every element;
// fast says whether the asynchronous copies must have run. Inputs are
// multiples of 1/4 from -2 to 2 (with tf32, input element i is
// tf32.perturb(x, i) instead, and the reference multiplies
// tf32.round of it).
func simMMACase(t *testing.T, sm simMatmul, r *rand.Rand, nb, m, n, kk, z int, misalign uint64, fast bool, tf32 *simTF32) {
	k, mm := sm.k, sm.m
	sizes := make([]int, len(k.Ranges))
	sizes[mm.I], sizes[mm.J], sizes[mm.R] = m, n, kk
	for _, b := range mm.Batch {
		sizes[b] = nb
	}
	var params, consts []uint64
	var bufs []*simBuffer
	vals := map[string][]float64{}
	var out *simBuffer
	var outElem simElem
	for bi, b := range k.Bindings() {
		count := 1
		for i, e := range b.Map.Results {
			sz := sizes[e.Pos]
			if b.Type.Shape[i] == ir.Dynamic {
				consts = append(consts, uint64(sz))
			} else if b.Type.Shape[i] != int64(sz) {
				t.Fatalf("binding %d: static size %d, the case has %d", bi, b.Type.Shape[i], sz)
			}
			count *= sz
		}
		el := simElemOf(b.Type.Elem)
		buf := &simBuffer{addr: uint64(bi+1)<<32 + misalign, data: make([]byte, el.size*count)}
		v := make([]float64, count)
		for i := range v {
			if b.Role == "out" {
				// A NaN the kernel must overwrite.
				for j := 0; j < el.size; j++ {
					buf.data[el.size*i+j] = 0xff
				}
				continue
			}
			v[i] = float64(r.Intn(17)-8) / 4
			if tf32 != nil && b.Role == "in" {
				v[i] = tf32.perturb(v[i], i)
			}
			el.enc(v[i], buf.data[el.size*i:])
		}
		vals[fmt.Sprintf("%s%d", b.Role, b.Index)] = v
		if b.Role == "out" {
			out, outElem = buf, el
		}
		bufs = append(bufs, buf)
		params = append(params, buf.addr)
	}
	params = append(params, consts...)
	tiles := (sizes[k.OuterParallel()] + int(k.Tile) - 1) / int(k.Tile)
	clear(sm.kernel.executed)
	if err := sm.kernel.run([3]int{max(tiles, 1), 1, z}, params, bufs); err != nil {
		t.Fatal(err)
	}
	copies := sm.kernel.executed["cp.async.cg.shared.global"]
	if want := fast && kk > 0 && m > 0 && n > 0; (copies > 0) != want {
		t.Errorf("%d asynchronous copies, want them: %v", copies, want)
	}
	a, bm, init := vals["in0"], vals["in1"], vals["init0"]
	if tf32 != nil {
		for _, x := range [][]float64{a, bm} {
			for i := range x {
				x[i] = tf32.round(x[i])
			}
		}
	}
	bad := 0
	for bt := 0; bt < nb; bt++ {
		for i := 0; i < m; i++ {
			for j := 0; j < n; j++ {
				o := (bt*m+i)*n + j
				acc := 0.0
				if init != nil {
					acc = init[o]
				}
				for l := 0; l < kk; l++ {
					acc += a[(bt*m+i)*kk+l] * bm[(bt*kk+l)*n+j]
				}
				// Round once to the output's type, as the kernel does.
				e := make([]byte, outElem.size)
				outElem.enc(acc, e)
				want := outElem.dec(e)
				if got := outElem.dec(out.data[outElem.size*o:]); got != want {
					if bad++; bad <= 5 {
						t.Errorf("element (%d, %d, %d) = %g, want %g", bt, i, j, got, want)
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d elements differ", bad, nb*m*n)
	}
}

// simTF32 perturbs inputs below TF32's precision and rounds them as the
// TF32 kernels do.
type simTF32 struct {
	perturb func(x float64, i int) float64
	round   func(x float64) float64
}

// TestMMATF32 checks that --iree-cuda-allow-tf32=true records allow_tf32
// in the executable target, that f32 matmuls then run on tensor cores in
// TF32 (and not without it: TestMMAPTX), and runs them in the
// interpreter on aligned, ragged and misaligned shapes: inputs are
// multiples of 1/4 with their 13 bits below TF32's significand made
// nonzero, just above the multiple (rounding down) or just below it
// (rounding up), so the results must be the exact sums of the multiples,
// which the f32 loop would not give.
func TestMMATF32(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "mma.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	opts := cudaOptions
	opts.TargetFlags = map[string]string{"iree-cuda-allow-tf32": "true"}
	s, err := pipeline.Compile("mma.mlir", src, opts, "")
	if err != nil {
		t.Fatal(err)
	}
	variants := 0
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" {
			return true
		}
		variants++
		if v, ok := hal.VariantTarget(op).Config.Get(cuda.TF32Key).(ir.BoolAttr); !ok || !v.Value {
			t.Errorf("variant @%s: %s is not true: %s", op.SymName(), cuda.TF32Key, ir.AttrString(hal.VariantTarget(op).Config))
		}
		return false
	})
	if variants == 0 {
		t.Error("no variants")
	}
	opts.TargetFlags["iree-cuda-allow-tf32"] = "maybe"
	if _, err := pipeline.Compile("mma.mlir", src, opts, ""); err == nil || !strings.Contains(err.Error(), "--iree-cuda-allow-tf32=maybe: the value must be true or false") {
		t.Errorf("a bad value: got %v", err)
	}
	ks, _ := mmaKernels(t, "sm_80", map[string]string{"iree-cuda-allow-tf32": "true"})
	sm := ks["f32_dyn"]
	mma := false
	for _, in := range sm.kernel.insts {
		if in.op == "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32" {
			mma = true
		}
	}
	if !mma {
		t.Fatal("f32_dyn does not use mma.sync m16n8k8 with allow_tf32")
	}
	tf := &simTF32{
		perturb: func(x float64, i int) float64 {
			if x == 0 {
				return 0
			}
			b := math.Float32bits(float32(x))
			if i%2 == 0 {
				b += 0x0fff // below half of the dropped bits' range: down
			} else {
				b -= 0x0800 // the multiple less a little: up, to it
			}
			return float64(math.Float32frombits(b))
		},
		round: func(x float64) float64 {
			b := math.Float32bits(float32(x))
			return float64(math.Float32frombits((b + 0x1000) &^ 0x1fff))
		},
	}
	r := rand.New(rand.NewSource(23))
	for _, sh := range [][4]int{{130, 136, 96, 1}, {33, 70, 37, 1}, {128, 260, 16, 3}, {5, 4, 1, 1}} {
		for _, misalign := range []uint64{0, 4} {
			for _, early := range []bool{false, true} {
				t.Run(fmt.Sprintf("%dx%dx%d/offset%d/early%v", sh[0], sh[1], sh[2], misalign, early), func(t *testing.T) {
					simAsyncEarly(sm.kernel, early)
					fast := misalign == 0 && sh[2]%4 == 0 && sh[1]%4 == 0
					simMMACase(t, sm, r, 1, sh[0], sh[1], sh[2], sh[3], misalign, fast, tf)
				})
			}
		}
	}
}
