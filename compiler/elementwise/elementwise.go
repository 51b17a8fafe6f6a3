// Package elementwise forms dispatch regions from the elementwise tensor
// math a host program does between its custom dispatches. Chains of
// elementwise arith/math ops over one shape are fused into a single
// generated hal.executable, with one variant per target, whose entry
// function carries the scalar body of the chain (see
// Attr); the ops are replaced by one flow.dispatch of it.
//
// The generated dispatch follows IREE's ABI: constant 0 is the element
// count (an i32), the input tensors and then the results are bindings in
// order, and the workgroup count is ceildiv(count, tile size).
package elementwise

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// DeviceTargets returns the executable targets of the module's
// hal.device.targets attribute, in order and without duplicates.
func DeviceTargets(module *ir.Operation) []*hal.ExecutableTargetAttr {
	arr, ok := module.Attr("hal.device.targets").(*ir.ArrayAttr)
	if !ok {
		return nil
	}
	var out []*hal.ExecutableTargetAttr
	seen := map[string]bool{}
	for _, e := range arr.Elems {
		d, ok := e.(*hal.DeviceTargetAttr)
		if !ok {
			continue
		}
		for _, t := range d.ExecutableTargets() {
			k := ir.AttrString(t)
			if !seen[k] {
				seen[k] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// Options configure Outline.
type Options struct {
	// Targets get one variant each; empty means DeviceTargets of the module,
	// or, when it declares none, the fallback target of the target registry
	// (target.Fallback: llvm-cpu's default when it is linked).
	Targets []*hal.ExecutableTargetAttr
	// TileSize is the number of elements per workgroup (default
	// DefaultTileSize).
	TileSize int64
}

// IsElementwise reports whether op is an elementwise arith/math op on
// ranked tensors that Outline can fuse.
func IsElementwise(op *ir.Operation) bool {
	if !strings.HasPrefix(op.Name, "arith.") && !strings.HasPrefix(op.Name, "math.") {
		return false
	}
	if op.Name == "arith.constant" || len(op.Results) != 1 {
		return false
	}
	rt, ok := op.Results[0].Type.(*ir.TensorType)
	if !ok || rt.Unranked {
		return false
	}
	for _, v := range op.Operands {
		t, ok := v.Type.(*ir.TensorType)
		if !ok || t.Unranked || !sameShape(t.Shape, rt.Shape) {
			return false
		}
	}
	return true
}

func sameShape(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// splatConstant returns the scalar attribute of an arith.constant with a
// splat dense tensor value, or nil.
func splatConstant(v *ir.Value) ir.Attribute {
	if v.Op == nil || v.Op.Name != "arith.constant" {
		return nil
	}
	d, ok := v.Op.Attr("value").(*ir.DenseAttr)
	if !ok || !d.Splat || len(d.Elements) != 1 {
		return nil
	}
	elem := d.Type.ElementType()
	switch e := d.Elements[0].(type) {
	case ir.IntegerAttr:
		if _, ok := elem.(ir.FloatType); ok {
			return ir.FloatAttr{Value: float64(e.Value), Type: elem}
		}
		return ir.IntegerAttr{Value: e.Value, Type: elem}
	case ir.FloatAttr:
		return ir.FloatAttr{Value: e.Value, Type: elem}
	case ir.BoolAttr:
		v := int64(0)
		if e.Value {
			v = 1
		}
		return ir.IntegerAttr{Value: v, Type: elem}
	}
	return nil
}

type group struct {
	ops    []*ir.Operation
	member map[*ir.Operation]bool
	shape  *ir.TensorType
}

func (g *group) produces(v *ir.Value) bool { return v.Op != nil && g.member[v.Op] }

// Outline fuses the elementwise ops of every function in module into
// generated dispatches. It returns the number of dispatches created.
func Outline(module *ir.Operation, opts Options) (int, error) {
	targets := opts.Targets
	if len(targets) == 0 {
		targets = DeviceTargets(module)
	}

	tile := opts.TileSize
	if tile <= 0 {
		tile = DefaultTileSize
	}
	body := module.Body()
	if body == nil {
		return 0, fmt.Errorf("module has no body")
	}
	total := 0
	for _, fn := range append([]*ir.Operation(nil), body.Ops...) {
		if fn.Name != "func.func" || fn.Body() == nil {
			continue
		}
		// Every block: after scf is lowered to cf, loop bodies and branch
		// arms are blocks of their own.
		var groups []*group
		for _, b := range fn.Regions[0].Blocks {
			groups = append(groups, formGroups(b)...)
		}
		next := 0
		for _, g := range groups {
			name := fmt.Sprintf("%s_dispatch_%d", fn.SymName(), next)
			for ir.LookupSymbolIn(module, name) != nil {
				name += "_"
			}
			if len(targets) == 0 {
				// Asked only now, so that a program without elementwise
				// math needs no target.
				t, err := target.Fallback()
				if err != nil {
					return total, ir.OpErrorf(g.ops[0], "cannot form an elementwise dispatch: %v", err)
				}
				targets = []*hal.ExecutableTargetAttr{t}
			}
			created, err := outlineGroup(module, fn, g, name, targets, tile)
			if err != nil {
				return total, err
			}
			if created {
				total++
				next++
			}
		}
	}
	return total, nil
}

// formGroups partitions the elementwise ops of a block into fusable
// groups: an op joins the open group when it consumes one of its values;
// a non-member that consumes a group value closes the group (so the
// dispatch can sit right after its last member).
func formGroups(b *ir.Block) []*group {
	var out []*group
	var cur *group
	closeCur := func() {
		if cur != nil {
			out = append(out, cur)
			cur = nil
		}
	}
	for _, op := range b.Ops {
		if IsElementwise(op) {
			rt := op.Results[0].Type.(*ir.TensorType)
			connected := false
			if cur != nil && sameShape(cur.shape.Shape, rt.Shape) {
				for _, v := range op.Operands {
					if cur.produces(v) {
						connected = true
					}
				}
			}
			if !connected {
				closeCur()
				cur = &group{member: map[*ir.Operation]bool{}, shape: rt}
			}
			cur.ops = append(cur.ops, op)
			cur.member[op] = true
			continue
		}
		if cur == nil {
			continue
		}
		uses := false
		ir.Walk(op, func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				if cur.produces(v) {
					uses = true
				}
			}
			return true
		})
		if uses {
			closeCur()
		}
	}
	closeCur()
	return out
}

// usedOutside reports whether v has a use in fn that is not a group
// member (in any block: a loop may carry it to the next iteration).
func usedOutside(fn *ir.Operation, g *group, v *ir.Value) bool {
	used := false
	var ops []*ir.Operation
	for _, b := range fn.Regions[0].Blocks {
		ops = append(ops, b.Ops...)
	}
	for _, op := range ops {
		if g.member[op] {
			continue
		}
		ir.Walk(op, func(o *ir.Operation) bool {
			for _, x := range o.Operands {
				if x == v {
					used = true
				}
			}
			return !used
		})
		if used {
			return true
		}
	}
	return false
}

// outlineGroup replaces one group by a dispatch of a new executable;
// created is false when the group was dead and simply removed.
func outlineGroup(module, fn *ir.Operation, g *group, name string, targets []*hal.ExecutableTargetAttr, tile int64) (created bool, err error) {
	b := g.ops[0].Block
	// Inputs (external tensors, splat constants excluded) in first-use
	// order, and outputs (member results used outside).
	var inputs []*ir.Value
	seenIn := map[*ir.Value]bool{}
	for _, op := range g.ops {
		for _, v := range op.Operands {
			if g.produces(v) || seenIn[v] || splatConstant(v) != nil {
				continue
			}
			seenIn[v] = true
			inputs = append(inputs, v)
		}
	}
	var outputs []*ir.Value
	for _, op := range g.ops {
		if usedOutside(fn, g, op.Results[0]) {
			outputs = append(outputs, op.Results[0])
		}
	}
	if len(outputs) == 0 {
		// Dead chain: drop it.
		for i := len(g.ops) - 1; i >= 0; i-- {
			g.ops[i].Remove()
		}
		return false, nil
	}
	for _, v := range append(append([]*ir.Value(nil), inputs...), outputs...) {
		if _, err := cType(v.Type); err != nil {
			return false, ir.OpErrorf(g.ops[0], "cannot form an elementwise dispatch: %v", err)
		}
	}
	exe, err := buildExecutable(g, name, inputs, outputs, targets, tile)
	if err != nil {
		return false, err
	}
	module.Body().InsertBefore(fn, exe)

	// Host side: dims, element count, dispatch.
	last := g.ops[len(g.ops)-1]
	var newOps []*ir.Operation
	emit := func(op *ir.Operation) *ir.Operation { newOps = append(newOps, op); return op }
	indexConst := func(v int64) *ir.Value {
		return emit(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(v)}})).Results[0]
	}
	var dims []*ir.Value // dynamic dims, in order
	var count *ir.Value
	for i, d := range g.shape.Shape {
		var dv *ir.Value
		if d == ir.Dynamic {
			if len(inputs) == 0 {
				return false, ir.OpErrorf(g.ops[0], "cannot size an elementwise dispatch with dynamic shape and no tensor inputs")
			}
			src := inputs[0]
			dv = emit(ir.NewOp("tensor.dim", []*ir.Value{src, indexConst(int64(i))}, []ir.Type{ir.IndexType{}}, nil)).Results[0]
			dims = append(dims, dv)
		} else {
			dv = indexConst(d)
		}
		if count == nil {
			count = dv
		} else {
			count = emit(ir.NewOp("arith.muli", []*ir.Value{count, dv}, []ir.Type{ir.IndexType{}}, nil)).Results[0]
		}
	}
	if count == nil {
		count = indexConst(1)
	}
	count32 := emit(ir.NewOp("arith.index_cast", []*ir.Value{count}, []ir.Type{ir.I32}, nil)).Results[0]
	args := append([]*ir.Value{count32}, inputs...)
	var argDims []*ir.Value
	for range inputs {
		argDims = append(argDims, dims...)
	}
	var resultTypes []ir.Type
	var resultDims []*ir.Value
	for _, o := range outputs {
		resultTypes = append(resultTypes, o.Type)
		resultDims = append(resultDims, dims...)
	}
	ref := ir.SymbolRefAttr{Root: name, Nested: []string{name + "_elementwise"}}
	d := ir.NewOp("flow.dispatch", nil, resultTypes, nil)
	d.Operands = append(append(append(append([]*ir.Value(nil), count), args...), argDims...), resultDims...)
	d.Attrs = []ir.NamedAttr{{Name: "entry_points", Value: &ir.ArrayAttr{Elems: []ir.Attribute{ref}}}}
	d.SetAttr("operandSegmentSizes", ir.SegmentAttr(1, len(args), len(argDims), len(resultDims)))
	d.Pos = last.Pos
	emit(d)
	anchor := last
	for _, op := range newOps {
		op.Pos = last.Pos
		insertAfter(b, anchor, op)
		anchor = op
	}
	for i, o := range outputs {
		d.Results[i].Name = o.Name
		ir.ReplaceAllUsesWith(fn, o, d.Results[i])
	}
	for i := len(g.ops) - 1; i >= 0; i-- {
		g.ops[i].Remove()
	}
	return true, nil
}

func insertAfter(b *ir.Block, after, op *ir.Operation) {
	for i, o := range b.Ops {
		if o == after {
			if i+1 < len(b.Ops) {
				b.InsertBefore(b.Ops[i+1], op)
			} else {
				b.Append(op)
			}
			return
		}
	}
	b.Append(op)
}

func cType(t ir.Type) (ir.Type, error) {
	e := arith.ElementType(t)
	switch e := e.(type) {
	case ir.FloatType:
		if e.Name == "f16" || e.Name == "bf16" || e.Name == "f32" || e.Name == "f64" {
			return e, nil
		}
	case ir.IntegerType:
		switch e.Width {
		case 1, 8, 16, 32, 64:
			return e, nil
		}
	case ir.IndexType:
		return nil, fmt.Errorf("tensors of index are not supported in elementwise dispatches")
	}
	return nil, fmt.Errorf("element type '%s' is not supported in elementwise dispatches", ir.TypeString(e))
}

// buildExecutable creates the hal.executable of one group.
func buildExecutable(g *group, name string, inputs, outputs []*ir.Value, targets []*hal.ExecutableTargetAttr, tile int64) (*ir.Operation, error) {
	layout := &hal.PipelineLayoutAttr{Constants: 1}
	for range inputs {
		layout.Bindings = append(layout.Bindings, hal.Binding{Type: "storage_buffer", Flags: []string{"ReadOnly"}})
	}
	for range outputs {
		layout.Bindings = append(layout.Bindings, hal.Binding{Type: "storage_buffer"})
	}
	exportName := name + "_elementwise"
	gen := &hal.GeneratedExecutable{
		Name:        name,
		Export:      exportName,
		Layout:      layout,
		Tile:        tile,
		Targets:     targets,
		VariantName: uniqueVariantName,
		Module: func(_ *hal.ExecutableTargetAttr, mb *ir.Block) error {
			bodyFn, err := buildBody(g, exportName+"_body", inputs, outputs)
			if err != nil {
				return err
			}
			mb.Append(bodyFn)
			entry := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
				{Name: "sym_name", Value: ir.StringAttr{Value: exportName}},
				{Name: "function_type", Value: ir.TypeAttr{Type: &ir.FunctionType{}}},
				{Name: Attr, Value: &ir.DictAttr{Entries: []ir.NamedAttr{
					{Name: "body", Value: ir.SymbolRefAttr{Root: exportName + "_body"}},
					{Name: "tile_size", Value: ir.IndexAttr(tile)},
				}}},
			})
			entry.AddRegion().AddBlock().Append(ir.NewOp("func.return", nil, nil, nil))
			mb.Append(entry)
			return nil
		},
	}
	return gen.Build()
}

// targetName derives a variant name from a target: the architecture part
// of its format (embedded-elf-x86_64 -> x86_64).
func targetName(t *hal.ExecutableTargetAttr) string {
	f := t.Format
	if i := strings.LastIndex(f, "-"); i >= 0 && strings.HasPrefix(f, "embedded-elf-") {
		return f[i+1:]
	}
	return sanitizeSymbol(f)
}

// sanitizeSymbol replaces every character that cannot appear in a bare
// symbol name with '_'.
func sanitizeSymbol(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// uniqueVariantName returns targetName(t), made unique among the names in
// used (and added to it): targets that share a format, such as two CUDA
// architectures, are told apart by their target_arch, then by a counter.
func uniqueVariantName(t *hal.ExecutableTargetAttr, used map[string]bool) string {
	name := targetName(t)
	if used[name] && t.Config != nil {
		if arch, ok := t.Config.Get("target_arch").(ir.StringAttr); ok {
			name += "_" + sanitizeSymbol(arch.Value)
		}
	}
	for base, n := name, 1; used[name]; n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	used[name] = true
	return name
}

// buildBody clones the group's ops onto scalars: a private function taking
// one element of every input and returning one element of every output.
func buildBody(g *group, name string, inputs, outputs []*ir.Value) (*ir.Operation, error) {
	ft := &ir.FunctionType{}
	for _, v := range inputs {
		ft.Inputs = append(ft.Inputs, arith.ElementType(v.Type))
	}
	for _, v := range outputs {
		ft.Results = append(ft.Results, arith.ElementType(v.Type))
	}
	fn := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
		{Name: "sym_visibility", Value: ir.StringAttr{Value: "private"}},
		{Name: "sym_name", Value: ir.StringAttr{Value: name}},
		{Name: "function_type", Value: ir.TypeAttr{Type: ft}},
	})
	blk := fn.AddRegion().AddBlock(ft.Inputs...)
	mapping := map[*ir.Value]*ir.Value{}
	for i, v := range inputs {
		mapping[v] = blk.Args[i]
		blk.Args[i].Name = v.Name
	}
	for _, op := range g.ops {
		var operands []*ir.Value
		for _, v := range op.Operands {
			if m, ok := mapping[v]; ok {
				operands = append(operands, m)
				continue
			}
			c := splatConstant(v)
			if c == nil {
				return nil, ir.OpErrorf(op, "operand %%%s is not available inside the fused dispatch", v.Name)
			}
			k := ir.NewOp("arith.constant", nil, []ir.Type{arith.ElementType(v.Type)}, []ir.NamedAttr{{Name: "value", Value: c}})
			k.Results[0].Name = v.Name
			blk.Append(k)
			mapping[v] = k.Results[0]
			operands = append(operands, k.Results[0])
		}
		n := ir.NewOp(op.Name, operands, []ir.Type{arith.ElementType(op.Results[0].Type)}, append([]ir.NamedAttr(nil), op.Attrs...))
		n.Results[0].Name = op.Results[0].Name
		n.Pos = op.Pos
		blk.Append(n)
		mapping[op.Results[0]] = n.Results[0]
	}
	var rets []*ir.Value
	for _, o := range outputs {
		rets = append(rets, mapping[o])
	}
	blk.Append(ir.NewOp("func.return", rets, nil, nil))
	return fn, nil
}
