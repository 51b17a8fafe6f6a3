// One op per lowering shape: a float and an integer binary op, a rank-0
// select predicate, clamp with scalar bounds, a guarded shift, sign, and
// converts from i1 and to i1,
// integer compares (signed, and unsigned on i1), and the data-movement
// ops in both attribute spellings.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %i: tensor<4xi32>, %p: tensor<i1>, %lo: tensor<f32>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4xi1>) {
  %k = stablehlo.constant dense<[1, 2, 3, 40]> : tensor<4xi32>
  %s = stablehlo.add %i, %k : tensor<4xi32>
  %sh = "mhlo.shift_left"(%s, %k) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %m = "mhlo.multiply"(%a, %b) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %y = "stablehlo.select"(%p, %m, %a) : (tensor<i1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %c = stablehlo.clamp %lo, %y, %lo : (tensor<f32>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %g = stablehlo.sign %c : tensor<2x3xf32>
  %z = stablehlo.convert %sh : (tensor<4xi32>) -> tensor<4xi1>
  %e = "mhlo.compare"(%i, %k) {comparison_direction = #mhlo<comparison_direction GE>} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %n = "stablehlo.compare"(%z, %e) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  %f = stablehlo.convert %n : (tensor<4xi1>) -> tensor<4xf32>
  return %y, %sh, %g, %f, %z : tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4xi1>
}

func.func @shapes(%a: tensor<2x3xf32>, %v: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<6xf32>, tensor<4x2x3xf32>, tensor<2x4xi32>, tensor<1x2xf32>, tensor<2x6xf32>) {
  %t = "stablehlo.transpose"(%a) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %r = "mhlo.reshape"(%a) : (tensor<2x3xf32>) -> tensor<6xf32>
  %b = "mhlo.broadcast_in_dim"(%v) {broadcast_dimensions = dense<2> : tensor<1xi64>} : (tensor<3xf32>) -> tensor<4x2x3xf32>
  %i = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x4xi32>
  %s = "stablehlo.slice"(%a) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<1x2xf32>
  %c = "mhlo.concatenate"(%a, %a) {dimension = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return %t, %r, %b, %i, %s, %c : tensor<3x2xf32>, tensor<6xf32>, tensor<4x2x3xf32>, tensor<2x4xi32>, tensor<1x2xf32>, tensor<2x6xf32>
}

func.func @dots(%a: tensor<2x4xi8>, %b: tensor<4x3xi8>, %v: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<2x3xi32>, tensor<f32>) {
  %m = "stablehlo.dot"(%a, %b) : (tensor<2x4xi8>, tensor<4x3xi8>) -> tensor<2x3xi32>
  %d = "mhlo.dot"(%v, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return %m, %d : tensor<2x3xi32>, tensor<f32>
}

func.func @more(%a: tensor<2x3xf32>) -> (tensor<4x2x3xf32>, tensor<2x3xf32>) {
  %b = "stablehlo.broadcast"(%a) {broadcast_sizes = array<i64: 4>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
  %p = stablehlo.power %a, %a : tensor<2x3xf32>
  return %b, %p : tensor<4x2x3xf32>, tensor<2x3xf32>
}

func.func @reduce(%a: tensor<2x3x4xf32>, %z: tensor<f32>) -> tensor<3xf32> {
  %r = "stablehlo.reduce"(%a, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = "stablehlo.maximum"(%x, %y) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "stablehlo.return"(%m) : (tensor<f32>) -> ()
  }) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

func.func @dot_general(%a: tensor<2x4x3xf32>, %b: tensor<2x4x5xf32>) -> tensor<2x3x5xf32> {
  %r = "stablehlo.dot_general"(%a, %b) {dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<2x4x3xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
  return %r : tensor<2x3x5xf32>
}

func.func @pad(%a: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<3x5xf32> {
  %p = "stablehlo.pad"(%a, %v) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x5xf32>
  return %p : tensor<3x5xf32>
}

// Dynamic shapes: the results' sizes are those of operand dimensions
// their loops index (tensor.dim, or a constant where one is static).
func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>, %z: tensor<f32>) -> (tensor<?x4xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %s = stablehlo.add %a, %a : tensor<?x4xf32>
  %d = "stablehlo.dot"(%s, %b) : (tensor<?x4xf32>, tensor<4x?xf32>) -> tensor<?x?xf32>
  %r = "stablehlo.reduce"(%d, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %m = stablehlo.minimum %x, %y : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {dimensions = array<i64: 1>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %s, %d, %r : tensor<?x4xf32>, tensor<?x?xf32>, tensor<?xf32>
}

// A reduce of two operands (value, index) into two results; its body
// becomes the scalar body of one linalg.generic with two outputs.
func.func @argmax(%v: tensor<3x5xf32>, %i: tensor<3x5xi32>, %nv: tensor<f32>, %ni: tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>) {
  %r:2 = "stablehlo.reduce"(%v, %i, %nv, %ni) ({
  ^bb0(%av: tensor<f32>, %ai: tensor<i32>, %xv: tensor<f32>, %xi: tensor<i32>):
    %gt = stablehlo.compare GT, %xv, %av : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %bv = stablehlo.select %gt, %xv, %av : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %bi = stablehlo.select %gt, %xi, %ai : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %bv, %bi : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<3x5xf32>, tensor<3x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3xf32>, tensor<3xi32>)
  return %r#0, %r#1 : tensor<3xf32>, tensor<3xi32>
}

// A grouped convolution with padding, strides and rhs dilation; and a
// plain NHWC/HWIO one (no group loop, no reshape).
func.func @conv(%x: tensor<1x5x5x4xf32>, %k: tensor<3x3x2x6xf32>, %k1: tensor<2x2x4x3xf32>) -> (tensor<1x3x2x6xf32>, tensor<1x4x4x3xf32>) {
  %c = "stablehlo.convolution"(%x, %k) {batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 2 : i64, padding = dense<[[1, 1], [0, 1]]> : tensor<2x2xi64>, rhs_dilation = array<i64: 1, 2>, window_strides = array<i64: 2, 1>} : (tensor<1x5x5x4xf32>, tensor<3x3x2x6xf32>) -> tensor<1x3x2x6xf32>
  %p = "mhlo.convolution"(%x, %k1) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, padding = dense<0> : tensor<2x2xi64>, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>} : (tensor<1x5x5x4xf32>, tensor<2x2x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %c, %p : tensor<1x3x2x6xf32>, tensor<1x4x4x3xf32>
}

// Max pooling with padding by the init value; the window loop of the
// size-1 dimensions is left out.
func.func @pool(%x: tensor<1x4x6x1xf32>, %z: tensor<f32>) -> tensor<1x3x2x1xf32> {
  %r = "stablehlo.reduce_window"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 2, 3, 1>, window_strides = array<i64: 1, 2, 3, 1>, padding = dense<[[0, 0], [1, 1], [0, 0], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x4x6x1xf32>, tensor<f32>) -> tensor<1x3x2x1xf32>
  return %r : tensor<1x3x2x1xf32>
}

// rng UNIFORM: each element hashes its index, one linear congruential
// step per dimension, scaled into [min, max).
func.func @rng(%lo: tensor<f32>, %hi: tensor<f32>, %shape: tensor<2xi32>) -> tensor<2x3xf32> {
  %r = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// rng NORMAL: tables of -2 log u1 and of cos/sin(2 pi u2) for the three
// elements (the fourth Box-Muller value is dropped), mu and sigma applied
// when it runs.
func.func @rng_normal(%mu: tensor<f32>, %sigma: tensor<f32>, %shape: tensor<1xi64>) -> tensor<3xf32> {
  %r = stablehlo.rng %mu, %sigma, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<1xi64>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// Complex tensors are kept as their parts: multiply and exponential as
// linalg.generics with two outputs, real and imag picking a part.
func.func @complex(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = stablehlo.complex %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xcomplex<f32>>
  %m = stablehlo.multiply %z, %z : tensor<4xcomplex<f32>>
  %e = stablehlo.exponential %m : tensor<4xcomplex<f32>>
  %r = stablehlo.real %e : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %i = stablehlo.imag %z : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %r, %i : tensor<4xf32>, tensor<4xf32>
}

// RFFT of length 4 along the last dimension: a contraction with 4x3
// tables of cos and sin.
func.func @rfft(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %f = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<2x4xf32>) -> tensor<2x3xcomplex<f32>>
  %r = stablehlo.imag %f : (tensor<2x3xcomplex<f32>>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// Reads at data-dependent or descending indices: a reduction loop over
// the candidates keeps the one whose index matches (arith.select).
func.func @selects(%x: tensor<4x3xf32>, %i: tensor<2xi32>, %s: tensor<i32>, %u: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>) {
  %t = "stablehlo.torch_index_select"(%x, %i) {dim = 0 : i64, batch_dims = 0 : i64} : (tensor<4x3xf32>, tensor<2xi32>) -> tensor<2x3xf32>
  %r = "stablehlo.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<4x3xf32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %d = "stablehlo.dynamic_slice"(%x, %s, %z) {slice_sizes = array<i64: 2, 3>} : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %w = "mhlo.dynamic_update_slice"(%x, %u, %s, %z) : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<i32>, tensor<i32>) -> tensor<4x3xf32>
  return %t, %r, %d, %w : tensor<2x3xf32>, tensor<4x3xf32>, tensor<2x3xf32>, tensor<4x3xf32>
}

// gather of rows at data-dependent starts and scatter-add of rows: a
// reduction loop over the candidate rows (update positions) keeps (adds)
// the ones whose index matches.
func.func @gather_scatter(%x: tensor<4x3xf32>, %i: tensor<2x1xi32>, %u: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4x3xf32>) {
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 3>} : (tensor<4x3xf32>, tensor<2x1xi32>) -> tensor<2x3xf32>
  %s = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4x3xf32>, tensor<2x1xi32>, tensor<2x3xf32>) -> tensor<4x3xf32>
  return %g, %s : tensor<2x3xf32>, tensor<4x3xf32>
}

// sort of (values, indices) along dimension 1: ranks from the comparator
// over every pair, then each element moved to its rank.
func.func @sort(%v: tensor<2x4xf32>, %i: tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>) {
  %s:2 = "stablehlo.sort"(%v, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x4xf32>, tensor<2x4xi32>) -> (tensor<2x4xf32>, tensor<2x4xi32>)
  return %s#0, %s#1 : tensor<2x4xf32>, tensor<2x4xi32>
}

// custom_call: shape_assertion is dropped; the Householder product is
// one generic per reflector, their contraction, and the first columns.
func.func @custom_calls(%m: tensor<3x2xf32>, %t: tensor<2xf32>, %c: tensor<2xi1>) -> tensor<3x2xf32> {
  stablehlo.custom_call @shape_assertion(%c) {error_message = "bad shape", has_side_effect = true} : (tensor<2xi1>) -> ()
  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%m, %t) : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %q : tensor<3x2xf32>
}

// MHLO's value copy is its operand.
func.func @copy(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = "mhlo.copy"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %r = mhlo.add %c, %c : tensor<4xf32>
  return %r : tensor<4xf32>
}
