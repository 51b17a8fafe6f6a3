// Integer divisions at every width, one dispatch each (TestIntDivPTX):
// zero divisors and INT_MIN / -1 included, which PTX leaves undefined.
func.func @divsi_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = arith.divsi %a, %b : tensor<?xi8>
  return %r : tensor<?xi8>
}
func.func @remsi_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = arith.remsi %a, %b : tensor<?xi8>
  return %r : tensor<?xi8>
}
func.func @divui_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = arith.divui %a, %b : tensor<?xi8>
  return %r : tensor<?xi8>
}
func.func @remui_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = arith.remui %a, %b : tensor<?xi8>
  return %r : tensor<?xi8>
}
func.func @floordivsi_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = arith.floordivsi %a, %b : tensor<?xi8>
  return %r : tensor<?xi8>
}
func.func @ceildivsi_i8(%a: tensor<?xi8>, %b: tensor<?xi8>) -> tensor<?xi8> {
  %r = arith.ceildivsi %a, %b : tensor<?xi8>
  return %r : tensor<?xi8>
}
func.func @divsi_i16(%a: tensor<?xi16>, %b: tensor<?xi16>) -> tensor<?xi16> {
  %r = arith.divsi %a, %b : tensor<?xi16>
  return %r : tensor<?xi16>
}
func.func @remsi_i16(%a: tensor<?xi16>, %b: tensor<?xi16>) -> tensor<?xi16> {
  %r = arith.remsi %a, %b : tensor<?xi16>
  return %r : tensor<?xi16>
}
func.func @divui_i16(%a: tensor<?xi16>, %b: tensor<?xi16>) -> tensor<?xi16> {
  %r = arith.divui %a, %b : tensor<?xi16>
  return %r : tensor<?xi16>
}
func.func @remui_i16(%a: tensor<?xi16>, %b: tensor<?xi16>) -> tensor<?xi16> {
  %r = arith.remui %a, %b : tensor<?xi16>
  return %r : tensor<?xi16>
}
func.func @floordivsi_i16(%a: tensor<?xi16>, %b: tensor<?xi16>) -> tensor<?xi16> {
  %r = arith.floordivsi %a, %b : tensor<?xi16>
  return %r : tensor<?xi16>
}
func.func @ceildivsi_i16(%a: tensor<?xi16>, %b: tensor<?xi16>) -> tensor<?xi16> {
  %r = arith.ceildivsi %a, %b : tensor<?xi16>
  return %r : tensor<?xi16>
}
func.func @divsi_i32(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = arith.divsi %a, %b : tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @remsi_i32(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = arith.remsi %a, %b : tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @divui_i32(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = arith.divui %a, %b : tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @remui_i32(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = arith.remui %a, %b : tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @floordivsi_i32(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = arith.floordivsi %a, %b : tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @ceildivsi_i32(%a: tensor<?xi32>, %b: tensor<?xi32>) -> tensor<?xi32> {
  %r = arith.ceildivsi %a, %b : tensor<?xi32>
  return %r : tensor<?xi32>
}
func.func @divsi_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = arith.divsi %a, %b : tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @remsi_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = arith.remsi %a, %b : tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @divui_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = arith.divui %a, %b : tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @remui_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = arith.remui %a, %b : tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @floordivsi_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = arith.floordivsi %a, %b : tensor<?xi64>
  return %r : tensor<?xi64>
}
func.func @ceildivsi_i64(%a: tensor<?xi64>, %b: tensor<?xi64>) -> tensor<?xi64> {
  %r = arith.ceildivsi %a, %b : tensor<?xi64>
  return %r : tensor<?xi64>
}
