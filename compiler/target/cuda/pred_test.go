package cuda_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/arith"
)

// TestPredicateOrdersPTX runs every integer order of i1 operands (false
// below true unsigned, above it signed, where true is -1) in the PTX
// interpreter over the four operand pairs.
func TestPredicateOrdersPTX(t *testing.T) {
	a := []byte{0, 0, 1, 1}
	b := []byte{0, 1, 0, 1}
	signed := func(x byte) int { return -int(x) }
	orders := map[string]func(x, y byte) bool{
		"ugt": func(x, y byte) bool { return x > y },
		"ult": func(x, y byte) bool { return x < y },
		"uge": func(x, y byte) bool { return x >= y },
		"ule": func(x, y byte) bool { return x <= y },
		"sgt": func(x, y byte) bool { return signed(x) > signed(y) },
		"slt": func(x, y byte) bool { return signed(x) < signed(y) },
		"sge": func(x, y byte) bool { return signed(x) >= signed(y) },
		"sle": func(x, y byte) bool { return signed(x) <= signed(y) },
	}
	for _, arch := range []string{"sm_52", "sm_90"} {
		seen := map[string]bool{}
		for _, d := range simDispatches(t, "pred.mlir", arch) {
			p := ""
			for _, o := range d.body.Body().Ops {
				if o.Name == "arith.cmpi" {
					n, _ := o.IntAttr("predicate")
					p = arith.CmpIPredicates[n]
				}
			}
			order, ok := orders[p]
			if !ok {
				t.Fatalf("%s: a dispatch computes %q, not one order", arch, p)
			}
			seen[p] = true
			out := runElementwise(t, d, len(a), a, b)[0]
			for i := range a {
				want := byte(0)
				if order(a[i], b[i]) {
					want = 1
				}
				if out[i] != want {
					t.Errorf("%s: cmpi %s %d, %d = %d, want %d", arch, p, a[i], b[i], out[i], want)
				}
			}
		}
		if len(seen) != len(orders) {
			t.Errorf("%s: dispatches for %v, want all eight orders", arch, seen)
		}
	}
}
