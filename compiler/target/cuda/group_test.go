package cuda_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/cuda"
)

// groupDispatch is a row group's PTX, decoded for the interpreter, and
// its contract; tiled is the same group with two rows a block.
type groupDispatch struct {
	kernel *simKernel
	group  *loopnest.Group
	ptx    string
	tiled  *groupDispatch
}

// groupDispatches compiles testdata/groups.mlir for cuda and returns each
// function's group dispatches by function name, and how many dispatches
// each function has in all.
func groupDispatches(t *testing.T, files ...string) (map[string]groupDispatch, map[string]int) {
	t.Helper()
	file := "groups.mlir"
	if len(files) > 0 {
		file = files[0]
	}
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("groups.mlir", src, cudaOptions, "")
	if err != nil {
		t.Fatal(err)
	}
	groups, counts := map[string]groupDispatch{}, map[string]int{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" || hal.InnerModule(op) == nil {
			return true
		}
		fn := op.ParentOp().SymName()
		fn = fn[:strings.LastIndex(fn, "_linalg_")]
		counts[fn]++
		for _, f := range hal.InnerModule(op).Body().Ops {
			a, ok := f.Attr(loopnest.GroupAttr).(*ir.DictAttr)
			if !ok {
				continue
			}
			mod, err := cuda.GeneratePTX(op, "sm_80")
			if err != nil {
				t.Fatal(err)
			}
			checkPTX(t, mod.PTX)
			d := groupDispatch{ptx: mod.PTX}
			if d.group, err = loopnest.DecodeGroup(a); err != nil {
				t.Fatal(err)
			}
			if d.kernel, err = parseSimKernel(mod.PTX, mod.Kernels[0].Name); err != nil {
				t.Fatal(err)
			}
			// Formation gives each block one row; the contract allows
			// more, which the block then runs one after another.
			g2 := *d.group
			g2.Tile = 2
			f.SetAttr(loopnest.GroupAttr, g2.Dict())
			mod2, err := cuda.GeneratePTX(op, "sm_80")
			if err != nil {
				t.Fatal(err)
			}
			d.tiled = &groupDispatch{ptx: mod2.PTX, group: &g2}
			if d.tiled.kernel, err = parseSimKernel(mod2.PTX, mod2.Kernels[0].Name); err != nil {
				t.Fatal(err)
			}
			groups[fn] = d
		}
		return false
	})
	return groups, counts
}

// runGroup runs a row group of f32 tensors in the interpreter: ins are
// its read bindings in order; it returns the written ones.
func runGroup(t *testing.T, d groupDispatch, ins ...[]float32) [][]float32 {
	t.Helper()
	var params []uint64
	var bufs []*simBuffer
	var outs []*simBuffer
	for l, b := range d.group.Bindings() {
		n := 4
		for _, s := range b.Type.Shape {
			n *= int(s)
		}
		buf := &simBuffer{addr: uint64(l+1) << 32, data: make([]byte, n)}
		if b.Write {
			outs = append(outs, buf)
		} else {
			if len(ins[l])*4 != n {
				t.Fatalf("binding %d needs %d bytes, the test has %d", l, n, 4*len(ins[l]))
			}
			for i, v := range ins[l] {
				binary.LittleEndian.PutUint32(buf.data[4*i:], math.Float32bits(v))
			}
		}
		bufs = append(bufs, buf)
		params = append(params, buf.addr)
	}
	rows := (d.group.RowCount() + d.group.Tile - 1) / d.group.Tile
	if err := d.kernel.run([3]int{int(rows), 1, 1}, params, bufs); err != nil {
		t.Fatal(err)
	}
	var res [][]float32
	for _, o := range outs {
		v := make([]float32, len(o.data)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(o.data[4*i:]))
		}
		res = append(res, v)
	}
	return res
}

// randoms returns n values in [lo, hi).
func randoms(r *rand.Rand, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return v
}

// softmaxRows is a plain softmax over rows of n elements, in float64.
func softmaxRows(x []float32, n int) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x)/n; r++ {
		row := x[r*n : (r+1)*n]
		m := math.Inf(-1)
		for _, v := range row {
			m = math.Max(m, float64(v))
		}
		s := 0.0
		for _, v := range row {
			s += math.Exp(float64(v) - m)
		}
		for i, v := range row {
			out[r*n+i] = math.Exp(float64(v)-m) / s
		}
	}
	return out
}

// TestGroupPTX: each chain of groups.mlir is one dispatch on cuda, and its
// PTX, run in the interpreter, computes what plain loops do (within f32
// rounding: the shared reductions reassociate).
func TestGroupPTX(t *testing.T) {
	groups, counts := groupDispatches(t)
	for fn, want := range map[string]int{"softmax": 1, "softmax3d": 1, "layernorm": 1, "decay": 1, "max_escapes": 3, "dense": 2, "scores": 2} {
		if counts[fn] != want {
			t.Errorf("@%s: %d dispatches, want %d", fn, counts[fn], want)
		}
	}
	for _, fn := range []string{"max_escapes", "dense"} {
		if _, ok := groups[fn]; ok {
			t.Errorf("@%s was grouped", fn)
		}
	}
	if _, ok := groups["scores"]; !ok {
		t.Errorf("@scores: its softmax was not grouped")
	}
	r := rand.New(rand.NewSource(7))
	check := func(t *testing.T, name string, got []float32, want []float64, tol float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d results, want %d", name, len(got), len(want))
		}
		for i := range want {
			if d := math.Abs(float64(got[i]) - want[i]); !(d <= tol*math.Max(1, math.Abs(want[i]))) {
				t.Errorf("%s[%d] = %v, want %v", name, i, got[i], want[i])
				return
			}
		}
	}
	t.Run("softmax", func(t *testing.T) {
		x := randoms(r, 3*1000, -20, 20)
		x[5] = 88 // exp(x) alone would overflow: the max is subtracted first
		got := runGroup(t, groups["softmax"], x)
		check(t, "softmax", got[0], softmaxRows(x, 1000), 1e-6)
		got = runGroup(t, *groups["softmax"].tiled, x)
		check(t, "softmax, two rows a block", got[0], softmaxRows(x, 1000), 1e-6)
	})
	t.Run("softmax3d", func(t *testing.T) {
		x := randoms(r, 2*3*50, -5, 5)
		got := runGroup(t, groups["softmax3d"], x)
		check(t, "softmax3d", got[0], softmaxRows(x, 50), 1e-6)
	})
	t.Run("layernorm", func(t *testing.T) {
		const rows, n = 4, 300
		x := randoms(r, rows*n, -3, 7)
		gamma, beta := randoms(r, n, 0.5, 2), randoms(r, n, -1, 1)
		want := make([]float64, rows*n)
		for i := 0; i < rows; i++ {
			mean, sq := 0.0, 0.0
			for j := 0; j < n; j++ {
				mean += float64(x[i*n+j])
			}
			mean /= n
			for j := 0; j < n; j++ {
				d := float64(x[i*n+j]) - mean
				sq += d * d
			}
			rstd := 1 / math.Sqrt(sq/n+1e-5)
			for j := 0; j < n; j++ {
				want[i*n+j] = (float64(x[i*n+j])-mean)*rstd*float64(gamma[j]) + float64(beta[j])
			}
		}
		got := runGroup(t, groups["layernorm"], x, gamma, beta)
		check(t, "layernorm", got[0], want, 1e-5)
		got = runGroup(t, *groups["layernorm"].tiled, x, gamma, beta)
		check(t, "layernorm, two rows a block", got[0], want, 1e-5)
	})
	t.Run("decay", func(t *testing.T) {
		const rows, n = 2, 70
		x := randoms(r, rows*n, -1, 1)
		want := make([]float64, rows*n)
		for i := 0; i < rows; i++ {
			// In order, in f32, as the body says.
			acc := float32(0)
			for j := 0; j < n; j++ {
				acc = acc*0.5 + x[i*n+j]
			}
			for j := 0; j < n; j++ {
				want[i*n+j] = float64(x[i*n+j] - acc)
			}
		}
		got := runGroup(t, groups["decay"], x)
		check(t, "decay", got[0], want, 0)
	})
}
