package loopnest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

func dim(d int) *ir.AffineExpr { return &ir.AffineExpr{Kind: ir.AffineDim, Pos: d} }

// groupStages returns a group's two stages over 4 rows of 8: the
// rows' sums, then every element less its row's sum.
func groupStages() (*loopnest.Kernel, *loopnest.Kernel) {
	f32 := ir.FloatType{Name: "f32"}
	x := &ir.TensorType{Shape: []int64{4, 8}, Elem: f32}
	rows := &ir.TensorType{Shape: []int64{4}, Elem: f32}
	id := &ir.AffineMap{NumDims: 2, Results: []*ir.AffineExpr{dim(0), dim(1)}}
	row := &ir.AffineMap{NumDims: 2, Results: []*ir.AffineExpr{dim(0)}}
	sum := &loopnest.Kernel{Body: "sum", Ranges: []int64{4, 8}, Iterators: []string{"parallel", "reduction"}, Tile: 1,
		Inputs: []loopnest.Operand{{Type: x, Map: id}}, Outputs: []loopnest.Operand{{Type: rows, Map: row}}}
	shift := &loopnest.Kernel{Body: "shift", Ranges: []int64{4, 8}, Iterators: []string{"parallel", "parallel"}, Tile: 1,
		Inputs: []loopnest.Operand{{Type: x, Map: id}, {Type: rows, Map: row}}, Outputs: []loopnest.Operand{{Type: x, Map: id}}}
	return sum, shift
}

// TestGroupContract round-trips a row group through its dictionary and
// checks that DecodeGroup refuses groups that break the contract, naming
// the reason.
func TestGroupContract(t *testing.T) {
	valid := func() *loopnest.Group {
		sum, shift := groupStages()
		return &loopnest.Group{Rows: 1, Tile: 1, Stages: []*loopnest.Kernel{sum, shift}, Links: [][]int{{0, -1}, {0, -1, 1}}}
	}
	g := valid()
	back, err := loopnest.DecodeGroup(g.Dict())
	if err != nil {
		t.Fatal(err)
	}
	if back.Rows != 1 || back.Tile != 1 || !reflect.DeepEqual(back.Links, g.Links) || ir.AttrString(back.Dict()) != ir.AttrString(g.Dict()) {
		t.Errorf("round trip changed the group:\n%s\n%s", g.Dict(), back.Dict())
	}
	if bs := back.Bindings(); len(bs) != 2 || bs[0].Write || !bs[1].Write {
		t.Errorf("bindings %v, want a read and then a write", bs)
	}
	if back.RowCount() != 4 || back.NumConstants() != 0 {
		t.Errorf("RowCount %d, NumConstants %d", back.RowCount(), back.NumConstants())
	}
	for _, tc := range []struct {
		name  string
		spoil func(g *loopnest.Group)
		want  string
	}{
		{"one stage", func(g *loopnest.Group) { g.Stages, g.Links = g.Stages[:1], g.Links[:1] }, "at least two stages"},
		{"no rows", func(g *loopnest.Group) { g.Rows = 0 }, "positive count of row loops"},
		{"rows beyond the result", func(g *loopnest.Group) { g.Rows = 2 }, "stage 0"},
		{"dynamic loop", func(g *loopnest.Group) { g.Stages[1].Ranges[1] = ir.Dynamic }, "dynamic"},
		{"row loops differ", func(g *loopnest.Group) { g.Stages[1].Ranges[0] = 3 }, "row ranges"},
		{"result to a binding", func(g *loopnest.Group) { g.Links[0][1] = 2 }, "its own result"},
		{"last output kept", func(g *loopnest.Group) { g.Links[1][2] = -2 }, "outputs are group bindings"},
		{"forward link", func(g *loopnest.Group) { g.Links[0][0] = -2 }, "cannot"},
		{"result read by a column", func(g *loopnest.Group) {
			g.Stages[1].Inputs[1].Map = &ir.AffineMap{NumDims: 2, Results: []*ir.AffineExpr{dim(1)}}
			g.Stages[1].Inputs[1].Type = &ir.TensorType{Shape: []int64{8}, Elem: ir.FloatType{Name: "f32"}}
		}, "not by the row loops alone"},
		{"reads after writes", func(g *loopnest.Group) { g.Links = [][]int{{1, -1}, {1, -1, 0}} }, "reads come first"},
		{"read and written", func(g *loopnest.Group) { g.Links[1][2] = 0 }, "both read and written"},
		{"a gap", func(g *loopnest.Group) { g.Links[1][2] = 2 }, "not linked by any stage"},
		{"last stage reduces", func(g *loopnest.Group) { g.Stages[1].Iterators[1] = "reduction" }, ""},
		{"too few links", func(g *loopnest.Group) { g.Links[1] = g.Links[1][:2] }, "links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := valid()
			tc.spoil(g)
			_, err := loopnest.DecodeGroup(g.Dict())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("DecodeGroup = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
