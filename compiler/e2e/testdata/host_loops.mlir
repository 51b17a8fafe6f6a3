// Host control flow around device work: dispatches recorded in loop
// bodies and in the arms of a branch (written with cf blocks, and with
// scf, which the compiler lowers to the same).
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>

// x -> 2x + 1, n times: each iteration dispatches on the loop-carried
// tensor.
func.func @affine_n(%x: tensor<?xf32>, %n: index) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  cf.br ^loop(%c0, %x : index, tensor<?xf32>)
^loop(%i: index, %acc: tensor<?xf32>):
  %more = arith.cmpi slt, %i, %n : index
  cf.cond_br %more, ^body, ^done
^body:
  %e = tensor.empty(%d) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%acc : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    %a = arith.addf %m, %one : f32
    linalg.yield %a : f32
  } -> tensor<?xf32>
  %i1 = arith.addi %i, %c1 : index
  cf.br ^loop(%i1, %y : index, tensor<?xf32>)
^done:
  return %acc : tensor<?xf32>
}

// c ? 2x : x + 10, one dispatch in each arm.
func.func @choose(%x: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %two = arith.constant 2.0 : f32
  %ten = arith.constant 10.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  cf.cond_br %c, ^double, ^add
^double:
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %two : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  cf.br ^out(%d : tensor<4xf32>)
^add:
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.addf %v, %ten : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  cf.br ^out(%a : tensor<4xf32>)
^out(%r: tensor<4xf32>):
  return %r : tensor<4xf32>
}

// sum_{k<n} (x + k) accumulated in a tensor: an scf.for whose iter_arg is
// the accumulator, with the index converted for the body.
func.func @accumulate(%x: tensor<3xf32>, %n: index) -> tensor<3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3xf32>) -> tensor<3xf32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %init) -> (tensor<3xf32>) {
    %ki = arith.index_cast %k : index to i32
    %kf = arith.sitofp %ki : i32 to f32
    %next = linalg.generic {indexing_maps = [#id, #id, #scalar, #id], iterator_types = ["parallel"]} ins(%x, %acc, %kf : tensor<3xf32>, tensor<3xf32>, f32) outs(%e : tensor<3xf32>) {
    ^bb0(%v: f32, %a: f32, %kf2: f32, %o: f32):
      %s = arith.addf %v, %kf2 : f32
      %t = arith.addf %a, %s : f32
      linalg.yield %t : f32
    } -> tensor<3xf32>
    scf.yield %next : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// a -> a * a + a, n times, with arith on tensors in the loop body (fused
// into an elementwise dispatch in the body's block).
func.func @square_plus(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    %m = arith.mulf %a, %a : tensor<4xf32>
    %s = arith.addf %m, %a : tensor<4xf32>
    scf.yield %s : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
