package llvmcpu

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Bodies of loop-nest kernels over (d0, d1, d2) with inputs x, y and the
// accumulator.
const matmulBodies = `
func.func private @fma(%d0: index, %d1: index, %d2: index, %x: f32, %y: f32, %acc: f32) -> f32 {
  %p = arith.mulf %x, %y : f32
  %s = arith.addf %acc, %p : f32
  return %s : f32
}
func.func private @swapped(%d0: index, %d1: index, %d2: index, %x: f32, %y: f32, %acc: f32) -> f32 {
  %p = arith.mulf %y, %x : f32
  %s = arith.addf %p, %acc : f32
  return %s : f32
}
func.func private @sub(%d0: index, %d1: index, %d2: index, %x: f32, %y: f32, %acc: f32) -> f32 {
  %p = arith.mulf %x, %y : f32
  %s = arith.subf %acc, %p : f32
  return %s : f32
}
func.func private @square(%d0: index, %d1: index, %d2: index, %x: f32, %y: f32, %acc: f32) -> f32 {
  %p = arith.mulf %x, %x : f32
  %s = arith.addf %acc, %p : f32
  return %s : f32
}
`

func TestMatchMatmul(t *testing.T) {
	m, err := dialect.Parse("bodies.mlir", []byte(matmulBodies), dialect.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	bodies := map[string]*ir.Operation{}
	for _, o := range m.Op.Body().Ops {
		bodies[o.SymName()] = o
	}
	dims := func(ds ...int) *ir.AffineMap {
		am := &ir.AffineMap{NumDims: 3, Results: []*ir.AffineExpr{}}
		for _, d := range ds {
			am.Results = append(am.Results, &ir.AffineExpr{Kind: ir.AffineDim, Pos: d})
		}
		return am
	}
	tensor := func(elem string) *ir.TensorType {
		t := ir.FloatType{Name: elem}
		return &ir.TensorType{Shape: []int64{8, 8}, Elem: t}
	}
	kernel := func(elem string, a, b, c *ir.AffineMap, its string) *loopnest.Kernel {
		k := &loopnest.Kernel{Ranges: []int64{8, 8, 8}, Tile: 1}
		for _, ch := range its {
			k.Iterators = append(k.Iterators, map[rune]string{'p': "parallel", 'r': "reduction"}[ch])
		}
		k.Inputs = []loopnest.Operand{{Type: tensor(elem), Map: a}, {Type: tensor(elem), Map: b}}
		k.Outputs = []loopnest.Operand{{Type: tensor(elem), Map: c}}
		return k
	}
	for _, tc := range []struct {
		name string
		k    *loopnest.Kernel
		body string
		want bool
		a    int
	}{
		{"matmul", kernel("f32", dims(0, 2), dims(2, 1), dims(0, 1), "ppr"), "fma", true, 0},
		{"swapped-operands-and-body", kernel("f32", dims(2, 1), dims(0, 2), dims(0, 1), "ppr"), "swapped", true, 1},
		{"transposed-a-and-b", kernel("f32", dims(2, 0), dims(1, 2), dims(0, 1), "ppr"), "fma", true, 0},
		{"f64", kernel("f64", dims(0, 2), dims(2, 1), dims(0, 1), "ppr"), "fma", false, 0},
		{"subtracting-body", kernel("f32", dims(0, 2), dims(2, 1), dims(0, 1), "ppr"), "sub", false, 0},
		{"squaring-body", kernel("f32", dims(0, 2), dims(2, 1), dims(0, 1), "ppr"), "square", false, 0},
		{"elementwise-product", kernel("f32", dims(0, 1), dims(0, 1), dims(0, 1), "ppr"), "fma", false, 0},
		{"two-reductions", kernel("f32", dims(0, 2), dims(2, 1), dims(0), "prr"), "fma", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := matchMatmul(tc.k, bodies[tc.body])
			if ok != tc.want {
				t.Fatalf("matchMatmul = %v, want %v", ok, tc.want)
			}
			if ok && (got.a != tc.a || got.i != 0 || got.j != 1 || got.k != 2 || got.batch != -1) {
				t.Fatalf("shape %+v, want A = input %d, i, j, k = d0, d1, d2", got, tc.a)
			}
		})
	}
}

func TestCPUFlags(t *testing.T) {
	x86 := &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"}
	arm := &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-arm_64"}
	configured := &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64", Config: &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "cpu", Value: ir.StringAttr{Value: "skylake-avx512"}}, {Name: "cpu_features", Value: ir.StringAttr{Value: "+avx512f"}}}}}
	for _, tc := range []struct {
		name   string
		target *hal.ExecutableTargetAttr
		opts   Options
		want   string
	}{
		{"baseline", x86, Options{}, ""},
		{"named", x86, Options{CPU: "znver3"}, "-march=znver3 -mprefer-vector-width=512"},
		{"features", x86, Options{CPUFeatures: "+avx2, +fma"}, "-Xclang -target-feature -Xclang +avx2 -Xclang -target-feature -Xclang +fma"},
		{"arm-named", arm, Options{CPU: "cortex-a76"}, "-mcpu=cortex-a76"},
		{"config-wins", configured, Options{CPU: "znver3", CPUFeatures: "+sse4.2"}, "-march=skylake-avx512 -mprefer-vector-width=512 -Xclang -target-feature -Xclang +avx512f"},
		{"bad-feature", x86, Options{CPUFeatures: "avx2"}, `error: invalid CPU feature "avx2" (want +name or -name, comma separated)`},
		{"bad-name", x86, Options{CPU: "x; rm"}, `error: invalid CPU name "x; rm"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			flags, err := cpuFlags(tc.target, tc.opts)
			got := strings.Join(flags, " ")
			if err != nil {
				got = "error: " + err.Error()
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}
