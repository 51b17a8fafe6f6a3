// Elementwise host math between dispatches: arith, math, comparisons,
// select, casts, tensor.empty, and a CFG with block arguments.
func.func @elementwise(%a: tensor<?xf32>, %b: tensor<?xf32>, %n: i32) -> (tensor<?xf32>, i1) {
  %c0 = arith.constant 0 : index
  %dim = tensor.dim %a, %c0 : tensor<?xf32>
  %empty = tensor.empty(%dim) : tensor<?xf32>
  %sum = arith.addf %a, %b : tensor<?xf32>
  %diff = arith.subf %sum, %b : tensor<?xf32>
  %max = arith.maximumf %diff, %a : tensor<?xf32>
  %min = arith.minimumf %max, %b : tensor<?xf32>
  %neg = arith.negf %min : tensor<?xf32>
  %abs = math.absf %neg : tensor<?xf32>
  %e = math.exp %abs : tensor<?xf32>
  %s = math.sqrt %e : tensor<?xf32>
  %gt = arith.cmpf ogt, %s, %a : tensor<?xf32>
  %sel = arith.select %gt, %s, %a : tensor<?xi1>, tensor<?xf32>
  %splat = arith.constant dense<2.5> : tensor<4xf32>
  %bits = arith.bitcast %n : i32 to f32
  %one = arith.constant 1 : i32
  %lt = arith.cmpi slt, %n, %one : i32
  %pick = arith.select %lt, %n, %one : i32
  %wide = arith.extsi %pick : i32 to i64
  %q = arith.divsi %n, %one : i32
  %r = arith.remui %q, %one : i32
  %idx = arith.index_castui %r : i32 to index
  %t = arith.constant true
  %f = arith.constant 1.000000e+00 : f32
  "test.sink"(%splat, %bits, %wide, %idx, %empty, %f) : (tensor<4xf32>, f32, i64, index, tensor<?xf32>, f32) -> () loc("elementwise.mlir":31:3)
  "test.br"(%t)[^exit] : (i1) -> ()
^exit:
  return %sel, %t : tensor<?xf32>, i1
}
