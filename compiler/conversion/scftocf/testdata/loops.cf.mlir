func.func @sum_squares(%lb: index, %ub: index, %s: index) -> index {
  %c0 = arith.constant 0 : index
  cf.br ^bb1(%lb, %c0 : index, index)
^bb1(%i: index, %acc: index):
  %0 = arith.cmpi slt, %i, %ub : index
  cf.cond_br %0, ^bb2(%i, %acc : index, index), ^bb3(%acc : index)
^bb2(%i_1: index, %acc_1: index):
  %sq = arith.muli %i_1, %i_1 : index
  %n = arith.addi %acc_1, %sq : index
  %1 = arith.addi %i_1, %s : index
  cf.br ^bb1(%1, %n : index, index)
^bb3(%r: index):
  func.return %r : index
}
func.func @pairs(%n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  cf.br ^bb1(%c0, %c0, %c0 : i32, i32, i32)
^bb1(%i: i32, %even: i32, %odd: i32):
  %0 = arith.cmpi slt, %i, %n : i32
  cf.cond_br %0, ^bb2(%i, %even, %odd : i32, i32, i32), ^bb9(%even, %odd : i32, i32)
^bb2(%i_1: i32, %even_1: i32, %odd_1: i32):
  %i1 = arith.addi %i_1, %c1 : i32
  cf.br ^bb3(%i1, %even_1, %odd_1 : i32, i32, i32)
^bb3(%j: i32, %e: i32, %o: i32):
  %1 = arith.cmpi slt, %j, %n : i32
  cf.cond_br %1, ^bb4(%j, %e, %o : i32, i32, i32), ^bb8(%e, %o : i32, i32)
^bb4(%j_1: i32, %e_1: i32, %o_1: i32):
  %s = arith.addi %i_1, %j_1 : i32
  %m = arith.remsi %s, %c2 : i32
  %z = arith.cmpi eq, %m, %c0 : i32
  cf.cond_br %z, ^bb5, ^bb6
^bb5:
  %e1 = arith.addi %e_1, %c1 : i32
  cf.br ^bb7(%e1, %o_1 : i32, i32)
^bb6:
  %o1 = arith.addi %o_1, %s : i32
  cf.br ^bb7(%e_1, %o1 : i32, i32)
^bb7(%ne: i32, %no: i32):
  %2 = arith.addi %j_1, %c1 : i32
  cf.br ^bb3(%2, %ne, %no : i32, i32, i32)
^bb8(%in: i32, %in_1: i32):
  %3 = arith.addi %i_1, %c1 : i32
  cf.br ^bb1(%3, %in, %in_1 : i32, i32, i32)
^bb9(%r: i32, %r_1: i32):
  func.return %r, %r_1 : i32, i32
}
func.func @halvings(%x: f32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  cf.br ^bb1(%x, %c0 : f32, i32)
^bb1(%v: f32, %k: i32):
  %go = arith.cmpf oge, %v, %one : f32
  cf.cond_br %go, ^bb2(%v, %k : f32, i32), ^bb3(%v, %k : f32, i32)
^bb2(%v2: f32, %k2: i32):
  %h = arith.divf %v2, %two : f32
  %k3 = arith.addi %k2, %c1 : i32
  cf.br ^bb1(%h, %k3 : f32, i32)
^bb3(%r: f32, %r_1: i32):
  %big = arith.cmpi sgt, %r_1, %c1 : i32
  cf.br ^bb4
^bb4:
  %t = arith.select %big, %c1, %c0 : i32
  cf.br ^bb5(%t : i32)
^bb5(%flag: i32):
  cf.cond_br %big, ^bb6, ^bb7
^bb6:
  cf.assert %big, "not reached when small"
  cf.br ^bb7
^bb7:
  func.return %r_1, %flag : i32, i32
}
