package flow_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

func TestTensorOpsRoundTrip(t *testing.T) {
	cases := []struct {
		name, src       string
		custom, generic []string
	}{
		{"constants", `func.func @f() -> (tensor<2x1xi32>, tensor<?x1xi32>, tensor<?x4xf16>) {
  %a = flow.tensor.constant dense<[[2], [4]]> : tensor<2x1xi32>
  %b = flow.tensor.dynamic_constant dense<[[2], [4]]> : tensor<2x1xi32> -> tensor<?x1xi32>
  %c = flow.tensor.constant {tag} dense<1.5> : tensor<3x4xf16> -> tensor<?x4xf16>
  %p = flow.tensor.constant #flow.parameter.named<"m"::"w"> : tensor<20xf32>
  return %a, %b, %c : tensor<2x1xi32>, tensor<?x1xi32>, tensor<?x4xf16>
}`, []string{
			`%p = flow.tensor.constant #flow.parameter.named<"m"::"w"> : tensor<20xf32>`,
			"%a = flow.tensor.constant dense<[[2], [4]]> : tensor<2x1xi32>\n",
			"%b = flow.tensor.dynamic_constant dense<[[2], [4]]> : tensor<2x1xi32> -> tensor<?x1xi32>",
			"%c = flow.tensor.dynamic_constant {tag} dense<1.5> : tensor<3x4xf16> -> tensor<?x4xf16>",
		}, []string{
			`%a = "flow.tensor.constant"() {value = dense<[[2], [4]]> : tensor<2x1xi32>} : () -> tensor<2x1xi32>`,
			`%c = "flow.tensor.dynamic_constant"() {value = dense<1.5> : tensor<3x4xf16>, tag} : () -> tensor<?x4xf16>`,
		}},
		{"shapes", `func.func @f(%t: tensor<?x?xf32>, %h: index, %w: index, %m: tensor<2xi8>) -> (tensor<?xf32>, tensor<2x8xi1, #iree_encoding.packed_storage>) {
  %0 = flow.tensor.tie_shape %t : tensor<?x?xf32>{%h, %w}
  %n = arith.muli %h, %w : index
  %1 = flow.tensor.reshape %0 : tensor<?x?xf32>{%h, %w} -> tensor<?xf32>{%n}
  %2 = flow.tensor.bitcast %m : tensor<2xi8> -> tensor<2x8xi1, #iree_encoding.packed_storage>
  %3 = flow.tensor.reshape %m : tensor<2xi8> -> tensor<1x2xi8> attributes {tag}
  return %1, %2 : tensor<?xf32>, tensor<2x8xi1, #iree_encoding.packed_storage>
}`, []string{
			"%0 = flow.tensor.tie_shape %t : tensor<?x?xf32>{%h, %w}",
			"%1 = flow.tensor.reshape %0 : tensor<?x?xf32>{%h, %w} -> tensor<?xf32>{%n}",
			"%2 = flow.tensor.bitcast %m : tensor<2xi8> -> tensor<2x8xi1, #iree_encoding.packed_storage>",
			"%3 = flow.tensor.reshape %m : tensor<2xi8> -> tensor<1x2xi8> attributes {tag}",
		}, []string{
			`%0 = "flow.tensor.tie_shape"(%t, %h, %w) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>`,
			`%1 = "flow.tensor.reshape"(%0, %h, %w, %n) {operandSegmentSizes = array<i32: 1, 2, 1>} : (tensor<?x?xf32>, index, index, index) -> tensor<?xf32>`,
		}},
		{"elements", `func.func @f(%t: tensor<?x4xf32>, %d: index, %i: index, %v: f32, %s: tensor<f32>) -> (f32, tensor<?x4xf32>, f32) {
  %x = flow.tensor.load %t[%i, %i] : tensor<?x4xf32>{%d}
  %u = flow.tensor.store %v, %t[%i, %i] : tensor<?x4xf32>{%d}
  %y = flow.tensor.load %s : tensor<f32>
  %z = flow.tensor.splat %v : tensor<?x4xf32>{%d}
  %c = flow.tensor.clone %z : tensor<?x4xf32>{%d}
  %e = flow.tensor.empty : tensor<?x4xf32>{%d}
  %a = flow.tensor.alloca : tensor<8xf32>
  return %x, %u, %y : f32, tensor<?x4xf32>, f32
}`, []string{
			"%x = flow.tensor.load %t[%i, %i] : tensor<?x4xf32>{%d}",
			"%u = flow.tensor.store %v, %t[%i, %i] : tensor<?x4xf32>{%d}",
			"%y = flow.tensor.load %s : tensor<f32>\n",
			"%z = flow.tensor.splat %v : tensor<?x4xf32>{%d}",
			"%c = flow.tensor.clone %z : tensor<?x4xf32>{%d}",
			"%e = flow.tensor.empty : tensor<?x4xf32>{%d}",
			"%a = flow.tensor.alloca : tensor<8xf32>",
		}, []string{
			`%x = "flow.tensor.load"(%t, %d, %i, %i) {operandSegmentSizes = array<i32: 1, 1, 2>} : (tensor<?x4xf32>, index, index, index) -> f32`,
			`%u = "flow.tensor.store"(%v, %t, %d, %i, %i) {operandSegmentSizes = array<i32: 1, 1, 1, 2>} : (f32, tensor<?x4xf32>, index, index, index) -> tensor<?x4xf32>`,
			`%z = "flow.tensor.splat"(%v, %d) : (f32, index) -> tensor<?x4xf32>`,
			`%e = "flow.tensor.empty"(%d) : (index) -> tensor<?x4xf32>`,
		}},
		{"slice-update", `func.func @f(%t: tensor<4x4xf32>, %d: tensor<?x4xf32>, %n: index, %i: index, %j: index) -> (tensor<2x2xf32>, tensor<4x4xf32>, tensor<?x4xf32>) {
  %s = flow.tensor.slice %t[%i, %j for %j, %i] : tensor<4x4xf32> -> tensor<2x2xf32>
  %u = flow.tensor.update %s, %t[%i, %j] : tensor<2x2xf32> -> %t as tensor<4x4xf32>
  %v = flow.tensor.slice %d[%i, %i for %n, %j] : tensor<?x4xf32>{%n} -> tensor<?x?xf32>{%n, %j}
  %w = flow.tensor.update %v, %d[%i, %i] : tensor<?x?xf32>{%n, %j} -> %d as tensor<?x4xf32>{%n}
  return %s, %u, %w : tensor<2x2xf32>, tensor<4x4xf32>, tensor<?x4xf32>
}`, []string{
			"%s = flow.tensor.slice %t[%i, %j for %j, %i] : tensor<4x4xf32> -> tensor<2x2xf32>",
			"%u = flow.tensor.update %s, %t[%i, %j] : tensor<2x2xf32> -> %t as tensor<4x4xf32>",
			"%w = flow.tensor.update %v, %d[%i, %i] : tensor<?x?xf32>{%n, %j} -> %d as tensor<?x4xf32>{%n}",
		}, []string{
			`%v = "flow.tensor.slice"(%d, %n, %i, %i, %n, %j, %n, %j) {operandSegmentSizes = array<i32: 1, 1, 2, 2, 2>}`,
			`%w = "flow.tensor.update"(%d, %n, %i, %i, %v, %n, %j) {operandSegmentSizes = array<i32: 1, 1, 2, 1, 2>}`,
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

func TestTensorOpsErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"missing dims", `func.func @f(%t: tensor<?xf32>) -> tensor<?xf32> {
  %0 = flow.tensor.clone %t : tensor<?xf32>
  return %0 : tensor<?xf32>
}`, "t.mlir:3:3: error: expected '{' with 1 dynamic dimension values for type 'tensor<?xf32>'"},
		{"reshape element count", `func.func @f(%t: tensor<4xf32>) -> tensor<2x3xf32> {
  %0 = flow.tensor.reshape %t : tensor<4xf32> -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.reshape' op source 'tensor<4xf32>' has 4 elements but result 'tensor<2x3xf32>' has 6"},
		{"reshape element type", `func.func @f(%t: tensor<4xf32>) -> tensor<4xi32> {
  %0 = flow.tensor.reshape %t : tensor<4xf32> -> tensor<4xi32>
  return %0 : tensor<4xi32>
}`, "t.mlir:2:8: error: 'flow.tensor.reshape' op failed to verify that all of {source, result} have same element type: 'f32' vs 'i32'"},
		{"load rank", `func.func @f(%t: tensor<2x2xf32>, %i: index) -> f32 {
  %0 = flow.tensor.load %t[%i] : tensor<2x2xf32>
  return %0 : f32
}`, "t.mlir:2:8: error: 'flow.tensor.load' op 'tensor<2x2xf32>' has rank 2 but 1 indices were given"},
		{"dynamic constant shape", `func.func @f() -> tensor<?x3xi32> {
  %0 = flow.tensor.dynamic_constant dense<1> : tensor<2x2xi32> -> tensor<?x3xi32>
  return %0 : tensor<?x3xi32>
}`, "t.mlir:2:8: error: 'flow.tensor.dynamic_constant' op result dimension 1 is 3 but the value's is 2"},
		{"dynamic constant without result type", `func.func @f() {
  %0 = flow.tensor.dynamic_constant dense<1> : tensor<2xi32>
  return
}`, "t.mlir:3:3: error: expected '->' and the result type of flow.tensor.dynamic_constant"},
		{"slice rank", `func.func @f(%t: tensor<4x4xf32>, %i: index) -> tensor<2x2xf32> {
  %0 = flow.tensor.slice %t[%i for %i] : tensor<4x4xf32> -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.slice' op 'tensor<4x4xf32>' has rank 2 but 1 start indices and 1 lengths were given"},
		{"update element type", `func.func @f(%t: tensor<4xf32>, %u: tensor<2xi32>, %i: index) -> tensor<4xf32> {
  %0 = flow.tensor.update %u, %t[%i] : tensor<2xi32> -> %t as tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.update' op update 'tensor<2xi32>' must have the rank and element type of the target 'tensor<4xf32>'"},
		{"store value type", `func.func @f(%t: tensor<4xf32>, %v: i32, %i: index) -> tensor<4xf32> {
  %0 = "flow.tensor.store"(%v, %t, %i) {operandSegmentSizes = array<i32: 1, 1, 0, 1>} : (i32, tensor<4xf32>, index) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.store' op value type 'i32' does not match the element type of 'tensor<4xf32>'"},
		{"splat of a non-tensor type", `func.func @f(%v: f32) {
  %0 = flow.tensor.splat %v : f32
  return
}`, "t.mlir:2:31: error: expected a tensor type, found 'f32'"},
		{"load from a non-tensor type", `func.func @f(%v: f32) {
  %0 = flow.tensor.load %v : f32
  return
}`, "t.mlir:2:30: error: expected a tensor type, found 'f32'"},
		{"clone dimension count", `func.func @f(%t: tensor<?xf32>, %d: index) -> tensor<?xf32> {
  %0 = "flow.tensor.clone"(%t, %d, %d) : (tensor<?xf32>, index, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.clone' op operand type 'tensor<?xf32>' has 1 dynamic dimensions but 2 dimension values were given"},
		{"tie_shape dimension count", `func.func @f(%t: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "flow.tensor.tie_shape"(%t) : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.tie_shape' op result type 'tensor<?xf32>' has 1 dynamic dimensions but 0 dimension values were given"},
		{"reshape of two sources", `func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "flow.tensor.reshape"(%t, %t) {operandSegmentSizes = array<i32: 2, 0, 0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.reshape' op expects exactly one source operand"},
		{"slice result dimensions", `func.func @f(%t: tensor<4xf32>, %i: index) -> tensor<?xf32> {
  %0 = "flow.tensor.slice"(%t, %i, %i) {operandSegmentSizes = array<i32: 1, 0, 1, 1, 0>} : (tensor<4xf32>, index, index) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}`, "t.mlir:2:8: error: 'flow.tensor.slice' op result type 'tensor<?xf32>' has 1 dynamic dimensions but 0 dimension values were given"},
		{"reshape source type mismatch", `func.func @f(%t: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.tensor.reshape %t : tensor<4xi32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:2:33: error: use of value '%t' expects different type than prior uses: 'tensor<4xi32>' vs 'tensor<4xf32>'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
