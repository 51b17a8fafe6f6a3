package function_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

// TestFunctionLikeErrors runs func.func and util.func, which share their
// argument list, body and body checks, through the same faults: each must
// be reported under its own op name at the same place.
func TestFunctionLikeErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"body with bare argument types", `func.func @f(i32) {
  return
}`, "t.mlir:1:19: error: expected named arguments (%name: type) for a function with a body"},
		{"util body with bare argument types", `util.func @f(i32) {
  util.return
}`, "t.mlir:1:19: error: expected named arguments (%name: type) for a function with a body"},
		{"public declaration", `func.func @f(%a: i32)`, "t.mlir:1:1: error: 'func.func' op symbol declaration cannot have public visibility"},
		{"util public declaration", `util.func @f(%a: i32)`, "t.mlir:1:1: error: 'util.func' op symbol declaration cannot have public visibility"},
		{"entry block argument count", `"func.func"() ({
^bb0(%a: i32):
  func.return
}) {function_type = () -> (), sym_name = "f"} : () -> ()`, "t.mlir:1:1: error: 'func.func' op entry block has 1 arguments but the function type has 0 inputs"},
		{"util entry block argument type", `"util.func"() ({
^bb0(%a: i32):
  util.return
}) {function_type = (f32) -> (), sym_name = "f"} : () -> ()`, "t.mlir:1:1: error: 'util.func' op type of entry block argument #0 ('i32') must match the type of the corresponding argument in the function signature ('f32')"},
		{"no function type", `"func.func"() ({
}) {sym_name = "f", sym_visibility = "private"} : () -> ()`, "t.mlir:1:1: error: 'func.func' op requires a 'function_type' attribute of function type"},
		{"util without a name", `"util.func"() ({
}) {function_type = () -> (), sym_visibility = "private"} : () -> ()`, "t.mlir:1:1: error: 'util.func' op requires a symbol name"},
		{"util with two regions", `"util.func"() ({
}, {
}) {function_type = () -> (), sym_name = "f", sym_visibility = "private"} : () -> ()`, "t.mlir:1:1: error: 'util.func' op expects at most one region"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}

// TestFunctionLikeAttrs checks that argument and result dictionaries
// become arg_attrs and res_attrs (only when one is non-empty) and print
// back after their types, for both ops.
func TestFunctionLikeAttrs(t *testing.T) {
	src := `func.func private @f(%a: i32 {x.a}, %b: f32) -> (i32 {x.r})
func.func private @g(%a: i32) -> i32
util.func private @h(%a: i32, %b: f32 {x.b}) -> (%a {x.r}, f32)
util.func private @k(%a: i32) -> i32
`
	custom, generic := dialecttest.RoundTrip(t, "attrs.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"func.func private @f(i32 {x.a}, f32) -> (i32 {x.r})",
		"func.func private @g(i32) -> i32\n",
		"util.func private @h(%arg0: i32, %arg1: f32 {x.b}) -> (%arg0 {x.r}, f32)",
		"util.func private @k(%arg0: i32) -> i32\n",
	)
	dialecttest.ContainsAll(t, "generic form", generic,
		"arg_attrs = [{x.a}, {}]", "res_attrs = [{x.r}]",
		"arg_attrs = [{}, {x.b}]", "res_attrs = [{x.r}, {}]",
	)
}
