package stablehlo_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

// TestPrettyForms parses each op in StableHLO's custom form and in MLIR's
// generic form (as StableHLO's printers write them) and checks that both
// give the same IR, and that the custom form prints back as written.
func TestPrettyForms(t *testing.T) {
	for _, tc := range []struct {
		name, args, res, pretty, generic string
	}{
		{"transpose", "%x: tensor<1x5xf32>", "tensor<5x1xf32>",
			`%r = stablehlo.transpose %x, dims = [1, 0] {name = "t"} : (tensor<1x5xf32>) -> tensor<5x1xf32>`,
			`%r = "stablehlo.transpose"(%x) {name = "t", permutation = array<i64: 1, 0>} : (tensor<1x5xf32>) -> tensor<5x1xf32>`},
		{"reshape", "%x: tensor<5x1xf32>", "tensor<5x1x1xf32>",
			`%r = stablehlo.reshape %x : (tensor<5x1xf32>) -> tensor<5x1x1xf32>`,
			`%r = "stablehlo.reshape"(%x) : (tensor<5x1xf32>) -> tensor<5x1x1xf32>`},
		{"broadcast_in_dim", "%x: tensor<5x1xf32>", "tensor<5x1x5xf32>",
			`%r = stablehlo.broadcast_in_dim %x, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x1x5xf32>`,
			`%r = "stablehlo.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<5x1xf32>) -> tensor<5x1x5xf32>`},
		{"broadcast_in_dim-scalar", "%x: tensor<f32>", "tensor<2xf32>",
			`%r = mhlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<2xf32>`,
			`%r = "mhlo.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2xf32>`},
		{"broadcast", "%x: tensor<3xf32>", "tensor<2x3xf32>",
			`%r = stablehlo.broadcast %x, sizes = [2] : (tensor<3xf32>) -> tensor<2x3xf32>`,
			`%r = "stablehlo.broadcast"(%x) {broadcast_sizes = array<i64: 2>} : (tensor<3xf32>) -> tensor<2x3xf32>`},
		{"reverse", "%x: tensor<5xf32>", "tensor<5xf32>",
			`%r = stablehlo.reverse %x, dims = [0] : tensor<5xf32>`,
			`%r = "stablehlo.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<5xf32>) -> tensor<5xf32>`},
		{"iota", "", "tensor<4x2xi32>",
			`%r = stablehlo.iota dim = 1 : tensor<4x2xi32>`,
			`%r = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4x2xi32>`},
		{"slice", "%x: tensor<4x4xf32>", "tensor<2x1xf32>",
			`%r = stablehlo.slice %x [0:2, 1:3:2] : (tensor<4x4xf32>) -> tensor<2x1xf32>`,
			`%r = "stablehlo.slice"(%x) {limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 1>, strides = array<i64: 1, 2>} : (tensor<4x4xf32>) -> tensor<2x1xf32>`},
		{"concatenate", "%x: tensor<1x64xf32>, %y: tensor<1x10xf32>", "tensor<1x74xf32>",
			`%r = stablehlo.concatenate %x, %y, dim = 1 : (tensor<1x64xf32>, tensor<1x10xf32>) -> tensor<1x74xf32>`,
			`%r = "stablehlo.concatenate"(%x, %y) {dimension = 1 : i64} : (tensor<1x64xf32>, tensor<1x10xf32>) -> tensor<1x74xf32>`},
		{"pad", "%x: tensor<1x5x4xf32>, %v: tensor<f32>", "tensor<1x5x64xf32>",
			`%r = stablehlo.pad %x, %v, low = [0, 0, 0], high = [0, 0, 60], interior = [0, 0, 0] : (tensor<1x5x4xf32>, tensor<f32>) -> tensor<1x5x64xf32>`,
			`%r = "stablehlo.pad"(%x, %v) {edge_padding_high = array<i64: 0, 0, 60>, edge_padding_low = array<i64: 0, 0, 0>, interior_padding = array<i64: 0, 0, 0>} : (tensor<1x5x4xf32>, tensor<f32>) -> tensor<1x5x64xf32>`},
		{"dynamic_slice", "%x: tensor<4x4xf32>, %i: tensor<i32>, %j: tensor<i32>", "tensor<2x2xf32>",
			`%r = stablehlo.dynamic_slice %x, %i, %j, sizes = [2, 2] : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>`,
			`%r = "stablehlo.dynamic_slice"(%x, %i, %j) {slice_sizes = array<i64: 2, 2>} : (tensor<4x4xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>`},
		{"dynamic_update_slice", "%x: tensor<4x4xf32>, %u: tensor<2x2xf32>, %i: tensor<i32>, %j: tensor<i32>", "tensor<4x4xf32>",
			`%r = stablehlo.dynamic_update_slice %x, %u, %i, %j : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>`,
			`%r = "stablehlo.dynamic_update_slice"(%x, %u, %i, %j) : (tensor<4x4xf32>, tensor<2x2xf32>, tensor<i32>, tensor<i32>) -> tensor<4x4xf32>`},
		{"select-two-types", "%c: tensor<i1>, %a: tensor<f32>, %b: tensor<f32>", "tensor<f32>",
			`%r = stablehlo.select %c, %a, %b : tensor<i1>, tensor<f32>`,
			`%r = "stablehlo.select"(%c, %a, %b) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>`},
		{"dot", "%a: tensor<5x3xf32>, %b: tensor<3x5xf32>", "tensor<5x5xf32>",
			`%r = stablehlo.dot %a, %b, precision = [DEFAULT, DEFAULT] {name = "dot.62"} : (tensor<5x3xf32>, tensor<3x5xf32>) -> tensor<5x5xf32>`,
			`%r = "stablehlo.dot"(%a, %b) {name = "dot.62", precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<5x3xf32>, tensor<3x5xf32>) -> tensor<5x5xf32>`},
		{"dot_general-batched", "%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>", "tensor<2x3x5xf32>",
			`%r = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>`,
			`%r = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision HIGHEST>]} : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>`},
		{"dot_general-matmul", "%a: tensor<3x4xf32>, %b: tensor<4x5xf32>", "tensor<3x5xf32>",
			`%r = mhlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>`,
			`%r = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>`},
		{"convolution", "%x: tensor<1x8x8x1xf32>, %k: tensor<3x3x1x2xf32>", "tensor<1x4x8x2xf32>",
			`%r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x4x8x2xf32>`,
			`%r = "stablehlo.convolution"(%x, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 1>, window_strides = array<i64: 2, 1>} : (tensor<1x8x8x1xf32>, tensor<3x3x1x2xf32>) -> tensor<1x4x8x2xf32>`},
		{"convolution-nchw", "%x: tensor<1x1x8x8xf32>, %k: tensor<2x1x3x3xf32>", "tensor<1x2x6x6xf32>",
			`%r = stablehlo.convolution(%x, %k) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {reverse = [false, false]} : (tensor<1x1x8x8xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x6x6xf32>`,
			`%r = "stablehlo.convolution"(%x, %k) {dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2, 3]>, window_reversal = array<i1: false, false>} : (tensor<1x1x8x8xf32>, tensor<2x1x3x3xf32>) -> tensor<1x2x6x6xf32>`},
		{"compare-type", "%a: tensor<3xi32>", "tensor<3xi1>",
			`%r = stablehlo.compare LT, %a, %a, TOTALORDER : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>`,
			`%r = "stablehlo.compare"(%a, %a) {compare_type = #stablehlo<comparison_type TOTALORDER>, comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>`},
		{"dynamic_iota", "%s: tensor<1xindex>", "tensor<4xi32>",
			`%r = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xindex>) -> tensor<4xi32>`,
			`%r = "stablehlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<1xindex>) -> tensor<4xi32>`},
		{"set_dimension_size", "%x: tensor<4x2xf32>, %n: tensor<i32>", "tensor<4x2xf32>",
			`%r = stablehlo.set_dimension_size %x, %n, dim = 1 : (tensor<4x2xf32>, tensor<i32>) -> tensor<4x2xf32>`,
			`%r = "stablehlo.set_dimension_size"(%x, %n) {dimension = 1 : i64} : (tensor<4x2xf32>, tensor<i32>) -> tensor<4x2xf32>`},
		{"get_dimension_size", "%x: tensor<4x2xf32>", "tensor<i32>",
			`%r = stablehlo.get_dimension_size %x, dim = 1 : (tensor<4x2xf32>) -> tensor<i32>`,
			`%r = "stablehlo.get_dimension_size"(%x) {dimension = 1 : i64} : (tensor<4x2xf32>) -> tensor<i32>`},
		{"cholesky", "%x: tensor<2x2xf32>", "tensor<2x2xf32>",
			`%r = stablehlo.cholesky %x, lower = true : tensor<2x2xf32>`,
			`%r = "stablehlo.cholesky"(%x) {lower = true} : (tensor<2x2xf32>) -> tensor<2x2xf32>`},
		{"einsum", "%a: tensor<8x16xf32>, %b: tensor<16x8xf32>", "tensor<8x8xf32>",
			`%r = stablehlo.einsum %a, %b, config = "ab,bc->ac" : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>`,
			`%r = "stablehlo.einsum"(%a, %b) {einsum_config = "ab,bc->ac"} : (tensor<8x16xf32>, tensor<16x8xf32>) -> tensor<8x8xf32>`},
		{"unary_einsum", "%a: tensor<8x16xf32>", "tensor<8xf32>",
			`%r = stablehlo.unary_einsum %a, config = "ab->a" : (tensor<8x16xf32>) -> tensor<8xf32>`,
			`%r = "stablehlo.unary_einsum"(%a) {einsum_config = "ab->a"} : (tensor<8x16xf32>) -> tensor<8xf32>`},
		{"rng_bit_generator", "%s: tensor<2xui64>", "tensor<2xui64>",
			`%r:2 = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)`,
			`%r:2 = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm PHILOX>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui32>)`},
		{"tuple", "%a: tensor<i32>, %b: tensor<f32>", "tuple<tensor<i32>, tensor<f32>>",
			`%r = stablehlo.tuple %a, %b : tuple<tensor<i32>, tensor<f32>>`,
			`%r = "stablehlo.tuple"(%a, %b) : (tensor<i32>, tensor<f32>) -> tuple<tensor<i32>, tensor<f32>>`},
		{"get_tuple_element", "%t: tuple<tensor<i32>, tensor<f32>>", "tensor<f32>",
			`%r = stablehlo.get_tuple_element %t[1] : (tuple<tensor<i32>, tensor<f32>>) -> tensor<f32>`,
			`%r = "stablehlo.get_tuple_element"(%t) {index = 1 : i32} : (tuple<tensor<i32>, tensor<f32>>) -> tensor<f32>`},
		{"optimization_barrier", "%a: tensor<4xf32>, %b: tensor<i32>", "tensor<4xf32>",
			`%r:2 = stablehlo.optimization_barrier %a, %b : tensor<4xf32>, tensor<i32>`,
			`%r:2 = "stablehlo.optimization_barrier"(%a, %b) : (tensor<4xf32>, tensor<i32>) -> (tensor<4xf32>, tensor<i32>)`},
		{"reduce_precision", "%a: tensor<3x4xf32>", "tensor<3x4xf32>",
			`%r = stablehlo.reduce_precision %a, format = e8m10 : tensor<3x4xf32>`,
			`%r = "stablehlo.reduce_precision"(%a) {exponent_bits = 8 : i32, mantissa_bits = 10 : i32} : (tensor<3x4xf32>) -> tensor<3x4xf32>`},
		{"composite", "%a: tensor<8x32xf32>", "tensor<8x32xf32>",
			`%r = stablehlo.composite "chlo.acos" %a {decomposition = @impl, version = 1 : i32} : (tensor<8x32xf32>) -> tensor<8x32xf32>`,
			`%r = "stablehlo.composite"(%a) {decomposition = @impl, name = "chlo.acos", version = 1 : i32} : (tensor<8x32xf32>) -> tensor<8x32xf32>`},
		{"replica_id", "", "tensor<ui32>",
			`%r = stablehlo.replica_id : tensor<ui32>`,
			`%r = "stablehlo.replica_id"() : () -> tensor<ui32>`},
		{"complex-one-type", "%a: tensor<2xf32>, %b: tensor<2xf32>", "tensor<2xcomplex<f32>>",
			`%r = stablehlo.complex %a, %b : tensor<2xcomplex<f32>>`,
			`%r = "stablehlo.complex"(%a, %b) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xcomplex<f32>>`},
		{"reduce-applies", "%x: tensor<4x8xf32>, %c: tensor<f32>", "tensor<4xf32>",
			`%r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>`,
			`%r = "stablehlo.reduce"(%x, %c) ({
  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
    %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%0) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1>} : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>`},
		{"reduce-region", "%x: tensor<5x1x1xf32>, %c: tensor<f32>", "tensor<5xf32>",
			`%r = stablehlo.reduce(%x init: %c) across dimensions = [1, 2] : (tensor<5x1x1xf32>, tensor<f32>) -> tensor<5xf32>
    reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %m = stablehlo.minimum %a, %b : tensor<f32>
    %n = stablehlo.negate %m : tensor<f32>
    stablehlo.return %n : tensor<f32>
  }`,
			`%r = "stablehlo.reduce"(%x, %c) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = "stablehlo.minimum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %n = "stablehlo.negate"(%m) : (tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%n) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 1, 2>} : (tensor<5x1x1xf32>, tensor<f32>) -> tensor<5xf32>`},
		{"reduce-two-inputs", "%x: tensor<4xf32>, %y: tensor<4xi32>, %c: tensor<f32>, %d: tensor<i32>", "tensor<f32>",
			`%r:2 = stablehlo.reduce(%x init: %c), (%y init: %d) across dimensions = [0] : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)
    reducer(%a: tensor<f32>, %b: tensor<f32>) (%i: tensor<i32>, %j: tensor<i32>) {
    %m = stablehlo.maximum %a, %b : tensor<f32>
    %k = stablehlo.add %i, %j : tensor<i32>
    stablehlo.return %m, %k : tensor<f32>, tensor<i32>
  }`,
			`%r:2 = "stablehlo.reduce"(%x, %y, %c, %d) ({
  ^bb0(%a: tensor<f32>, %i: tensor<i32>, %b: tensor<f32>, %j: tensor<i32>):
    %m = "stablehlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %k = "stablehlo.add"(%i, %j) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%m, %k) : (tensor<f32>, tensor<i32>) -> ()
  }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<4xi32>, tensor<f32>, tensor<i32>) -> (tensor<f32>, tensor<i32>)`},
		{"while", "%n: tensor<i32>, %x: tensor<f32>", "tensor<f32>",
			`%r:2 = stablehlo.while(%iterArg = %n, %iterArg_0 = %x) : tensor<i32>, tensor<f32>
   cond {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %c = stablehlo.compare GT, %iterArg, %z : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %m = stablehlo.subtract %iterArg, %one : tensor<i32>
    %y = stablehlo.add %iterArg_0, %iterArg_0 : tensor<f32>
    stablehlo.return %m, %y : tensor<i32>, tensor<f32>
  }`,
			`%r:2 = "stablehlo.while"(%n, %x) ({
  ^bb0(%iterArg: tensor<i32>, %iterArg_0: tensor<f32>):
    %z = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %c = "stablehlo.compare"(%iterArg, %z) {comparison_direction = #stablehlo<comparison_direction GT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%iterArg: tensor<i32>, %iterArg_0: tensor<f32>):
    %one = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %m = "stablehlo.subtract"(%iterArg, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %y = "stablehlo.add"(%iterArg_0, %iterArg_0) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m, %y) : (tensor<i32>, tensor<f32>) -> ()
  }) : (tensor<i32>, tensor<f32>) -> (tensor<i32>, tensor<f32>)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ret := "%r"
			if strings.HasPrefix(tc.pretty, "%r:2") {
				ret = "%r#0"
			}
			if tc.name == "while" {
				ret = "%r#1"
			}
			wrap := func(body string) string {
				return "func.func @f(" + tc.args + ") -> " + tc.res + " {\n  " + body + "\n  return " + ret + " : " + tc.res + "\n}"
			}
			custom, generic := dialecttest.RoundTrip(t, "pretty.mlir", wrap(tc.pretty))
			_, want := dialecttest.RoundTrip(t, "generic.mlir", wrap(tc.generic))
			if generic != want {
				t.Errorf("the custom form's generic printing differs from the generic form's:\n--- custom form, printed generic\n%s\n--- generic form\n%s", generic, want)
			}
			// The custom form prints back as written, but for the i64
			// type of integer attributes, which the printer leaves out.
			first := strings.SplitN(tc.pretty, "\n", 2)[0]
			dialecttest.ContainsAll(t, "custom form", custom, strings.ReplaceAll(first, " : i64", ""))
		})
	}
}

// TestPrettyFallbacks round-trips ops whose attributes have spellings the
// custom forms' clauses cannot write (MHLO's dense<...> lists): they
// print in the attribute dictionary, and read back the same.
func TestPrettyFallbacks(t *testing.T) {
	src := `func.func @f(%x: tensor<1x5xf32>, %y: tensor<5x1x1xf32>, %c: tensor<f32>, %k: tensor<1x1x1x1xf32>, %im: tensor<1x4x4x1xf32>) -> (tensor<5x1xf32>, tensor<5xf32>, tensor<1x4x4x1xf32>) {
  %t = "mhlo.transpose"(%x) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<1x5xf32>) -> tensor<5x1xf32>
  %r = "mhlo.reduce"(%y, %c) ({
  ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
    %0 = mhlo.minimum %arg0, %arg1 : tensor<f32>
    "mhlo.return"(%0) : (tensor<f32>) -> ()
  }) {dimensions = dense<[1, 2]> : tensor<2xi64>} : (tensor<5x1x1xf32>, tensor<f32>) -> tensor<5xf32>
  %v = "mhlo.convolution"(%im, %k) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, padding = dense<0> : tensor<2x2xi64>, window_strides = dense<1> : tensor<2xi64>} : (tensor<1x4x4x1xf32>, tensor<1x1x1x1xf32>) -> tensor<1x4x4x1xf32>
  %s = "stablehlo.slice"(%x) {limit_indices = dense<[1, 3]> : tensor<2xi64>, start_indices = dense<0> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<1x5xf32>) -> tensor<1x3xf32>
  %d = "mhlo.dot_general"(%x, %t) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#mhlo<precision DEFAULT>, #mhlo<precision DEFAULT>]} : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<1x1xf32>
  return %t, %r, %v : tensor<5x1xf32>, tensor<5xf32>, tensor<1x4x4x1xf32>
}`
	custom, _ := dialecttest.RoundTrip(t, "fallbacks.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"%t = mhlo.transpose %x {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<1x5xf32>) -> tensor<5x1xf32>",
		"%r = mhlo.reduce(%y init: %c) applies mhlo.minimum {dimensions = dense<[1, 2]> : tensor<2xi64>} : (tensor<5x1x1xf32>, tensor<f32>) -> tensor<5xf32>",
		"%v = mhlo.convolution(%im, %k) {batch_group_count = 1, dimension_numbers = #mhlo.conv<raw ",
		"%s = stablehlo.slice %x {limit_indices = dense<[1, 3]> : tensor<2xi64>",
		"%d = mhlo.dot_general %x, %t, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<1x5xf32>, tensor<5x1xf32>) -> tensor<1x1xf32>")
}

// TestEnumAttrWithString reads IREE's older spelling of a precision list,
// whose string literal makes one attribute of what reads as two (MLIR
// lexes a string inside a dialect attribute's brackets as one token).
func TestEnumAttrWithString(t *testing.T) {
	src := `func.func @f(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>) -> tensor<1x2xf32> {
  %r = "mhlo.dot"(%a, %b) {precision_config = [#mhlo<precision DEFAULT">, #mhlo<"precision DEFAULT>]} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
  return %r : tensor<1x2xf32>
}`
	_, generic := dialecttest.RoundTrip(t, "enum.mlir", src)
	dialecttest.ContainsAll(t, "generic form", generic, `{precision_config = [#mhlo<precision DEFAULT ">, #mhlo<" precision DEFAULT>]}`)
}
