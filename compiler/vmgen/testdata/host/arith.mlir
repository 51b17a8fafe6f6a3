// Host scalar math on narrow integers and floats.

// i8 math: values live zero-extended in i32 registers, so signed ops
// must sign-extend them and results must wrap at 8 bits.
func.func @narrow(%a: i8, %b: i8) -> (i32, i32, i32, i1, i1, i32, i32) {
  %c1 = arith.constant 1 : i8
  %q = arith.divsi %a, %b : i8
  %q32 = arith.extsi %q : i8 to i32
  %s = arith.addi %a, %b : i8
  %s32 = arith.extsi %s : i8 to i32
  %u32 = arith.extui %s : i8 to i32
  %lt = arith.cmpi slt, %a, %b : i8
  %ult = arith.cmpi ult, %a, %b : i8
  %sh = arith.shrsi %a, %c1 : i8
  %sh32 = arith.extsi %sh : i8 to i32
  %m = arith.maxsi %a, %b : i8
  %m32 = arith.extsi %m : i8 to i32
  return %q32, %s32, %u32, %lt, %ult, %sh32, %m32 : i32, i32, i32, i1, i1, i32, i32
}

// i1 math and truncation.
func.func @bits(%x: i32) -> (i32, i32, i32) {
  %t = arith.trunci %x : i32 to i1
  %n = arith.xori %t, %t : i1
  %one = arith.constant true
  %f = arith.addi %t, %one : i1
  %sx = arith.extsi %f : i1 to i32
  %h = arith.trunci %x : i32 to i16
  %hs = arith.extsi %h : i16 to i32
  %nz = arith.extui %n : i1 to i32
  return %sx, %hs, %nz : i32, i32, i32
}

// Float comparisons (ordered and unordered, with a NaN), maxnumf and
// conversions.
func.func @floats(%x: f32, %y: f32) -> (i1, i1, i1, i1, f32, f32, i32, i64, f64, i32, f32) {
  %zero = arith.constant 0.0 : f32
  %nan = arith.divf %zero, %zero : f32
  %olt = arith.cmpf olt, %x, %y : f32
  %ult = arith.cmpf ult, %x, %nan : f32
  %olt_nan = arith.cmpf olt, %x, %nan : f32
  %uno = arith.cmpf uno, %nan, %y : f32
  %mx = arith.maxnumf %x, %nan : f32
  %mn = arith.minnumf %nan, %y : f32
  %i = arith.fptosi %x : f32 to i32
  %u = arith.fptoui %y : f32 to i64
  %d = arith.sitofp %i : i32 to f64
  %bits = arith.bitcast %x : f32 to i32
  %back = arith.bitcast %bits : i32 to f32
  return %olt, %ult, %olt_nan, %uno, %mx, %mn, %i, %u, %d, %bits, %back : i1, i1, i1, i1, f32, f32, i32, i64, f64, i32, f32
}

// Scalar math with VM instructions.
func.func @math(%x: f32, %y: f64, %i: i8) -> (f32, f32, f64, f64, i32) {
  %s = math.sqrt %x : f32
  %a = math.absf %x : f32
  %f = math.floor %y : f64
  %c = math.ceil %y : f64
  %ai = math.absi %i : i8
  %ai32 = arith.extui %ai : i8 to i32
  return %s, %a, %f, %c, %ai32 : f32, f32, f64, f64, i32
}
