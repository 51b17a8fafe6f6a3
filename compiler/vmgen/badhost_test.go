package vmgen_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/vmgen"
)

// TestHostBadInput: programs that host code generation must refuse on its
// own (the verifier, which refuses most of them too, is not run), each
// with one message naming the op's position.
func TestHostBadInput(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"global never initialized", `
util.global private mutable @g : i32
func.func @f() -> i32 {
  %v = util.global.load @g : i32
  return %v : i32
}`, "bad.mlir:4:8: error: 'util.global.load' op global @g is loaded but never initialized: it has no initial value and nothing stores to it"},
		{"undefined global", `
func.func @f() -> i32 {
  %v = util.global.load @missing : i32
  return %v : i32
}`, "bad.mlir:3:8: error: 'util.global.load' op load of undefined global @missing"},
		{"undefined function", `
func.func @f() -> i32 {
  %v = util.call @nowhere() : () -> i32
  return %v : i32
}`, "bad.mlir:3:8: error: 'util.call' op call to undefined function @nowhere"},
		{"declared only", `
func.func private @ext(i32) -> i32
func.func @f(%x: i32) -> i32 {
  %v = call @ext(%x) : (i32) -> i32
  return %v : i32
}`, "bad.mlir:4:8: error: 'func.call' op call to @ext, which is declared without a body"},
		{"call operand type", `
func.func private @g(%x: i32) -> i32 {
  return %x : i32
}
func.func @f(%x: i64) -> i32 {
  %v = call @g(%x) : (i64) -> i32
  return %v : i32
}`, "bad.mlir:6:8: error: 'func.call' op operand 0 of the call to @g has type 'i64', but the function takes 'i32'"},
		{"branch operand type", `
func.func @f(%x: i32) -> i64 {
  "cf.br"(%x)[^b] : (i32) -> ()
^b(%y: i64):
  return %y : i64
}`, "bad.mlir:3:3: error: 'cf.br' op branch operand 0 has type 'i32' but ^b's argument 0 is 'i64'"},
		{"global store type", `
util.global private mutable @t : tensor<4xf32>
func.func @f(%x: tensor<3xf32>) {
  util.global.store %x, @t : tensor<3xf32>
  return
}`, "bad.mlir:4:3: error: 'util.global.store' op store to global @t must have its type 'tensor<4xf32>'"},
		{"missing terminator", `
func.func @f(%x: i32) -> i32 {
  cf.br ^b
^b:
  %y = arith.addi %x, %x : i32
}`, "bad.mlir:5:8: error: 'arith.addi' op block does not end with a terminator (found 'arith.addi')"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg := dialect.NewRegistry()
			m, err := ir.Parse("bad.mlir", []byte(c.src), reg)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			_, err = vmgen.Emit(m.Op, vmgen.Options{Registry: reg})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
