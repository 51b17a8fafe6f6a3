// The spec of TestTransformSpec: the chain -|x * y| becomes a call of
// @fused, which computes it as min(x * y, -(x * y)) in one generic.
#id = affine_map<(d0) -> (d0)>
module attributes {transform.with_named_sequence} {
  util.func private @fused(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %x, %c0 : tensor<?xf32>
    %e = tensor.empty(%n) : tensor<?xf32>
    %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
    ^bb0(%a: f32, %b: f32, %o: f32):
      %p = arith.mulf %a, %b : f32
      %q = arith.negf %p : f32
      %m = arith.minimumf %p, %q : f32
      linalg.yield %m : f32
    } -> tensor<?xf32>
    util.return %r : tensor<?xf32>
  }
  transform.named_sequence @match(%root: !transform.any_op {transform.readonly}) -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %root {
    ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
      %c0 = arith.constant 0 : index
      %n = tensor.dim %x, %c0 : tensor<?xf32>
      %e = tensor.empty(%n) {"match.operation_name_only"} : tensor<?xf32>
      %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
      ^bb0(%a: f32, %b: f32, %o: f32):
        %p = arith.mulf %a, %b : f32
        linalg.yield %p : f32
      } -> tensor<?xf32>
      %abs = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%m : tensor<?xf32>) outs(%e : tensor<?xf32>) {
      ^bb0(%a: f32, %o: f32):
        %p = math.absf %a : f32
        linalg.yield %p : f32
      } -> tensor<?xf32>
      %neg = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%abs : tensor<?xf32>) outs(%e : tensor<?xf32>) {
      ^bb0(%a: f32, %o: f32):
        %p = arith.negf %a : f32
        linalg.yield %p : f32
      } -> tensor<?xf32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }
  transform.named_sequence @call_fused(%ins: !transform.any_value {transform.readonly}, %out: !transform.any_value {transform.readonly}) {
    %root = transform.get_defining_op %out : (!transform.any_value) -> !transform.any_op
    %module = transform.util.get_nearest_symbol_table %root : (!transform.any_op) -> !transform.any_op
    %f = transform.util.import_symbol @fused into %module if undefined : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %f(%ins) -> %out after %root {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%module: !transform.any_op) {
    %funcs = transform.structured.match ops{["util.func"]} in %module : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%f: !transform.any_op):
      transform.foreach_match in %f @match -> @call_fused : (!transform.any_op) -> (!transform.any_op)
    }
    transform.apply_dce to %module : !transform.any_op
    transform.yield
  }
}
