package transform_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/transform"
	"github.com/goiree/goiree/compiler/ir"
)

// argmaxPayload holds four row argmax generics over tensor<1xNxf32>; only
// the first (N = 128, a multiple of 64, this body) fits argmaxSpec: the
// second's row of 100 is not a multiple of 64, the third's body keeps the
// last maximum (oge), the fourth reduces a tensor<2x64> to two rows.
const argmaxPayload = `#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @f(%a: tensor<1x128xf32>, %b: tensor<1x100xf32>, %c: tensor<2x64xf32>, %m: tensor<1xf32>, %i: tensor<1xi64>, %m2: tensor<2xf32>, %i2: tensor<2xi64>) -> (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<2xi64>) {
  %r0:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<1x128xf32>) outs(%m, %i : tensor<1xf32>, tensor<1xi64>) {
  ^bb0(%x: f32, %y: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %mx = arith.maximumf %x, %y : f32
    %gt = arith.cmpf ogt, %x, %y : f32
    %s = arith.select %gt, %jj, %k : i64
    linalg.yield %mx, %s : f32, i64
  } -> (tensor<1xf32>, tensor<1xi64>)
  %r1:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]} ins(%b : tensor<1x100xf32>) outs(%m, %i : tensor<1xf32>, tensor<1xi64>) {
  ^bb0(%x: f32, %y: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %mx = arith.maximumf %x, %y : f32
    %gt = arith.cmpf ogt, %x, %y : f32
    %s = arith.select %gt, %jj, %k : i64
    linalg.yield %mx, %s : f32, i64
  } -> (tensor<1xf32>, tensor<1xi64>)
  %r2:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<1x128xf32>) outs(%m, %i : tensor<1xf32>, tensor<1xi64>) {
  ^bb0(%x: f32, %y: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %mx = arith.maximumf %x, %y : f32
    %gt = arith.cmpf oge, %x, %y : f32
    %s = arith.select %gt, %jj, %k : i64
    linalg.yield %mx, %s : f32, i64
  } -> (tensor<1xf32>, tensor<1xi64>)
  %r3:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]} ins(%c : tensor<2x64xf32>) outs(%m2, %i2 : tensor<2xf32>, tensor<2xi64>) {
  ^bb0(%x: f32, %y: f32, %k: i64):
    %j = linalg.index 1 : index
    %jj = arith.index_cast %j : index to i64
    %mx = arith.maximumf %x, %y : f32
    %gt = arith.cmpf ogt, %x, %y : f32
    %s = arith.select %gt, %jj, %k : i64
    linalg.yield %mx, %s : f32, i64
  } -> (tensor<2xf32>, tensor<2xi64>)
  return %r0#1, %r1#1, %r2#1, %r3#1 : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<2xi64>
}
`

const argmaxSpec = `#in = affine_map<(d0, d1) -> (d0, d1)>
#out = affine_map<(d0, d1) -> (d0)>
module attributes {transform.with_named_sequence} {
  func.func private @argmax_row(%x: tensor<1x?xf32>) -> tensor<1xi64>
  transform.named_sequence @match(%g: !transform.any_op {transform.readonly}) -> (!transform.any_op) {
    transform.match.operation_name %g ["linalg.generic"] : !transform.any_op
    %s = transform.match.structured failures(propagate) %g : (!transform.any_op) -> (!transform.any_op) {
    ^bb0(%op: !transform.any_op):
      %two = transform.param.constant 2 : i64 -> !transform.param<i64>
      %one = transform.param.constant 1 : i64 -> !transform.param<i64>
      %rank = transform.match.structured.rank %op : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %rank, %two : !transform.param<i64>
      transform.match.structured.dim %op[0] {parallel} : !transform.any_op
      transform.match.structured.dim %op[-1] {reduction} : !transform.any_op
      %ni = transform.match.structured.num_inputs %op : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi eq %ni, %one : !transform.param<i64>
      %no = transform.match.structured.num_inits %op : (!transform.any_op) -> !transform.param<i64>
      transform.match.param.cmpi ge %no, %two : !transform.param<i64>
      transform.match.structured.yield %op : !transform.any_op
    }
    %in = transform.get_operand %s[0] : (!transform.any_op) -> !transform.any_value
    transform.iree.match.cast_compatible_type %in = tensor<1x?xf32> : !transform.any_value
    transform.iree.match.dim_is_multiple_of %in[1], 64 : !transform.any_value
    transform.iree.match.regions %s : !transform.any_op {
    ^bb0(%t: tensor<1x?xf32>, %em: tensor<1xf32>, %ei: tensor<1xi64>):
      %r:2 = linalg.generic {indexing_maps = [#in, #out, #out], iterator_types = ["parallel", "reduction"]} ins(%t : tensor<1x?xf32>) outs(%em, %ei : tensor<1xf32>, tensor<1xi64>) {
      ^bb0(%x: f32, %y: f32, %k: i64):
        %j = linalg.index 1 : index
        %jj = arith.index_cast %j : index to i64
        %mx = arith.maximumf %x, %y : f32
        %gt = arith.cmpf ogt, %x, %y : f32
        %s2 = arith.select %gt, %jj, %k : i64
        linalg.yield %mx, %s2 : f32, i64
      } -> (tensor<1xf32>, tensor<1xi64>)
    }
    transform.yield %g : !transform.any_op
  }
  transform.named_sequence @call(%g: !transform.any_op {transform.readonly}) {
    %module = transform.util.get_nearest_symbol_table %g : (!transform.any_op) -> !transform.any_op
    %f = transform.util.import_symbol @argmax_row into %module if undefined : (!transform.any_op) -> !transform.any_op
    %in = transform.get_operand %g[0] : (!transform.any_op) -> !transform.any_value
    %out = transform.get_result %g[1] : (!transform.any_op) -> !transform.any_value
    transform.func.cast_and_call %f(%in) -> %out before %g {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%module: !transform.any_op) {
    %funcs = transform.structured.match ops{["util.func"]} in %module : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%f: !transform.any_op):
      transform.foreach_match in %f @match -> @call : (!transform.any_op) -> (!transform.any_op)
    }
    transform.apply_dce to %module : !transform.any_op
    transform.yield
  }
}
`

func TestMatchers(t *testing.T) {
	reg := dialect.NewRegistry()
	m, err := ir.Parse("payload.mlir", []byte(argmaxPayload), reg)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spec.mlir")
	if err := os.WriteFile(file, []byte(argmaxSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := transform.ApplyFile(file, m.Op, reg); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatal(err)
	}
	out := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, want := range []string{
		"tensor.cast %a : tensor<1x128xf32> to tensor<1x?xf32>",
		"func.call @argmax_row(",
		"func.return %1, %r1#1, %r2#1, %r3#1 :",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "func.call @argmax_row("); n != 1 {
		t.Errorf("%d calls, want 1 (of the first generic):\n%s", n, out)
	}
	if n := strings.Count(out, "linalg.generic"); n != 3 {
		t.Errorf("%d generics left, want 3 (the first replaced and dead):\n%s", n, out)
	}
}
