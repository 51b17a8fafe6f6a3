package scf_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name, src       string
		custom, generic []string
	}{
		{"for-iter_args", `func.func @sum(%n: index, %init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
    %x = arith.addf %acc, %acc : f32
    scf.yield %x : f32
  }
  return %r : f32
}`,
			[]string{"%r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {\n    %x = arith.addf %acc, %acc : f32\n    scf.yield %x : f32\n  }"},
			[]string{`%r = "scf.for"(%c0, %n, %c1, %init) ({`, `^bb0(%i: index, %acc: f32):`, `"scf.yield"(%x) : (f32) -> ()`, `}) : (index, index, index, f32) -> f32`}},
		{"for-implicit-yield-i32-unsigned", `func.func @f(%lb: i32, %ub: i32, %s: i32) {
  scf.for unsigned %i = %lb to %ub step %s : i32 {
    %x = arith.addi %i, %i : i32
  } {tag}
  return
}`,
			[]string{"scf.for unsigned %i = %lb to %ub step %s : i32 {\n    %x = arith.addi %i, %i : i32\n  } {tag}"},
			[]string{`"scf.yield"() : () -> ()`, `{unsignedCmp, tag} : (i32, i32, i32) -> ()`}},
		{"for-two-iter_args-empty-body", `func.func @f(%a: index, %b: f32) -> (index, f32) {
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c1 to %a step %c1 iter_args(%x = %a, %y = %b) -> (index, f32) {
    scf.yield %x, %y : index, f32
  }
  return %r#0, %r#1 : index, f32
}`, []string{"iter_args(%x = %a, %y = %b) -> (index, f32)"}, nil},
		{"if-else-results", `func.func @f(%c: i1, %a: f32, %b: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    scf.yield %a : f32
  } else {
    scf.yield %b : f32
  }
  return %r : f32
}`,
			[]string{"%r = scf.if %c -> (f32) {\n    scf.yield %a : f32\n  } else {\n    scf.yield %b : f32\n  }"},
			[]string{`%r = "scf.if"(%c) ({`, `}, {`, `}) : (i1) -> f32`}},
		{"if-no-else", `func.func @f(%c: i1, %a: f32) {
  scf.if %c {
    %x = arith.addf %a, %a : f32
  }
  return
}`,
			[]string{"scf.if %c {\n    %x = arith.addf %a, %a : f32\n  }\n"},
			[]string{`"scf.yield"() : () -> ()` + "\n  }, {\n  }) : (i1) -> ()"}},
		{"if-else-no-results", `func.func @f(%c: i1, %a: f32) {
  scf.if %c {
  } else {
    %x = arith.addf %a, %a : f32
  }
  return
}`, []string{"scf.if %c {\n  } else {\n"}, nil},
		{"while", `func.func @f(%init: i32, %n: i32) -> i32 {
  %r = scf.while (%arg1 = %init) : (i32) -> i32 {
    %c = arith.cmpi slt, %arg1, %n : i32
    scf.condition(%c) %arg1 : i32
  } do {
  ^bb0(%arg2: i32):
    %next = arith.addi %arg2, %arg2 : i32
    scf.yield %next : i32
  }
  return %r : i32
}`,
			[]string{"%r = scf.while (%arg1 = %init) : (i32) -> i32 {", "scf.condition(%c) %arg1 : i32", "} do {\n  ^bb0(%arg2: i32):"},
			[]string{`%r = "scf.while"(%init) ({`, `"scf.condition"(%c, %arg1) : (i1, i32) -> ()`, `}) : (i32) -> i32`}},
		{"while-no-values", `func.func @f() {
  scf.while : () -> () {
    %c = arith.constant false
    scf.condition(%c)
  } do {
    scf.yield
  }
  return
}`, []string{"scf.while : () -> () {", "scf.condition(%c)\n"}, nil},
		{"index_switch", `func.func @f(%i: index) -> i32 {
  %0 = scf.index_switch %i -> i32
  case 2 {
    %a = arith.constant 10 : i32
    scf.yield %a : i32
  }
  case -5 {
    %b = arith.constant 20 : i32
    scf.yield %b : i32
  }
  default {
    %c = arith.constant 50 : i32
    scf.yield %c : i32
  }
  scf.index_switch %i
  default {
  }
  return %0 : i32
}`, []string{
			"%0 = scf.index_switch %i -> i32\n  case 2 {\n    %a = arith.constant 10 : i32\n    scf.yield %a : i32\n  }\n  case -5 {",
			"  default {\n    %c = arith.constant 50 : i32",
			"scf.index_switch %i\n  default {\n    scf.yield\n  }",
		}, []string{
			`%0 = "scf.index_switch"(%i) ({` + "\n    %c = ",
			`}) {cases = array<i64: 2, -5>} : (index) -> i32`,
		}},
		{"execute_region", `func.func @f(%a: i32) -> i32 {
  %r = scf.execute_region -> i32 {
    %x = arith.addi %a, %a : i32
    scf.yield %x : i32
  }
  %s:2 = scf.execute_region -> (i32, i32) no_inline {
    cf.br ^bb1
  ^bb1:
    scf.yield %r, %r : i32, i32
  }
  return %s#1 : i32
}`,
			[]string{"%r = scf.execute_region -> i32 {", "scf.execute_region -> (i32, i32) no_inline {"},
			[]string{`"scf.execute_region"() ({`, `{no_inline} : () -> (i32, i32)`}},
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
		{"for bound types", `func.func @f(%a: index, %b: i32) {
  "scf.for"(%a, %b, %a) ({
  ^bb0(%i: index):
    "scf.yield"() : () -> ()
  }) : (index, i32, index) -> ()
  return
}`, "t.mlir:2:3: error: 'scf.for' op failed to verify that all of {lowerBound, upperBound, step} have same type"},
		{"for yield type", `func.func @f(%a: index, %x: f32) -> f32 {
  %r = scf.for %i = %a to %a step %a iter_args(%acc = %x) -> (f32) {
    scf.yield %i : index
  }
  return %r : f32
}`, "t.mlir:3:5: error: 'scf.yield' op type of yielded value #0 ('index') does not match loop result type 'f32'"},
		{"for iter_args count", `func.func @f(%a: index, %x: f32) {
  %r = scf.for %i = %a to %a step %a iter_args(%acc = %x) -> (f32, f32) {
    scf.yield %acc : f32
  }
  return
}`, "t.mlir:2:59: error: mismatch in number of loop-carried values and defined values: 1 iter_args, 2 result types"},
		{"if without else defines values", `func.func @f(%c: i1, %x: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  }
  return %r : f32
}`, "t.mlir:2:8: error: 'scf.if' op must have an else block if defining values"},
		{"if yields too few", `func.func @f(%c: i1, %x: f32) -> f32 {
  %r = scf.if %c -> (f32) {
    scf.yield %x : f32
  } else {
    scf.yield
  }
  return %r : f32
}`, "t.mlir:5:5: error: 'scf.yield' op yields 0 values but the parent 'scf.if' expects 1 (result)"},
		{"if condition type", `func.func @f(%c: i32) {
  scf.if %c {
  }
  return
}`, "t.mlir:2:10: error: use of value '%c' expects different type than prior uses: 'i1' vs 'i32'"},
		{"while forwards wrong type", `func.func @f(%x: i32) -> f32 {
  %r = scf.while (%a = %x) : (i32) -> f32 {
    %c = arith.constant true
    scf.condition(%c) %a : i32
  } do {
  ^bb0(%b: f32):
    scf.yield %x : i32
  }
  return %r : f32
}`, "t.mlir:2:8: error: 'scf.while' op forwarded value #0 has type 'i32', but the result is 'f32' and the after region argument is 'f32'"},
		{"index_switch duplicate case", `func.func @f(%i: index) {
  scf.index_switch %i
  case 1 {
  }
  case 1 {
  }
  default {
  }
  return
}`, "t.mlir:2:3: error: 'scf.index_switch' op has duplicate case value: 1"},
		{"index_switch case yields the wrong type", `func.func @f(%i: index, %x: f32, %y: i32) -> f32 {
  %r = scf.index_switch %i -> f32
  case 1 {
    scf.yield %y : i32
  }
  default {
    scf.yield %x : f32
  }
  return %r : f32
}`, "t.mlir:4:5: error: 'scf.yield' op type of yielded value #0 ('i32') does not match result type 'f32'"},
		{"yield outside scf", `func.func @f() {
  scf.yield
}`, "t.mlir:2:3: error: 'scf.yield' op expects parent op to be one of 'scf.execute_region, scf.for, scf.if, scf.index_switch, scf.while'"},
		{"condition outside while", `func.func @f(%c: i1) {
  scf.condition(%c)
}`, "t.mlir:2:3: error: 'scf.condition' op expects parent op 'scf.while' (in its before region)"},
		{"induction variable used outside", `func.func @f(%a: index) -> index {
  scf.for %i = %a to %a step %a {
  }
  return %i : index
}`, "t.mlir:4:10: error: use of undeclared SSA value name '%i'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
