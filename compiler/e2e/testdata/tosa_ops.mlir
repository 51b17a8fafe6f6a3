// TOSA programs lowered by conversion/tosatolinalg: broadcasting float
// elementwise ops, TOSA's integer rounding and saturation rules, and the
// data-movement, reduction and matmul lowerings (both eras' spellings).
func.func @float_ops(%a: tensor<3x4xf32>, %b: tensor<1x4xf32>) -> (tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %add = tosa.add %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %sig = tosa.sigmoid %a : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %cl = tosa.clamp %a {min_val = -0.5 : f32, max_val = 0.75 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %mx = "tosa.maximum"(%a, %b) : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %gt = tosa.greater %a, %b : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xi1>
  %rb = tosa.reciprocal %b : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %sel = tosa.select %gt, %a, %rb : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  return %add, %sig, %cl, %mx, %sel : tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

func.func @int_ops(%a: tensor<16xi32>, %b: tensor<16xi32>, %s: tensor<16xi32>, %x: tensor<16xi8>, %f: tensor<16xf32>) -> (tensor<16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<16xi8>, tensor<16xi32>) {
  %shift = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mul = tosa.mul %a, %b, %shift : (tensor<16xi32>, tensor<16xi32>, tensor<1xi8>) -> tensor<16xi32>
  %ars = tosa.arithmetic_right_shift %a, %s {round = true} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  %izp = "tosa.const"() <{values = dense<5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %neg = tosa.negate %x, %izp, %ozp : (tensor<16xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<16xi8>
  %cast = tosa.cast %f : (tensor<16xf32>) -> tensor<16xi8>
  %clz = "tosa.clz"(%a) : (tensor<16xi32>) -> tensor<16xi32>
  return %mul, %ars, %neg, %cast, %clz : tensor<16xi32>, tensor<16xi32>, tensor<16xi8>, tensor<16xi8>, tensor<16xi32>
}

func.func @shapes(%x: tensor<2x3x4xf32>, %a: tensor<2x3x5xi8>, %b: tensor<2x5x4xi8>) -> (tensor<2x1x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xi32>, tensor<2x3x1xi32>, tensor<6x4xf32>) {
  %rmax = tosa.reduce_max %x {axis = 1 : i32} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %t = tosa.transpose %x {perms = array<i32: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %azp = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %bzp = "tosa.const"() <{values = dense<-2> : tensor<1xi8>}> : () -> tensor<1xi8>
  %mm = tosa.matmul %a, %b, %azp, %bzp : (tensor<2x3x5xi8>, tensor<2x5x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<2x3x4xi32>
  %rsum = "tosa.reduce_sum"(%mm) {axis = 2 : i64} : (tensor<2x3x4xi32>) -> tensor<2x3x1xi32>
  %r = "tosa.reshape"(%x) {new_shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  return %rmax, %t, %mm, %rsum, %r : tensor<2x1x4xf32>, tensor<4x2x3xf32>, tensor<2x3x4xi32>, tensor<2x3x1xi32>, tensor<6x4xf32>
}

func.func @pad(%x: tensor<2x3xf32>, %i: tensor<2x2xi32>) -> (tensor<3x5xf32>, tensor<4x3xi32>) {
  %p = tosa.const_shape {values = dense<[1, 0, 0, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %v = "tosa.const"() <{values = dense<-1.5> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.pad %x, %p, %v : (tensor<2x3xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<3x5xf32>
  %q = "tosa.const"() {value = dense<[[0, 2], [1, 0]]> : tensor<2x2xi32>} : () -> tensor<2x2xi32>
  %b = "tosa.pad"(%i, %q) {pad_const_int = 7 : i64} : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<4x3xi32>
  return %a, %b : tensor<3x5xf32>, tensor<4x3xi32>
}

func.func @lookups(%v: tensor<2x5x3xf32>, %idx: tensor<2x4xi32>, %x8: tensor<16xi8>, %t8: tensor<256xi8>, %x16: tensor<16xi16>, %t16: tensor<513xi16>) -> (tensor<2x4x3xf32>, tensor<16xi8>, tensor<16xi32>) {
  %g = tosa.gather %v, %idx : (tensor<2x5x3xf32>, tensor<2x4xi32>) -> tensor<2x4x3xf32>
  %a = tosa.table %x8, %t8 : (tensor<16xi8>, tensor<256xi8>) -> tensor<16xi8>
  %b = "tosa.table"(%x16, %t16) : (tensor<16xi16>, tensor<513xi16>) -> tensor<16xi32>
  return %g, %a, %b : tensor<2x4x3xf32>, tensor<16xi8>, tensor<16xi32>
}

func.func @pool_dense(%x: tensor<1x5x6x2xf32>, %i: tensor<3x4xf32>, %w: tensor<2x4xf32>, %bias: tensor<2xf32>) -> (tensor<1x3x3x2xf32>, tensor<3x2xf32>) {
  %p = tosa.max_pool2d %x {kernel = array<i64: 2, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0, 0, 1>} : (tensor<1x5x6x2xf32>) -> tensor<1x3x3x2xf32>
  %f = "tosa.fully_connected"(%i, %w, %bias) : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  return %p, %f : tensor<1x3x3x2xf32>, tensor<3x2xf32>
}

// tosa.cond_if in the current form (regions capture %x) and
// tosa.while_loop: while (i <= 100) i = i * 2 + k.
func.func @control(%c: tensor<i1>, %x: tensor<4xi32>, %i: tensor<i32>, %k: tensor<i32>) -> (tensor<4xi32>, tensor<i32>) {
  %r = tosa.cond_if %c : tensor<i1> -> tensor<4xi32> {
    %a = tosa.add %x, %x : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    tosa.yield %a : tensor<4xi32>
  } else {
    %zp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
    %n = tosa.negate %x, %zp, %zp : (tensor<4xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
    tosa.yield %n : tensor<4xi32>
  }
  %w = tosa.while_loop (%j = %i) : (tensor<i32>) -> tensor<i32> {
    %lim = "tosa.const"() <{values = dense<100> : tensor<i32>}> : () -> tensor<i32>
    %go = tosa.greater_equal %lim, %j : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %go : tensor<i1>
  } do {
  ^bb0(%j: tensor<i32>):
    %d = tosa.add %j, %j : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %e = tosa.add %d, %k : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %e : tensor<i32>
  }
  return %r, %w : tensor<4xi32>, tensor<i32>
}

func.func @slice_concat(%x: tensor<4x6xf32>, %y: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<6x6xf32>) {
  %st = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %sz = tosa.const_shape {values = dense<[2, 3]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %a = tosa.slice %x, %st, %sz : (tensor<4x6xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x3xf32>
  %b = "tosa.slice"(%x) {start = array<i64: 2, 4>, size = array<i64: 2, 2>} : (tensor<4x6xf32>) -> tensor<2x2xf32>
  %c = tosa.concat %y, %x {axis = 0 : i32} : (tensor<2x6xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
  return %a, %b, %c : tensor<2x3xf32>, tensor<2x2xf32>, tensor<6x6xf32>
}

func.func @convs(%x: tensor<1x5x6x3xf32>, %w: tensor<4x3x2x3xf32>, %b: tensor<4xf32>, %xi: tensor<1x4x4x2xi8>, %wi: tensor<3x2x2x2xi8>, %bi: tensor<3xi32>, %xd: tensor<1x4x5x2xf32>, %wd: tensor<2x2x2x3xf32>, %bd: tensor<6xf32>) -> (tensor<1x3x5x4xf32>, tensor<1x4x4x3xi32>, tensor<1x3x2x6xf32>) {
  %fzp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.conv2d %x, %w, %b, %fzp, %fzp {acc_type = f32, pad = array<i64: 1, 1, 0, 1>, stride = array<i64: 2, 1>, dilation = array<i64: 1, 2>} : (tensor<1x5x6x3xf32>, tensor<4x3x2x3xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x5x4xf32>
  %izp = "tosa.const"() <{values = dense<3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<-1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %i = tosa.conv2d %xi, %wi, %bi, %izp, %wzp {acc_type = i32, pad = array<i64: 0, 1, 1, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<3x2x2x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x3xi32>
  %d = "tosa.depthwise_conv2d"(%xd, %wd, %bd) {pad = [0, 0, 0, 0], stride = [1, 2], dilation = [1, 1]} : (tensor<1x4x5x2xf32>, tensor<2x2x2x3xf32>, tensor<6xf32>) -> tensor<1x3x2x6xf32>
  return %a, %i, %d : tensor<1x3x5x4xf32>, tensor<1x4x4x3xi32>, tensor<1x3x2x6xf32>
}

func.func @avg_pool(%x: tensor<1x5x6x2xf32>) -> tensor<1x3x3x2xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 3>, stride = array<i64: 2, 2>, pad = array<i64: 1, 0, 0, 1>} : (tensor<1x5x6x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
  return %p : tensor<1x3x3x2xf32>
}

// argmax, and casts through i1 (nonzero, NaN included, is true).
func.func @argmax(%x: tensor<3x5xf32>, %i: tensor<3x5xi8>) -> (tensor<3xi32>, tensor<5xi32>, tensor<3x5xi32>) {
  %a = tosa.argmax %x {axis = 1 : i32} : (tensor<3x5xf32>) -> tensor<3xi32>
  %b = "tosa.argmax"(%i) {axis = 0 : i64} : (tensor<3x5xi8>) -> tensor<5xi32>
  %t = tosa.cast %x : (tensor<3x5xf32>) -> tensor<3x5xi1>
  %u = tosa.cast %t : (tensor<3x5xi1>) -> tensor<3x5xi32>
  return %a, %b, %u : tensor<3xi32>, tensor<5xi32>, tensor<3x5xi32>
}
