package hal

import "github.com/goiree/goiree/compiler/ir"

// GeneratedExecutable describes a compiler-generated executable: one
// export, tiled in one dimension (ceildiv(workload, Tile) x 1 x 1
// workgroups, or that count split into rows where a variant's grid is
// limited), with one variant per target.
type GeneratedExecutable struct {
	// Name is the executable's symbol; Export the export's (and its entry
	// function's) symbol.
	Name, Export string
	Layout       *PipelineLayoutAttr
	Tile         int64
	// Grid, when set, gives a variant's own grid (the zero Grid's fields
	// mean Tile, no limit and one layer).
	Grid    func(t *ExecutableTargetAttr) Grid
	Targets []*ExecutableTargetAttr
	// VariantName picks a variant's symbol; used holds the names taken.
	VariantName func(t *ExecutableTargetAttr, used map[string]bool) string
	// Module fills one variant's builtin.module (the kernel's functions).
	Module func(t *ExecutableTargetAttr, module *ir.Block) error
}

// Grid is how one variant of a GeneratedExecutable is launched.
type Grid struct {
	// Tile is the workload each workgroup of a layer owns: n =
	// ceildiv(workload, Tile) workgroups.
	Tile int64
	// Limit, when non-zero, is the largest x count: the n workgroups are
	// launched as min(n, Limit) x ceildiv(n, Limit), and the variant's
	// kernel must take y * countX + x as its tile and skip tiles past the
	// end.
	Limit int64
	// Z, when above 1, is a constant z count: that many workgroups share
	// each tile, which the variant's kernel divides among them.
	Z int64
}

// Build creates the hal.executable. Generated dispatches of every kind
// (elementwise groups, linalg loop nests) share this shape, so they print
// and lower alike.
func (g *GeneratedExecutable) Build() (*ir.Operation, error) {
	exe := ir.NewOp("hal.executable", nil, nil, []ir.NamedAttr{
		{Name: "sym_visibility", Value: ir.StringAttr{Value: "private"}},
		{Name: "sym_name", Value: ir.StringAttr{Value: g.Name}},
	})
	eb := exe.AddRegion().AddBlock()
	used := map[string]bool{}
	for _, t := range g.Targets {
		v := ir.NewOp("hal.executable.variant", nil, nil, []ir.NamedAttr{
			{Name: "sym_visibility", Value: ir.StringAttr{Value: "public"}},
			{Name: "sym_name", Value: ir.StringAttr{Value: g.VariantName(t, used)}},
			{Name: "target", Value: t},
		})
		vb := v.AddRegion().AddBlock()
		eb.Append(v)
		ex := ir.NewOp("hal.executable.export", nil, nil, []ir.NamedAttr{
			{Name: "sym_visibility", Value: ir.StringAttr{Value: "public"}},
			{Name: "sym_name", Value: ir.StringAttr{Value: g.Export}},
			{Name: "ordinal", Value: ir.IndexAttr(0)},
			{Name: "layout", Value: g.Layout},
		})
		cb := ex.AddRegion().AddBlock(&ir.DialectType{Name: "hal.device"}, ir.IndexType{})
		cb.Args[0].Name, cb.Args[1].Name = "device", "workload"
		var gr Grid
		if g.Grid != nil {
			gr = g.Grid(t)
		}
		tile, limit := gr.Tile, gr.Limit
		if tile <= 0 {
			tile = g.Tile
		}
		ceilDiv := func(v *ir.Value, d int64, name string) *ir.Operation {
			m := &ir.AffineMap{NumSyms: 1, Results: []*ir.AffineExpr{{Kind: ir.AffineCeilDiv,
				LHS: &ir.AffineExpr{Kind: ir.AffineSym, Pos: 0}, RHS: &ir.AffineExpr{Kind: ir.AffineConst, Value: d}}}}
			o := ir.NewOp("affine.apply", []*ir.Value{v}, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "map", Value: ir.AffineMapAttr{Map: m}}})
			o.Results[0].Name = name
			cb.Append(o)
			return o
		}
		index := func(v int64, name string) *ir.Operation {
			o := ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(v)}})
			o.Results[0].Name = name
			cb.Append(o)
			return o
		}
		x := ceilDiv(cb.Args[1], tile, "x")
		one := index(1, "c1")
		z := one
		if gr.Z > 1 {
			z = index(gr.Z, "z")
		}
		ret := []*ir.Value{x.Results[0], one.Results[0], z.Results[0]}
		if limit > 0 {
			x.Results[0].Name = "n"
			lim := index(limit, "limit")
			sx := ir.NewOp("arith.minui", []*ir.Value{x.Results[0], lim.Results[0]}, []ir.Type{ir.IndexType{}}, nil)
			sx.Results[0].Name = "x"
			cb.Append(sx)
			y := ceilDiv(x.Results[0], limit, "y")
			ret = []*ir.Value{sx.Results[0], y.Results[0], z.Results[0]}
		}
		cb.Append(ir.NewOp("hal.return", ret, nil, nil))
		vb.Append(ex)
		mod := ir.NewOp("builtin.module", nil, nil, nil)
		mb := mod.AddRegion().AddBlock()
		vb.Append(mod)
		if err := g.Module(t, mb); err != nil {
			return nil, err
		}
	}
	return exe, nil
}
