// Host control flow without device work: loops, switches and asserts
// written with cf branches (generic form), over scalars.

// Steps of the Collatz sequence from n to 1: a loop whose header takes
// the state as block arguments.
func.func @collatz(%n: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  "cf.br"(%n, %c0)[^head] : (i64, i64) -> ()
^head(%x: i64, %steps: i64):
  %done = arith.cmpi eq, %x, %c1 : i64
  "cf.cond_br"(%done, %steps, %x, %steps)[^exit, ^body] <{operandSegmentSizes = array<i32: 1, 1, 2>}> : (i1, i64, i64, i64) -> ()
^body(%y: i64, %s: i64):
  %r = arith.remui %y, %c2 : i64
  %odd = arith.cmpi ne, %r, %c0 : i64
  %h = arith.divui %y, %c2 : i64
  %t = arith.muli %y, %c3 : i64
  %t1 = arith.addi %t, %c1 : i64
  %nx = arith.select %odd, %t1, %h : i64
  %s1 = arith.addi %s, %c1 : i64
  "cf.br"(%nx, %s1)[^head] : (i64, i64) -> ()
^exit(%res: i64):
  return %res : i64
}

// The n-th Fibonacci number: the back edge passes the header's arguments
// around (a, b) -> (b, a + b), a parallel copy.
func.func @fib(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  "cf.br"(%c0, %c1, %n)[^loop] : (i32, i32, i32) -> ()
^loop(%a: i32, %b: i32, %k: i32):
  %more = arith.cmpi sgt, %k, %c0 : i32
  "cf.cond_br"(%more)[^step, ^done] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
^step:
  %sum = arith.addi %a, %b : i32
  %k1 = arith.subi %k, %c1 : i32
  "cf.br"(%b, %sum, %k1)[^loop] : (i32, i32, i32) -> ()
^done:
  return %a : i32
}

// A switch on an i32: 10 for 1, 20 for 5, 30 for -3, else the flag.
func.func @pick(%x: i32) -> i32 {
  %c10 = arith.constant 10 : i32
  %c20 = arith.constant 20 : i32
  %c30 = arith.constant 30 : i32
  "cf.switch"(%x, %x, %c10, %c20, %c30)[^out, ^out, ^out, ^out] <{case_operand_segments = array<i32: 1, 1, 1>, case_values = dense<[1, 5, -3]> : vector<3xi32>, operandSegmentSizes = array<i32: 1, 1, 3>}> : (i32, i32, i32, i32, i32) -> ()
^out(%r: i32):
  return %r : i32
}

// Fails with the message when x is negative.
func.func @checked_sqrt(%x: f32) -> f32 {
  %zero = arith.constant 0.0 : f32
  %ok = arith.cmpf oge, %x, %zero : f32
  "cf.assert"(%ok) <{msg = "x must not be negative"}> : (i1) -> ()
  %s = arith.mulf %x, %x : f32
  return %s : f32
}

// x for x in [0, 3), else fails: an unreachable default.
func.func @small(%x: i32) -> i32 {
  "cf.switch"(%x)[^bad, ^ok, ^ok, ^ok] <{case_operand_segments = array<i32: 0, 0, 0>, case_values = dense<[0, 1, 2]> : vector<3xi32>, operandSegmentSizes = array<i32: 1, 0, 0>}> : (i32) -> ()
^ok:
  return %x : i32
^bad:
  util.unreachable "x out of range"
}

// A tensor constant read only under the branches: it is defined in the
// entry block, where nothing reads it, and must still be materialized.
func.func @branch_constant(%c: i1) -> i32 {
  %t = arith.constant dense<[7, 8]> : tensor<2xi32>
  %u = util.unfoldable_constant dense<[9, 10]> : tensor<2xi32>
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  cf.cond_br %c, ^first, ^second
^first:
  %x = flow.tensor.load %t[%i0] : tensor<2xi32>
  %y = flow.tensor.load %u[%i1] : tensor<2xi32>
  %s = arith.addi %x, %y : i32
  return %s : i32
^second:
  %z = flow.tensor.load %t[%i1] : tensor<2xi32>
  return %z : i32
}
