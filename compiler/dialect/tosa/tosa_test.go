package tosa_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestRoundTrip(t *testing.T) {
	src := `func.func @f(%a: tensor<2x3xf32>, %b: tensor<1x3xf32>, %i: tensor<4xi32>, %c: tensor<2x3xi1>) -> (tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xi1>, tensor<1x3xf32>, tensor<3x2xf32>) {
  %s = "tosa.const"() <{values = dense<1> : tensor<1xi8>}> : () -> tensor<1xi8>
  %m = tosa.mul %i, %i, %s : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  %x = tosa.add %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>
  %g = tosa.greater %a, %b : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>
  %y = "tosa.select"(%c, %x, %a) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = tosa.reduce_sum %y {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %t = tosa.transpose %y {perms = array<i32: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %p = tosa.const_shape {values = dense<[1, 0, 0, 2]> : tensor<4xindex>} : () -> !tosa.shape<4>
  %z = tosa.pad %t, %p : (tensor<3x2xf32>, !tosa.shape<4>) -> tensor<4x4xf32>
  return %y, %m, %g, %r, %t : tensor<2x3xf32>, tensor<4xi32>, tensor<2x3xi1>, tensor<1x3xf32>, tensor<3x2xf32>
}`
	custom, generic := dialecttest.RoundTrip(t, "tosa.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"%m = tosa.mul %i, %i, %s : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>",
		"%y = tosa.select %c, %x, %a : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>",
		"%r = tosa.reduce_sum %y {axis = 0 : i32} : (tensor<2x3xf32>) -> tensor<1x3xf32>",
		"tosa.const {values = dense<1> : tensor<1xi8>} : () -> tensor<1xi8>",
		"%z = tosa.pad %t, %p : (tensor<3x2xf32>, !tosa.shape<4>) -> tensor<4x4xf32>")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"tosa.add"(%a, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf32>`,
		`"tosa.greater"(%a, %b) : (tensor<2x3xf32>, tensor<1x3xf32>) -> tensor<2x3xi1>`)
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no-broadcast", `func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x2xf32>) -> tensor<2x3xf32> {
  %x = tosa.add %a, %b : (tensor<2x3xf32>, tensor<2x2xf32>) -> tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'tosa.add' op operand #1 dimension 1 (2) does not broadcast to the result's 3"},
		{"rank", `func.func @f(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> tensor<2x3xf32> {
  %x = tosa.sub %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'tosa.sub' op operand #1 has rank 1 but the result has rank 2"},
		{"compare-result", `func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %x = tosa.equal %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'tosa.equal' op result element type 'f32' must be 'i1'"},
		{"mixed-elements", `func.func @f(%a: tensor<3xf32>, %b: tensor<3xi32>) -> tensor<3xf32> {
  %x = tosa.maximum %a, %b : (tensor<3xf32>, tensor<3xi32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'tosa.maximum' op operand #1 element type 'i32' differs from operand #0's 'f32'"},
		{"operand-count", `func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %x = tosa.abs %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'tosa.abs' op expects 1 operands, but found 2"},
		{"const-without-value", `func.func @f() -> tensor<3xf32> {
  %x = "tosa.const"() : () -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'tosa.const' op requires a dense 'values' (or 'value') attribute"},
		{"const-type", `func.func @f() -> tensor<3xf32> {
  %x = "tosa.const"() {values = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:8: error: 'tosa.const' op value type 'tensor<2xf32>' does not match the result type 'tensor<3xf32>'"},
		{"const-shape-rank", `func.func @f(%a: tensor<3xf32>) -> tensor<4xf32> {
  %p = tosa.const_shape {values = dense<[1, 0, 0]> : tensor<3xindex>} : () -> !tosa.shape<2>
  %x = tosa.pad %a, %p : (tensor<3xf32>, !tosa.shape<2>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}`, "t.mlir:2:8: error: 'tosa.const_shape' op values of type 'tensor<3xindex>' do not fit '!tosa.shape<2>'"},
		{"types-count", `func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %x = tosa.add %a, %a : (tensor<3xf32>) -> tensor<3xf32>
  return %x : tensor<3xf32>
}`, "t.mlir:2:24: error: 2 operands but 1 operand types"},
	} {
		t.Run(tc.name, func(t *testing.T) { dialecttest.ExpectError(t, tc.src, tc.want) })
	}
}

func TestControlFlow(t *testing.T) {
	src := `func.func @f(%c: tensor<i1>, %x: tensor<i32>) -> (tensor<i32>, tensor<i32>) {
  %r = tosa.cond_if %c : tensor<i1> -> tensor<i32> {
    %a = tosa.add %x, %x : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %a : tensor<i32>
  } else {
    tosa.yield %x : tensor<i32>
  }
  %w = tosa.while_loop (%j = %x) : (tensor<i32>) -> tensor<i32> {
    %g = tosa.greater_equal %x, %j : (tensor<i32>, tensor<i32>) -> tensor<i1>
    tosa.yield %g : tensor<i1>
  } do {
  ^bb0(%j: tensor<i32>):
    %d = tosa.add %j, %j : (tensor<i32>, tensor<i32>) -> tensor<i32>
    tosa.yield %d : tensor<i32>
  }
  return %r, %w : tensor<i32>, tensor<i32>
}`
	custom, generic := dialecttest.RoundTrip(t, "tosa.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom, "tosa.yield %a : tensor<i32>", `"tosa.cond_if"(%c)`, `"tosa.while_loop"(%x)`)
	dialecttest.ContainsAll(t, "generic form", generic, `"tosa.yield"(%g) : (tensor<i1>) -> ()`)
}

func TestControlFlowErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"if-condition", `func.func @f(%c: tensor<2xi1>, %x: tensor<i32>) -> tensor<i32> {
  %r = tosa.cond_if %c : tensor<2xi1> -> tensor<i32> {
    tosa.yield %x : tensor<i32>
  } else {
    tosa.yield %x : tensor<i32>
  }
  return %r : tensor<i32>
}`, "t.mlir:2:8: error: 'tosa.cond_if' op expects a single-element tensor<i1> condition"},
		{"if-yield", `func.func @f(%c: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {
  %r = tosa.cond_if %c : tensor<i1> -> tensor<i32> {
    tosa.yield %x : tensor<i32>
  } else {
    tosa.yield %c : tensor<i1>
  }
  return %r : tensor<i32>
}`, "t.mlir:2:8: error: 'tosa.cond_if' op the else region yields 1 values that do not match the op's 1 results"},
		{"while-cond", `func.func @f(%x: tensor<i32>) -> tensor<i32> {
  %w = tosa.while_loop (%j = %x) : (tensor<i32>) -> tensor<i32> {
    tosa.yield %j : tensor<i32>
  } do {
  ^bb0(%j: tensor<i32>):
    tosa.yield %j : tensor<i32>
  }
  return %w : tensor<i32>
}`, "t.mlir:2:8: error: 'tosa.while_loop' op the cond region must yield one single-element tensor<i1>"},
		{"yield-parent", `func.func @f(%x: tensor<i32>) -> tensor<i32> {
  tosa.yield %x : tensor<i32>
  return %x : tensor<i32>
}`, "t.mlir:2:3: error: 'tosa.yield' op expects parent op 'tosa.cond_if' or 'tosa.while_loop'"},
	} {
		t.Run(tc.name, func(t *testing.T) { dialecttest.ExpectError(t, tc.src, tc.want) })
	}
}
