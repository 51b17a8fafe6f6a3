// Package hal registers the HAL dialect: executables, variants, exports,
// executable sources, the interface ops used inside executables, the
// dispatch extern op and the HAL attributes (targets, objects, layouts).
package hal

import (
	"math"
	"strconv"

	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the HAL ops and attributes to r.
func Register(r *ir.Registry) {
	registerAttrs(r)
	r.RegisterOp(ir.SymbolTableOp("hal.executable", true, nil))
	r.RegisterOp(ir.SymbolTableOp("hal.executable.source", true, verifySource))
	r.RegisterOp(&ir.OpDef{Name: "hal.executable.variant", Parse: parseVariant, Print: printVariant, Verify: verifyVariant,
		IsolatedFromAbove: true, SymbolTable: true, NoTerminator: true})
	r.RegisterOp(&ir.OpDef{Name: "hal.executable.export", Parse: parseExport, Print: printExport, Verify: verifyExport, IsolatedFromAbove: true})
	r.RegisterOp(ir.ReturnLikeOp("hal.return", nil))
	r.RegisterOp(&ir.OpDef{Name: "hal.interface.constant.load", Parse: parseConstantLoad, Print: printConstantLoad, Verify: verifyConstantLoad})
	for _, n := range []string{"id", "count", "size"} {
		r.RegisterOp(ir.DimensionOp("hal.interface.workgroup."+n, "dimension"))
	}
	r.RegisterOp(&ir.OpDef{Name: "hal.interface.binding.subspan", Parse: parseSubspan, Print: printSubspan, Verify: verifySubspan})
	r.RegisterOp(&ir.OpDef{Name: "hal.dispatch.extern", Parse: parseExtern, Print: printExtern, Verify: verifyExtern})
	registerConditionOps(r)
}

// ---- hal.executable.source ----

func verifySource(op *ir.Operation) error {
	if a := op.Attr("objects"); a != nil {
		if _, ok := a.(*ExecutableObjectsAttr); !ok {
			return ir.OpErrorf(op, "'objects' must be a #hal.executable.objects attribute, found %s", ir.AttrString(a))
		}
	}
	return nil
}

// ---- hal.executable.variant ----

func parseVariant(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseSymbolDecl(op); err != nil {
		return nil, err
	}
	if p.Optional(",") {
		// Seed spelling: `, target = #t[, objects = [...]]`.
		if err := p.ExpectKeyword("target"); err != nil {
			return nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		t, err := parseTargetAttr(p)
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "target", Value: t})
		if p.Optional(",") {
			if err := p.ExpectKeyword("objects"); err != nil {
				return nil, err
			}
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			objs, err := parseObjectList(p)
			if err != nil {
				return nil, err
			}
			op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "objects", Value: objs})
		}
	} else {
		// HEAD spelling: `target(#t) [objects([...])] [sources({...})]`.
		if err := p.ExpectKeyword("target"); err != nil {
			return nil, err
		}
		t, err := inParens(p, parseTargetAttr)
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "target", Value: t})
		if p.OptionalKeyword("objects") {
			objs, err := inParens(p, parseObjectList)
			if err != nil {
				return nil, err
			}
			op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "objects", Value: objs})
		}
		if p.OptionalKeyword("sources") {
			d, err := inParens(p, (*ir.Parser).ParseDictionary)
			if err != nil {
				return nil, err
			}
			op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "sources", Value: d})
		}
	}
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	r, err := p.ParseRegion(op, nil)
	if err != nil {
		return nil, err
	}
	if len(r.Blocks) == 0 {
		r.AddBlock()
	}
	return nil, nil
}

func parseTargetAttr(p *ir.Parser) (*ExecutableTargetAttr, error) {
	pos := p.Pos()
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	t, ok := a.(*ExecutableTargetAttr)
	if !ok {
		return nil, ir.Errorf(pos, "expected a #hal.executable.target attribute, found %s", ir.AttrString(a))
	}
	return t, nil
}

func parseObjectList(p *ir.Parser) (*ir.ArrayAttr, error) {
	pos := p.Pos()
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	arr, ok := a.(*ir.ArrayAttr)
	if !ok {
		return nil, ir.Errorf(pos, "expected a list of #hal.executable.object attributes, found %s", ir.AttrString(a))
	}
	for _, e := range arr.Elems {
		if _, ok := e.(*ExecutableObjectAttr); !ok {
			return nil, ir.Errorf(pos, "expected a list of #hal.executable.object attributes, found element %s", ir.AttrString(e))
		}
	}
	return arr, nil
}

func printVariant(p *ir.Printer, op *ir.Operation) {
	ir.PrintVisibilityAndName(p, op)
	p.WriteString(" target(")
	p.Attr(op.Attr("target"))
	p.WriteString(")")
	if o := op.Attr("objects"); o != nil {
		p.WriteString(" objects(")
		p.Attr(o)
		p.WriteString(")")
	}
	if s := op.Attr("sources"); s != nil {
		p.WriteString(" sources(")
		p.Attr(s)
		p.WriteString(")")
	}
	p.AttrDictWithKeyword(op, "sym_visibility", "sym_name", "target", "objects", "sources")
	p.WriteString(" ")
	p.Region(op.Regions[0], false)
}

// VariantTarget returns the target of a hal.executable.variant.
func VariantTarget(op *ir.Operation) *ExecutableTargetAttr {
	t, _ := op.Attr("target").(*ExecutableTargetAttr)
	return t
}

// VariantObjects returns the objects of a hal.executable.variant.
func VariantObjects(op *ir.Operation) []*ExecutableObjectAttr {
	var out []*ExecutableObjectAttr
	if arr, ok := op.Attr("objects").(*ir.ArrayAttr); ok {
		for _, e := range arr.Elems {
			if o, ok := e.(*ExecutableObjectAttr); ok {
				out = append(out, o)
			}
		}
	}
	return out
}

// InnerModule returns the builtin.module inside a variant, or nil when the
// variant is external.
func InnerModule(variant *ir.Operation) *ir.Operation {
	if b := variant.Body(); b != nil {
		for _, o := range b.Ops {
			if o.Name == "builtin.module" {
				return o
			}
		}
	}
	return nil
}

func verifyVariant(op *ir.Operation) error {
	if VariantTarget(op) == nil {
		return ir.OpErrorf(op, "requires a 'target' #hal.executable.target attribute")
	}
	if op.SymName() == "" {
		return ir.OpErrorf(op, "requires a symbol name")
	}
	parent := op.ParentOp()
	if parent != nil && parent.Name != "hal.executable" {
		return ir.OpErrorf(op, "expects parent op 'hal.executable', found '%s'", parent.Name)
	}
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return ir.OpErrorf(op, "expects one region with one block")
	}
	if m := InnerModule(op); m != nil {
		for _, e := range op.Body().Ops {
			if e.Name != "hal.executable.export" {
				continue
			}
			fn := ir.LookupSymbolIn(m, e.SymName())
			if fn == nil || fn.Name != "func.func" || fn.Body() == nil {
				return ir.OpErrorf(e, "has no implementing function: the variant's module must define func.func @%s", e.SymName())
			}
		}
	}
	return nil
}

// ---- hal.executable.export ----

func parseExport(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.ParseSymbolDecl(op); err != nil {
		return nil, err
	}
	if p.OptionalKeyword("ordinal") {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		pos := p.Pos()
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, ir.Errorf(pos, "export ordinal must be non-negative")
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "ordinal", Value: ir.IndexAttr(n)})
	}
	if err := p.ExpectKeyword("layout"); err != nil {
		return nil, err
	}
	l, err := inParens(p, parseLayoutAttr)
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "layout", Value: l})
	if p.IsKeyword("count") {
		// HEAD: count(args) -> (index, index, index) { ... } attributes {...}
		if err := parseCountRegion(p, op); err != nil {
			return nil, err
		}
		if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
			return nil, err
		}
	} else {
		// Seed: attributes {...} { ^bb0(...): ... }
		if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
			return nil, err
		}
		if p.Is("{") {
			if _, err := p.ParseRegion(op, nil); err != nil {
				return nil, err
			}
		} else {
			op.AddRegion()
		}
	}
	return nil, nil
}

// parseCountRegion parses `count(%a: t, ...) -> (index, index, index) {..}`.
func parseCountRegion(p *ir.Parser, op *ir.Operation) error {
	if err := p.ExpectKeyword("count"); err != nil {
		return err
	}
	args, err := p.ParseArgumentList(true)
	if err != nil {
		return err
	}
	if err := p.Expect("->"); err != nil {
		return err
	}
	pos := p.Pos()
	res, err := p.ParseFunctionResultTypes()
	if err != nil {
		return err
	}
	if len(res) != 3 {
		return ir.Errorf(pos, "workgroup count region must return 3 values (x, y, z), found %d", len(res))
	}
	for _, t := range res {
		if _, ok := t.(ir.IndexType); !ok {
			return ir.Errorf(pos, "workgroup count region must return index values, found '%s'", ir.TypeString(t))
		}
	}
	_, err = p.ParseRegion(op, args)
	return err
}

func parseLayoutAttr(p *ir.Parser) (*PipelineLayoutAttr, error) {
	pos := p.Pos()
	a, err := p.ParseAttribute()
	if err != nil {
		return nil, err
	}
	l, ok := a.(*PipelineLayoutAttr)
	if !ok {
		return nil, ir.Errorf(pos, "expected a #hal.pipeline.layout attribute, found %s", ir.AttrString(a))
	}
	return l, nil
}

func printCountRegion(p *ir.Printer, r *ir.Region) {
	if len(r.Blocks) == 0 {
		return
	}
	p.WriteString(" count")
	printCountRegionTail(p, r)
}

func printCountRegionTail(p *ir.Printer, r *ir.Region) {
	if len(r.Blocks) == 0 {
		p.WriteString("() -> (index, index, index) {\n}")
		return
	}
	b := r.Blocks[0]
	p.ArgList(b.Args)
	p.WriteString(" -> (index, index, index) ")
	p.Region(r, false)
}

func printExport(p *ir.Printer, op *ir.Operation) {
	ir.PrintVisibilityAndName(p, op)
	if n, ok := op.IntAttr("ordinal"); ok {
		p.WriteString(" ordinal(" + strconv.FormatInt(n, 10) + ")")
	}
	p.WriteString(" layout(")
	p.Attr(op.Attr("layout"))
	p.WriteString(")")
	if len(op.Regions) > 0 {
		printCountRegion(p, op.Regions[0])
	}
	p.AttrDictWithKeyword(op, "sym_visibility", "sym_name", "ordinal", "layout")
}

// ExportLayout returns the layout of a hal.executable.export.
func ExportLayout(op *ir.Operation) *PipelineLayoutAttr {
	l, _ := op.Attr("layout").(*PipelineLayoutAttr)
	return l
}

func verifyCountRegion(op *ir.Operation, r *ir.Region, ret string) error {
	if len(r.Blocks) == 0 {
		return nil
	}
	for i, a := range r.Blocks[0].Args {
		if i == 0 {
			if dt, ok := a.Type.(*ir.DialectType); ok && dt.Name == "hal.device" {
				continue
			}
			if ret == "hal.return" {
				return ir.OpErrorf(op, "first workgroup count argument must be !hal.device, found '%s'", ir.TypeString(a.Type))
			}
		}
		if _, ok := a.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "workgroup count argument #%d must be index, found '%s'", i, ir.TypeString(a.Type))
		}
	}
	return ir.VerifyCountReturns(op, r, ret)
}

func verifyExport(op *ir.Operation) error {
	if ExportLayout(op) == nil {
		return ir.OpErrorf(op, "requires a 'layout' #hal.pipeline.layout attribute")
	}
	if op.SymName() == "" {
		return ir.OpErrorf(op, "requires a symbol name")
	}
	if parent := op.ParentOp(); parent != nil && parent.Name != "hal.executable.variant" && parent.Name != "hal.executable.source" {
		return ir.OpErrorf(op, "expects parent op 'hal.executable.variant' or 'hal.executable.source', found '%s'", parent.Name)
	}
	if ws := op.Attr("workgroup_size"); ws != nil {
		arr, ok := ws.(*ir.ArrayAttr)
		if !ok || len(arr.Elems) != 3 {
			return ir.OpErrorf(op, "workgroup_size must be an array of 3 index values, found %s", ir.AttrString(ws))
		}
		for _, e := range arr.Elems {
			if ia, ok := e.(ir.IntegerAttr); !ok || ia.Value < 1 {
				return ir.OpErrorf(op, "workgroup_size entries must be positive integers, found %s", ir.AttrString(e))
			}
		}
	}
	if len(op.Regions) == 1 {
		return verifyCountRegion(op, op.Regions[0], "hal.return")
	}
	return nil
}

// ---- hal.interface.constant.load ----

func parseConstantLoad(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.Optional("[") {
		// Seed: [N]
		pos := p.Pos()
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, ir.Errorf(pos, "constant index must be non-negative")
		}
		if err := p.Expect("]"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "index", Value: ir.IndexAttr(n)})
	} else {
		if err := p.ExpectKeyword("layout"); err != nil {
			return nil, err
		}
		l, err := inParens(p, parseLayoutAttr)
		if err != nil {
			return nil, err
		}
		if err := p.ExpectKeyword("ordinal"); err != nil {
			return nil, err
		}
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		pos := p.Pos()
		n, err := p.ParseInteger()
		if err != nil {
			return nil, err
		}
		if n < 0 {
			return nil, ir.Errorf(pos, "constant ordinal must be non-negative")
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "layout", Value: l}, ir.NamedAttr{Name: "ordinal", Value: ir.IndexAttr(n)})
	}
	if p.OptionalKeyword("alignment") {
		n, err := parseParenInt(p)
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "alignment", Value: ir.IndexAttr(n)})
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printConstantLoad(p *ir.Printer, op *ir.Operation) {
	if l := op.Attr("layout"); l != nil {
		n, _ := op.IntAttr("ordinal")
		p.WriteString(" layout(")
		p.Attr(l)
		p.WriteString(") ordinal(" + strconv.FormatInt(n, 10) + ")")
	} else {
		n, _ := op.IntAttr("index")
		p.WriteString("[" + strconv.FormatInt(n, 10) + "]")
	}
	if a, ok := op.IntAttr("alignment"); ok {
		p.WriteString(" alignment(" + strconv.FormatInt(a, 10) + ")")
	}
	p.AttrDict(op, "layout", "ordinal", "index", "alignment")
	p.WriteString(" : ")
	p.Type(op.Results[0].Type)
}

// ConstantOrdinal returns the constant index a constant.load reads.
func ConstantOrdinal(op *ir.Operation) int64 {
	if n, ok := op.IntAttr("ordinal"); ok {
		return n
	}
	n, _ := op.IntAttr("index")
	return n
}

func verifyConstantLoad(op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if !ir.IsPrimitive(op.Results[0].Type) {
		return ir.OpErrorf(op, "result must be an integer, index or float, found '%s'", ir.TypeString(op.Results[0].Type))
	}
	if l, ok := op.Attr("layout").(*PipelineLayoutAttr); ok {
		if n := ConstantOrdinal(op); n >= l.ConstantCount() {
			return ir.OpErrorf(op, "ordinal %d is out of range: the layout declares %d constants", n, l.ConstantCount())
		}
	} else if !op.HasAttr("index") {
		return ir.OpErrorf(op, "requires either 'layout' and 'ordinal' or an 'index' attribute")
	}
	return nil
}

// ---- hal.interface.binding.subspan ----

// inParens parses `(` parse `)`.
func inParens[T any](p *ir.Parser, parse func(*ir.Parser) (T, error)) (T, error) {
	var zero T
	if err := p.Expect("("); err != nil {
		return zero, err
	}
	v, err := parse(p)
	if err != nil {
		return zero, err
	}
	return v, p.Expect(")")
}

func parseParenInt(p *ir.Parser) (int64, error) { return inParens(p, (*ir.Parser).ParseInteger) }

func parseSubspan(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var offset []*ir.Value
	switch {
	case p.OptionalKeyword("set"):
		set, err := parseParenInt(p)
		if err != nil {
			return nil, err
		}
		if err := p.ExpectKeyword("binding"); err != nil {
			return nil, err
		}
		b, err := parseParenInt(p)
		if err != nil {
			return nil, err
		}
		if err := p.ExpectKeyword("type"); err != nil {
			return nil, err
		}
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		pos := p.Pos()
		dt, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		if !descriptorTypes[dt] {
			return nil, ir.Errorf(pos, "unknown descriptor type '%s' (expected storage_buffer or uniform_buffer)", dt)
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "set", Value: ir.IndexAttr(set)},
			ir.NamedAttr{Name: "binding", Value: ir.IndexAttr(b)},
			ir.NamedAttr{Name: "descriptor_type", Value: DescriptorTypeAttr{Value: dt}})
	case p.IsKeyword("layout"):
		p.ExpectKeyword("layout")
		l, err := inParens(p, parseLayoutAttr)
		if err != nil {
			return nil, err
		}
		if err := p.ExpectKeyword("binding"); err != nil {
			return nil, err
		}
		b, err := parseParenInt(p)
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "layout", Value: l}, ir.NamedAttr{Name: "binding", Value: ir.IndexAttr(b)})
	default:
		return nil, p.Errorf("expected 'set' (seed form) or 'layout' (current form), found %s", describe(p))
	}
	for {
		switch {
		case p.OptionalKeyword("alignment"):
			n, err := parseParenInt(p)
			if err != nil {
				return nil, err
			}
			op.SetAttr("alignment", ir.IndexAttr(n))
			continue
		case p.OptionalKeyword("offset"):
			if err := p.Expect("("); err != nil {
				return nil, err
			}
			pos := p.Pos()
			v, err := p.ParseOperand()
			if err != nil {
				return nil, err
			}
			if err := p.ResolveType(v, ir.IndexType{}, pos); err != nil {
				return nil, err
			}
			if err := p.Expect(")"); err != nil {
				return nil, err
			}
			offset = []*ir.Value{v}
			continue
		case p.OptionalKeyword("flags"):
			fs, err := inParens(p, parseFlags)
			if err != nil {
				return nil, err
			}
			arr := &ir.ArrayAttr{}
			for _, f := range fs {
				arr.Elems = append(arr.Elems, ir.StringAttr{Value: f})
			}
			op.SetAttr("descriptor_flags", arr)
			continue
		}
		break
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	dims, err := p.ParseDynamicDims(t)
	if err != nil {
		return nil, err
	}
	op.Operands = append(offset, dims...)
	op.SetAttr("operandSegmentSizes", ir.SegmentAttr(len(offset), len(dims)))
	return []ir.Type{t}, nil
}

func printSubspan(p *ir.Printer, op *ir.Operation) {
	b, _ := op.IntAttr("binding")
	if l := op.Attr("layout"); l != nil {
		p.WriteString(" layout(")
		p.Attr(l)
		p.WriteString(") binding(" + strconv.FormatInt(b, 10) + ")")
	} else {
		s, _ := op.IntAttr("set")
		dt := "storage_buffer"
		if d, ok := op.Attr("descriptor_type").(DescriptorTypeAttr); ok {
			dt = d.Value
		}
		p.WriteString(" set(" + strconv.FormatInt(s, 10) + ") binding(" + strconv.FormatInt(b, 10) + ") type(" + dt + ")")
	}
	if a, ok := op.IntAttr("alignment"); ok {
		p.WriteString(" alignment(" + strconv.FormatInt(a, 10) + ")")
	}
	if off := ir.Segment(op, 0); len(off) == 1 {
		p.WriteString(" offset(")
		p.Operand(off[0])
		p.WriteString(")")
	}
	if f, ok := op.Attr("descriptor_flags").(*ir.ArrayAttr); ok {
		p.WriteString(" flags(")
		for i, e := range f.Elems {
			if i > 0 {
				p.WriteString("|")
			}
			if s, ok := e.(ir.StringAttr); ok {
				p.WriteString(s.Value)
			}
		}
		p.WriteString(")")
	}
	p.AttrDict(op, "layout", "binding", "set", "descriptor_type", "alignment", "descriptor_flags", "operandSegmentSizes", "operand_segment_sizes")
	p.WriteString(" : ")
	p.Type(op.Results[0].Type)
	p.DynamicDims(ir.Segment(op, 1))
}

func verifySubspan(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 2); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	if len(ir.Segment(op, 0)) > 1 {
		return ir.OpErrorf(op, "takes at most one byte offset")
	}
	t := op.Results[0].Type
	if n := ir.DynamicDimCount(t); n != len(ir.Segment(op, 1)) {
		return ir.OpErrorf(op, "result type '%s' has %d dynamic dimensions but %d dimension values were given", ir.TypeString(t), n, len(ir.Segment(op, 1)))
	}
	b, ok := op.IntAttr("binding")
	if !ok {
		return ir.OpErrorf(op, "requires a 'binding' attribute")
	}
	if l, ok := op.Attr("layout").(*PipelineLayoutAttr); ok {
		if _, found := l.Lookup(0, b); !found {
			return ir.OpErrorf(op, "binding %d is not declared in the layout (it has %d bindings)", b, len(l.AllBindings()))
		}
	} else if !op.HasAttr("set") {
		return ir.OpErrorf(op, "requires either 'layout' or 'set' and 'descriptor_type'")
	}
	return nil
}

// ---- hal.dispatch.extern ----

func parseExtern(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	name, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "export_name", Value: ir.StringAttr{Value: name}})
	var workload []*ir.Value
	if p.Is("[") {
		wpos := p.Pos()
		if workload, err = p.ParseDelimitedOperands("[", "]"); err != nil {
			return nil, err
		}
		for _, w := range workload {
			if err := p.ResolveType(w, ir.IndexType{}, wpos); err != nil {
				return nil, err
			}
		}
	}
	args, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	sig, err := p.ParseTiedSignature(args)
	if err != nil {
		return nil, err
	}
	if err := parseCountRegion(p, op); err != nil {
		return nil, err
	}
	if err := p.ExpectKeyword("layout"); err != nil {
		return nil, err
	}
	l, err := inParens(p, parseLayoutAttr)
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "layout", Value: l})
	if p.OptionalKeyword("bindings") {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		pos := p.Pos()
		a, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		if _, ok := a.(*ir.ArrayAttr); !ok {
			return nil, ir.Errorf(pos, "expected a list of #hal.interface.binding attributes")
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "bindings", Value: a})
	}
	if err := p.ExpectKeyword("objects"); err != nil {
		return nil, err
	}
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	if p.Optional("{") {
		targets, ordinals, objects := &ir.ArrayAttr{}, &ir.ArrayAttr{}, &ir.ArrayAttr{}
		if !p.Optional("}") {
			for {
				t, err := parseTargetAttr(p)
				if err != nil {
					return nil, err
				}
				// Regions after the count region: one per target, empty
				// when the target has no condition.
				if p.OptionalKeyword("if") {
					if err := parseConditionRegion(p, op); err != nil {
						return nil, err
					}
				} else {
					op.Regions = append(op.Regions, &ir.Region{Op: op})
				}
				ord := int64(0)
				if p.OptionalKeyword("ordinal") {
					pos := p.Pos()
					if ord, err = parseParenInt(p); err != nil {
						return nil, err
					}
					if ord < 0 || ord > math.MaxInt32 {
						return nil, ir.Errorf(pos, "export ordinal %d is out of range (0 to %d)", ord, math.MaxInt32)
					}
				}
				if err := p.Expect("="); err != nil {
					return nil, err
				}
				objs, err := parseObjectList(p)
				if err != nil {
					return nil, err
				}
				targets.Elems = append(targets.Elems, t)
				ordinals.Elems = append(ordinals.Elems, ir.IndexAttr(ord))
				objects.Elems = append(objects.Elems, objs)
				if p.Optional("}") {
					break
				}
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "targets", Value: targets},
			ir.NamedAttr{Name: "target_ordinals", Value: ordinals}, ir.NamedAttr{Name: "target_objects", Value: objects})
	} else {
		pos := p.Pos()
		a, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		objs, ok := a.(*ExecutableObjectsAttr)
		if !ok {
			return nil, ir.Errorf(pos, "expected '{' or a #hal.executable.objects attribute, found %s", ir.AttrString(a))
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "objects", Value: objs})
	}
	if err := p.Expect(")"); err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	flow.FillDispatchLike(op, nil, workload, sig)
	return sig.ResultTypes, nil
}

func printExtern(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Attr(op.Attr("export_name"))
	d := flow.Dispatch{Op: op}
	if w := d.Workload(); len(w) > 0 {
		p.WriteString("[")
		p.Operands(w)
		p.WriteString("]")
	}
	p.WriteString("(")
	p.Operands(d.Arguments())
	p.WriteString(")")
	p.PrintTiedSignature(d.Arguments(), d.ArgumentDims(), op.Results, d.ResultDims(), ir.TiedOperands(op))
	if len(op.Regions) > 0 {
		p.Indent()
		p.Newline(0)
		p.WriteString("count")
		printCountRegionTail(p, op.Regions[0])
		p.Dedent()
	}
	p.WriteString(" layout(")
	p.Attr(op.Attr("layout"))
	p.WriteString(")")
	if b := op.Attr("bindings"); b != nil {
		p.WriteString(" bindings(")
		p.Attr(b)
		p.WriteString(")")
	}
	p.WriteString(" objects(")
	if o := op.Attr("objects"); o != nil {
		p.Attr(o)
	} else {
		p.WriteString("{")
		targets, _ := op.Attr("targets").(*ir.ArrayAttr)
		ords, _ := op.Attr("target_ordinals").(*ir.ArrayAttr)
		objs, _ := op.Attr("target_objects").(*ir.ArrayAttr)
		if targets != nil && ords != nil && objs != nil {
			for i := range targets.Elems {
				if i > 0 {
					p.WriteString(", ")
				}
				p.Attr(targets.Elems[i])
				if r := ExternCondition(op, i); r != nil {
					p.WriteString(" if")
					printConditionRegion(p, r)
				}
				if i < len(ords.Elems) {
					p.WriteString(" ordinal(")
					if n, ok := ords.Elems[i].(ir.IntegerAttr); ok {
						p.WriteString(strconv.FormatInt(n.Value, 10))
					}
					p.WriteString(")")
				}
				p.WriteString(" = ")
				if i < len(objs.Elems) {
					p.Attr(objs.Elems[i])
				}
			}
		}
		p.WriteString("}")
	}
	p.WriteString(")")
	p.AttrDictWithKeyword(op, "export_name", "layout", "bindings", "objects", "targets", "target_ordinals", "target_objects",
		"operandSegmentSizes", "operand_segment_sizes", "tied_operands")
}

// ExternTargets returns the (target, objects) pairs of a hal.dispatch.extern
// in either of its objects spellings.
func ExternTargets(op *ir.Operation) ([]*ExecutableTargetAttr, [][]ir.Attribute, []int64) {
	if o, ok := op.Attr("objects").(*ExecutableObjectsAttr); ok {
		var objs [][]ir.Attribute
		var ords []int64
		for _, a := range o.Objects {
			objs = append(objs, a.Elems)
			ords = append(ords, 0)
		}
		return o.Targets, objs, ords
	}
	var ts []*ExecutableTargetAttr
	var objs [][]ir.Attribute
	var ords []int64
	targets, _ := op.Attr("targets").(*ir.ArrayAttr)
	ordA, _ := op.Attr("target_ordinals").(*ir.ArrayAttr)
	objA, _ := op.Attr("target_objects").(*ir.ArrayAttr)
	if targets == nil || objA == nil {
		return nil, nil, nil
	}
	for i, t := range targets.Elems {
		et, ok := t.(*ExecutableTargetAttr)
		if !ok || i >= len(objA.Elems) {
			continue
		}
		ts = append(ts, et)
		arr, _ := objA.Elems[i].(*ir.ArrayAttr)
		if arr != nil {
			objs = append(objs, arr.Elems)
		} else {
			objs = append(objs, nil)
		}
		ord := int64(0)
		if ordA != nil && i < len(ordA.Elems) {
			if n, ok := ordA.Elems[i].(ir.IntegerAttr); ok {
				ord = n.Value
			}
		}
		ords = append(ords, ord)
	}
	return ts, objs, ords
}

func verifyExtern(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 4); err != nil {
		return err
	}
	if _, ok := op.Attr("layout").(*PipelineLayoutAttr); !ok {
		return ir.OpErrorf(op, "requires a 'layout' #hal.pipeline.layout attribute")
	}
	ts, _, _ := ExternTargets(op)
	if len(ts) == 0 {
		return ir.OpErrorf(op, "requires at least one target with objects")
	}
	d := flow.Dispatch{Op: op}
	if err := ir.VerifyTied(op, d.Arguments(), d.ArgumentDims(), d.ResultDims()); err != nil {
		return err
	}
	if len(op.Regions) == 0 {
		return ir.OpErrorf(op, "requires a workgroup count region")
	}
	if _, isList := op.Attr("targets").(*ir.ArrayAttr); isList && len(op.Regions) != 1+len(ts) {
		return ir.OpErrorf(op, "has %d targets but %d condition regions (one per target, empty without a condition)", len(ts), len(op.Regions)-1)
	}
	_, objs, ords := ExternTargets(op)
	for i := range ts {
		if r := ExternCondition(op, i); r != nil {
			if err := verifyConditionRegion(op, r); err != nil {
				return err
			}
		}
		// An entry without a condition is always chosen when its target's
		// format runs, so a later entry of the same target is never used;
		// with the same ordinal the two entries collide outright.
		for j := 0; j < i; j++ {
			if ExternCondition(op, j) != nil || ir.AttrString(ts[j]) != ir.AttrString(ts[i]) {
				continue
			}
			if ords[j] == ords[i] {
				return ir.OpErrorf(op, "target #%d %s ordinal(%d) collides with target #%d, which has the same target and ordinal and no condition, so #%d would never be used (give #%d a condition)",
					i, ir.AttrString(ts[i]), ords[i], j, i, j)
			}
			return ir.OpErrorf(op, "target #%d %s ordinal(%d) would never be used: target #%d has the same target and no condition, so it is always chosen first (give #%d a condition)",
				i, ir.AttrString(ts[i]), ords[i], j, j)
		}
		if len(objs[i]) == 0 {
			return ir.OpErrorf(op, "target #%d %s has no objects", i, ir.AttrString(ts[i]))
		}
	}
	if err := verifyCountRegion(op, op.Regions[0], "hal.return"); err != nil {
		return err
	}
	if len(op.Regions[0].Blocks) > 0 {
		nargs := len(op.Regions[0].Blocks[0].Args) - 1
		if nargs != len(d.Workload()) {
			return ir.OpErrorf(op, "workgroup count region takes %d workload values but the op passes %d", nargs, len(d.Workload()))
		}
	}
	return checkResources(op, ExternLayoutFor(op), d.Arguments(), op.Results, ir.TiedOperands(op), "hal.dispatch.extern")
}

// ExternCondition returns the condition region of target i of a
// hal.dispatch.extern, or nil when the target has none.
func ExternCondition(op *ir.Operation, i int) *ir.Region {
	if i+1 >= len(op.Regions) {
		return nil
	}
	if r := op.Regions[1+i]; len(r.Blocks) > 0 {
		return r
	}
	return nil
}

// ExternLayoutFor returns the layout of a hal.dispatch.extern.
func ExternLayoutFor(op *ir.Operation) *PipelineLayoutAttr {
	l, _ := op.Attr("layout").(*PipelineLayoutAttr)
	return l
}
