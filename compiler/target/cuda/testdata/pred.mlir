// Every integer order of i1 operands (false is 0 unsigned and true -1
// signed), one generated elementwise dispatch each: StableHLO's compare
// of booleans lowers to these.
func.func @pred(%a: tensor<?xi1>, %b: tensor<?xi1>) -> (tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>) {
  %0 = arith.cmpi ugt, %a, %b : tensor<?xi1>
  %1 = arith.cmpi ult, %a, %b : tensor<?xi1>
  %2 = arith.cmpi uge, %a, %b : tensor<?xi1>
  %3 = arith.cmpi ule, %a, %b : tensor<?xi1>
  %4 = arith.cmpi sgt, %a, %b : tensor<?xi1>
  %5 = arith.cmpi slt, %a, %b : tensor<?xi1>
  %6 = arith.cmpi sge, %a, %b : tensor<?xi1>
  %7 = arith.cmpi sle, %a, %b : tensor<?xi1>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>, tensor<?xi1>
}
