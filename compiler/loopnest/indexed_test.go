package loopnest_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// TestFormIndexed forms a gather-like generic whose body reads a dynamic
// 2-D table at a computed row: the table reaches the kernel flattened, as
// an indexed input, with its dynamic row count as a push constant for the
// clamping, and the body reads it at one clamped linear offset.
func TestFormIndexed(t *testing.T) {
	reg, m := parse(t, `func.func @g(%table: tensor<?x4xf32>, %idx: tensor<5xi32>) -> tensor<5x4xf32> {
  %e = tensor.empty() : tensor<5x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%idx : tensor<5xi32>) outs(%e : tensor<5x4xf32>) {
  ^bb0(%x: i32, %o: f32):
    %j = linalg.index 1 : index
    %i = arith.index_cast %x : i32 to index
    %v = tensor.extract %table[%i, %j] : tensor<?x4xf32>
    %c1 = arith.constant 1 : index
    %j1 = arith.addi %j, %c1 : index
    %w = tensor.extract %table[%i, %j1] : tensor<?x4xf32>
    %s = arith.addf %v, %w : f32
    linalg.yield %s : f32
  } -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}`)
	if _, err := loopnest.Form(m.Op, nil); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("after forming: %v", err)
	}
	text := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, want := range []string{
		"flow.tensor.reshape %table : tensor<?x4xf32>{%1} -> tensor<?xf32>{%3}",
		"{type = tensor<?xf32>, indexed}",
		"{scalar = i32}",
		"arith.minsi",
		"arith.maxsi",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	// Both reads share the flattened table and its row count.
	if n := strings.Count(text, "tensor.dim %table"); n != 1 {
		t.Errorf("%d tensor.dim ops of the table, want 1:\n%s", n, text)
	}
	if n := strings.Count(text, "{scalar = i32}"); n != 1 {
		t.Errorf("%d scalar inputs, want 1 (the row count):\n%s", n, text)
	}
	if n := strings.Count(text, "tensor.extract %arg1["); n != 2 {
		t.Errorf("%d reads of the indexed input, want 2:\n%s", n, text)
	}
	var k *loopnest.Kernel
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if d, ok := o.Attr(loopnest.Attr).(*ir.DictAttr); ok {
			if _, err := loopnest.Decode(d); err == nil || !strings.Contains(err.Error(), "read at computed indices") {
				t.Errorf("Decode accepted an indexed kernel (err %v)", err)
			}
			var err error
			if k, err = loopnest.DecodeIndexed(d); err != nil {
				t.Fatal(err)
			}
		}
		return true
	})
	if k == nil || k.FirstIndexed() < 0 || len(k.Bindings()) != 3 {
		t.Fatalf("kernel: %+v", k)
	}
}

// TestIndexedErrors: reads the lowering cannot make direct are refused at
// the read, and a kernel dictionary with a malformed indexed input is
// refused by DecodeIndexed.
func TestIndexedErrors(t *testing.T) {
	_, m := parse(t, `func.func @g(%idx: tensor<5xindex>) -> tensor<5xf32> {
  %e = tensor.empty() : tensor<5xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]}
      ins(%idx : tensor<5xindex>) outs(%e : tensor<5xf32>) {
  ^bb0(%x: index, %o: f32):
    %c = arith.constant 1.0 : f32
    %t = tensor.from_elements %c, %c : tensor<2xf32>
    %v = tensor.extract %t[%x] : tensor<2xf32>
    linalg.yield %v : f32
  } -> tensor<5xf32>
  return %r : tensor<5xf32>
}`)
	_, err := loopnest.Form(m.Op, nil)
	if err == nil || !strings.Contains(err.Error(), "in.mlir:7:10: error: 'tensor.from_elements' op is not supported in a linalg body") {
		t.Errorf("got %v", err)
	}
	bad := &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "body", Value: ir.SymbolRefAttr{Root: "b"}},
		{Name: "ranges", Value: &ir.ArrayAttr{Elems: []ir.Attribute{ir.IndexAttr(4)}}},
		{Name: "iterator_types", Value: &ir.ArrayAttr{Elems: []ir.Attribute{ir.StringAttr{Value: "parallel"}}}},
		{Name: "inputs", Value: &ir.ArrayAttr{Elems: []ir.Attribute{&ir.DictAttr{Entries: []ir.NamedAttr{
			{Name: "type", Value: ir.TypeAttr{Type: &ir.TensorType{Shape: []int64{2, 2}, Elem: ir.I32}}},
			{Name: "indexed", Value: ir.UnitAttr{}},
		}}}}},
		{Name: "outputs", Value: &ir.ArrayAttr{Elems: []ir.Attribute{&ir.DictAttr{Entries: []ir.NamedAttr{
			{Name: "type", Value: ir.TypeAttr{Type: &ir.TensorType{Shape: []int64{4}, Elem: ir.I32}}},
			{Name: "map", Value: ir.AffineMapAttr{Map: &ir.AffineMap{NumDims: 1, Results: []*ir.AffineExpr{{Kind: ir.AffineDim, Pos: 0}}}}},
		}}}}},
		{Name: "tile", Value: ir.IndexAttr(4)},
	}}
	if _, err := loopnest.DecodeIndexed(bad); err == nil || err.Error() != "input #0: only an input may be indexed, with a 1-D tensor type and no map" {
		t.Errorf("got %v", err)
	}
}
