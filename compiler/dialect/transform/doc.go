// Package transform parses and interprets the part of MLIR's transform
// dialect that IREE's preprocessing specs use to splice custom kernels into
// a program (iree-compile --iree-preprocessing-transform-spec-filename).
//
// A spec is a module with the transform.with_named_sequence attribute whose
// @__transform_main sequence runs on the program's module. Apply runs it.
// The interpreter knows these ops:
//
//   - transform.named_sequence, transform.yield: sequences, called by
//     foreach_match as matchers and actions;
//   - transform.structured.match ops{[names]}: the ops of those names
//     nested in a handle, named as IREE names them when preprocessing
//     specs run: a func.func is a util.func there (IREE's input conversion
//     has turned functions into util.func by then);
//   - transform.foreach: its body once per op of a handle;
//   - transform.foreach_match: every op nested in the root (not the root)
//     is offered to the matchers in order; the first that succeeds records
//     the op with its results, and once the walk ends each recorded action
//     runs on them, so rewrites never disturb the walk;
//   - transform.iree.match.cast_compatible_dag_from_root: the op is the
//     root of the pattern region's last op, compared up its operands:
//     same op names, attributes, result count and region bodies, result
//     and argument types equal up to dynamic dimensions; an op marked
//     "match.operation_name_only" is compared by name alone and its
//     operands are not followed. The pattern's block arguments bind the
//     payload values they meet (the same argument twice must meet the same
//     value); the results are those values and the root's results;
//   - transform.get_defining_op, transform.util.get_nearest_symbol_table;
//   - transform.util.import_symbol @sym into %table [if undefined]: a copy
//     of the spec's symbol appended to the table (without "if undefined",
//     a symbol of that name already there is an error);
//   - transform.util.cast_and_call (util.call) and
//     transform.func.cast_and_call (func.call): a call of the function
//     before or after the insertion point, its inputs and results passed
//     through tensor.cast where the conversion region holds
//     transform.type_conversion.tensor.cast_shape_dynamic_dims and the
//     types differ only in static dimensions; uses of the outputs are
//     rewired to the call's results (the old ops stay until DCE);
//   - transform.apply_dce: removes ops free of side effects (arith, math,
//     tensor, linalg on tensors, affine.apply) whose results are unused.
//   - transform.apply_registered_pass "inline": every func.call and
//     util.call of a single-block function of the table is replaced by the
//     function's body, and private functions left uncalled are removed
//     (other passes are errors).
//
// Matchers of one op's properties (match.go), for specs that test an op
// rather than a DAG: transform.match.operation_name; transform.match.structured
// with a body of transform.match.structured.rank, .dim [i, ...]
// {parallel|reduction} (negative i counts from the last loop), .num_inputs,
// .num_inits and .yield on a linalg op; transform.param.constant and
// transform.match.param.cmpi (eq, ne, lt, le, gt, ge) on integers;
// transform.get_operand and transform.get_result [i];
// transform.iree.match.cast_compatible_type; transform.iree.match.dim_is_multiple_of,
// which matches only static sizes (a dynamic size's divisibility would need
// an analysis of its producers); and transform.iree.match.regions, the op's
// regions compared with those of the pattern's single op.
//
// Any other transform op is an error naming it and its position. Matcher
// failures are not errors: foreach_match tries the next matcher.
package transform
