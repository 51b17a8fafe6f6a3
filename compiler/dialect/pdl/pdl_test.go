package pdl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/pdl"
	"github.com/goiree/goiree/compiler/ir"
)

func apply(t *testing.T, payload, spec string) (string, error) {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := ir.Parse("payload.mlir", []byte(payload), reg)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spec.pdl.mlir")
	if err := os.WriteFile(file, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := pdl.ApplyFile(file, m.Op, reg); err != nil {
		return "", err
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("the rewritten program does not verify: %v\n%s", err, ir.PrintModule(m, reg, ir.PrintOptions{}))
	}
	return ir.PrintModule(m, reg, ir.PrintOptions{}), nil
}

const doublePayload = `func.func @f(%x: f32) -> (f32, f32) {
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %a = arith.mulf %x, %two : f32
  %b = arith.mulf %x, %three : f32
  return %a, %b : f32, f32
}
`

// doubleSpec rewrites x * 2.0 (only) into x + x.
const doubleSpec = `pdl.pattern @double : benefit(1) {
  %x = pdl.operand
  %f32 = pdl.type : f32
  %two = pdl.attribute = 2.0 : f32
  %c = pdl.operation "arith.constant" {"value" = %two} -> (%f32 : !pdl.type)
  %cv = pdl.result 0 of %c
  %mul = pdl.operation "arith.mulf"(%x, %cv : !pdl.value, !pdl.value) -> (%f32 : !pdl.type)
  pdl.rewrite %mul {
    %add = pdl.operation "arith.addf"(%x, %x : !pdl.value, !pdl.value) -> (%f32 : !pdl.type)
    pdl.replace %mul with %add
  }
}
`

func TestReplace(t *testing.T) {
	out, err := apply(t, doublePayload, doubleSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"arith.addf %x, %x : f32", "arith.mulf %x, %three : f32", "func.return %0, %b : f32, f32"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "arith.mulf %x, %two") {
		t.Errorf("x * 2.0 is still there:\n%s", out)
	}
}

const matmulPayload = `func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x8xf32>, %init: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %m = linalg.matmul ins(%a, %b : tensor<?x?xf32>, tensor<?x8xf32>) outs(%init : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %m : tensor<?x8xf32>
}
`

// matmulSpec sends any matmul to the external function my_kernel(a, off,
// b, off, result, off, rows: i32, flag: i1).
const matmulSpec = `pdl.pattern : benefit(1) {
  %a = pdl.operand
  %b = pdl.operand
  %init = pdl.operand
  %t = pdl.type
  %mm = pdl.operation "linalg.matmul"(%a, %b, %init : !pdl.value, !pdl.value, !pdl.value) -> (%t : !pdl.type)
  pdl.rewrite %mm {
    %index = pdl.type : index
    %i32 = pdl.type : i32
    %i1 = pdl.type : i1
    %zero = pdl.attribute = 0 : index
    %c0op = pdl.operation "arith.constant" {"value" = %zero} -> (%index : !pdl.type)
    %c0 = pdl.result 0 of %c0op
    %rowsop = pdl.operation "tensor.dim"(%a, %c0 : !pdl.value, !pdl.value)
    %rows = pdl.result 0 of %rowsop
    %rows32op = pdl.operation "arith.index_cast"(%rows : !pdl.value) -> (%i32 : !pdl.type)
    %rows32 = pdl.result 0 of %rows32op
    %true = pdl.attribute = true
    %flagop = pdl.operation "arith.constant" {"value" = %true} -> (%i1 : !pdl.type)
    %flag = pdl.result 0 of %flagop
    %out = pdl.result 0 of %mm
    %ins = pdl.range %a, %b : !pdl.value, !pdl.value
    %outs = pdl.range %out : !pdl.value
    %dims = pdl.range %rows : !pdl.value
    %others = pdl.range %rows32, %flag : !pdl.value, !pdl.value
    %name = pdl.attribute = "my_kernel"
    pdl.apply_native_rewrite "rewriteAsFlowDispatch"(%mm, %name, %ins, %outs, %dims, %others : !pdl.operation, !pdl.attribute, !pdl.range<value>, !pdl.range<value>, !pdl.range<value>, !pdl.range<value>)
  }
}
`

func TestRewriteAsFlowDispatch(t *testing.T) {
	out, err := apply(t, matmulPayload, matmulSpec)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"stream.executable private @my_kernel_f32_f32_f32_i32_i1_executable {",
		"stream.executable.export public @my_kernel_entry_point",
		"func.func private @my_kernel(memref<f32>, index, memref<f32>, index, memref<f32>, index, i32, i1) attributes {llvm.bareptr = [true]}",
		// Bindings of a, b and the result; the scalars; the dynamic sizes
		// of a (2), b (1) and the result (1).
		"func.func @my_kernel_entry_point(%b0: !stream.binding, %b1: !stream.binding, %b2: !stream.binding, %s0: i32, %s1: i1, %d0: index, %d1: index, %d2: index, %d3: index)",
		"-> memref<?x?xf32, strided<[?, 1], offset: ?>>{%d0, %d1}",
		"-> memref<?x8xf32, strided<[8, 1], offset: ?>>{%d2}",
		"func.call @my_kernel(%p0, %o0, %p1, %o1, %p2, %o2, %s0, %s1)",
		"flow.dispatch @my_kernel_f32_f32_f32_i32_i1_executable::@my_kernel_entry_point(",
		"util.call @my_kernel_f32_f32_f32_i32_i1_dispatch(%a, %b, ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "linalg.matmul") {
		t.Errorf("the matmul is still there:\n%s", out)
	}
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, payload, spec, want string }{
		{"no pattern", doublePayload, "", "holds no pdl.pattern"},
		{"native rewrite", matmulPayload, strings.Replace(matmulSpec, `"rewriteAsFlowDispatch"`, `"rewriteAsMagic"`, 1), `native rewrite "rewriteAsMagic" is not supported`},
		{"erase used", doublePayload, strings.Replace(doubleSpec, "pdl.replace %mul with %add", "pdl.erase %mul", 1), "pdl.erase of arith.mulf, whose result #0 is still used"},
		{"endless", doublePayload, strings.Replace(doubleSpec, `"arith.addf"(%x, %x`, `"arith.mulf"(%x, %cv`, 1), "still match after 10000 rewrites"},
	} {
		_, err := apply(t, tc.payload, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

const squarePayload = `func.func @f(%x: tensor<4xf32>, %h: tensor<4xf16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf16>) {
  %a = arith.mulf %x, %x : tensor<4xf32>
  %na = arith.negf %a : tensor<4xf32>
  %b = arith.mulf %x, %x : tensor<4xf32>
  %c = arith.mulf %h, %h : tensor<4xf16>
  %nc = arith.negf %c : tensor<4xf16>
  return %na, %b, %nc : tensor<4xf32>, tensor<4xf32>, tensor<4xf16>
}
`

// squareSpec matches x*x on f32 tensors whose result a negf consumes (an op
// the walk up from the root does not reach) and replaces the negation with
// x itself; an empty range is parsed on the way.
const squareSpec = `pdl.pattern : benefit(1) {
  %v = pdl.operand
  %t = pdl.type
  %mul = pdl.operation "arith.mulf"(%v, %v : !pdl.value, !pdl.value) -> (%t : !pdl.type)
  %f32 = pdl.type : f32
  pdl.apply_native_constraint "checkTensorElementType"(%t, %f32 : !pdl.type, !pdl.type)
  %r = pdl.result 0 of %mul
  %neg = pdl.operation "arith.negf"(%r : !pdl.value) -> (%t : !pdl.type)
  pdl.rewrite %mul {
    %none = pdl.range : !pdl.range<value>
    pdl.replace %neg with (%v : !pdl.value)
  }
}
`

func TestConsumersAndConstraints(t *testing.T) {
	out, err := apply(t, squarePayload, squareSpec)
	if err != nil {
		t.Fatal(err)
	}
	// Only the f32 chain with a negation is rewritten.
	for _, want := range []string{"func.return %x, %b, %nc :", "arith.negf %c : tensor<4xf16>"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "arith.negf %a") {
		t.Errorf("the f32 negation is still there:\n%s", out)
	}
	_, err = apply(t, squarePayload, strings.Replace(squareSpec, `"checkTensorElementType"`, `"checkSomethingElse"`, 1))
	if err == nil || !strings.Contains(err.Error(), `native constraint "checkSomethingElse" with 2 operands is not supported`) {
		t.Errorf("unknown constraint: error %v, want it named", err)
	}
}
