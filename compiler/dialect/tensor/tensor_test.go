package tensor_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

// roundTrips are programs in MLIR's custom syntax, in the spellings IREE's
// tests use; each must parse, verify, print to text that parses and prints
// the same again, and keep the same generic form through the round trip.
var roundTrips = []struct{ name, src string }{
	{"cast-bitcast", `
func.func @f(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<2x3xf32>, tensor<4xf32>) {
  %c = tensor.cast %x : tensor<2x3xf32> to tensor<2x?xf32>
  %d = tensor.cast %c : tensor<2x?xf32> to tensor<2x3xf32>
  %u = tensor.cast %x : tensor<2x3xf32> to tensor<*xf32>
  %b = tensor.bitcast %i : tensor<4xi32> to tensor<4xf32>
  return %d, %b : tensor<2x3xf32>, tensor<4xf32>
}`},
	{"extract-insert", `
func.func @f(%x: tensor<2x4xi64>, %s: f32, %v: tensor<8xf32>, %z: tensor<f32>) -> (i64, tensor<8xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.extract %x[%c1, %c0] : tensor<2x4xi64>
  %i = tensor.insert %s into %v[%c1] : tensor<8xf32>
  %r = tensor.extract %z[] : tensor<f32>
  return %e, %i, %r : i64, tensor<8xf32>, f32
}`},
	{"reshapes", `
func.func @f(%x: tensor<4xi32>, %y: tensor<1x4xi32>, %d: tensor<?x6xf32>, %n: index, %o: tensor<1x1xf32>) -> tensor<4xi32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [1, 4] : tensor<4xi32> into tensor<1x4xi32>
  %old = tensor.expand_shape %x [[0, 1]] : tensor<4xi32> into tensor<2x2xi32>
  %dyn = tensor.expand_shape %d [[0, 1], [2]] output_shape [%n, 2, 6] : tensor<?x6xf32> into tensor<?x2x6xf32>
  %c = tensor.collapse_shape %y [[0, 1]] : tensor<1x4xi32> into tensor<4xi32>
  %cd = tensor.collapse_shape %dyn [[0, 1, 2]] : tensor<?x2x6xf32> into tensor<?xf32>
  %s = tensor.collapse_shape %o [] : tensor<1x1xf32> into tensor<f32>
  %s1 = tensor.expand_shape %s [] output_shape [1, 1] : tensor<f32> into tensor<1x1xf32>
  return %c : tensor<4xi32>
}`},
	{"pad", `
func.func @f(%x: tensor<100x250xi32>, %h: index) -> (tensor<128x256xi32>, tensor<?x251xi32>) {
  %v = arith.constant 0 : i32
  %p = tensor.pad %x low[0, 0] high[28, 6] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : i32
  } : tensor<100x250xi32> to tensor<128x256xi32>
  %q = tensor.pad %x nofold low[%h, 1] high[0, 0] {
  ^bb0(%i: index, %j: index):
    %k = arith.index_cast %i : index to i32
    tensor.yield %k : i32
  } : tensor<100x250xi32> to tensor<?x251xi32>
  return %p, %q : tensor<128x256xi32>, tensor<?x251xi32>
}`},
	{"concat-splat-from-elements", `
func.func @f(%a: tensor<2x3xi32>, %b: tensor<2x5xi32>, %s: f32, %n: index) -> (tensor<2x8xi32>, tensor<4xf32>, tensor<?x3xf32>, tensor<2x2xf32>) {
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xi32>, tensor<2x5xi32>) -> tensor<2x8xi32>
  %sp = tensor.splat %s : tensor<4xf32>
  %sd = tensor.splat %s[%n] : tensor<?x3xf32>
  %fe = tensor.from_elements %s, %s, %s, %s : tensor<2x2xf32>
  %f0 = tensor.from_elements %s : tensor<f32>
  return %c, %sp, %sd, %fe : tensor<2x8xi32>, tensor<4xf32>, tensor<?x3xf32>, tensor<2x2xf32>
}`},
	{"generate", `
func.func @f(%n: index) -> (tensor<?x3xindex>, tensor<4xf32>) {
  %g = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    tensor.yield %s : index
  } : tensor<?x3xindex>
  %h = tensor.generate {
  ^bb0(%i: index):
    %c = arith.constant 1.0 : f32
    tensor.yield %c : f32
  } : tensor<4xf32>
  return %g, %h : tensor<?x3xindex>, tensor<4xf32>
}`},
	{"dynamic-slices", `
func.func @f(%x: tensor<?x8xf32>, %y: tensor<2x2xf32>, %o: index, %n: index) -> (tensor<?x2xf32>, tensor<?x8xf32>) {
  %e = tensor.extract_slice %x[%o, 1] [%n, 2] [1, %o] : tensor<?x8xf32> to tensor<?x2xf32>
  %i = tensor.insert_slice %y into %x[%o, 2] [2, 2] [%n, 3] : tensor<2x2xf32> into tensor<?x8xf32>
  return %e, %i : tensor<?x2xf32>, tensor<?x8xf32>
}`},
}

func parse(t *testing.T, name, src string, reg *ir.Registry) *ir.Module {
	t.Helper()
	m, err := dialect.Parse(name+".mlir", []byte(src), reg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func TestRoundTrip(t *testing.T) {
	reg := dialect.NewRegistry()
	for _, tc := range roundTrips {
		t.Run(tc.name, func(t *testing.T) {
			m := parse(t, tc.name, tc.src, reg)
			once := ir.PrintModule(m, reg, ir.PrintOptions{})
			generic := ir.PrintModule(m, reg, ir.PrintOptions{Generic: true})
			m2 := parse(t, tc.name, once, reg)
			if twice := ir.PrintModule(m2, reg, ir.PrintOptions{}); once != twice {
				t.Fatalf("printing is not stable:\n%s\n---\n%s", once, twice)
			}
			if g2 := ir.PrintModule(m2, reg, ir.PrintOptions{Generic: true}); generic != g2 {
				t.Fatalf("generic form changed through the round trip:\n%s\n---\n%s", generic, g2)
			}
			// The generic form itself reads back to the same IR.
			m3 := parse(t, tc.name, generic, reg)
			if g3 := ir.PrintModule(m3, reg, ir.PrintOptions{}); g3 != once {
				t.Fatalf("generic form reads back differently:\n%s\n---\n%s", g3, once)
			}
		})
	}
}

// TestGenericForm pins the in-memory form of ops whose attribute names
// other passes read: MLIR's names and operand segment sizes.
func TestGenericForm(t *testing.T) {
	reg := dialect.NewRegistry()
	for _, tc := range []struct{ src, op, want string }{
		{roundTrips[2].src, "tensor.expand_shape", `"tensor.expand_shape"(%x) {reassociation = [[0, 1]], static_output_shape = array<i64: 1, 4>} : (tensor<4xi32>) -> tensor<1x4xi32>`},
		{roundTrips[3].src, "tensor.pad", `{static_low = array<i64: 0, 0>, static_high = array<i64: 28, 6>, operandSegmentSizes = array<i32: 1, 0, 0>}`},
		{roundTrips[4].src, "tensor.concat", `"tensor.concat"(%a, %b) {dim = 1}`},
		{roundTrips[6].src, "tensor.insert_slice", `static_strides = array<i64: -9223372036854775808, 3>, operandSegmentSizes = array<i32: 1, 1, 1, 0, 1>`},
	} {
		m := parse(t, tc.op, tc.src, reg)
		g := ir.PrintModule(m, reg, ir.PrintOptions{Generic: true})
		if !strings.Contains(g, tc.want) {
			t.Errorf("%s: generic form lacks %q:\n%s", tc.op, tc.want, g)
		}
	}
}

// TestErrors checks that bad programs fail with the problem named at its
// file:line:col.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"cast-incompatible", `func.func @f(%x: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %c = tensor.cast %x : tensor<2x3xf32> to tensor<3x3xf32>
  return %c : tensor<3x3xf32>
}`, "bad.mlir:2:8: error: 'tensor.cast' op operand type 'tensor<2x3xf32>' and result type 'tensor<3x3xf32>' are cast incompatible"},
		{"bitcast-width", `func.func @f(%x: tensor<4xi32>) -> tensor<4xf16> {
  %c = tensor.bitcast %x : tensor<4xi32> to tensor<4xf16>
  return %c : tensor<4xf16>
}`, "bad.mlir:2:8: error: 'tensor.bitcast' op operand type 'tensor<4xi32>' and result type 'tensor<4xf16>' are cast incompatible"},
		{"extract-rank", `func.func @f(%x: tensor<2x4xf32>, %i: index) -> f32 {
  %e = tensor.extract %x[%i] : tensor<2x4xf32>
  return %e : f32
}`, "bad.mlir:2:8: error: 'tensor.extract' op incorrect number of indices for extract_element"},
		{"insert-rank", `func.func @f(%x: tensor<2x4xf32>, %s: f32, %i: index) -> tensor<2x4xf32> {
  %e = tensor.insert %s into %x[%i, %i, %i] : tensor<2x4xf32>
  return %e : tensor<2x4xf32>
}`, "bad.mlir:2:8: error: 'tensor.insert' op incorrect number of indices"},
		{"expand-size", `func.func @f(%x: tensor<4xi32>) -> tensor<2x3xi32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [2, 3] : tensor<4xi32> into tensor<2x3xi32>
  return %e : tensor<2x3xi32>
}`, "bad.mlir:2:8: error: 'tensor.expand_shape' op expected dimension 0 of collapsed type to be static value of 6"},
		{"expand-groups", `func.func @f(%x: tensor<4x2xi32>) -> tensor<2x2x2xi32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [2, 2, 2] : tensor<4x2xi32> into tensor<2x2x2xi32>
  return %e : tensor<2x2x2xi32>
}`, "bad.mlir:2:8: error: 'tensor.expand_shape' op expected rank of the collapsed type(2) to be the number of reassociation maps(1)"},
		{"expand-output-shape", `func.func @f(%x: tensor<4xi32>) -> tensor<1x4xi32> {
  %e = tensor.expand_shape %x [[0, 1]] output_shape [4, 1] : tensor<4xi32> into tensor<1x4xi32>
  return %e : tensor<1x4xi32>
}`, "bad.mlir:2:8: error: 'tensor.expand_shape' op invalid output shape provided at pos 0"},
		{"collapse-noncontiguous", `func.func @f(%x: tensor<2x3x4xi32>) -> tensor<8x3xi32> {
  %e = tensor.collapse_shape %x [[0, 2], [1]] : tensor<2x3x4xi32> into tensor<8x3xi32>
  return %e : tensor<8x3xi32>
}`, "bad.mlir:2:8: error: 'tensor.collapse_shape' op expected reassociation map #1 to be valid and contiguous"},
		{"collapse-dynamic", `func.func @f(%x: tensor<?x3xi32>) -> tensor<6xi32> {
  %e = tensor.collapse_shape %x [[0, 1]] : tensor<?x3xi32> into tensor<6xi32>
  return %e : tensor<6xi32>
}`, "bad.mlir:2:8: error: 'tensor.collapse_shape' op expected dimension 0 of collapsed type to be dynamic"},
		{"pad-type", `func.func @f(%x: tensor<4x4xf32>, %v: f32) -> tensor<6x6xf32> {
  %p = tensor.pad %x low[1, 1] high[1, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f32
  } : tensor<4x4xf32> to tensor<6x6xf32>
  return %p : tensor<6x6xf32>
}`, "bad.mlir:2:8: error: 'tensor.pad' op specified type 'tensor<6x6xf32>' does not match the inferred type 'tensor<6x7xf32>'"},
		{"pad-yield", `func.func @f(%x: tensor<4xf32>, %v: i32) -> tensor<6xf32> {
  %p = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %v : i32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}`, "bad.mlir:4:5: error: 'tensor.yield' op must yield one value of the element type 'f32'"},
		{"pad-rank", `func.func @f(%x: tensor<4xf32>, %v: f32) -> tensor<6xf32> {
  %p = tensor.pad %x low[1, 0] high[1] {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<4xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}`, "bad.mlir:2:8: error: 'tensor.pad' op expected 1 low values (one per dimension), found 2"},
		{"concat-size", `func.func @f(%a: tensor<2x3xi32>, %b: tensor<3x5xi32>) -> tensor<2x8xi32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xi32>, tensor<3x5xi32>) -> tensor<2x8xi32>
  return %c : tensor<2x8xi32>
}`, "bad.mlir:2:8: error: 'tensor.concat' op static concatenation size mismatch along non-concatenated dimension 0: input #1 has 3, the result 2"},
		{"concat-rank", `func.func @f(%a: tensor<2x3xi32>, %b: tensor<5xi32>) -> tensor<2x8xi32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xi32>, tensor<5xi32>) -> tensor<2x8xi32>
  return %c : tensor<2x8xi32>
}`, "bad.mlir:2:8: error: 'tensor.concat' op rank of concatenated inputs must match result rank (input #1 has rank 1, the result 2)"},
		{"concat-total", `func.func @f(%a: tensor<2x3xi32>, %b: tensor<2x5xi32>) -> tensor<2x9xi32> {
  %c = tensor.concat dim(1) %a, %b : (tensor<2x3xi32>, tensor<2x5xi32>) -> tensor<2x9xi32>
  return %c : tensor<2x9xi32>
}`, "bad.mlir:2:8: error: 'tensor.concat' op result type 'tensor<2x9xi32>' does not match the inferred concatenated size 8 along dimension 1"},
		{"splat-dims", `func.func @f(%s: f32, %n: index) -> tensor<?x?xf32> {
  %c = tensor.splat %s[%n] : tensor<?x?xf32>
  return %c : tensor<?x?xf32>
}`, "bad.mlir:2:8: error: 'tensor.splat' op incorrect number of dynamic sizes, has 1, expected 2"},
		{"from-elements-count", `func.func @f(%s: f32) -> tensor<3xf32> {
  %c = tensor.from_elements %s, %s : tensor<3xf32>
  return %c : tensor<3xf32>
}`, "bad.mlir:2:8: error: 'tensor.from_elements' op has 2 elements but the result type 'tensor<3xf32>' needs 3"},
		{"generate-args", `func.func @f() -> tensor<4x4xf32> {
  %g = tensor.generate {
  ^bb0(%i: index):
    %c = arith.constant 1.0 : f32
    tensor.yield %c : f32
  } : tensor<4x4xf32>
  return %g : tensor<4x4xf32>
}`, "bad.mlir:2:8: error: 'tensor.generate' op must have one body argument per input dimension (expected 2, found 1)"},
		{"generate-extents", `func.func @f(%n: index) -> tensor<?x?xf32> {
  %g = tensor.generate %n {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 1.0 : f32
    tensor.yield %c : f32
  } : tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}`, "bad.mlir:2:8: error: 'tensor.generate' op must have as many index operands as dynamic extents in the result type (2), found 1"},
		{"slice-out-of-bounds", `func.func @f(%x: tensor<4xi32>) -> tensor<2xi32> {
  %e = tensor.extract_slice %x[1] [2] [3] : tensor<4xi32> to tensor<2xi32>
  return %e : tensor<2xi32>
}`, "bad.mlir:2:8: error: 'tensor.extract_slice' op slice along dimension 0 runs out-of-bounds: 4 >= 4"},
		{"insert-slice-out-of-bounds", `func.func @f(%x: tensor<4x4xi32>, %y: tensor<2x2xi32>) -> tensor<4x4xi32> {
  %e = tensor.insert_slice %y into %x[4, 0] [2, 2] [1, 1] : tensor<2x2xi32> into tensor<4x4xi32>
  return %e : tensor<4x4xi32>
}`, "bad.mlir:2:8: error: 'tensor.insert_slice' op offset 0 is out-of-bounds: 4 >= 4"},
		{"slice-sizes", `func.func @f(%x: tensor<4xi32>) -> tensor<3xi32> {
  %e = tensor.extract_slice %x[1] [2] [1] : tensor<4xi32> to tensor<3xi32>
  return %e : tensor<3xi32>
}`, "bad.mlir:2:8: error: 'tensor.extract_slice' op expected result type to be 'tensor<2xi32>' or a rank-reduced version of it, found 'tensor<3xi32>'"},
		{"extract-non-tensor", `func.func @f(%x: f32, %i: index) -> f32 {
  %e = tensor.extract %x[%i] : f32
  return %e : f32
}`, "bad.mlir:2:30: error: expected a tensor type, found 'f32'"},
		{"insert-index-type", `func.func @f(%x: tensor<4xf32>, %s: f32, %i: i32) -> tensor<4xf32> {
  %e = tensor.insert %s into %x[%i] : tensor<4xf32>
  return %e : tensor<4xf32>
}`, "bad.mlir:2:37: error: use of value '%i' expects different type than prior uses: 'index' vs 'i32'"},
		{"splat-unranked", `func.func @f(%v: f32) -> tensor<*xf32> {
  %e = tensor.splat %v : tensor<*xf32>
  return %e : tensor<*xf32>
}`, "bad.mlir:2:24: error: expected a ranked tensor type, found 'tensor<*xf32>'"},
		{"from-elements-non-tensor", `func.func @f(%v: f32) -> f32 {
  %e = tensor.from_elements %v : f32
  return %e : f32
}`, "bad.mlir:2:32: error: expected a ranked tensor type, found 'f32'"},
		{"insert-slice-unranked-destination", `func.func @f(%x: tensor<*xi32>, %y: tensor<2xi32>) -> tensor<*xi32> {
  %e = "tensor.insert_slice"(%y, %x) {static_offsets = array<i64: 0>, static_sizes = array<i64: 2>, static_strides = array<i64: 1>, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>} : (tensor<2xi32>, tensor<*xi32>) -> tensor<*xi32>
  return %e : tensor<*xi32>
}`, "bad.mlir:2:8: error: 'tensor.insert_slice' op destination must be a ranked tensor, found 'tensor<*xi32>'"},
		{"extract-slice-unranked-source", `func.func @f(%x: tensor<*xi32>) -> tensor<2xi32> {
  %e = "tensor.extract_slice"(%x) {static_offsets = array<i64: 0>, static_sizes = array<i64: 2>, static_strides = array<i64: 1>, operandSegmentSizes = array<i32: 1, 0, 0, 0>} : (tensor<*xi32>) -> tensor<2xi32>
  return %e : tensor<2xi32>
}`, "bad.mlir:2:8: error: 'tensor.extract_slice' op source must be a ranked tensor, found 'tensor<*xi32>'"},
		{"yield-parent", `func.func @f(%v: f32) {
  tensor.yield %v : f32
}`, "bad.mlir:2:3: error: 'tensor.yield' op expects parent op to be one of 'tensor.generate, tensor.pad'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialect.Parse("bad.mlir", []byte(tc.src), dialect.NewRegistry())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}
