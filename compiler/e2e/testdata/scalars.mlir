// Host-only scalar math: no device work at all.
func.func @tiles(%n: index, %bias: i32) -> (index, i32) {
  %t = affine.apply affine_map<(d0) -> (d0 ceildiv 64 + d0 mod 3 - d0 floordiv 7)>(%n)
  %n32 = arith.index_cast %n : index to i32
  %s = arith.muli %n32, %bias : i32
  %m = arith.maxsi %s, %bias : i32
  return %t, %m : index, i32
}
