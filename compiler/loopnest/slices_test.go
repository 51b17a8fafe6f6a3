package loopnest_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// TestInsertSliceTied checks the dispatch formed for a tensor.insert_slice:
// its result is tied to the destination operand (so the kernel writes into
// the destination's buffer and the elements outside the slice keep their
// values), the kernel loops over the source and stores at the slice's
// place, and the layout has the source read-only and the destination
// writable.
func TestInsertSliceTied(t *testing.T) {
	reg, m := parse(t, `func.func @f(%x: tensor<?x8xf32>, %y: tensor<?x3xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %y, %c0 : tensor<?x3xf32>
  %r = tensor.insert_slice %y into %x[0, 0] [%n, 3] [1, 1] : tensor<?x3xf32> into tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}`)
	n, err := loopnest.Form(m.Op, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("formed %d dispatches, want 1", n)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("after forming: %v", err)
	}
	text := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, want := range []string{
		"-> %x{%",
		"ranges = [-1 : index, 3 : index], iterator_types = [\"parallel\", \"parallel\"], inputs = [{type = tensor<?x3xf32>, map = affine_map<(d0, d1) -> (d0, d1)>}], outputs = [{type = tensor<?x8xf32>, map = affine_map<(d0, d1) -> (d0, d1)>, partial}]",
		"#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]",
		"func.func private @f_linalg_0_body(%d0: index, %d1: index, %in: f32, %out: f32) -> f32 {",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
}

// TestInsertSliceWhole checks that inserting into all of the destination
// forms no dispatch: the result is the source.
func TestInsertSliceWhole(t *testing.T) {
	reg, m := parse(t, `func.func @f(%x: tensor<2x3xf32>, %y: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = tensor.insert_slice %y into %x[0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}`)
	n, err := loopnest.Form(m.Op, nil)
	if err != nil || n != 0 {
		t.Fatalf("formed %d dispatches, err %v; want 0", n, err)
	}
	if text := ir.PrintModule(m, reg, ir.PrintOptions{}); !strings.Contains(text, "return %y : tensor<2x3xf32>") {
		t.Fatalf("the source should be returned:\n%s", text)
	}
}

func TestInsertSliceErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"dynamic-offset", `func.func @f(%x: tensor<8xf32>, %y: tensor<2xf32>, %o: index) -> tensor<8xf32> {
  %r = tensor.insert_slice %y into %x[%o] [2] [1] : tensor<2xf32> into tensor<8xf32>
  return %r : tensor<8xf32>
}`, "in.mlir:2:8: error: 'tensor.insert_slice' op dynamic offsets and strides (dimension 0) are not supported yet; only sizes may be dynamic"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, m := parse(t, tc.src)
			_, err := loopnest.Form(m.Op, nil)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}

// TestFormUtilFunctions checks that linalg ops and slices in util.func and
// util.initializer bodies are dispatched like those of func.func.
func TestFormUtilFunctions(t *testing.T) {
	reg, m := parse(t, `util.global private @g : tensor<4xf32>
util.initializer {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%c : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  util.global.store %f, @g : tensor<4xf32>
  util.return
}
util.func public @f(%x: tensor<8xf32>) -> tensor<4xf32> {
  %s = tensor.extract_slice %x[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
  util.return %s : tensor<4xf32>
}`)
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
	for _, want := range []string{"flow.dispatch @initializer_linalg_0::@initializer_linalg_0", "flow.dispatch @f_linalg_0::@f_linalg_0"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
}
