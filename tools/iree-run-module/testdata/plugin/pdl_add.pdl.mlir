// Sends the linalg.generic tagged "splice" to the plugin's add_flag(a, b,
// out, n, twice = true).
pdl.pattern @splice : benefit(1) {
  %a = pdl.operand
  %b = pdl.operand
  %init = pdl.operand
  %t = pdl.type : tensor<?xf32>
  %tag = pdl.attribute = "splice"
  %g = pdl.operation "linalg.generic"(%a, %b, %init : !pdl.value, !pdl.value, !pdl.value) {"tag" = %tag} -> (%t : !pdl.type)
  pdl.rewrite %g {
    %index = pdl.type : index
    %i32 = pdl.type : i32
    %i1 = pdl.type : i1
    %zero = pdl.attribute = 0 : index
    %c0op = pdl.operation "arith.constant" {"value" = %zero} -> (%index : !pdl.type)
    %c0 = pdl.result 0 of %c0op
    %nop = pdl.operation "tensor.dim"(%a, %c0 : !pdl.value, !pdl.value)
    %n = pdl.result 0 of %nop
    %n32op = pdl.operation "arith.index_cast"(%n : !pdl.value) -> (%i32 : !pdl.type)
    %n32 = pdl.result 0 of %n32op
    %true = pdl.attribute = true
    %twiceop = pdl.operation "arith.constant" {"value" = %true} -> (%i1 : !pdl.type)
    %twice = pdl.result 0 of %twiceop
    %out = pdl.result 0 of %g
    %ins = pdl.range %a, %b : !pdl.value, !pdl.value
    %outs = pdl.range %out : !pdl.value
    %dims = pdl.range %n : !pdl.value
    %others = pdl.range %n32, %twice : !pdl.value, !pdl.value
    %name = pdl.attribute = "add_flag"
    pdl.apply_native_rewrite "rewriteAsFlowDispatch"(%g, %name, %ins, %outs, %dims, %others : !pdl.operation, !pdl.attribute, !pdl.range<value>, !pdl.range<value>, !pdl.range<value>, !pdl.range<value>)
  }
}
