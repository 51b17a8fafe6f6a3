// f64 maximumf and minimumf (NaN-propagating, -0 below +0), which PTX has
// no single instruction for.
func.func @minmax(%a: tensor<?xf64>, %b: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %x = arith.maximumf %a, %b : tensor<?xf64>
  %n = arith.minimumf %a, %b : tensor<?xf64>
  return %x, %n : tensor<?xf64>, tensor<?xf64>
}
