package loopnest_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestEpilogueFlowGolden pins --compile-to=flow of a dense layer: one
// flow.dispatch, whose kernel has the bias add and relu as its epilogue.
// For a Vulkan target, which does not compile epilogues yet, the bias
// and relu stay dispatches of their own.
func TestEpilogueFlowGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "dense.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("dense.mlir", src, pipeline.Options{}, "flow")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Print()
	golden := filepath.Join("testdata", "dense.flow.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("--compile-to=flow differs from %s (run with -update to accept):\n%s", golden, got)
	}
	if n := strings.Count(got, "flow.dispatch @"); n != 1 {
		t.Errorf("%d flow.dispatch ops, want 1:\n%s", n, got)
	}

	s, err = pipeline.Compile("dense.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}}, "flow")
	if err != nil {
		t.Fatal(err)
	}
	got = s.Print()
	if n := strings.Count(got, "flow.dispatch @"); n != 3 || strings.Contains(got, "epilogue") {
		t.Errorf("vulkan: %d flow.dispatch ops, want 3 and no epilogue:\n%s", n, got)
	}
}

// The elementwise consumer of each program below is folded into the
// reduction's dispatch when fused is set, else each op keeps its own.
const epilogueHead = `#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#v = affine_map<(d0) -> (d0)>
`

const epilogueMatmul = `  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%acc : tensor<8x8xf32>) -> tensor<8x8xf32>
`

func TestEpilogueFormation(t *testing.T) {
	for _, tc := range []struct {
		name, src  string
		dispatches int
		want       []string // in the formed module
	}{
		{"bias-relu", `func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>, %c: tensor<8xf32>) -> tensor<8x8xf32> {
` + epilogueMatmul + `  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %c : tensor<8x8xf32>, tensor<8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %cv: f32, %o: f32):
    %s = arith.addf %m, %cv : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%y : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}`, 1, []string{
			"%r = flow.dispatch @f_linalg_0::@f_linalg_0[%0](%a, %b, %c) : (tensor<8x4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>",
			"func.func private @f_linalg_0_epilogue(%d0: index, %d1: index, %acc: f32, %arg0: f32) -> f32",
			"epilogue = @f_linalg_0_epilogue, epilogue_inputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1, d2) -> (d1)>}]",
		}},
		{"transposed-loops-f16", `func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf16> {
` + epilogueMatmul + `  %h = tensor.empty() : tensor<8x8xf16>
  %y = linalg.generic {indexing_maps = [#tr, #tr], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x8xf32>) outs(%h : tensor<8x8xf16>) {
  ^bb0(%m: f32, %o: f16):
    %i = linalg.index 0 : index
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x8xf16>
  return %y : tensor<8x8xf16>
}`, 1, []string{
			// The consumer's d0 is the matmul's column loop d1.
			"func.func private @f_linalg_0_epilogue(%d0: index, %d1: index, %acc: f32) -> f16",
			"outputs = [{type = tensor<8x8xf16>, map = affine_map<(d0, d1, d2) -> (d0, d1)>, acc = f32}]",
		}},
		{"row-sum-scale", `func.func @f(%x: tensor<3x100xf32>) -> tensor<3xf32> {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %s = linalg.reduce ins(%x : tensor<3x100xf32>) outs(%acc : tensor<3xf32>) dimensions = [1] (%in: f32, %a: f32) {
    %t = arith.addf %in, %a : f32
    linalg.yield %t : f32
  }
  %y = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]} ins(%s : tensor<3xf32>) outs(%e : tensor<3xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<3xf32>
  return %y : tensor<3xf32>
}`, 1, []string{"epilogue = @f_linalg_0_epilogue, epilogue_inputs = []"}},
		{"used-twice", `func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>) {
` + epilogueMatmul + `  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %o: f32):
    %n = arith.negf %m : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  return %mm, %y : tensor<8x8xf32>, tensor<8x8xf32>
}`, 2, nil},
		{"read-twice-by-one", `func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32> {
` + epilogueMatmul + `  %y = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %mm : tensor<8x8xf32>, tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %m2: f32, %o: f32):
    %n = arith.mulf %m, %m2 : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}`, 1, []string{"%n = arith.mulf %acc, %acc : f32"}},
		{"other-shape", `func.func @f(%x: tensor<4x9xf32>) -> tensor<4x9xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%x : tensor<4x9xf32>) outs(%acc : tensor<4xf32>) dimensions = [1] (%in: f32, %a: f32) {
    %t = arith.addf %in, %a : f32
    linalg.yield %t : f32
  }
  %e2 = tensor.empty() : tensor<4x9xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %s : tensor<4x9xf32>, tensor<4xf32>) outs(%e2 : tensor<4x9xf32>) {
  ^bb0(%v: f32, %sv: f32, %o: f32):
    %t = arith.subf %v, %sv : f32
    linalg.yield %t : f32
  } -> tensor<4x9xf32>
  return %y : tensor<4x9xf32>
}`, 1, []string{loopnest.GroupAttr + " = "}}, // not an epilogue: the default llvm-cpu target forms a row group
		{"transposed-read", `func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32> {
` + epilogueMatmul + `  %y = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %o: f32):
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}`, 2, nil},
		{"scalar-argument", `func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>, %s: f32) -> tensor<8x8xf32> {
` + epilogueMatmul + `  %y = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> ()>, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %s : tensor<8x8xf32>, f32) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %sv: f32, %o: f32):
    %t = arith.mulf %m, %sv : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}`, 2, nil},
		{"reads-zero-fill-output", `func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32> {
` + epilogueMatmul + `  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x8xf32>) outs(%acc : tensor<8x8xf32>) {
  ^bb0(%m: f32, %o: f32):
    %t = arith.addf %m, %o : f32
    linalg.yield %t : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}`, 2, nil},
		{"no-reduction", `func.func @f(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %e = tensor.empty() : tensor<8x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%t : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %o: f32):
    %n = arith.negf %m : f32
    linalg.yield %n : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}`, 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg, m := parse(t, epilogueHead+tc.src)
			n, err := loopnest.Form(m.Op, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := dialect.Verify(reg, m.Op); err != nil {
				t.Fatalf("after forming: %v", err)
			}
			text := ir.PrintModule(m, reg, ir.PrintOptions{})
			if n != tc.dispatches || strings.Count(text, "flow.dispatch @") != n {
				t.Errorf("formed %d dispatches, want %d:\n%s", n, tc.dispatches, text)
			}
			if epi := tc.dispatches == 1 && !strings.Contains(text, loopnest.GroupAttr); epi != strings.Contains(text, "epilogue =") {
				t.Errorf("epilogue expected: %v:\n%s", epi, text)
			}
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in:\n%s", w, text)
				}
			}
			if strings.Contains(text, "linalg.") || strings.Contains(text, "tensor.empty") {
				t.Errorf("linalg ops or empty tensors are left:\n%s", text)
			}
			// Every kernel decodes back to the dictionary it came from.
			ir.Walk(m.Op, func(o *ir.Operation) bool {
				if d, ok := o.Attr(loopnest.Attr).(*ir.DictAttr); ok {
					k, err := loopnest.Decode(d)
					if err != nil {
						t.Fatal(err)
					}
					if a, b := ir.AttrString(k.Dict()), ir.AttrString(d); a != b {
						t.Errorf("decoded kernel encodes as\n%s\nwant\n%s", a, b)
					}
				}
				return true
			})
		})
	}
}

// TestEpilogueBadInput checks that an elementwise op that cannot be a
// kernel body is not folded, and reports its own location as before.
func TestEpilogueBadInput(t *testing.T) {
	_, m := parse(t, epilogueHead+`func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>) -> tensor<8x8xf32> {
`+epilogueMatmul+`  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) {
  ^bb0(%m: f32, %o: f32):
    %d = tensor.empty() : tensor<2xf32>
    linalg.yield %m : f32
  } -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}`)
	_, err := loopnest.Form(m.Op, nil)
	if want := "in.mlir:13:10: error: 'tensor.empty' op is not supported in a linalg body"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %q", err, want)
	}
}

// TestFused: what makes a kernel need a target that compiles epilogues
// and accumulator types (the GPU targets refuse such kernels by it).
func TestFused(t *testing.T) {
	tt := &ir.TensorType{Shape: []int64{4}, Elem: ir.FloatType{Name: "f32"}}
	for _, c := range []struct {
		k    loopnest.Kernel
		want string
	}{
		{loopnest.Kernel{Outputs: []loopnest.Operand{{Type: tt}}}, ""},
		{loopnest.Kernel{Epilogue: "epi", Outputs: []loopnest.Operand{{Type: tt}}}, "an epilogue (@epi)"},
		{loopnest.Kernel{Outputs: []loopnest.Operand{{Type: tt}, {Type: tt, Acc: ir.FloatType{Name: "f64"}}}}, "output #1 accumulated as f64"},
	} {
		if got := c.k.Fused(); got != c.want {
			t.Errorf("Fused() = %q, want %q", got, c.want)
		}
	}
}
