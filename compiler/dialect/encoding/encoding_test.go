package encoding_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/encoding"
	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
	"github.com/goiree/goiree/compiler/ir"
)

func TestRoundTrip(t *testing.T) {
	src := `#m0 = affine_map<(d0, d1, d2) -> (d0, d2)>
#m1 = affine_map<(d0, d1, d2) -> (d2, d1)>
#m2 = affine_map<(d0, d1, d2) -> (d0, d1)>
#lhs = #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f16, f16, f32], user_indexing_maps = [#m0, #m1, #m2]>
func.func @f(%a: tensor<6x10xf16>, %b: tensor<?x3xf32, #iree_encoding.layout<[]>>, %n: index, %k: index) -> (tensor<6x10xf16>, tensor<?x3xf32>) {
  %e = iree_encoding.set_encoding %a : tensor<6x10xf16> -> tensor<6x10xf16, #lhs>
  %d = iree_encoding.set_encoding %a encoding_dims{%n, %k} : tensor<6x10xf16> -> tensor<6x10xf16, #lhs>
  %u = iree_encoding.unset_encoding %e : tensor<6x10xf16, #lhs> -> tensor<6x10xf16>
  %v = iree_encoding.unset_encoding %b encoding_dims{%k} : tensor<?x3xf32, #iree_encoding.layout<[]>> -> tensor<?x3xf32>{%n}
  return %u, %v : tensor<6x10xf16>, tensor<?x3xf32>
}`
	custom, generic := dialecttest.RoundTrip(t, "encoding.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"#lhs = #iree_encoding.encoding<operand_index = 0, op_type = matmul, element_types = [f16, f16, f32], user_indexing_maps = [#m0, #m1, #m2]>",
		"%e = iree_encoding.set_encoding %a : tensor<6x10xf16> -> tensor<6x10xf16, #lhs>",
		"%d = iree_encoding.set_encoding %a encoding_dims {%n, %k} : tensor<6x10xf16> -> tensor<6x10xf16, #lhs>",
		"%v = iree_encoding.unset_encoding %b encoding_dims {%k} : tensor<?x3xf32, #iree_encoding.layout<[]>> -> tensor<?x3xf32>{%n}")
	dialecttest.ContainsAll(t, "generic form", generic,
		`%d = "iree_encoding.set_encoding"(%a, %n, %k) : (tensor<6x10xf16>, index, index) -> tensor<6x10xf16, #iree_encoding.encoding<`,
		`%v = "iree_encoding.unset_encoding"(%b, %n, %k) {operandSegmentSizes = array<i32: 1, 1, 1>} : (tensor<?x3xf32, #iree_encoding.layout<[]>>, index, index) -> tensor<?x3xf32>`)
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"shape", "func.func @f(%a: tensor<4xf32>) {\n  %e = iree_encoding.set_encoding %a : tensor<4xf32> -> tensor<5xf32, #iree_encoding.testing<>>\n  return\n}",
			"t.mlir:2:8: error: 'iree_encoding.set_encoding' op source 'tensor<4xf32>' and result 'tensor<5xf32, #iree_encoding.testing<>>' must have the same shape and element type"},
		{"element", "func.func @f(%a: tensor<4xf32>) {\n  %e = iree_encoding.set_encoding %a : tensor<4xf32> -> tensor<4xf16, #iree_encoding.testing<>>\n  return\n}",
			"t.mlir:2:8: error: 'iree_encoding.set_encoding' op source 'tensor<4xf32>' and result 'tensor<4xf16, #iree_encoding.testing<>>' must have the same shape and element type"},
		{"no encoding", "func.func @f(%a: tensor<4xf32>) {\n  %e = iree_encoding.set_encoding %a : tensor<4xf32> -> tensor<4xf32>\n  return\n}",
			"t.mlir:2:8: error: 'iree_encoding.set_encoding' op result 'tensor<4xf32>' has no encoding"},
		{"unset no encoding", "func.func @f(%a: tensor<4xf32>) {\n  %e = iree_encoding.unset_encoding %a : tensor<4xf32> -> tensor<4xf32>\n  return\n}",
			"t.mlir:2:8: error: 'iree_encoding.unset_encoding' op source 'tensor<4xf32>' has no encoding"},
		{"missing dims", "func.func @f(%a: tensor<?xf32, #iree_encoding.testing<>>) {\n  %e = iree_encoding.unset_encoding %a : tensor<?xf32, #iree_encoding.testing<>> -> tensor<?xf32>\n  return\n}",
			"t.mlir:3:3: error: expected '{' with 1 dynamic dimension values for type 'tensor<?xf32>'"},
		{"unranked", "func.func @f(%a: tensor<*xf32>) {\n  %e = iree_encoding.set_encoding %a : tensor<*xf32> -> tensor<4xf32, #iree_encoding.testing<>>\n  return\n}",
			"t.mlir:2:8: error: 'iree_encoding.set_encoding' op source and result must be ranked tensors"},
		{"arrow", "func.func @f(%a: tensor<4xf32>) {\n  %e = iree_encoding.set_encoding %a : tensor<4xf32> to tensor<4xf32, #iree_encoding.testing<>>\n  return\n}",
			"t.mlir:2:54: error: expected '->', found 'to'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}

func TestIsLayout(t *testing.T) {
	for _, c := range []struct {
		a    ir.Attribute
		want bool
	}{
		{nil, false},
		{&ir.OpaqueAttr{Name: "iree_encoding.encoding", Body: "operand_index = 0"}, true},
		{&ir.OpaqueAttr{Name: "iree_encoding.layout", Body: "[]"}, true},
		{&ir.OpaqueAttr{Name: "iree_encoding.packed_storage"}, false},
		{&ir.OpaqueAttr{Name: "other.encoding"}, false},
	} {
		if got := encoding.IsLayout(c.a); got != c.want {
			t.Errorf("IsLayout(%v) = %v, want %v", c.a, got, c.want)
		}
	}
}
