package affine_test

import (
	"fmt"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
	"github.com/goiree/goiree/compiler/ir"
)

func TestIndexOpsRoundTrip(t *testing.T) {
	src := `func.func @f(%i: index, %j: index, %k: index, %n: index) -> (index, index, index, index, index) {
  %a = affine.linearize_index disjoint [%i, %j] by (4, 4) : index
  %b = affine.linearize_index [%i, %j, %k] by (%n, 5) : index
  %c:2 = affine.delinearize_index %a into (4, 4) : index, index
  %d:3 = affine.delinearize_index %b into (%n, 5) : index, index, index
  return %a, %b, %c#0, %d#1, %d#2 : index, index, index, index, index
}`
	custom, generic := dialecttest.RoundTrip(t, "affine.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"%a = affine.linearize_index disjoint [%i, %j] by (4, 4) : index",
		"%b = affine.linearize_index [%i, %j, %k] by (%n, 5) : index",
		"%c:2 = affine.delinearize_index %a into (4, 4) : index, index",
		"%d:3 = affine.delinearize_index %b into (%n, 5) : index, index, index")
	dialecttest.ContainsAll(t, "generic form", generic,
		`"affine.linearize_index"(%i, %j) {disjoint, static_basis = array<i64: 4, 4>, operandSegmentSizes = array<i32: 2, 0>} : (index, index) -> index`,
		`"affine.delinearize_index"(%b, %n) {static_basis = array<i64: -9223372036854775808, 5>} : (index, index) -> (index, index, index)`)
}

func TestIndexOpsErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"linearize-basis-length", `func.func @f(%i: index, %j: index) -> index {
  %a = affine.linearize_index [%i, %j] by (2, 3, 4) : index
  return %a : index
}`, "t.mlir:2:8: error: 'affine.linearize_index' op should be passed a basis of 2 or 1 elements for 2 indices, found 3"},
		{"delinearize-results", `func.func @f(%x: index) -> index {
  %a:3 = affine.delinearize_index %x into (4) : index, index, index
  return %a#0 : index
}`, "t.mlir:2:10: error: 'affine.delinearize_index' op should return 1 or 2 results for a basis of 1 elements, found 3"},
		{"zero-basis", `func.func @f(%x: index) -> index {
  %a:2 = affine.delinearize_index %x into (0, 4) : index, index
  return %a#0 : index
}`, "t.mlir:2:10: error: 'affine.delinearize_index' op no zero or negative basis elements may be static (found 0)"},
		{"non-index", `func.func @f(%i: i32) -> index {
  %a = affine.linearize_index [%i] by (4) : index
  return %a : index
}`, "t.mlir:2:31: error: use of value '%i' expects different type than prior uses: 'index' vs 'i32'"},
	} {
		t.Run(tc.name, func(t *testing.T) { dialecttest.ExpectError(t, tc.src, tc.want) })
	}
}

// TestExpandIndexOps expands linearize and delinearize into arith ops,
// evaluates the expansion (a small interpreter of the ops it emits) for
// indices on both sides of zero, and compares with floor division and
// Horner's rule computed here.
func TestExpandIndexOps(t *testing.T) {
	src := `func.func @f(%i: index, %j: index, %k: index, %n: index) -> (index, index, index, index, index, index, index) {
  %a = affine.linearize_index disjoint [%i, %j] by (4, 4) : index
  %b = affine.linearize_index [%i, %j, %k] by (%n, 5) : index
  %c:2 = affine.delinearize_index %i into (3, 4) : index, index
  %d:3 = affine.delinearize_index %k into (%n, 5) : index, index, index
  return %a, %b, %c#0, %c#1, %d#0, %d#1, %d#2 : index, index, index, index, index, index, index
}`
	m, err := dialect.Parse("t.mlir", []byte(src), dialect.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if err := affine.ExpandIndexOps(m.Op); err != nil {
		t.Fatal(err)
	}
	fn := m.Op.Body().Ops[0]
	ir.Walk(fn, func(o *ir.Operation) bool {
		if o.Name == "affine.linearize_index" || o.Name == "affine.delinearize_index" {
			t.Errorf("%s left after expansion", o.Name)
		}
		return true
	})
	floorDiv := func(a, b int64) int64 {
		q := a / b
		if a%b != 0 && (a < 0) != (b < 0) {
			q--
		}
		return q
	}
	mod := func(a, b int64) int64 { return a - b*floorDiv(a, b) }
	for _, i := range []int64{-7, -1, 0, 3, 13} {
		for _, j := range []int64{-2, 0, 3} {
			for _, k := range []int64{-11, -5, 0, 4, 29} {
				for _, n := range []int64{2, 7} {
					got, err := eval(fn, []int64{i, j, k, n})
					if err != nil {
						t.Fatal(err)
					}
					want := []int64{
						i*4 + j, (i*n+j)*5 + k,
						floorDiv(i, 4), mod(i, 4),
						floorDiv(k, n*5), mod(floorDiv(k, 5), n), mod(k, 5),
					}
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("i=%d j=%d k=%d n=%d: got %v, want %v", i, j, k, n, got, want)
					}
				}
			}
		}
	}
}

// eval interprets a function body of the index arithmetic the expansion
// emits.
func eval(fn *ir.Operation, args []int64) ([]int64, error) {
	vals := map[*ir.Value]int64{}
	for i, a := range fn.Body().Args {
		vals[a] = args[i]
	}
	for _, o := range fn.Body().Ops {
		x := func(i int) int64 { return vals[o.Operands[i]] }
		var r int64
		switch o.Name {
		case "arith.constant":
			r = o.Attr("value").(ir.IntegerAttr).Value
		case "arith.addi":
			r = x(0) + x(1)
		case "arith.subi":
			r = x(0) - x(1)
		case "arith.muli":
			r = x(0) * x(1)
		case "arith.divsi":
			r = x(0) / x(1)
		case "arith.remsi":
			r = x(0) % x(1)
		case "arith.cmpi":
			p, _ := o.IntAttr("predicate")
			if arith.CmpIPredicates[p] != "slt" {
				return nil, fmt.Errorf("unexpected predicate %s", arith.CmpIPredicates[p])
			}
			if x(0) < x(1) {
				r = 1
			}
		case "arith.select":
			r = x(2)
			if x(0) != 0 {
				r = x(1)
			}
		case "func.return":
			var out []int64
			for _, v := range o.Operands {
				out = append(out, vals[v])
			}
			return out, nil
		default:
			return nil, fmt.Errorf("unexpected op %s", o.Name)
		}
		vals[o.Results[0]] = r
	}
	return nil, fmt.Errorf("no return")
}
