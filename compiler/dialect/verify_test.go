package dialect

import (
	"testing"
)

// TestVerifyErrors lists programs that parse but violate a verifier rule.
func TestVerifyErrors(t *testing.T) {
	const layout = "#l = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>\n"
	cases := []struct{ name, src, want string }{
		{"tied type mismatch (generic form)", `func.func @f(%a: tensor<4xf32>, %b: tensor<8xf32>) -> tensor<4xf32> {
  %0 = "flow.dispatch"(%a, %b) {entry_points = [@e::@f], operandSegmentSizes = array<i32: 0, 2, 0, 0>, tied_operands = [1 : index]} : (tensor<4xf32>, tensor<8xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:2:8: error: 'flow.dispatch' op result #0 is tied to operand '%b' of type 'tensor<8xf32>' but has type 'tensor<4xf32>'"},
		{"call arity", `func.func private @g(i32)
func.func @f() {
  func.call @g() : () -> ()
  return
}`, "t.mlir:3:3: error: 'func.call' op incorrect number of operands for callee: 0 given, @g takes 1"},
		{"call to missing function", `func.func @f() {
  func.call @nope() : () -> ()
  return
}`, "t.mlir:2:3: error: 'func.call' op refers to an undefined symbol @nope"},
		{"constant.load ordinal out of range", layout + `func.func @f() {
  %0 = hal.interface.constant.load layout(#l) ordinal(1) : i32
  return
}`, "t.mlir:3:8: error: 'hal.interface.constant.load' op ordinal 1 is out of range: the layout declares 1 constants"},
		{"subspan binding not in layout", layout + `func.func @f() {
  %0 = hal.interface.binding.subspan layout(#l) binding(2) : memref<4xf32>
  return
}`, "t.mlir:3:8: error: 'hal.interface.binding.subspan' op binding 2 is not declared in the layout (it has 2 bindings)"},
		{"explicit binding not in layout", layout + `hal.executable private @e {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "x">) {
    hal.executable.export public @f ordinal(0) layout(#l)
  }
}
func.func @f(%n: i32, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch @e::@f(%n, %a) {hal.interface.bindings = [#hal.interface.binding<0, 0>, #hal.interface.binding<1, 0>]} : (i32, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:8:8: error: 'flow.dispatch' op binding #hal.interface.binding<1, 0> is not declared in the layout of @e::@f"},
		{"stream entry mismatch", `stream.executable private @e {
  stream.executable.export public @f workgroups(%w: index) -> (index, index, index) {
    stream.return %w, %w, %w : index, index, index
  }
  builtin.module {
    func.func @f(%b: !stream.binding, %n: index) {
      return
    }
  }
}
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>, %n: index) -> tensor<4xf32> {
  %0 = flow.dispatch @e::@f(%a, %b, %n) : (tensor<4xf32>, tensor<4xf32>, index) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:12:8: error: 'flow.dispatch' op has 3 resources (tensor operands and untied results) but the entry function of @e::@f takes 1 !stream.binding arguments"},
		{"count region arity", layout + `hal.executable private @e {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "x">) {
    hal.executable.export public @f ordinal(0) layout(#l) count(%d: !hal.device) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %c1, %c1 : index, index
    }
  }
}`, "t.mlir:4:5: error: 'hal.executable.export' op workgroup count region must return 3 values (x, y, z), found 2"},
		{"bad hal.executable.ref", layout + `hal.executable private @e {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "x">) {
    hal.executable.export public @f ordinal(0) layout(#l)
  }
}
func.func @f(%n: i32, %a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = flow.dispatch @e::@f(%n, %a) {hal.executable.ref = [@f]} : (i32, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`, "t.mlir:8:8: error: 'flow.dispatch' op hal.executable.ref entry @f does not name an executable"},
		{"duplicate symbol", `func.func private @g()
func.func private @g()`, "t.mlir:2:1: error: redefinition of symbol named 'g' (previous definition at t.mlir:1:1)"},
		{"select types", `func.func @f(%c: i1, %a: i32, %b: f32) -> i32 {
  %0 = "arith.select"(%c, %a, %b) : (i1, i32, f32) -> i32
  return %0 : i32
}`, "t.mlir:2:8: error: 'arith.select' op requires the true and false values and the result to have the same type"},
		{"index_cast types", `func.func @f(%a: f32) -> i32 {
  %0 = arith.index_cast %a : f32 to i32
  return %0 : i32
}`, "t.mlir:2:8: error: 'arith.index_cast' op operand type 'f32' and result type 'i32' are cast incompatible"},
		{"extract_strided_metadata results", `func.func @f(%m: memref<?xf32>) {
  %b, %o = iree_codegen.extract_strided_metadata %m : memref<?xf32> -> memref<f32>, index
  return
}`, "t.mlir:2:12: error: 'iree_codegen.extract_strided_metadata' op a rank-1 memref yields 4 results (base, offset, sizes, strides), found 2"},
	}
	reg := NewRegistry()
	for _, c := range cases {
		_, err := Parse("t.mlir", []byte(c.src), reg)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}
