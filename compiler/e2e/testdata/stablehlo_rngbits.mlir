// rng_bit_generator with both algorithms over the state layouts and result
// types the StableHLO lowering takes; stablehlo_rngbits_test.go checks the
// bits and new states against a plain Go Threefry/Philox.

// 15 i32 from Threefry: no even dimension, so the larger one (5) is split.
func.func @threefry_3x5(%s: tensor<4xi32>) -> (tensor<4xi32>, tensor<3x5xi32>) {
  %n, %r = "stablehlo.rng_bit_generator"(%s) {rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>} : (tensor<4xi32>) -> (tensor<4xi32>, tensor<3x5xi32>)
  return %n, %r : tensor<4xi32>, tensor<3x5xi32>
}

// Dimension 1 is the first even one.
func.func @threefry_3x4x2(%s: tensor<2xi64>) -> (tensor<2xi64>, tensor<3x4x2xi32>) {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xi64>) -> (tensor<2xi64>, tensor<3x4x2xi32>)
  return %n, %r : tensor<2xi64>, tensor<3x4x2xi32>
}

func.func @threefry_i64(%s: tensor<2xi64>) -> (tensor<2xi64>, tensor<5xi64>) {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<2xi64>) -> (tensor<2xi64>, tensor<5xi64>)
  return %n, %r : tensor<2xi64>, tensor<5xi64>
}

func.func @threefry_scalar(%s: tensor<4xi32>) -> (tensor<4xi32>, tensor<i32>) {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = THREE_FRY : (tensor<4xi32>) -> (tensor<4xi32>, tensor<i32>)
  return %n, %r : tensor<4xi32>, tensor<i32>
}

// 9 f32 take three blocks of four words.
func.func @philox_f32(%s: tensor<4xi32>) -> (tensor<4xi32>, tensor<3x3xf32>) {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<4xi32>) -> (tensor<4xi32>, tensor<3x3xf32>)
  return %n, %r : tensor<4xi32>, tensor<3x3xf32>
}

// A 128-bit counter whose low word wraps within the call.
func.func @philox_i64(%s: tensor<3xi64>) -> (tensor<3xi64>, tensor<7xi64>) {
  %n, %r = stablehlo.rng_bit_generator %s, algorithm = PHILOX : (tensor<3xi64>) -> (tensor<3xi64>, tensor<7xi64>)
  return %n, %r : tensor<3xi64>, tensor<7xi64>
}

// DEFAULT is Philox.
func.func @default_2x3(%s: tensor<2xi64>) -> (tensor<2xi64>, tensor<2x3xi32>) {
  %n, %r = "mhlo.rng_bit_generator"(%s) {rng_algorithm = #mhlo.rng_algorithm<DEFAULT>} : (tensor<2xi64>) -> (tensor<2xi64>, tensor<2x3xi32>)
  return %n, %r : tensor<2xi64>, tensor<2x3xi32>
}
