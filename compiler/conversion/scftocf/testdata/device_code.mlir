// Device code is left alone: the scf.for inside the dispatch region's body
// stays, the one around it is lowered.
func.func @region(%x: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    %d = flow.dispatch.region -> (tensor<4xf32>) {
      %s = scf.for %j = %c0 to %c4 step %c1 iter_args(%b = %a) -> (tensor<4xf32>) {
        scf.yield %b : tensor<4xf32>
      }
      flow.return %s : tensor<4xf32>
    }
    scf.yield %d : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
