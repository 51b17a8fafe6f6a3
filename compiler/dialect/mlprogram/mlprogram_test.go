package mlprogram_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestRoundTrip(t *testing.T) {
	src := `ml_program.global private mutable @counter(dense<2.0> : tensor<f32>): tensor<f32>
ml_program.global public @table(dense<[1, 2, 3, 4]> : tensor<4xi32>) : tensor<?xi32> {tag}
ml_program.global private mutable @state : tensor<2xf32>
ml_program.global private @ext(#ml_program.extern : tensor<4xi32>) : tensor<4xi32>
func.func @f() -> tensor<f32> {
  %0 = ml_program.global_load @counter : tensor<f32>
  %t = ml_program.global_load_const @table : tensor<4xi32>
  ml_program.global_store @counter = %0 : tensor<f32>
  return %0 : tensor<f32>
}`
	custom, generic := dialecttest.RoundTrip(t, "mlprogram.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"ml_program.global private mutable @counter(dense<2.0> : tensor<f32>) : tensor<f32>",
		"ml_program.global public @table(dense<[1, 2, 3, 4]> : tensor<4xi32>) : tensor<?xi32> {tag}",
		"ml_program.global private mutable @state : tensor<2xf32>",
		"ml_program.global private @ext(#ml_program.extern : tensor<4xi32>) : tensor<4xi32>",
		"%0 = ml_program.global_load @counter : tensor<f32>",
		"%t = ml_program.global_load_const @table : tensor<4xi32>",
		"ml_program.global_store @counter = %0 : tensor<f32>")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"ml_program.global"() {sym_visibility = "private", sym_name = "counter", type = tensor<f32>, is_mutable, value = dense<2.0> : tensor<f32>} : () -> ()`,
		`%0 = "ml_program.global_load"() {global = @counter} : () -> tensor<f32>`,
		`"ml_program.global_store"(%0) {global = @counter} : (tensor<f32>) -> ()`)
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"immutable without value", `ml_program.global private @g : tensor<f32>`,
			"t.mlir:1:1: error: 'ml_program.global' op immutable global @g must have an initial value"},
		{"value type", `ml_program.global private @g(dense<1.0> : tensor<3xf32>) : tensor<4xf32>`,
			"t.mlir:1:1: error: 'ml_program.global' op initial value type 'tensor<3xf32>' does not fit global @g of type 'tensor<4xf32>'"},
		{"undefined", "func.func @f() -> tensor<f32> {\n  %0 = ml_program.global_load @nope : tensor<f32>\n  return %0 : tensor<f32>\n}",
			"t.mlir:2:8: error: 'ml_program.global_load' op undefined global: @nope"},
		{"load type", "ml_program.global private @g(dense<1.0> : tensor<4xf32>) : tensor<4xf32>\nfunc.func @f() -> tensor<3xf32> {\n  %0 = ml_program.global_load @g : tensor<3xf32>\n  return %0 : tensor<3xf32>\n}",
			"t.mlir:3:8: error: 'ml_program.global_load' op global @g is 'tensor<4xf32>' but the load is 'tensor<3xf32>'"},
		{"const of mutable", "ml_program.global private mutable @g(dense<1.0> : tensor<4xf32>) : tensor<4xf32>\nfunc.func @f() -> tensor<4xf32> {\n  %0 = ml_program.global_load_const @g : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}",
			"t.mlir:3:8: error: 'ml_program.global_load_const' op loads mutable global @g as a constant; use ml_program.global_load"},
		{"store to immutable", "ml_program.global private @g(dense<1.0> : tensor<4xf32>) : tensor<4xf32>\nfunc.func @f(%v: tensor<4xf32>) {\n  ml_program.global_store @g = %v : tensor<4xf32>\n  return\n}",
			"t.mlir:3:3: error: 'ml_program.global_store' op stores to immutable global @g"},
		{"not a global", "func.func @g() {\n  return\n}\nfunc.func @f() -> tensor<f32> {\n  %0 = ml_program.global_load @g : tensor<f32>\n  return %0 : tensor<f32>\n}",
			"t.mlir:5:8: error: 'ml_program.global_load' op symbol @g is a 'func.func', not an ml_program.global"},
		{"missing paren", `ml_program.global private @g(dense<1.0> : tensor<4xf32> : tensor<4xf32>`,
			"t.mlir:1:57: error: expected ')', found ':'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
