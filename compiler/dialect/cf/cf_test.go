package cf_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name, src string
		// custom and generic list text each printing must contain.
		custom, generic []string
	}{
		{"br-and-cond_br", `func.func @max(%a: i32, %b: i32) -> i32 {
  %c = arith.cmpi sgt, %a, %b : i32
  cf.cond_br %c, ^bb1(%a : i32), ^bb1(%b : i32)
^bb1(%m: i32):
  cf.br ^bb2
^bb2:
  return %m : i32
}`,
			[]string{"cf.cond_br %c, ^bb1(%a : i32), ^bb1(%b : i32)", "^bb1(%m: i32):", "cf.br ^bb2\n"},
			[]string{`"cf.cond_br"(%c, %a, %b)[^bb1, ^bb1] {operandSegmentSizes = array<i32: 1, 1, 1>} : (i1, i32, i32) -> ()`, `"cf.br"()[^bb2] : () -> ()`}},
		{"cond_br-weights", `func.func @f(%c: i1) {
  cf.cond_br %c weights([90, 10]), ^bb1, ^bb2
^bb1:
  return
^bb2:
  return
}`, []string{"cf.cond_br %c weights([90, 10]), ^bb1, ^bb2"},
			[]string{`{branch_weights = array<i32: 90, 10>, operandSegmentSizes = array<i32: 1, 0, 0>}`}},
		{"loop-with-block-arguments", `func.func @sum(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  cf.br ^header(%c0, %c0 : index, index)
^header(%i: index, %acc: index):
  %done = arith.cmpi sge, %i, %n : index
  cf.cond_br %done, ^exit, ^body
^body:
  %next = arith.addi %acc, %i : index
  %inc = arith.addi %i, %c1 : index
  cf.br ^header(%inc, %next : index, index)
^exit:
  return %acc : index
}`,
			[]string{"cf.br ^header(%c0, %c0 : index, index)", "cf.cond_br %done, ^exit, ^body"},
			[]string{`{operandSegmentSizes = array<i32: 1, 0, 0>}`}},
		{"switch", `func.func @pick(%flag: i32, %a: f32, %b: f32) -> f32 {
  cf.switch %flag : i32, [
    default: ^bb1(%a : f32),
    42: ^bb1(%b : f32),
    -3: ^bb2
  ]
^bb1(%x: f32):
  return %x : f32
^bb2:
  return %b : f32
}`,
			[]string{"cf.switch %flag : i32, [\n    default: ^bb1(%a : f32),\n    42: ^bb1(%b : f32),\n    -3: ^bb2\n  ]"},
			[]string{`"cf.switch"(%flag, %a, %b)[^bb1, ^bb1, ^bb2] {case_values = dense<[42, -3]> : vector<2xi32>, case_operand_segments = array<i32: 1, 0>, operandSegmentSizes = array<i32: 1, 1, 1>}`}},
		{"switch-default-only", `func.func @f(%flag: index) {
  cf.switch %flag : index, [
    default: ^bb1
  ]
^bb1:
  return
}`, nil, []string{`"cf.switch"(%flag)[^bb1] {case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 1, 0, 0>}`}},
		{"assert", `func.func @f(%c: i1) {
  cf.assert %c, "expected \"c\" to hold"
  return
}`, []string{`cf.assert %c, "expected \"c\" to hold"`}, []string{`"cf.assert"(%c) {msg = "expected \"c\" to hold"} : (i1) -> ()`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			custom, generic := dialecttest.RoundTrip(t, c.name+".mlir", c.src)
			dialecttest.ContainsAll(t, "custom form", custom, c.custom...)
			dialecttest.ContainsAll(t, "generic form", generic, c.generic...)
		})
	}
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"br operand count", `func.func @f(%a: i32) {
  cf.br ^bb1
^bb1(%x: i32):
  return
}`, "t.mlir:2:3: error: 'cf.br' op branch has 0 operands for successor #0, but target block has 1"},
		{"br operand type", `func.func @f(%a: i32) {
  cf.br ^bb1(%a : i32)
^bb1(%x: f32):
  return
}`, "t.mlir:2:3: error: 'cf.br' op type mismatch for bb argument #0 of successor #0: 'i32' passed, block argument is 'f32'"},
		{"cond_br condition type", `func.func @f(%a: i32) {
  "cf.cond_br"(%a)[^bb1, ^bb1] {operandSegmentSizes = array<i32: 1, 0, 0>} : (i32) -> ()
^bb1:
  return
}`, "t.mlir:2:3: error: 'cf.cond_br' op operand #0 must be 1-bit signless integer, but got 'i32'"},
		{"cond_br condition typed i1 by the parser", `func.func @f(%a: i32) {
  cf.cond_br %a, ^bb1, ^bb1
^bb1:
  return
}`, "t.mlir:2:14: error: use of value '%a' expects different type than prior uses: 'i1' vs 'i32'"},
		{"undefined block", `func.func @f() {
  cf.br ^nowhere
}`, "t.mlir:2:9: error: reference to an undefined block '^nowhere'"},
		{"branch not last", `func.func @f() {
  cf.br ^bb1
  return
^bb1:
  return
}`, "t.mlir:2:3: error: 'cf.br' op must be the last operation in the parent block"},
		{"cond_br three weights", `func.func @f(%c: i1) {
  cf.cond_br %c weights([1, 2, 3]), ^bb1, ^bb1
^bb1:
  return
}`, "t.mlir:2:3: error: 'cf.cond_br' op 'branch_weights' must be two i32 weights, one per successor, found array<i32: 1, 2, 3>"},
		{"switch duplicate case", `func.func @f(%x: i32) {
  cf.switch %x : i32, [
    default: ^bb1,
    1: ^bb1,
    1: ^bb1
  ]
^bb1:
  return
}`, "t.mlir:2:3: error: 'cf.switch' op has duplicate case value: 1"},
		{"switch case values as a splat", `func.func @f(%x: i32) {
  "cf.switch"(%x)[^bb1, ^bb1, ^bb1] {case_values = dense<1> : vector<2xi32>, case_operand_segments = array<i32: 0, 0>, operandSegmentSizes = array<i32: 1, 0, 0>} : (i32) -> ()
^bb1:
  return
}`, "t.mlir:2:3: error: 'cf.switch' op 'case_values' must be a dense integer vector listing each case value, found dense<1> : vector<2xi32>"},
		{"switch flag type", `func.func @f(%x: f32) {
  cf.switch %x : f32, [
    default: ^bb1
  ]
^bb1:
  return
}`, "t.mlir:2:18: error: switch flag must be an integer or index, found 'f32'"},
		{"cond_br without a condition", `func.func @f(%c: i1) {
  "cf.cond_br"(%c)[^bb1, ^bb1] {operandSegmentSizes = array<i32: 0, 1, 0>} : (i1) -> ()
^bb1(%x: i1):
  return
}`, "t.mlir:2:3: error: 'cf.cond_br' op requires exactly 1 condition operand, found 0"},
		{"switch with two flags", `func.func @f(%x: i32) {
  "cf.switch"(%x, %x)[^bb1] {case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 2, 0, 0>} : (i32, i32) -> ()
^bb1:
  return
}`, "t.mlir:2:3: error: 'cf.switch' op requires exactly 1 flag operand, found 2"},
		{"assert message missing", `func.func @f(%c: i1) {
  cf.assert %c
  return
}`, "t.mlir:3:3: error: expected ',', found 'return'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
