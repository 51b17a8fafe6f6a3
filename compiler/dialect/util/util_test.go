package util_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name, src       string
		custom, generic []string
	}{
		{"globals", `util.global private @scale = dense<2.0> : tensor<4xf32>
util.global private mutable @counter = 0 : i32
util.global private mutable @state : tensor<?xf32>
util.global public @weights {noinline} : tensor<2x2xf32> = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
util.global private @"__iree_flow_bert/embeddings/bias" = dense<0.5> : tensor<8xf32>
util.global private @lazy : tensor<4xi32>
util.initializer {
  %c = arith.constant dense<7> : tensor<4xi32>
  util.global.store %c, @lazy : tensor<4xi32>
  util.return
}
util.func public @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %s = util.global.load immutable @scale : tensor<4xf32>
  %n = util.global.load @counter : i32
  %one = arith.constant 1 : i32
  %n1 = arith.addi %n, %one : i32
  util.global.store %n1, @counter : i32
  %w = util.global.load @weights : tensor<2x2xf32>
  %l = util.global.load @lazy : tensor<4xi32>
  util.return %s : tensor<4xf32>
}`,
			[]string{
				"util.global private @scale = dense<2.0> : tensor<4xf32>",
				"util.global private mutable @counter = 0 : i32",
				"util.global private mutable @state : tensor<?xf32>",
				"util.global public @weights {noinline} = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>",
				`util.global private @"__iree_flow_bert/embeddings/bias" = dense<0.5> : tensor<8xf32>`,
				"util.initializer {\n",
				"%s = util.global.load immutable @scale : tensor<4xf32>",
				"util.global.store %n1, @counter : i32",
				"util.return %s : tensor<4xf32>",
			},
			[]string{
				`"util.global"() {sym_visibility = "private", sym_name = "scale", type = tensor<4xf32>, initial_value = dense<2.0> : tensor<4xf32>} : () -> ()`,
				`"util.global"() {sym_visibility = "private", sym_name = "counter", type = i32, is_mutable, initial_value = 0 : i32} : () -> ()`,
				`"util.global"() {sym_visibility = "private", sym_name = "state", type = tensor<?xf32>, is_mutable} : () -> ()`,
				`"util.initializer"() ({`,
				`}) {function_type = () -> ()} : () -> ()`,
				`%s = "util.global.load"() {global = @scale, is_immutable} : () -> tensor<4xf32>`,
				`"util.global.store"(%n1) {global = @counter} : (i32) -> ()`,
				`"util.return"(%s) : (tensor<4xf32>) -> ()`,
			}},
		{"global-typed-initial-value-of-other-type", `util.global private @g : tensor<?xf32> = dense<1.0> : tensor<4xf32>
util.global public @h : tensor<4xf32> = dense<4> : tensor<4xi32>`,
			[]string{"util.global private @g : tensor<?xf32> = dense<1.0> : tensor<4xf32>", "util.global public @h : tensor<4xf32> = dense<4> : tensor<4xi32>"}, nil},
		{"seed-initializer-return", `util.global private @g : i32
util.initializer {
  %c = arith.constant 3 : i32
  util.global.store %c, @g : i32
  util.initializer.return
}`, []string{"  util.return\n"}, []string{`"util.return"() : () -> ()`}},
		{"indirect", `util.global private mutable @t = dense<1.0> : tensor<4xf32>
util.func public @f() -> tensor<4xf32> {
  %p = util.global.address @t : !util.ptr<tensor<4xf32>>
  %v = util.global.load.indirect %p : !util.ptr<tensor<4xf32>> -> tensor<4xf32>
  util.global.store.indirect %v, %p : tensor<4xf32> -> !util.ptr<tensor<4xf32>>
  util.return %v : tensor<4xf32>
}`, []string{
			"%p = util.global.address @t : !util.ptr<tensor<4xf32>>",
			"%v = util.global.load.indirect %p : !util.ptr<tensor<4xf32>> -> tensor<4xf32>",
			"util.global.store.indirect %v, %p : tensor<4xf32> -> !util.ptr<tensor<4xf32>>",
		}, []string{`"util.global.load.indirect"(%p) : (!util.ptr<tensor<4xf32>>) -> tensor<4xf32>`}},
		{"funcs-calls-ties", `util.func private @extern(%arg0: i32, %arg1: tensor<4x?xi32>, %arg2: tensor<4x?xi32>) -> (%arg1, %arg2 as tensor<?x4xf32> {ret.attr})
util.func private @decl(i32, f32 {arg.attr}) -> i32
util.func private @inplace(%a: tensor<?xf32>) -> %a {
  util.return %a : tensor<?xf32>
}
util.func public @main(%x: i32, %t: tensor<4x?xi32>, %v: tensor<?xf32>) -> (tensor<?x4xf32>, tensor<?xf32>) attributes {iree.abi.stub} {
  %a, %b = util.call @extern(%x, %t, %t) : (i32, tensor<4x?xi32>, tensor<4x?xi32>) -> (%t, %t as tensor<?x4xf32>)
  %w = util.call @inplace(%v) : (tensor<?xf32>) -> %v
  util.return %b, %w : tensor<?x4xf32>, tensor<?xf32>
}`, []string{
			"util.func private @extern(%arg0: i32, %arg1: tensor<4x?xi32>, %arg2: tensor<4x?xi32>) -> (%arg1, %arg2 as tensor<?x4xf32> {ret.attr})",
			"util.func private @decl(%arg0: i32, %arg1: f32 {arg.attr}) -> i32\n",
			"util.func private @inplace(%a: tensor<?xf32>) -> %a {",
			"util.func public @main(%x: i32, %t: tensor<4x?xi32>, %v: tensor<?xf32>) -> (tensor<?x4xf32>, tensor<?xf32>) attributes {iree.abi.stub} {",
			"%a, %b = util.call @extern(%x, %t, %t) : (i32, tensor<4x?xi32>, tensor<4x?xi32>) -> (%t, %t as tensor<?x4xf32>)",
			"%w = util.call @inplace(%v) : (tensor<?xf32>) -> %v",
		}, []string{
			"\"util.func\"() {sym_visibility = \"private\", sym_name = \"extern\", tied_operands = [1 : index, 2 : index], function_type = (i32, tensor<4x?xi32>, tensor<4x?xi32>) -> (tensor<4x?xi32>, tensor<?x4xf32>), res_attrs = [{}, {ret.attr}]} : () -> ()",
			`arg_attrs = [{}, {arg.attr}]`,
			`"util.call"(%x, %t, %t) {callee = @extern, tied_operands = [1 : index, 1 : index]} : (i32, tensor<4x?xi32>, tensor<4x?xi32>) -> (tensor<4x?xi32>, tensor<?x4xf32>)`,
		}},
		{"typed-dialect-initial-values", `util.global private @a0 = #flow.parameter.named<"a"::"a0"> : tensor<4xi64>
util.global private @"layer-1.kernel" {inlining_policy = #util.inline.never} = #util.byte_pattern<1> : tensor<8x2xf32>
util.func private @f() -> !util.buffer {
  %b = util.buffer.constant "greeting" {alignment = 16 : index} : !util.buffer = "optimized"
  %c = util.buffer.constant : !util.buffer = dense<[1, 2]> : tensor<2xi8>
  util.return %b : !util.buffer
}`, []string{
			`util.global private @a0 = #flow.parameter.named<"a"::"a0"> : tensor<4xi64>`,
			`util.global private @"layer-1.kernel" {inlining_policy = #util.inline.never} = #util.byte_pattern<1> : tensor<8x2xf32>`,
			`%b = util.buffer.constant "greeting" {alignment = 16 : index} : !util.buffer = "optimized"`,
			`%c = util.buffer.constant : !util.buffer = dense<[1, 2]> : tensor<2xi8>`,
		}, []string{
			`type = tensor<4xi64>, initial_value = #flow.parameter.named<"a"::"a0"> : tensor<4xi64>}`,
			`%b = "util.buffer.constant"() {name = "greeting", alignment = 16 : index, value = "optimized"} : () -> !util.buffer`,
		}},
		{"assume-int-and-unparenthesized-results", `util.func public @f(%a: index, %b: i64) -> index, i64 {
  %0 = util.assume.int %a<umin=0> : index
  %1:2 = util.assume.int %a[<umin=0>, <udiv=5>], %b[<umax = 10>, <udiv = 6, umin = 1>] : index, i64
  %2 = util.assume.int %b#util.int.assumption<umax = 7> : i64
  util.scf.unreachable "not really"
  util.return %1#0, %1#1 : index, i64
}`, []string{
			"util.func public @f(%a: index, %b: i64) -> (index, i64) {",
			"%0 = util.assume.int %a<umin = 0> : index",
			"%1:2 = util.assume.int %a[<umin = 0>, <udiv = 5>], %b[<umax = 10>, <umin = 1, udiv = 6>] : index, i64",
			"%2 = util.assume.int %b<umax = 7> : i64",
			`util.scf.unreachable "not really"`,
		}, []string{
			`%0 = "util.assume.int"(%a) {assumptions = [[#util.int.assumption<umin = 0>]]} : (index) -> index`,
		}},
		{"hints", `util.func public @f(%a: tensor<2xi32>, %b: f32) -> (tensor<2xi32>, f32) {
  %c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>
  %d = util.unfoldable_constant {tag} 3.5 : f32
  %e = util.unfoldable_constant @f : (tensor<2xi32>, f32) -> (tensor<2xi32>, f32)
  %x, %y = util.optimization_barrier %c, %b : tensor<2xi32>, f32
  %z = util.optimization_barrier %x : tensor<2xi32>
  %n = util.null : !hal.buffer
  util.return %z, %y : tensor<2xi32>, f32
}
util.func private @g() {
  util.unreachable "never"
}`, []string{
			"%c = util.unfoldable_constant dense<[1, 2]> : tensor<2xi32>",
			"%d = util.unfoldable_constant {tag} 3.5 : f32",
			"%e = util.unfoldable_constant @f : (tensor<2xi32>, f32) -> (tensor<2xi32>, f32)",
			"%x, %y = util.optimization_barrier %c, %b : tensor<2xi32>, f32",
			"%n = util.null : !hal.buffer",
			`util.unreachable "never"`,
		}, []string{
			`%c = "util.unfoldable_constant"() {value = dense<[1, 2]> : tensor<2xi32>} : () -> tensor<2xi32>`,
			`"util.optimization_barrier"(%c, %b) : (tensor<2xi32>, f32) -> (tensor<2xi32>, f32)`,
			`"util.unreachable"() {message = "never"} : () -> ()`,
		}},
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
		{"load of undefined global", `util.func public @f() -> i32 {
  %v = util.global.load @nope : i32
  util.return %v : i32
}`, "t.mlir:2:8: error: 'util.global.load' op undefined global: @nope"},
		{"load type mismatch", `util.global private @g = 1 : i32
util.func public @f() -> i64 {
  %v = util.global.load @g : i64
  util.return %v : i64
}`, "t.mlir:3:8: error: 'util.global.load' op global type mismatch; global @g is 'i32' but load is 'i64'"},
		{"store type mismatch", `util.global private mutable @g : tensor<4xf32>
util.func public @f(%x: tensor<?xf32>) {
  util.global.store %x, @g : tensor<?xf32>
  util.return
}`, "t.mlir:3:3: error: 'util.global.store' op global type mismatch; global @g is 'tensor<4xf32>' but store is 'tensor<?xf32>'"},
		{"store to immutable outside initializer", `util.global private @g = 1 : i32
util.func public @f(%x: i32) {
  util.global.store %x, @g : i32
  util.return
}`, "t.mlir:3:3: error: 'util.global.store' op global @g is not mutable and cannot be stored to outside an initializer"},
		{"immutable load of mutable global", `util.global private mutable @g = 1 : i32
util.func public @f() -> i32 {
  %v = util.global.load immutable @g : i32
  util.return %v : i32
}`, "t.mlir:3:8: error: 'util.global.load' op is marked as immutable but the global is mutable"},
		{"global never initialized", `util.global private @g : tensor<4xf32>
util.func public @f() -> tensor<4xf32> {
  %v = util.global.load @g : tensor<4xf32>
  util.return %v : tensor<4xf32>
}`, "t.mlir:3:8: error: 'util.global.load' op loads global @g, which is never initialized: it is immutable, has no initial value, and no util.initializer stores to it"},
		{"initializer loads a global defined below it", `util.global private @a : i32
util.initializer {
  %v = util.global.load @b : i32
  util.global.store %v, @a : i32
  util.return
}
util.global private @b = 4 : i32`, "t.mlir:3:8: error: 'util.global.load' op loads global @b before its definition at t.mlir:7:1: initializers run in module order and may only use globals defined above them"},
		{"initial value shape mismatch", `util.global private @g : tensor<4xf32> = dense<1.0> : tensor<3xf32>`,
			"t.mlir:1:1: error: 'util.global' op initial value type mismatch; global @g is 'tensor<4xf32>' but initial value provided is 'tensor<3xf32>'"},
		{"address of mutable global marked immutable", `util.global private mutable @g = 1 : i32
util.func public @f() {
  %p = util.global.address immutable @g : !util.ptr<i32>
  util.return
}`, "t.mlir:3:8: error: 'util.global.address' op is marked as immutable but the global is mutable"},
		{"return count", `util.func public @f(%x: i32) -> (i32, i32) {
  util.return %x : i32
}`, "t.mlir:2:3: error: 'util.return' op has 1 operands, but enclosing function-like op returns 2"},
		{"return outside util function", `func.func @f() {
  util.return
}`, "t.mlir:2:3: error: 'util.return' op expects parent op to be one of 'util.initializer, util.func'"},
		{"call undefined", `util.func public @f() {
  util.call @nope() : () -> ()
  util.return
}`, "t.mlir:2:3: error: 'util.call' op refers to an undefined function @nope"},
		{"call operand types", `util.func private @g(i32)
util.func public @f(%x: f32) {
  util.call @g(%x) : (f32) -> ()
  util.return
}`, "t.mlir:3:3: error: 'util.call' op operand type mismatch: expected operand type 'i32', but provided 'f32' for operand number 0"},
		{"tie to unknown argument", `util.func private @g(%a: i32) -> %b`, "t.mlir:1:34: error: tied operand not found for result reference %b"},
		{"public declaration", `util.func @g(%a: i32)`, "t.mlir:1:1: error: 'util.func' op symbol declaration cannot have public visibility"},
		{"barrier types", `util.func public @f(%a: i32) {
  %b = "util.optimization_barrier"(%a) : (i32) -> i64
  util.return
}`, "t.mlir:2:8: error: 'util.optimization_barrier' op failed to verify that all of {operands, results} have same type: operand #0 is 'i32', result #0 is 'i64'"},
		{"assumption rows of different lengths", `util.func public @f(%a: index, %b: i64) {
  %0:2 = util.assume.int %a[<umin=0>, <umax=2>, <udiv=16>], %b[<umax=10>, <udiv=6>] : index, i64
  util.return
}`, "t.mlir:2:10: error: 'util.assume.int' op expected operand #1 to have 3 assumptions but it has 2"},
		{"assumption rows not assumptions", `util.func public @f(%a: index) {
  %0 = "util.assume.int"(%a) {assumptions = [[32]]} : (index) -> index
  util.return
}`, "t.mlir:2:8: error: 'util.assume.int' op attribute 'assumptions' failed to satisfy constraint: row #0 holds 32, not a #util.int.assumption"},
		{"unknown assumption", `util.func public @f(%a: index) {
  %0 = util.assume.int %a<umin=0, max=3> : index
  util.return
}`, "t.mlir:2:35: error: unknown integer assumption 'max' (expected umin, umax or udiv)"},
		{"unfoldable untyped", `util.func public @f() {
  %c = util.unfoldable_constant "x"
  util.return
}`, `t.mlir:2:33: error: expected a typed constant value, found "x"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
