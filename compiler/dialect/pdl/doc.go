// Package pdl parses MLIR's pdl dialect and applies its patterns, for
// iree-compile --iree-preprocessing-pdl-spec-filename.
//
// A pattern's body describes a DAG of payload ops from its root (the
// operand of pdl.rewrite) up through operands: pdl.operation with an
// optional name, operands, attributes ({"name" = %attr}) and result types;
// pdl.operand, pdl.result, pdl.type and pdl.attribute, each either a
// constant the payload must equal or a variable bound at its first use and
// compared at the others. Operations the walk up from the root does not
// reach (consumers of its values) match the first payload op that fits the
// bindings so far. The native constraint checkTensorElementType(type,
// element type) holds when the first is a shaped type of the second.
// Patterns are tried highest benefit first on a
// pre-order walk of the program; after each rewrite the walk starts again,
// until none matches (at most 10,000 rewrites, against patterns that
// recreate what they match).
//
// An empty pdl.range is written `pdl.range : !pdl.range<value>`.
//
// A rewrite region may create ops (pdl.operation with a name; the result
// types of tensor.dim, memref.dim and affine.apply may be left out), take
// their results (pdl.result), gather values (pdl.range), pdl.replace an op
// with a new op or with values, pdl.erase an unused op, and call the native
// rewrite IREE provides, rewriteAsFlowDispatch(root, "fn", inputs,
// replaced values, their dynamic sizes, other operands): it generates a
// stream.executable @fn_<element types>_executable whose entry point
// @fn_entry_point takes a binding per input and replaced value, the other
// operands and every dynamic size, and calls the body-less, llvm.bareptr
// function @fn with each tensor's base pointer and offset, then the other
// operands (an executable plugin or object provides it); a private
// util.func dispatches it, and a util.call of that function replaces the
// root's values. Other native constraints and rewrites are errors naming
// them.
package pdl
