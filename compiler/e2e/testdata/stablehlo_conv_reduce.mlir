// StableHLO and MHLO programs beyond elementwise ops: convolutions (layouts
// other than NHWC, feature groups, strides, rhs dilation, padding, integer
// widening), reductions of several operands with a body of several ops,
// reduce_window pooling, and dynamic shapes. stablehlo_conv_reduce_test.go
// checks every result against plain Go loops.

// Input NCHW (2x4x7x6), kernel OIHW with 2 groups of 2 input and 3 output
// features, output NHWC; stride 2x1, rhs dilation 1x2, padding
// [[1, 0], [2, 1]].
func.func @conv_grouped(%x: tensor<2x4x7x6xf32>, %k: tensor<6x2x3x2xf32>) -> tensor<2x3x7x6xf32> {
  %r = "stablehlo.convolution"(%x, %k) {
    batch_group_count = 1 : i64,
    dimension_numbers = #stablehlo.conv<raw
      input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3],
      kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3],
      output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>,
    feature_group_count = 2 : i64,
    padding = dense<[[1, 0], [2, 1]]> : tensor<2x2xi64>,
    rhs_dilation = array<i64: 1, 2>,
    window_strides = array<i64: 2, 1>
  } : (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>) -> tensor<2x3x7x6xf32>
  return %r : tensor<2x3x7x6xf32>
}

// Depthwise (one group per input feature), i8 operands accumulated in
// i32, MHLO's dense attribute spelling, 1-D spatial layout.
func.func @conv_depthwise_i8(%x: tensor<1x9x3xi8>, %k: tensor<2x1x3xi8>) -> tensor<1x8x3xi32> {
  %r = "mhlo.convolution"(%x, %k) {
    batch_group_count = 1 : i64,
    dimension_numbers = #mhlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 2, input_spatial_dimensions = [1], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 2, kernel_spatial_dimensions = [0], output_batch_dimension = 0, output_feature_dimension = 2, output_spatial_dimensions = [1]>,
    feature_group_count = 3 : i64,
    padding = dense<0> : tensor<1x2xi64>,
    rhs_dilation = dense<1> : tensor<1xi64>,
    window_strides = dense<1> : tensor<1xi64>
  } : (tensor<1x9x3xi8>, tensor<2x1x3xi8>) -> tensor<1x8x3xi32>
  return %r : tensor<1x8x3xi32>
}

// Argmax along rows: a reduce of (values, indices) with a body that
// compares and selects, the ties going to the lower index; and a reduce
// whose body holds a constant (the maximum, capped at 1.5).
func.func @reduce_multi(%v: tensor<5x7xf32>) -> (tensor<5xf32>, tensor<5xi32>, tensor<7xf32>) {
  %idx = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<5x7xi32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %zero = stablehlo.constant dense<0> : tensor<i32>
  %m, %i = "stablehlo.reduce"(%v, %idx, %ninf, %zero) ({
  ^bb0(%av: tensor<f32>, %ai: tensor<i32>, %xv: tensor<f32>, %xi: tensor<i32>):
    %gt = stablehlo.compare GT, %xv, %av : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %xv, %av : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %nv = stablehlo.select %gt, %xv, %av : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %lo = stablehlo.minimum %ai, %xi : tensor<i32>
    %pi = stablehlo.select %gt, %xi, %ai : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %ni = stablehlo.select %eq, %lo, %pi : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    stablehlo.return %nv, %ni : tensor<f32>, tensor<i32>
  }) {dimensions = array<i64: 1>} : (tensor<5x7xf32>, tensor<5x7xi32>, tensor<f32>, tensor<i32>) -> (tensor<5xf32>, tensor<5xi32>)
  %c = "mhlo.reduce"(%v, %ninf) ({
  ^bb0(%a: tensor<f32>, %x: tensor<f32>):
    %cap = mhlo.constant dense<1.5> : tensor<f32>
    %mx = mhlo.maximum %a, %x : tensor<f32>
    %r = mhlo.minimum %mx, %cap : tensor<f32>
    "mhlo.return"(%r) : (tensor<f32>) -> ()
  }) {dimensions = dense<0> : tensor<1xi64>} : (tensor<5x7xf32>, tensor<f32>) -> tensor<7xf32>
  return %m, %i, %c : tensor<5xf32>, tensor<5xi32>, tensor<7xf32>
}

// Max pooling with window 3x2 (dilated by 2 along the width), strides
// 2x2 and padding [[1, 1], [0, 2]] by -inf; and a running sum of three
// along a vector, padded at the front with zeros (MHLO spelling).
func.func @pool(%x: tensor<1x6x7x2xf32>, %v: tensor<10xf32>) -> (tensor<1x3x4x2xf32>, tensor<10xf32>) {
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %p = "stablehlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>,
      window_dilations = array<i64: 1, 1, 2, 1>,
      padding = dense<[[0, 0], [1, 1], [0, 2], [0, 0]]> : tensor<4x2xi64>} : (tensor<1x6x7x2xf32>, tensor<f32>) -> tensor<1x3x4x2xf32>
  %zero = mhlo.constant dense<0.0> : tensor<f32>
  %s = "mhlo.reduce_window"(%v, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = mhlo.add %a, %b : tensor<f32>
    "mhlo.return"(%t) : (tensor<f32>) -> ()
  }) {window_dimensions = dense<3> : tensor<1xi64>, padding = dense<[[2, 0]]> : tensor<1x2xi64>} : (tensor<10xf32>, tensor<f32>) -> tensor<10xf32>
  return %p, %s : tensor<1x3x4x2xf32>, tensor<10xf32>
}

// Dynamic shapes: a matrix product, an elementwise op and a row sum whose
// sizes are known only when the function runs.
func.func @dynamic(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %d = "stablehlo.dot"(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %e = stablehlo.abs %d : tensor<?x?xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = "stablehlo.reduce"(%e, %z) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %s = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {dimensions = array<i64: 1>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %e, %r : tensor<?x?xf32>, tensor<?xf32>
}

// rng UNIFORM in [lo, hi): IREE's stateless generator, a linear
// congruential step per index dimension.
func.func @rng(%lo: tensor<f32>, %hi: tensor<f32>) -> tensor<4x5x3xf32> {
  %shape = stablehlo.constant dense<[4, 5, 3]> : tensor<3xi64>
  %r = "stablehlo.rng"(%lo, %hi, %shape) {rng_distribution = #stablehlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<4x5x3xf32>
  return %r : tensor<4x5x3xf32>
}

// rng NORMAL: IREE's Box-Muller expansion of std::mt19937(0) uniforms,
// scaled by sigma and shifted by mu (an odd count, and more than one
// generator period of 624 draws).
func.func @rng_normal(%mu: tensor<f32>, %sigma: tensor<f32>) -> tensor<21x19xf32> {
  %shape = stablehlo.constant dense<[21, 19]> : tensor<2xi64>
  %r = stablehlo.rng %mu, %sigma, %shape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<21x19xf32>
  return %r : tensor<21x19xf32>
}

// Complex arithmetic on tensors the program builds from real and
// imaginary parts.
func.func @complex_ops(%a: tensor<6xf32>, %b: tensor<6xf32>, %c: tensor<6xf32>, %d: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) {
  %z = stablehlo.complex %a, %b : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xcomplex<f32>>
  %w = "mhlo.complex"(%c, %d) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xcomplex<f32>>
  %m = stablehlo.multiply %z, %w : tensor<6xcomplex<f32>>
  %e = stablehlo.exponential %m : tensor<6xcomplex<f32>>
  %s = stablehlo.sine %z : tensor<6xcomplex<f32>>
  %co = stablehlo.cosine %w : tensor<6xcomplex<f32>>
  %sub = stablehlo.subtract %s, %co : tensor<6xcomplex<f32>>
  %n = stablehlo.negate %sub : tensor<6xcomplex<f32>>
  %abs = stablehlo.abs %z : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %er = stablehlo.real %e : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %ei = stablehlo.imag %e : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %nr = stablehlo.real %n : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  %ni = "mhlo.imag"(%n) : (tensor<6xcomplex<f32>>) -> tensor<6xf32>
  return %er, %ei, %nr, %ni, %abs : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>
}

// RFFT of each row; FFT of a complex vector and IFFT back.
func.func @ffts(%x: tensor<3x10xf32>, %re: tensor<8xf32>, %im: tensor<8xf32>) -> (tensor<3x6xf32>, tensor<3x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
  %r = stablehlo.fft %x, type = RFFT, length = [10] : (tensor<3x10xf32>) -> tensor<3x6xcomplex<f32>>
  %rr = stablehlo.real %r : (tensor<3x6xcomplex<f32>>) -> tensor<3x6xf32>
  %ri = stablehlo.imag %r : (tensor<3x6xcomplex<f32>>) -> tensor<3x6xf32>
  %z = stablehlo.complex %re, %im : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xcomplex<f32>>
  %f = "mhlo.fft"(%z) {fft_length = dense<8> : tensor<1xi64>, fft_type = #mhlo<fft_type FFT>} : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  %fr = stablehlo.real %f : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
  %fi = stablehlo.imag %f : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
  %b = stablehlo.fft %f, type = IFFT, length = [8] : (tensor<8xcomplex<f32>>) -> tensor<8xcomplex<f32>>
  %br = stablehlo.real %b : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
  %bi = stablehlo.imag %b : (tensor<8xcomplex<f32>>) -> tensor<8xf32>
  return %rr, %ri, %fr, %fi, %br, %bi : tensor<3x6xf32>, tensor<3x6xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
}

// IRFFT back from RFFT, even (10) and odd (9) lengths; FFT of a complex
// constant written as a dense literal.
func.func @irffts(%x: tensor<3x10xf32>, %y: tensor<9xf32>) -> (tensor<3x10xf32>, tensor<9xf32>, tensor<4xf32>, tensor<4xf32>) {
  %r = stablehlo.fft %x, type = RFFT, length = [10] : (tensor<3x10xf32>) -> tensor<3x6xcomplex<f32>>
  %a = stablehlo.fft %r, type = IRFFT, length = [10] : (tensor<3x6xcomplex<f32>>) -> tensor<3x10xf32>
  %s = stablehlo.fft %y, type = RFFT, length = [9] : (tensor<9xf32>) -> tensor<5xcomplex<f32>>
  %b = stablehlo.fft %s, type = IRFFT, length = [9] : (tensor<5xcomplex<f32>>) -> tensor<9xf32>
  %z = stablehlo.constant dense<[(1.0,2.0), (3.0,-1.0), (0.5,0.0), (-2.0,4.0)]> : tensor<4xcomplex<f32>>
  %f = stablehlo.fft %z, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  %fr = stablehlo.real %f : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  %fi = stablehlo.imag %f : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return %a, %b, %fr, %fi : tensor<3x10xf32>, tensor<9xf32>, tensor<4xf32>, tensor<4xf32>
}

// Data-dependent reads: torch_index_select with a batch dimension (and
// dynamic shapes), reverse of two dimensions, dynamic_slice and
// dynamic_update_slice with starts that are clamped.
func.func @selects(%x: tensor<2x5x3xf32>, %i: tensor<2x4xi32>, %s0: tensor<i32>, %s1: tensor<i32>, %u: tensor<1x2x2xf32>) -> (tensor<2x4x3xf32>, tensor<2x5x3xf32>, tensor<2x3x2xf32>, tensor<2x5x3xf32>) {
  %xd = tensor.cast %x : tensor<2x5x3xf32> to tensor<?x?x?xf32>
  %id = tensor.cast %i : tensor<2x4xi32> to tensor<?x?xi32>
  %td = "stablehlo.torch_index_select"(%xd, %id) {dim = 1 : i64, batch_dims = 1 : i64} : (tensor<?x?x?xf32>, tensor<?x?xi32>) -> tensor<?x?x?xf32>
  %t = tensor.cast %td : tensor<?x?x?xf32> to tensor<2x4x3xf32>
  %r = "stablehlo.reverse"(%x) {dimensions = array<i64: 1, 2>} : (tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  %z = stablehlo.constant dense<0> : tensor<i32>
  %d = "stablehlo.dynamic_slice"(%x, %z, %s0, %s1) {slice_sizes = array<i64: 2, 3, 2>} : (tensor<2x5x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x3x2xf32>
  %w = "mhlo.dynamic_update_slice"(%x, %u, %s1, %s0, %s1) : (tensor<2x5x3xf32>, tensor<1x2x2xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<2x5x3xf32>
  return %t, %r, %d, %w : tensor<2x4x3xf32>, tensor<2x5x3xf32>, tensor<2x3x2xf32>, tensor<2x5x3xf32>
}

// gather of 1x2x3 slices at (row, column) starts, the last dimension
// read from 0; scatter-add of rows, with repeated, negative and
// too-large row indices (the last two dropped).
func.func @gather_scatter(%x: tensor<3x5x4xf32>, %i: tensor<2x3x2xi32>, %o: tensor<6x4xf32>, %r: tensor<5x1xi32>, %u: tensor<5x4xf32>) -> (tensor<2x3x2x3xf32>, tensor<6x4xf32>) {
  %g = "stablehlo.gather"(%x, %i) {
    dimension_numbers = #stablehlo.gather<offset_dims = [2, 3], collapsed_slice_dims = [0], start_index_map = [0, 1], index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 3>
  } : (tensor<3x5x4xf32>, tensor<2x3x2xi32>) -> tensor<2x3x2x3xf32>
  %s = "stablehlo.scatter"(%o, %r, %u) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %t : tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>
  } : (tensor<6x4xf32>, tensor<5x1xi32>, tensor<5x4xf32>) -> tensor<6x4xf32>
  return %g, %s : tensor<2x3x2x3xf32>, tensor<6x4xf32>
}

// Stable sort of each row by value, descending, carrying the column
// indices along (ties keep their order).
func.func @sort_rows(%v: tensor<4x9xf32>) -> (tensor<4x9xf32>, tensor<4x9xi32>) {
  %i = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<4x9xi32>
  %s:2 = "stablehlo.sort"(%v, %i) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %gt = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %gt : tensor<i1>
  }) {dimension = -1 : i64, is_stable = true} : (tensor<4x9xf32>, tensor<4x9xi32>) -> (tensor<4x9xf32>, tensor<4x9xi32>)
  return %s#0, %s#1 : tensor<4x9xf32>, tensor<4x9xi32>
}

// The Q of a QR factorization from its Householder reflectors (LAPACK's
// geqrf output), with a shape assertion that is dropped.
func.func @householder(%h: tensor<5x3xf32>, %tau: tensor<3xf32>) -> tensor<5x3xf32> {
  %ok = stablehlo.compare EQ, %tau, %tau, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  stablehlo.custom_call @shape_assertion(%ok) {error_message = "never", has_side_effect = true} : (tensor<3xi1>) -> ()
  %q = stablehlo.custom_call @ProductOfElementaryHouseholderReflectors(%h, %tau) : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5x3xf32>
  return %q : tensor<5x3xf32>
}
