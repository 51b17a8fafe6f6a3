package linalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
)

func TestElementwiseRoundTrip(t *testing.T) {
	const src = `func.func @f(%a: tensor<4x?xf32>, %b: tensor<4x?xf32>, %i: tensor<8xi8>, %j: tensor<8xi32>) -> tensor<4x?xf32> {
  %0 = linalg.add ins(%a, %b : tensor<4x?xf32>, tensor<4x?xf32>) outs(%a : tensor<4x?xf32>) -> tensor<4x?xf32>
  %1 = linalg.exp ins(%0 : tensor<4x?xf32>) outs(%b : tensor<4x?xf32>) -> tensor<4x?xf32>
  %2 = linalg.div_unsigned ins(%i, %j : tensor<8xi8>, tensor<8xi32>) outs(%j : tensor<8xi32>) {tag} -> tensor<8xi32>
  func.return %1 : tensor<4x?xf32>
}
`
	if got := print(t, "elementwise", src); got != src {
		t.Fatalf("printed differently:\n%s", got)
	}
}

func TestElementwiseErrors(t *testing.T) {
	head := "func.func @f(%a: tensor<4xf32>, %b: tensor<5xf32>, %i: tensor<4xi32>) {\n"
	for _, tc := range []struct{ name, src, want string }{
		{"count", `  %0 = linalg.add ins(%a : tensor<4xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>`,
			"bad.mlir:2:8: error: 'linalg.add' op expects 2 inputs and 1 output, found 1 and 1"},
		{"shape", `  %0 = linalg.mul ins(%a, %b : tensor<4xf32>, tensor<5xf32>) outs(%a : tensor<4xf32>) -> tensor<4xf32>`,
			"bad.mlir:2:8: error: 'linalg.mul' op input #1 'tensor<5xf32>' must have the output's shape 'tensor<4xf32>'"},
		{"float-only", `  %0 = linalg.exp ins(%i : tensor<4xi32>) outs(%i : tensor<4xi32>) -> tensor<4xi32>`,
			"bad.mlir:2:8: error: 'linalg.exp' op computes on floats, found the output element type 'i32'"},
		{"cast", `  %0 = linalg.abs ins(%a : tensor<4xf32>) outs(%i : tensor<4xi32>) -> tensor<4xi32>`,
			"bad.mlir:2:8: error: 'linalg.abs' op input #0: cannot convert 'f32' to 'i32'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialect.Parse("bad.mlir", []byte(head+tc.src+"\n  return\n}"), dialect.NewRegistry())
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
