package tosatolinalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/internal/conversiontest"
	"github.com/goiree/goiree/compiler/conversion/tosatolinalg"
	"github.com/goiree/goiree/compiler/dialect"
)

// TestGolden converts testdata/convert.mlir and compares the printed IR
// with testdata/convert.golden (go test -update rewrites it). The
// numbers the program computes are checked by compiler/e2e's tosa_ops.
func TestGolden(t *testing.T) {
	conversiontest.Golden(t, tosatolinalg.Convert, func(name string) bool { return strings.HasPrefix(name, "tosa.") })
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"dynamic", `func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %x = tosa.abs %a : (tensor<?xf32>) -> tensor<?xf32>
  return %x : tensor<?xf32>
}`, "t.mlir:2:8: error: 'tosa.abs' op dynamic shapes ('tensor<?xf32>') are not supported yet"},
		{"shift-not-constant", `func.func @f(%a: tensor<4xi32>, %s: tensor<1xi8>) -> tensor<4xi32> {
  %x = tosa.mul %a, %a, %s : (tensor<4xi32>, tensor<4xi32>, tensor<1xi8>) -> tensor<4xi32>
  return %x : tensor<4xi32>
}`, "t.mlir:2:8: error: 'tosa.mul' op operand #2 must be a constant (tosa.const) to be lowered"},
		{"float-bitwise", `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %x = tosa.bitwise_and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}`, "t.mlir:2:8: error: 'tosa.bitwise_and' op float operands are not valid here"},
		{"pad-amounts", `func.func @f(%a: tensor<3xf32>) -> tensor<5xf32> {
  %p = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %x = tosa.pad %a, %p : (tensor<3xf32>, !tosa.shape<2>) -> tensor<5xf32>
  return %x : tensor<5xf32>
}`, "t.mlir:3:8: error: 'tosa.pad' op padding 1+0 of dimension 0 (3) does not give the result's 5"},
		{"transpose-perms", `func.func @f(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %x = tosa.transpose %a {perms = array<i32: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %x : tensor<3x2xf32>
}`, "t.mlir:2:8: error: 'tosa.transpose' op perms [0 0] is not a permutation of 0..1"},
		{"table-size", `func.func @f(%a: tensor<4xi8>, %t: tensor<100xi8>) -> tensor<4xi8> {
  %x = tosa.table %a, %t : (tensor<4xi8>, tensor<100xi8>) -> tensor<4xi8>
  return %x : tensor<4xi8>
}`, "t.mlir:2:8: error: 'tosa.table' op expects an i8 input with a 256-entry i8 table, or an i16 input with a 513-entry i16 table giving i32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reg := dialect.NewRegistry()
			m, err := dialect.Parse("t.mlir", []byte(tc.src), reg)
			if err != nil {
				t.Fatal(err)
			}
			err = tosatolinalg.Convert(m.Op)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}
