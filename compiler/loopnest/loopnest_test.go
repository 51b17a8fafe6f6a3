package loopnest_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	_ "github.com/goiree/goiree/compiler/target/llvmcpu"
)

func parse(t *testing.T, src string) (*ir.Registry, *ir.Module) {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("in.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	return reg, m
}

const softmaxMax = `func.func @rowmax(%x: tensor<3x100xf32>) -> tensor<3xf32> {
  %e = tensor.empty() : tensor<3xf32>
  %cst = arith.constant -3.0e38 : f32
  %i = linalg.fill ins(%cst : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = linalg.reduce ins(%x : tensor<3x100xf32>) outs(%i : tensor<3xf32>) dimensions = [1] (%in: f32, %acc: f32) {
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  }
  return %r : tensor<3xf32>
}`

// TestForm checks the kernels formed for a fill and a reduction: one
// dispatch each, the reduction reading the fill's result as its init, the
// empty tensor gone, and each kernel's dictionary decoding back.
func TestForm(t *testing.T) {
	reg, m := parse(t, softmaxMax)
	n, err := loopnest.Form(m.Op, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("formed %d dispatches, want 2", n)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("after forming: %v", err)
	}
	text := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, want := range []string{
		"%i = flow.dispatch @rowmax_linalg_0::@rowmax_linalg_0[%0]() : () -> tensor<3xf32>",
		"%r = flow.dispatch @rowmax_linalg_1::@rowmax_linalg_1[%1](%x, %i) : (tensor<3x100xf32>, tensor<3xf32>) -> tensor<3xf32>",
		"ranges = [3 : index, 100 : index], iterator_types = [\"parallel\", \"reduction\"]",
		"outputs = [{type = tensor<3xf32>, map = affine_map<(d0, d1) -> (d0)>, init}]",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if strings.Contains(text, "tensor.empty") || strings.Contains(text, "linalg.") {
		t.Errorf("linalg ops or the empty tensor are left:\n%s", text)
	}
	var kernels []*loopnest.Kernel
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if d, ok := o.Attr(loopnest.Attr).(*ir.DictAttr); ok {
			k, err := loopnest.Decode(d)
			if err != nil {
				t.Fatal(err)
			}
			kernels = append(kernels, k)
		}
		return true
	})
	if len(kernels) != 2 || kernels[0].Tile != 1 || kernels[0].NumConstants() != 0 || kernels[1].OuterParallel() != 0 || len(kernels[1].Inits()) != 1 {
		t.Fatalf("kernels: %+v", kernels)
	}
}

// TestFormDynamic checks that dynamic dimensions become push constants
// (and the dispatch's argument and result dims), and that an empty
// tensor's sizes are used directly.
func TestFormDynamic(t *testing.T) {
	reg, m := parse(t, `func.func @f(%x: tensor<?x?xf32>, %n: index, %k: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%n, %k) : tensor<?x?xf32>
  %r = linalg.transpose ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) permutation = [1, 0]
  return %r : tensor<?x?xf32>
}`)
	if _, err := loopnest.Form(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("after forming: %v", err)
	}
	text := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, want := range []string{
		"layout(#hal.pipeline.layout<constants = 4,",
		"ranges = [-1 : index, -1 : index]",
		"%r = flow.dispatch @f_linalg_0::@f_linalg_0[%3](%4, %5, %6, %7, %x) : (i32, i32, i32, i32, tensor<?x?xf32>{%1, %3}) -> tensor<?x?xf32>{%n, %k}",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
}

// TestFormErrors checks what cannot be dispatched yet fails at the op.
func TestFormErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"in-region", `func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = flow.dispatch.region -> (tensor<4xf32>) {
    %c = linalg.copy ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    flow.return %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}`, "in.mlir:3:10: error: 'linalg.copy' op linalg ops are dispatched only from a function's body; this one is inside 'flow.dispatch.region'"},
		{"scalar-f64", `func.func @f(%v: f64, %o: tensor<4xf64>) -> tensor<4xf64> {
  %r = linalg.fill ins(%v : f64) outs(%o : tensor<4xf64>) -> tensor<4xf64>
  return %r : tensor<4xf64>
}`, "in.mlir:2:8: error: 'linalg.fill' op scalar input #0 of type 'f64' cannot be passed to a dispatch (push constants are 32 bits"},
		{"body-op", `func.func @f(%x: tensor<4xf32>, %o: tensor<4xf32>) -> tensor<4xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%o : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = tensor.empty() : tensor<2xf32>
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "in.mlir:4:10: error: 'tensor.empty' op is not supported in a linalg body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := parse(t, tc.src)
			_, err := loopnest.Form(m.Op, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
	_, m := parse(t, softmaxMax)
	gpu := &hal.ExecutableTargetAttr{Backend: "cuda", Format: "cuda-nvptx-fb"}
	if _, err := loopnest.Form(m.Op, []*hal.ExecutableTargetAttr{gpu}); err == nil || !strings.Contains(err.Error(), "in.mlir:4:8: error: 'linalg.fill' op cannot compile 'linalg.fill' for target backend 'cuda'") {
		t.Fatalf("cuda target: %v", err)
	}
}

// TestDecodeRejects checks that hand-written kernel dictionaries that
// would index outside their buffers are refused.
func TestDecodeRejects(t *testing.T) {
	for _, tc := range []struct{ dict, want string }{
		{`{body = @b, ranges = [8 : index], iterator_types = ["parallel"], inputs = [{type = tensor<4xf32>, map = affine_map<(d0) -> (d0)>}], outputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0)>}], tile = 1 : index}`,
			"input #0: index 0 (d0) must be a loop index whose range fits dimension 0 (size 4)"},
		{`{body = @b, ranges = [8 : index], iterator_types = ["parallel"], inputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0 + 1)>}], outputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0)>}], tile = 1 : index}`,
			"input #0: index 0 (d0 + 1) reaches 8, outside dimension 0 (size 8)"},
		{`{body = @b, ranges = [8 : index], iterator_types = ["parallel"], inputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0 floordiv 2)>}], outputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0)>}], tile = 1 : index}`,
			"input #0: index 0 (d0 floordiv 2) must be a loop index, a constant, or a sum of non-negative multiples"},
		{`{body = @b, ranges = [4 : index], iterator_types = ["parallel"], inputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0 * -1 + 3)>}], outputs = [{type = tensor<4xf32>, map = affine_map<(d0) -> (d0)>}], tile = 1 : index}`,
			"input #0: index 0 (d0 * (-1) + 3) must be a loop index, a constant, or a sum of non-negative multiples"},
		{`{body = @b, ranges = [8 : index, 2 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<2xf32>, map = affine_map<(d0, d1) -> (d1)>}], tile = 1 : index}`,
			"output #0's map must index by parallel loops only"},
		{`{body = @b, ranges = [8 : index, -1 : index], iterator_types = ["parallel", "reduction"], inputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1) -> (d0)>}], outputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1) -> (d0)>}], tile = 1 : index}`,
			"dynamic loop d1 is not the bare index of any operand dimension"},
		{`{body = @b, ranges = [8 : index], iterator_types = ["parallel"], inputs = [], outputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0)>}], tile = 0 : index}`,
			"needs a positive tile"},
	} {
		a, err := ir.ParseAttribute(tc.dict, dialect.NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		_, err = loopnest.Decode(a.(*ir.DictAttr))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.dict, err, tc.want)
		}
	}
}
