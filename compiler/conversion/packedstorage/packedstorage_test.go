package packedstorage_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/conversion/internal/conversiontest"
	"github.com/goiree/goiree/compiler/conversion/packedstorage"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

// TestGolden converts testdata/convert.mlir and compares the printed IR
// with testdata/convert.golden (go test -update rewrites it); no linalg
// op or slice may be left on a packed tensor. The values are checked by
// compiler/e2e's TestPackedI1.
func TestGolden(t *testing.T) {
	conversiontest.Golden(t, func(m *ir.Operation) error {
		if err := packedstorage.Convert(m); err != nil {
			return err
		}
		var bad error
		ir.Walk(m, func(o *ir.Operation) bool {
			if o.Name == "flow.tensor.bitcast" {
				return true
			}
			for _, v := range append(append([]*ir.Value(nil), o.Operands...), o.Results...) {
				if packedstorage.IsPacked(v.Type) && bad == nil && (o.Name == "linalg.generic" || o.Name == "tensor.extract_slice") {
					bad = ir.OpErrorf(o, "still on a packed tensor")
				}
			}
			return true
		})
		return bad
	}, func(string) bool { return false })
}

func TestErrors(t *testing.T) {
	src := `func.func @f(%a: tensor<1xi8>) -> tensor<6xi1> {
  %p = flow.tensor.bitcast %a : tensor<1xi8> -> tensor<6xi1, #iree_encoding.packed_storage>
  %e = tensor.empty() : tensor<6xi1>
  %c = linalg.copy ins(%p : tensor<6xi1, #iree_encoding.packed_storage>) outs(%e : tensor<6xi1>) -> tensor<6xi1>
  return %c : tensor<6xi1>
}`
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("t.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	err = packedstorage.Convert(m.Op)
	want := "t.mlir:4:8: error: 'linalg.copy' op packed i1 tensors must have a static shape with a multiple of 8 elements, found 'tensor<6xi1, #iree_encoding.packed_storage>'"
	if err == nil || err.Error() != want {
		t.Fatalf("got  %v\nwant %s", err, want)
	}
}
