package check_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/check"
	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
	"github.com/goiree/goiree/compiler/ir"
)

func TestRoundTrip(t *testing.T) {
	cases := []struct {
		name, src       string
		custom, generic []string
	}{
		{"head-spellings", `func.func @f(%d: !hal.device, %i: i32, %b: tensor<2x2xi32>, %x: tensor<4xf32>, %y: tensor<4xf32>, %v: !hal.buffer_view) {
  check.expect_true(%i) : i32
  check.expect_false(%i) : i32
  check.expect_all_true(%b) : tensor<2x2xi32>
  check.expect_all_true<%d>(%v) : !hal.buffer_view
  check.expect_eq(%b, %b) : tensor<2x2xi32>
  check.expect_eq<%d>(%v, %v) : !hal.buffer_view
  check.expect_eq_const(%b, dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>
  check.expect_almost_eq(%x, %y, atol 1.0e-02, rtol 1.0e-03) : tensor<4xf32>
  check.expect_almost_eq (%x, %y, atol 0.0, rtol 0.0001) : tensor<4xf32>
  check.expect_almost_eq(%x, %y, rtol 1.0e-03) : tensor<4xf32>
  check.expect_almost_eq<%d>(%x, %y) : tensor<4xf32>
  check.expect_almost_eq_const(%x, dense<[0.999999, 2.0, 3.0, 4.0]> : tensor<4xf32>, atol 1.0e-02) : tensor<4xf32>
  return
}`, []string{
			"check.expect_true(%i) : i32",
			"check.expect_all_true<%d>(%v) : !hal.buffer_view",
			"check.expect_eq_const(%b, dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>) : tensor<2x2xi32>",
			"check.expect_almost_eq(%x, %y, atol 0.01, rtol 0.001) : tensor<4xf32>",
			"check.expect_almost_eq(%x, %y, atol 0.0, rtol 0.0001) : tensor<4xf32>",
			"check.expect_almost_eq(%x, %y, rtol 0.001) : tensor<4xf32>",
			"check.expect_almost_eq<%d>(%x, %y) : tensor<4xf32>",
			"check.expect_almost_eq_const(%x, dense<[0.999999, 2.0, 3.0, 4.0]> : tensor<4xf32>, atol 0.01) : tensor<4xf32>",
		}, []string{
			`"check.expect_all_true"(%d, %v) : (!hal.device, !hal.buffer_view) -> ()`,
			`"check.expect_eq_const"(%b) {value = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>} : (tensor<2x2xi32>) -> ()`,
			`"check.expect_almost_eq"(%x, %y) {atol = 0.01 : f32, rtol = 0.001 : f32} : (tensor<4xf32>, tensor<4xf32>) -> ()`,
			`"check.expect_almost_eq"(%d, %x, %y) {atol = 0.0001 : f32, rtol = 0.0 : f32} : (!hal.device, tensor<4xf32>, tensor<4xf32>) -> ()`,
		}},
		{"seed-spellings", `func.func @f(%x: tensor<4xf32>, %r: tensor<4xi32>) {
  check.expect_almost_eq_const(%x, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>
  check.expect_eq_const(%r, dense<0> : tensor<4xi32>) : tensor<4xi32>
  return
}`, []string{"check.expect_almost_eq_const(%x, dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>) : tensor<4xf32>"},
			[]string{`"check.expect_almost_eq_const"(%x) {value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>, atol = 0.0001 : f32, rtol = 0.0 : f32}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			custom, generic := dialecttest.RoundTrip(t, c.name+".mlir", c.src)
			dialecttest.ContainsAll(t, "custom form", custom, c.custom...)
			dialecttest.ContainsAll(t, "generic form", generic, c.generic...)
		})
	}
}

// TestAccessors reads the device, operands and tolerances the way a
// lowering does.
func TestAccessors(t *testing.T) {
	src := `func.func @f(%d: !hal.device, %x: tensor<4xf32>, %y: tensor<4xf32>) {
  check.expect_almost_eq<%d>(%x, %y, rtol 0.5) : tensor<4xf32>
  check.expect_almost_eq(%x, %y) : tensor<4xf32>
  return
}`
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("a.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	ops := m.Op.Body().Ops[0].Body().Ops
	cases := []struct {
		op         *ir.Operation
		device     bool
		atol, rtol float64
	}{{ops[0], true, check.DefaultAtol, 0.5}, {ops[1], false, 1e-4, 0}}
	for i, c := range cases {
		dev, vs := check.Operands(c.op)
		if (dev != nil) != c.device || len(vs) != 2 || vs[0].Name != "x" || vs[1].Name != "y" {
			t.Errorf("op %d: device %v, values %v", i, dev, vs)
		}
		if atol, rtol := check.Tolerances(c.op); atol != c.atol || rtol != c.rtol {
			t.Errorf("op %d: tolerances %g, %g; want %g, %g", i, atol, rtol, c.atol, c.rtol)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"expect_true of a float", `func.func @f(%x: f32) {
  check.expect_true(%x) : f32
  return
}`, "t.mlir:2:3: error: 'check.expect_true' op operand #0 must be signless integer, but got 'f32'"},
		{"expect_eq_const type mismatch", `func.func @f(%x: tensor<4xi32>) {
  check.expect_eq_const(%x, dense<0> : tensor<3xi32>) : tensor<4xi32>
  return
}`, "t.mlir:2:3: error: 'check.expect_eq_const' op failed to verify that all of {lhs, value} have same type: value is 'tensor<3xi32>', lhs is 'tensor<4xi32>'"},
		{"almost_eq of integers", `func.func @f(%x: tensor<4xi32>) {
  check.expect_almost_eq(%x, %x) : tensor<4xi32>
  return
}`, "t.mlir:2:3: error: 'check.expect_almost_eq' op operands must be tensors of floating-point values, but got 'tensor<4xi32>'"},
		{"negative tolerance", `func.func @f(%x: tensor<4xf32>) {
  check.expect_almost_eq(%x, %x, atol -1.0) : tensor<4xf32>
  return
}`, "t.mlir:2:3: error: 'check.expect_almost_eq' op 'atol' must be a non-negative number, found -1.0"},
		{"tolerances out of order", `func.func @f(%x: tensor<4xf32>) {
  check.expect_almost_eq(%x, %x, rtol 0.1, atol 0.1) : tensor<4xf32>
  return
}`, "t.mlir:2:42: error: expected ')', found ','"},
		{"expect_eq of scalars", `func.func @f(%x: i32) {
  check.expect_eq(%x, %x) : i32
  return
}`, "t.mlir:2:3: error: 'check.expect_eq' op operands must be tensors or !hal.buffer_view, but got 'i32'"},
		{"expected value not dense", `func.func @f(%x: tensor<4xi32>) {
  check.expect_eq_const(%x, 4 : i32) : tensor<4xi32>
  return
}`, "t.mlir:2:29: error: expected a dense elements attribute for the expected value, found 4 : i32"},
		{"device of the wrong type", `func.func @f(%d: i32, %x: tensor<4xi32>) {
  check.expect_all_true<%d>(%x) : tensor<4xi32>
  return
}`, "t.mlir:2:24: error: use of value '%d' expects different type than prior uses: '!hal.device' vs 'i32'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
