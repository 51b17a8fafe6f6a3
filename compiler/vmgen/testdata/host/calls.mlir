// Calls between the module's functions: private functions are internal
// VM functions, public ones exported; several results; a call chain.

func.func private @square(%x: i32) -> i32 {
  %r = arith.muli %x, %x : i32
  return %r : i32
}

func.func private @divmod(%a: i32, %b: i32) -> (i32, i32) {
  %q = arith.divsi %a, %b : i32
  %r = arith.remsi %a, %b : i32
  return %q, %r : i32, i32
}

// (x^2 / y, x^2 % y, (x^2 / y)^2 + sum(0..x-1) via a loop of calls)
func.func @chain(%x: i32, %y: i32) -> (i32, i32, i32) {
  %s = call @square(%x) : (i32) -> i32
  %q, %r = call @divmod(%s, %y) : (i32, i32) -> (i32, i32)
  %t = call @square(%q) : (i32) -> i32
  %acc = call @sum_below(%x) : (i32) -> i32
  %out = arith.addi %t, %acc : i32
  return %q, %r, %out : i32, i32, i32
}

// A public function called from another: it stays exported.
func.func @sum_below(%n: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  cf.br ^loop(%c0, %c0 : i32, i32)
^loop(%i: i32, %acc: i32):
  %more = arith.cmpi slt, %i, %n : i32
  cf.cond_br %more, ^body, ^done
^body:
  %a = arith.addi %acc, %i : i32
  %i1 = arith.addi %i, %c1 : i32
  cf.br ^loop(%i1, %a : i32, i32)
^done:
  return %acc : i32
}
