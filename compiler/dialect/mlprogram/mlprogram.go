// Package mlprogram registers MLIR's ml_program dialect ops that frontends
// (JAX, TensorFlow, torch-mlir) use for module state: ml_program.global
// and its accessors ml_program.global_load, global_load_const and
// global_store. They mean what util.global and its accessors mean; the
// input phase rewrites them into those (package conversion/mlprogramtoutil),
// as IREE's input conversion does.
//
// Ops are held as MLIR's generic form shows them: ml_program.global
// carries sym_visibility, sym_name, type, is_mutable and the optional
// initial `value`; the accessors name the global with a flat symbol
// reference in `global`.
package mlprogram

import (
	"github.com/goiree/goiree/compiler/dialect/util"
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the ml_program ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "ml_program.global", Parse: parseGlobal, Print: printGlobal, Verify: verifyGlobal})
	r.RegisterOp(&ir.OpDef{Name: "ml_program.global_load", Parse: parseLoad, Print: printLoad, Verify: func(op *ir.Operation) error { return verifyLoad(r, op) }})
	r.RegisterOp(&ir.OpDef{Name: "ml_program.global_load_const", Parse: parseLoad, Print: printLoad, Verify: func(op *ir.Operation) error { return verifyLoad(r, op) }})
	r.RegisterOp(&ir.OpDef{Name: "ml_program.global_store", Parse: parseStore, Print: printStore, Verify: func(op *ir.Operation) error { return verifyStore(r, op) }})
}

// IsExtern reports whether a is #ml_program.extern, the initial value
// that leaves a global to be initialized outside the program.
func IsExtern(a ir.Attribute) bool {
	o, ok := a.(*ir.OpaqueAttr)
	return ok && o.Name == "ml_program.extern" && o.Body == ""
}

// ml_program.global [visibility] [mutable] @name [(value)] : type attr-dict
func parseGlobal(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	mutable, err := util.ParseGlobalHead(p, op)
	if err != nil {
		return nil, err
	}
	var value ir.Attribute
	if p.Optional("(") {
		if value, err = p.ParseAttribute(); err != nil {
			return nil, err
		}
		if o, ok := value.(*ir.OpaqueAttr); ok && o.Type == nil && p.Is(":") {
			// A dialect attribute typed by a builtin type:
			// `(#ml_program.extern : tensor<4xi32>)`.
			typed := *o
			if typed.Type, err = p.ParseColonType(); err != nil {
				return nil, err
			}
			value = &typed
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
	}
	t, err := p.ParseColonType()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "type", Value: ir.TypeAttr{Type: t}})
	if mutable {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "is_mutable", Value: ir.UnitAttr{}})
	}
	if value != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "value", Value: value})
	}
	var extra ir.Operation
	if err := p.ParseOptionalAttrDict(&extra); err != nil {
		return nil, err
	}
	for _, a := range extra.Attrs {
		if op.HasAttr(a.Name) {
			return nil, ir.Errorf(op.Pos, "attribute '%s' is set by the custom syntax and must not be repeated in the attribute dictionary", a.Name)
		}
		op.Attrs = append(op.Attrs, a)
	}
	return nil, nil
}

func printGlobal(p *ir.Printer, op *ir.Operation) {
	util.PrintGlobalHead(p, op)
	if v := op.Attr("value"); v != nil {
		p.WriteString("(")
		p.Attr(v)
		p.WriteString(")")
	}
	if t, ok := op.Attr("type").(ir.TypeAttr); ok {
		p.WriteString(" : ")
		p.Type(t.Type)
	}
	p.AttrDict(op, "sym_visibility", "sym_name", "type", "is_mutable", "value")
}

// GlobalType returns the type of an ml_program.global, or nil.
func GlobalType(g *ir.Operation) ir.Type {
	if t, ok := g.Attr("type").(ir.TypeAttr); ok {
		return t.Type
	}
	return nil
}

func verifyGlobal(op *ir.Operation) error {
	if op.SymName() == "" {
		return ir.OpErrorf(op, "requires a 'sym_name' string attribute")
	}
	t := GlobalType(op)
	if t == nil {
		return ir.OpErrorf(op, "requires a 'type' type attribute")
	}
	if a := op.Attr("is_mutable"); a != nil {
		if _, ok := a.(ir.UnitAttr); !ok {
			return ir.OpErrorf(op, "'is_mutable' must be a unit attribute")
		}
	}
	v := op.Attr("value")
	if v == nil {
		if !op.HasAttr("is_mutable") {
			return ir.OpErrorf(op, "immutable global @%s must have an initial value", op.SymName())
		}
		return nil
	}
	if vt := util.AttrType(v); vt != nil && !IsExtern(v) && !shapesAgree(t, vt) {
		return ir.OpErrorf(op, "initial value type '%s' does not fit global @%s of type '%s'", ir.TypeString(vt), op.SymName(), ir.TypeString(t))
	}
	return nil
}

// shapesAgree reports whether values of type b may live in a global of
// type a: util globals' rule (static dimensions agree, so a tensor<?xi32>
// global holds a tensor<4xi32> value) with equal element types, which
// ml_program requires.
func shapesAgree(a, b ir.Type) bool {
	if !util.Compatible(a, b) {
		return false
	}
	sa, ok1 := a.(ir.ShapedType)
	sb, ok2 := b.(ir.ShapedType)
	return !ok1 || !ok2 || ir.TypesEqual(sa.ElementType(), sb.ElementType())
}

// ml_program.global_load(_const) @name attr-dict : type
func parseLoad(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	name, err := p.ParseSymbolName()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "global", Value: ir.SymbolRefAttr{Root: name}})
	t, _, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printLoad(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	if g := op.Attr("global"); g != nil {
		p.Attr(g)
	}
	p.AttrDictColonType(op, op.Results[0].Type, "global")
}

// ml_program.global_store @name = %value attr-dict : type
func parseStore(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	name, err := p.ParseSymbolName()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "global", Value: ir.SymbolRefAttr{Root: name}})
	if err := p.Expect("="); err != nil {
		return nil, err
	}
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	t, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return nil, p.ResolveType(v, t, tpos)
}

func printStore(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	if g := op.Attr("global"); g != nil {
		p.Attr(g)
	}
	p.WriteString(" = ")
	p.Operand(op.Operands[0])
	p.AttrDictColonType(op, op.Operands[0].Type, "global")
}

// Lookup returns the ml_program.global an accessor names: the nearest
// enclosing symbol table that defines the symbol.
func Lookup(r *ir.Registry, op *ir.Operation) (*ir.Operation, error) {
	ref, ok := op.Attr("global").(ir.SymbolRefAttr)
	if !ok || len(ref.Nested) > 0 {
		return nil, ir.OpErrorf(op, "requires a 'global' flat symbol reference attribute")
	}
	for t := ir.NearestSymbolTable(r, op); t != nil; t = ir.NearestSymbolTable(r, t) {
		if g := ir.LookupSymbolIn(t, ref.Root); g != nil {
			if g.Name != "ml_program.global" {
				return nil, ir.OpErrorf(op, "symbol @%s is a '%s', not an ml_program.global", ref.Root, g.Name)
			}
			return g, nil
		}
	}
	return nil, ir.OpErrorf(op, "undefined global: @%s", ref.Root)
}

func verifyLoad(r *ir.Registry, op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	g, err := Lookup(r, op)
	if err != nil {
		return err
	}
	if gt := GlobalType(g); !shapesAgree(gt, op.Results[0].Type) {
		return ir.OpErrorf(op, "global @%s is '%s' but the load is '%s'", g.SymName(), ir.TypeString(gt), ir.TypeString(op.Results[0].Type))
	}
	if op.Name == "ml_program.global_load_const" && g.HasAttr("is_mutable") {
		return ir.OpErrorf(op, "loads mutable global @%s as a constant; use ml_program.global_load", g.SymName())
	}
	return nil
}

func verifyStore(r *ir.Registry, op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	g, err := Lookup(r, op)
	if err != nil {
		return err
	}
	if gt := GlobalType(g); !shapesAgree(gt, op.Operands[0].Type) {
		return ir.OpErrorf(op, "global @%s is '%s' but the stored value is '%s'", g.SymName(), ir.TypeString(gt), ir.TypeString(op.Operands[0].Type))
	}
	if !g.HasAttr("is_mutable") {
		return ir.OpErrorf(op, "stores to immutable global @%s", g.SymName())
	}
	return nil
}
