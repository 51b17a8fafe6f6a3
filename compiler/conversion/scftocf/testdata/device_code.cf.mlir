func.func @region(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  cf.br ^bb1(%c0, %x : index, tensor<4xf32>)
^bb1(%i: index, %a: tensor<4xf32>):
  %0 = arith.cmpi slt, %i, %n : index
  cf.cond_br %0, ^bb2(%i, %a : index, tensor<4xf32>), ^bb3(%a : tensor<4xf32>)
^bb2(%i_1: index, %a_1: tensor<4xf32>):
  %d = flow.dispatch.region -> (tensor<4xf32>) {
    %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a_1) -> (tensor<4xf32>) {
      scf.yield %b : tensor<4xf32>
    }
    flow.return %s : tensor<4xf32>
  }
  %1 = arith.addi %i_1, %c1 : index
  cf.br ^bb1(%1, %d : index, tensor<4xf32>)
^bb3(%r: tensor<4xf32>):
  func.return %r : tensor<4xf32>
}
