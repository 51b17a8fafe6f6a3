// Generated elementwise dispatches over i8 and i16, which live
// sign-extended in 32-bit registers: wrapping arithmetic, unsigned
// division, compares and shifts, and casts to wider integers, narrower
// ones and the 16-bit floats.
func.func @narrow(%a: tensor<?xi8>, %b: tensor<?xi16>) -> (tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xi8>, tensor<?xf16>, tensor<?xbf16>, tensor<?xi1>, tensor<?xi8>) {
  %one = arith.constant dense<1> : tensor<?xi8>
  %m8 = arith.muli %a, %a : tensor<?xi8>
  %r0 = arith.addi %m8, %a : tensor<?xi8>
  %m16 = arith.muli %b, %b : tensor<?xi16>
  %r1 = arith.divui %m16, %b : tensor<?xi16>
  %r2 = arith.extsi %a : tensor<?xi8> to tensor<?xi32>
  %r3 = arith.extui %b : tensor<?xi16> to tensor<?xi64>
  %r4 = arith.trunci %b : tensor<?xi16> to tensor<?xi8>
  %r5 = arith.sitofp %b : tensor<?xi16> to tensor<?xf16>
  %r6 = arith.uitofp %a : tensor<?xi8> to tensor<?xbf16>
  %t = arith.trunci %b : tensor<?xi16> to tensor<?xi8>
  %r7 = arith.cmpi ult, %a, %t : tensor<?xi8>
  %r8 = arith.shrui %a, %one : tensor<?xi8>
  return %r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7, %r8 : tensor<?xi8>, tensor<?xi16>, tensor<?xi32>, tensor<?xi64>, tensor<?xi8>, tensor<?xf16>, tensor<?xbf16>, tensor<?xi1>, tensor<?xi8>
}
