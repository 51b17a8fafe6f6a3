// Structured control flow over scalars; each function's result is
// checked against Go by scftocf_test.go.

// sum_{i in [lb, ub) step s} i*i, with an early-exit-free loop.
func.func @sum_squares(%lb: index, %ub: index, %s: index) -> index {
  %c0 = arith.constant 0 : index
  %r = scf.for %i = %lb to %ub step %s iter_args(%acc = %c0) -> (index) {
    %sq = arith.muli %i, %i : index
    %n = arith.addi %acc, %sq : index
    scf.yield %n : index
  }
  return %r : index
}

// Nested loops and an if with results: counts pairs (i, j), i < j < n,
// whose sum is even, and the sum of the odd ones.
func.func @pairs(%n: i32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%even = %c0, %odd = %c0) -> (i32, i32) : i32 {
    %i1 = arith.addi %i, %c1 : i32
    %in:2 = scf.for %j = %i1 to %n step %c1 iter_args(%e = %even, %o = %odd) -> (i32, i32) : i32 {
      %s = arith.addi %i, %j : i32
      %m = arith.remsi %s, %c2 : i32
      %z = arith.cmpi eq, %m, %c0 : i32
      %ne, %no = scf.if %z -> (i32, i32) {
        %e1 = arith.addi %e, %c1 : i32
        scf.yield %e1, %o : i32, i32
      } else {
        %o1 = arith.addi %o, %s : i32
        scf.yield %e, %o1 : i32, i32
      }
      scf.yield %ne, %no : i32, i32
    }
    scf.yield %in#0, %in#1 : i32, i32
  }
  return %r#0, %r#1 : i32, i32
}

// A while loop: the number of halvings of x before it drops below 1,
// and an if without else that doubles a counter when x is large.
func.func @halvings(%x: f32) -> (i32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %r:2 = scf.while (%v = %x, %k = %c0) : (f32, i32) -> (f32, i32) {
    %go = arith.cmpf oge, %v, %one : f32
    scf.condition(%go) %v, %k : f32, i32
  } do {
  ^bb0(%v2: f32, %k2: i32):
    %h = arith.divf %v2, %two : f32
    %k3 = arith.addi %k2, %c1 : i32
    scf.yield %h, %k3 : f32, i32
  }
  %big = arith.cmpi sgt, %r#1, %c1 : i32
  %flag = scf.execute_region -> i32 {
    %t = arith.select %big, %c1, %c0 : i32
    scf.yield %t : i32
  }
  scf.if %big {
    cf.assert %big, "not reached when small"
  }
  return %r#1, %flag : i32, i32
}
