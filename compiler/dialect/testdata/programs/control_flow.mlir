// Host control flow: structured loops and conditionals (scf) next to
// branches between blocks (cf), as front ends hand them to IREE.
func.func @count_positive(%xs: tensor<8xf32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0.0 : f32
  %i0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %n = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %i0) -> (i32) {
    %x = tensor.extract %xs[%i] : tensor<8xf32>
    %pos = arith.cmpf ogt, %x, %zero : f32
    %next = scf.if %pos -> (i32) {
      %inc = arith.addi %acc, %one : i32
      scf.yield %inc : i32
    } else {
      scf.yield %acc : i32
    }
    scf.yield %next : i32
  }
  return %n : i32
}

func.func @collatz_steps(%start: i64) -> i64 {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %r:2 = scf.while (%v = %start, %steps = %c0) : (i64, i64) -> (i64, i64) {
    %more = arith.cmpi sgt, %v, %c1 : i64
    scf.condition(%more) %v, %steps : i64, i64
  } do {
  ^bb0(%w: i64, %s: i64):
    %rem = arith.remsi %w, %c2 : i64
    %odd = arith.cmpi ne, %rem, %c0 : i64
    %next = scf.if %odd -> (i64) {
      %t = arith.muli %w, %c3 : i64
      %u = arith.addi %t, %c1 : i64
      scf.yield %u : i64
    } else {
      %h = arith.divsi %w, %c2 : i64
      scf.yield %h : i64
    }
    %s1 = arith.addi %s, %c1 : i64
    scf.yield %next, %s1 : i64, i64
  }
  return %r#1 : i64
}

func.func @clamp(%x: i32, %lo: i32, %hi: i32) -> i32 {
  %below = arith.cmpi slt, %x, %lo : i32
  cf.cond_br %below, ^done(%lo : i32), ^check_hi
^check_hi:
  %above = arith.cmpi sgt, %x, %hi : i32
  cf.cond_br %above, ^done(%hi : i32), ^done(%x : i32)
^done(%r: i32):
  %ok = arith.cmpi sle, %r, %hi : i32
  cf.assert %ok, "clamped value above the upper bound"
  return %r : i32
}

func.func @select_by_code(%code: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %code : i32, [
    default: ^other,
    0: ^exit(%a : f32),
    1: ^exit(%b : f32)
  ]
^other:
  %s = arith.addf %a, %b : f32
  cf.br ^exit(%s : f32)
^exit(%v: f32):
  return %v : f32
}

func.func @side_effect_loop(%n: index, %buf: tensor<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %cond = arith.cmpi eq, %i, %c0 : index
    scf.if %cond {
      %v = tensor.extract %buf[%i] : tensor<4xi32>
    }
  }
  return
}
