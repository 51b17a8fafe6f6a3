package loopnest_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// TestInlineStructuredRegions checks that a dispatch region holding a
// linalg op is dissolved (its body in front, its results replaced by what
// it returns, nested ops found at any depth) while a region without linalg
// ops stays, and that the result verifies and forms dispatches.
func TestInlineStructuredRegions(t *testing.T) {
	reg, m := parse(t, `func.func @f(%x: tensor<?xf32>, %n: index) -> (tensor<?xf32>, tensor<4xf32>) {
  %r = flow.dispatch.region -> (tensor<?xf32>{%n}) {
    %e = tensor.empty(%n) : tensor<?xf32>
    %g = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %in : f32
      linalg.yield %s : f32
    } -> tensor<?xf32>
    flow.return %g : tensor<?xf32>
  }
  %c = arith.constant dense<2.0> : tensor<4xf32>
  %k = flow.dispatch.region -> (tensor<4xf32>) {
    %m = arith.mulf %c, %c : tensor<4xf32>
    flow.return %m : tensor<4xf32>
  }
  %u = util.optimization_barrier %r : tensor<?xf32>
  return %u, %k : tensor<?xf32>, tensor<4xf32>
}`)
	if err := loopnest.InlineStructuredRegions(m.Op); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("inlined IR does not verify: %v", err)
	}
	text := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, want := range []string{
		"%e = tensor.empty(%n) : tensor<?xf32>\n  %g = linalg.generic",
		"%u = util.optimization_barrier %g : tensor<?xf32>",
		"%k = flow.dispatch.region -> (tensor<4xf32>) {\n    %m = arith.mulf %c, %c : tensor<4xf32>",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	if n := strings.Count(text, "flow.dispatch.region"); n != 1 {
		t.Errorf("%d dispatch regions left, want 1:\n%s", n, text)
	}
	if n, err := loopnest.Form(m.Op, nil); err != nil || n != 1 {
		t.Errorf("Form after inlining: %d dispatches, %v; want 1, nil", n, err)
	}
}

func TestInlineStructuredRegionsErrors(t *testing.T) {
	_, m := parse(t, `func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = flow.dispatch.region -> (tensor<4xf32>) {
    %c = linalg.copy ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    flow.return %c : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}`)
	// A body the parser would not build: the terminator returns nothing.
	var region *ir.Operation
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if o.Name == "flow.dispatch.region" {
			region = o
		}
		return true
	})
	region.Regions[0].Blocks[0].Terminator().Operands = nil
	err := loopnest.InlineStructuredRegions(m.Op)
	want := "in.mlir:2:8: error: 'flow.dispatch.region' op the body must end in a flow.return of its 1 results"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
