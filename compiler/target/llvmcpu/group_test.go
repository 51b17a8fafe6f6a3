package llvmcpu_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
)

// groupDispatch is the one dispatch of a function of testdata/groups.mlir
// after dispatch formation for llvm-cpu.
type groupDispatch struct {
	variant, entry *ir.Operation
	group          *loopnest.Group
	// args are the function arguments the dispatch takes, in order.
	args []int
}

// groupDispatches compiles testdata/groups.mlir for llvm-cpu up to
// dispatch formation and returns each function's dispatch, failing the
// test when a function has another count than one row group.
func groupDispatches(t *testing.T) map[string]*groupDispatch {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "groups.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("groups.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}}, "flow")
	if err != nil {
		t.Fatal(err)
	}
	executables := map[string]*ir.Operation{}
	for _, op := range s.Module.Op.Body().Ops {
		if op.Name == "hal.executable" {
			executables[op.SymName()] = op
		}
	}
	out := map[string]*groupDispatch{}
	for _, fn := range s.Module.Op.Body().Ops {
		if fn.Name != "func.func" || fn.Body() == nil {
			continue
		}
		var ds []flow.Dispatch
		ir.Walk(fn, func(o *ir.Operation) bool {
			if o.Name == "flow.dispatch" {
				ds = append(ds, flow.Dispatch{Op: o})
			}
			return true
		})
		if len(ds) != 1 {
			t.Fatalf("@%s has %d dispatches, want one row group", fn.SymName(), len(ds))
		}
		ref := ds[0].EntryPoints()[0]
		exe := executables[ref.Root]
		if exe == nil {
			t.Fatalf("@%s: no executable @%s", fn.SymName(), ref.Root)
		}
		gd := &groupDispatch{}
		ir.Walk(exe, func(o *ir.Operation) bool {
			if o.Name == "hal.executable.variant" && gd.variant == nil {
				gd.variant = o
			}
			return true
		})
		for _, o := range hal.InnerModule(gd.variant).Body().Ops {
			if o.Name == "func.func" && o.SymName() == ref.Nested[len(ref.Nested)-1] {
				gd.entry = o
			}
		}
		d, ok := gd.entry.Attr(loopnest.GroupAttr).(*ir.DictAttr)
		if !ok {
			t.Fatalf("@%s: the dispatch is not a row group", fn.SymName())
		}
		if gd.group, err = loopnest.DecodeGroup(d); err != nil {
			t.Fatal(err)
		}
		for _, v := range ds[0].Arguments() {
			i := slices.Index(fn.Body().Args, v)
			if i < 0 {
				t.Fatalf("@%s: a dispatch argument is not a function argument", fn.SymName())
			}
			gd.args = append(gd.args, i)
		}
		out[fn.SymName()] = gd
	}
	return out
}

// softmaxRows is the softmax of each row of length n of x, in float64.
func softmaxRows(x []float64, n int) []float64 {
	out := make([]float64, len(x))
	for r := 0; r < len(x)/n; r++ {
		row := x[r*n : (r+1)*n]
		mx := math.Inf(-1)
		for _, v := range row {
			mx = math.Max(mx, v)
		}
		sum := 0.0
		for _, v := range row {
			sum += math.Exp(v - mx)
		}
		for j, v := range row {
			out[r*n+j] = math.Exp(v-mx) / sum
		}
	}
	return out
}

// halfBits encodes v as an IEEE half; v must be zero or a normal half
// value exactly (the test's inputs are multiples of 1/8 below 8).
func halfBits(v float32) uint16 {
	if v == 0 {
		return 0
	}
	b := math.Float32bits(v)
	return uint16(b>>16&0x8000 | (b>>23&0xff-112)<<10 | b>>13&0x3ff)
}

// halfValue decodes an IEEE half, subnormals included (small softmax
// results are).
func halfValue(h uint16) float32 {
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	v := math.Ldexp(m, -24) // subnormal or zero
	if e > 0 {
		v = math.Ldexp(1024+m, e-25)
	}
	if h&0x8000 != 0 {
		v = -v
	}
	return float32(v)
}

// TestGroups compiles each function of testdata/groups.mlir to one row
// group, builds it with clang, runs it on local-sync with as many
// workgroups as its tile needs and checks the result against Go loops:
// softmaxes of many short rows (16 a workgroup), of rows long enough to
// be reduced pairwise, over two row loops, and in f16 (reduced pairwise
// although short); a layer norm with
// per-row stages between its reductions; and a reduction the contract
// does not let us reassociate, whose factor is a push constant.
func TestGroups(t *testing.T) {
	tools(t)
	gds := groupDispatches(t)
	rnd := rand.New(rand.NewSource(8))
	scaled := func(n int, s float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rnd.Intn(4001)-2000) / 2000 * s
		}
		return v
	}
	// run dispatches fn's group with the function's arguments (tensors
	// as f32 or raw bytes, scalars as f32) and returns the output's bytes.
	run := func(t *testing.T, fn string, outBytes int, args ...any) []byte {
		t.Helper()
		gd := gds[fn]
		if gd == nil {
			t.Fatalf("@%s was not compiled", fn)
		}
		lib, err := llvmcpu.GenerateC(gd.variant)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(lib.Source, "gi_r0") {
			t.Fatalf("@%s: the C keeps no per-row result in a local:\n%s", fn, lib.Source)
		}
		so, err := llvmcpu.Build(gd.variant, llvmcpu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := newRunner(t, so)
		var consts []uint32
		var bufs []*rhal.Buffer
		for _, a := range gd.args {
			switch v := args[a].(type) {
			case float32:
				consts = append(consts, math.Float32bits(v))
			case []float32:
				bufs = append(bufs, r.buffer(f32s(v)))
			case []byte:
				bufs = append(bufs, r.buffer(v))
			}
		}
		out := r.buffer(make([]byte, outBytes))
		bufs = append(bufs, out)
		wgs := (gd.group.RowCount() + gd.group.Tile - 1) / gd.group.Tile
		r.dispatch(0, uint32(wgs), consts, bufs...)
		data := make([]byte, outBytes)
		if err := out.Read(0, data); err != nil {
			t.Fatal(err)
		}
		return data
	}
	check := func(t *testing.T, got []float32, want []float64, abs, rel float64) {
		t.Helper()
		bad := 0
		for i, w := range want {
			if g := float64(got[i]); math.IsNaN(g) || math.Abs(g-w) > abs+rel*math.Abs(w) {
				if bad++; bad <= 5 {
					t.Errorf("element %d = %g, want %g", i, g, w)
				}
			}
		}
		if bad > 5 {
			t.Errorf("%d elements differ", bad)
		}
	}
	for _, c := range []struct {
		fn      string
		rows, n int
		scale   float32
	}{
		{"softmax", 1000, 37, 10},
		{"softmax_long", 3, 3000, 6},
		{"softmax3d", 13 * 30, 41, 8},
	} {
		t.Run(c.fn, func(t *testing.T) {
			x := scaled(c.rows*c.n, c.scale)
			got := fromF32s(run(t, c.fn, 4*len(x), x))
			check(t, got, softmaxRows(float64s(x), c.n), 1e-6, 1e-4)
		})
	}
	t.Run("softmax_f16", func(t *testing.T) {
		const rows, n = 6, 300
		x := make([]float32, rows*n)
		raw := make([]byte, 2*len(x))
		for i := range x {
			x[i] = float32(rnd.Intn(97)-48) / 8
			binary.LittleEndian.PutUint16(raw[2*i:], halfBits(x[i]))
		}
		data := run(t, "softmax_f16", len(raw), raw)
		got := make([]float32, len(x))
		for i := range got {
			got[i] = halfValue(binary.LittleEndian.Uint16(data[2*i:]))
		}
		// Every f16 op rounds to 11 bits, the row's sum at each step: in
		// order that costs 0.5% over 300 elements, pairwise (as half
		// accumulators always go) a few ulps.
		check(t, got, softmaxRows(float64s(x), n), 1e-5, 2e-3)
	})
	t.Run("layernorm", func(t *testing.T) {
		const rows, n = 130, 384
		x, gamma, beta := scaled(rows*n, 3), scaled(n, 2), scaled(n, 1)
		// A constant row has variance 0: rstd is 1/sqrt(eps).
		for j := 0; j < n; j++ {
			x[5*n+j] = 1.5
		}
		got := fromF32s(run(t, "layernorm", 4*len(x), x, gamma, beta))
		want := make([]float64, len(x))
		for i := 0; i < rows; i++ {
			row := float64s(x[i*n : (i+1)*n])
			mean := 0.0
			for _, v := range row {
				mean += v
			}
			mean /= n
			variance := 0.0
			for _, v := range row {
				variance += (v - mean) * (v - mean)
			}
			rstd := 1 / math.Sqrt(variance/n+1e-5)
			for j, v := range row {
				want[i*n+j] = (v-mean)*rstd*float64(gamma[j]) + float64(beta[j])
			}
		}
		check(t, got, want, 1e-4, 1e-4)
	})
	t.Run("decay", func(t *testing.T) {
		const rows, n = 70, 200
		x := scaled(rows*n, 1)
		const k = float32(0.75)
		got := fromF32s(run(t, "decay", 4*len(x), x, k))
		// The reduction in order, in f32 as the kernel computes it: each
		// step rounds, so the order is visible in the result.
		want := make([]float64, len(x))
		for i := 0; i < rows; i++ {
			acc := float32(0)
			for j := 0; j < n; j++ {
				acc = acc*k + x[i*n+j]
			}
			for j := 0; j < n; j++ {
				want[i*n+j] = float64(x[i*n+j] - acc)
			}
		}
		check(t, got, want, 0, 0)
	})
}

// float64s widens v exactly.
func float64s(v []float32) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

// TestGroupRefusals checks that a row group the C generator cannot
// compile is refused at its function or export with the reason.
func TestGroupRefusals(t *testing.T) {
	gd := groupDispatches(t)["softmax"]
	fn := gd.entry
	d := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr)
	with := func(name string, v ir.Attribute) *ir.DictAttr {
		out := &ir.DictAttr{}
		for _, e := range d.Entries {
			if e.Name == name {
				if v == nil {
					continue
				}
				e.Value = v
			}
			out.Entries = append(out.Entries, e)
		}
		return out
	}
	stages := d.Get("stages").(*ir.ArrayAttr)
	stage := func(s int, name string, v ir.Attribute) *ir.DictAttr {
		elems := slices.Clone(stages.Elems)
		sd := elems[s].(*ir.DictAttr)
		nd := &ir.DictAttr{}
		for _, e := range sd.Entries {
			if e.Name == name {
				e.Value = v
			}
			nd.Entries = append(nd.Entries, e)
		}
		elems[s] = nd
		return with("stages", &ir.ArrayAttr{Elems: elems})
	}
	// A body with one argument too few: stage 1's body in stage 2's place.
	st1Body := stages.Elems[1].(*ir.DictAttr).Get("body")
	for _, tc := range []struct {
		name string
		attr *ir.DictAttr
		want string
	}{
		{"no links", with("links", nil), "goiree.loop_group needs one list of links per stage"},
		{"missing body", stage(1, "body", ir.SymbolRefAttr{Root: "nowhere"}), "stage 1: body @nowhere is not defined in the module"},
		{"body signature", stage(2, "body", st1Body), "stage 2: body must take 2 indices, 2 inputs and 1 accumulators and return 1 values"},
		{"dynamic loop", stage(3, "ranges", &ir.ArrayAttr{Elems: []ir.Attribute{ir.IndexAttr(1000), ir.IndexAttr(ir.Dynamic)}}), "stage 3: loop d1 is dynamic; a group's loops are static"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn.SetAttr(loopnest.GroupAttr, tc.attr)
			defer fn.SetAttr(loopnest.GroupAttr, d)
			_, err := llvmcpu.GenerateC(gd.variant)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "func.func") {
				t.Fatalf("got %v\nwant an error on a function with %q", err, tc.want)
			}
		})
	}
	// The export's layout must be the group's: two bindings, no constants.
	t.Run("layout", func(t *testing.T) {
		var ex *ir.Operation
		for _, o := range gd.variant.Body().Ops {
			if o.Name == "hal.executable.export" {
				ex = o
			}
		}
		old := ex.Attr("layout")
		defer ex.SetAttr("layout", old)
		l := *old.(*hal.PipelineLayoutAttr)
		l.Bindings = l.Bindings[:1]
		ex.SetAttr("layout", &l)
		_, err := llvmcpu.GenerateC(gd.variant)
		if want := "layout has 1 bindings and 0 constants; the row group needs 2 and 0"; err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("got %v, want an error with %q", err, want)
		}
	})
}
