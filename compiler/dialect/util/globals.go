// Package util registers IREE's util dialect ops that programs handed to
// the compiler use: module globals (util.global, util.global.load/store,
// their address and indirect forms, util.initializer), functions
// (util.func, util.call, util.return), and the compiler hints
// util.unfoldable_constant, util.optimization_barrier, util.null and
// util.unreachable.
//
// Ops are held as MLIR's generic form shows them: util.global carries
// sym_visibility, sym_name, type, is_mutable and initial_value; the global
// accessors name it with a flat symbol reference in `global` (plus
// is_immutable on loads); util.func carries function_type, tied_operands,
// arg_attrs and res_attrs like func.func. The Dec 2022 spelling
// util.initializer.return parses as util.return, which replaced it.
package util

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the util ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "util.global", Parse: parseGlobal, Print: printGlobal, Verify: verifyGlobal})
	r.RegisterOp(&ir.OpDef{Name: "util.global.load", Parse: parseGlobalLoad, Print: printGlobalLoad, Verify: func(op *ir.Operation) error { return verifyGlobalLoad(r, op) }})
	r.RegisterOp(&ir.OpDef{Name: "util.global.store", Parse: parseGlobalStore, Print: printGlobalStore, Verify: func(op *ir.Operation) error { return verifyGlobalStore(r, op) }})
	r.RegisterOp(&ir.OpDef{Name: "util.global.address", Parse: parseGlobalAddress, Print: printGlobalAddress, Verify: func(op *ir.Operation) error { return verifyGlobalAddress(r, op) }})
	r.RegisterOp(&ir.OpDef{Name: "util.global.load.indirect", Parse: parseLoadIndirect, Print: printLoadIndirect, Verify: verifyLoadIndirect})
	r.RegisterOp(&ir.OpDef{Name: "util.global.store.indirect", Parse: parseStoreIndirect, Print: printStoreIndirect, Verify: verifyStoreIndirect})
	registerFuncs(r)
	registerHints(r)
}

// Global gives structured access to a util.global.
type Global struct{ Op *ir.Operation }

// Type returns the global's declared type.
func (g Global) Type() ir.Type {
	if t, ok := g.Op.Attr("type").(ir.TypeAttr); ok {
		return t.Type
	}
	return nil
}

// Mutable reports whether stores outside initializers are allowed.
func (g Global) Mutable() bool { return g.Op.HasAttr("is_mutable") }

// InitialValue returns the initial_value attribute, or nil.
func (g Global) InitialValue() ir.Attribute { return g.Op.Attr("initial_value") }

// AttrType returns the type a typed attribute carries, or nil for an
// attribute without one (a unit, a string, an opaque dialect attribute
// written without `: type`).
func AttrType(a ir.Attribute) ir.Type {
	switch a := a.(type) {
	case ir.IntegerAttr:
		return a.Type
	case ir.FloatAttr:
		return a.Type
	case ir.BoolAttr:
		return ir.I1
	case *ir.DenseAttr:
		return a.Type
	case *ir.OpaqueAttr:
		return a.Type
	case ir.TypeAttr:
		return nil
	}
	return nil
}

// ParseGlobalHead parses `[visibility] [mutable] @name`, the start of
// util.global's and ml_program.global's custom forms, into op's
// sym_visibility and sym_name, and reports whether `mutable` was written.
func ParseGlobalHead(p *ir.Parser, op *ir.Operation) (mutable bool, err error) {
	vis := p.ParseOptionalVisibility()
	mutable = p.OptionalKeyword("mutable")
	name, err := p.ParseSymbolName()
	if err != nil {
		return false, err
	}
	if vis != "" {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "sym_visibility", Value: ir.StringAttr{Value: vis}})
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "sym_name", Value: ir.StringAttr{Value: name}})
	return mutable, nil
}

// PrintGlobalHead prints what ParseGlobalHead parses (mutable when op has
// is_mutable).
func PrintGlobalHead(p *ir.Printer, op *ir.Operation) {
	if v, ok := op.Attr("sym_visibility").(ir.StringAttr); ok {
		p.WriteString(" " + v.Value)
	}
	if op.HasAttr("is_mutable") {
		p.WriteString(" mutable")
	}
	p.WriteString(" ")
	p.Symbol(op.SymName())
}

// util.global [visibility] [mutable] @name attr-dict (: type [= attr] | = attr)
func parseGlobal(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	mutable, err := ParseGlobalHead(p, op)
	if err != nil {
		return nil, err
	}
	var extra ir.Operation
	if err := p.ParseOptionalAttrDict(&extra); err != nil {
		return nil, err
	}
	var t ir.Type
	var init ir.Attribute
	if p.Optional("=") {
		apos := p.Pos()
		if init, err = p.ParseAttribute(); err != nil {
			return nil, err
		}
		if o, ok := init.(*ir.OpaqueAttr); ok && o.Type == nil && p.Is(":") {
			// A dialect attribute typed by a builtin type, as in
			// `= #flow.parameter.named<"a0"> : tensor<4xi64>` or
			// `= #util.byte_pattern<1> : tensor<8xf32>`.
			typed := *o
			if typed.Type, err = p.ParseColonType(); err != nil {
				return nil, err
			}
			init = &typed
		}
		if t = AttrType(init); t == nil {
			return nil, ir.Errorf(apos, "initial value %s has no type; write the global's type first (`: type = value`)", ir.AttrString(init))
		}
	} else {
		if t, err = p.ParseColonType(); err != nil {
			return nil, err
		}
		if p.Optional("=") {
			if init, err = p.ParseAttribute(); err != nil {
				return nil, err
			}
		}
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "type", Value: ir.TypeAttr{Type: t}})
	if mutable {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "is_mutable", Value: ir.UnitAttr{}})
	}
	if init != nil {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "initial_value", Value: init})
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
	g := Global{op}
	PrintGlobalHead(p, op)
	p.AttrDict(op, "sym_visibility", "sym_name", "type", "is_mutable", "initial_value")
	init := g.InitialValue()
	if t := g.Type(); t != nil && (init == nil || !ir.TypesEqual(AttrType(init), t)) {
		p.WriteString(" : ")
		p.Type(t)
	}
	if init != nil {
		p.WriteString(" = ")
		p.Attr(init)
	}
}

func verifyGlobal(op *ir.Operation) error {
	if op.SymName() == "" {
		return ir.OpErrorf(op, "requires a 'sym_name' string attribute")
	}
	g := Global{op}
	t := g.Type()
	if t == nil {
		return ir.OpErrorf(op, "requires a 'type' type attribute")
	}
	if a := op.Attr("is_mutable"); a != nil {
		if _, ok := a.(ir.UnitAttr); !ok {
			return ir.OpErrorf(op, "'is_mutable' must be a unit attribute")
		}
	}
	if init := g.InitialValue(); init != nil {
		if it := AttrType(init); it != nil && !Compatible(t, it) {
			return ir.OpErrorf(op, "initial value type mismatch; global @%s is '%s' but initial value provided is '%s'", op.SymName(), ir.TypeString(t), ir.TypeString(it))
		}
	}
	return nil
}

// Compatible reports whether a global of type a may be accessed as type b
// (IREE's rule for loads and initial values): the same type, or two shaped
// types whose shapes agree wherever both are static (a tensor<?xf32>
// global is loaded as tensor<4xf32>). Like IREE it does not compare the
// element types of shaped types: an initial value may be stored in another
// element type of the same shape.
func Compatible(a, b ir.Type) bool {
	if ir.TypesEqual(a, b) {
		return true
	}
	sa, ok1 := a.(ir.ShapedType)
	sb, ok2 := b.(ir.ShapedType)
	if !ok1 || !ok2 {
		return false
	}
	da, db := sa.ShapeDims(), sb.ShapeDims()
	if da == nil || db == nil {
		return true // unranked
	}
	if len(da) != len(db) {
		return false
	}
	for i := range da {
		if da[i] != ir.Dynamic && db[i] != ir.Dynamic && da[i] != db[i] {
			return false
		}
	}
	return true
}

// globalRef returns the flat symbol named by op's `global` attribute.
func globalRef(op *ir.Operation) (string, bool) {
	ref, ok := op.Attr("global").(ir.SymbolRefAttr)
	if !ok || len(ref.Nested) > 0 {
		return "", false
	}
	return ref.Root, true
}

// lookupGlobal finds the util.global op names: the nearest enclosing
// symbol table that defines the symbol.
func lookupGlobal(r *ir.Registry, op *ir.Operation) (*ir.Operation, error) {
	name, ok := globalRef(op)
	if !ok {
		return nil, ir.OpErrorf(op, "requires a 'global' flat symbol reference attribute")
	}
	for t := ir.NearestSymbolTable(r, op); t != nil; t = ir.NearestSymbolTable(r, t) {
		if g := ir.LookupSymbolIn(t, name); g != nil {
			if g.Name != "util.global" {
				return nil, ir.OpErrorf(op, "symbol @%s is a '%s', not a util.global", name, g.Name)
			}
			return g, nil
		}
	}
	return nil, ir.OpErrorf(op, "undefined global: @%s", name)
}

// parseGlobalRefAttrs parses `[immutable] @name`, storing global and
// is_immutable (when allowImmutable and present).
func parseGlobalRefAttrs(p *ir.Parser, op *ir.Operation, allowImmutable bool) error {
	immutable := allowImmutable && p.OptionalKeyword("immutable")
	name, err := p.ParseSymbolName()
	if err != nil {
		return err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "global", Value: ir.SymbolRefAttr{Root: name}})
	if immutable {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "is_immutable", Value: ir.UnitAttr{}})
	}
	return nil
}

// util.global.load [immutable] @name attr-dict : type
func parseGlobalLoad(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := parseGlobalRefAttrs(p, op, true); err != nil {
		return nil, err
	}
	t, _, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	return []ir.Type{t}, nil
}

func printImmutableAndGlobal(p *ir.Printer, op *ir.Operation) {
	if op.HasAttr("is_immutable") {
		p.WriteString(" immutable")
	}
	p.WriteString(" ")
	if g := op.Attr("global"); g != nil {
		p.Attr(g)
	}
}

func printGlobalLoad(p *ir.Printer, op *ir.Operation) {
	printImmutableAndGlobal(p, op)
	p.AttrDictColonType(op, op.Results[0].Type, "global", "is_immutable")
}

func verifyGlobalLoad(r *ir.Registry, op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	g, err := lookupGlobal(r, op)
	if err != nil {
		return err
	}
	gt := Global{g}.Type()
	if !Compatible(gt, op.Results[0].Type) {
		return ir.OpErrorf(op, "global type mismatch; global @%s is '%s' but load is '%s'", g.SymName(), ir.TypeString(gt), ir.TypeString(op.Results[0].Type))
	}
	if op.HasAttr("is_immutable") && (Global{g}).Mutable() {
		return ir.OpErrorf(op, "is marked as immutable but the global is mutable")
	}
	return verifyInitializedBeforeUse(r, op, g)
}

// verifyInitializedBeforeUse checks the two ways a load can read a global
// nothing initialized: an initializer (they run in module order) loading a
// global defined below it, and an immutable global with no initial value
// that nothing stores to.
func verifyInitializedBeforeUse(r *ir.Registry, load, g *ir.Operation) error {
	if init := enclosing(load, "util.initializer"); init != nil && init.Block != nil && init.Block == g.Block {
		for _, o := range init.Block.Ops {
			if o == init {
				return ir.OpErrorf(load, "loads global @%s before its definition at %s: initializers run in module order and may only use globals defined above them", g.SymName(), g.Pos)
			}
			if o == g {
				break
			}
		}
	}
	gl := Global{g}
	if gl.Mutable() || gl.InitialValue() != nil || g.Block == nil {
		return nil
	}
	table := ir.NearestSymbolTable(r, g)
	if table == nil {
		return nil
	}
	initialized := false
	ir.Walk(table, func(o *ir.Operation) bool {
		if initialized {
			return false
		}
		switch o.Name {
		case "util.global.store", "util.global.address":
			if n, ok := globalRef(o); ok && n == g.SymName() {
				initialized = true
			}
		}
		return true
	})
	if !initialized {
		return ir.OpErrorf(load, "loads global @%s, which is never initialized: it is immutable, has no initial value, and no util.initializer stores to it", g.SymName())
	}
	return nil
}

// enclosing returns the nearest ancestor of op named name, or nil.
func enclosing(op *ir.Operation, name string) *ir.Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// util.global.store %value, @name attr-dict : type
func parseGlobalStore(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	if err := parseGlobalRefAttrs(p, op, false); err != nil {
		return nil, err
	}
	t, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v}
	return nil, p.ResolveType(v, t, tpos)
}

func printGlobalStore(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.WriteString(",")
	printImmutableAndGlobal(p, op)
	p.AttrDictColonType(op, op.Operands[0].Type, "global")
}

func verifyGlobalStore(r *ir.Registry, op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	g, err := lookupGlobal(r, op)
	if err != nil {
		return err
	}
	gt := Global{g}.Type()
	if !ir.TypesEqual(gt, op.Operands[0].Type) {
		return ir.OpErrorf(op, "global type mismatch; global @%s is '%s' but store is '%s'", g.SymName(), ir.TypeString(gt), ir.TypeString(op.Operands[0].Type))
	}
	if gl := (Global{g}); !gl.Mutable() && !initializerOnly(r, op, map[*ir.Operation]bool{}) {
		return ir.OpErrorf(op, "global @%s is not mutable and cannot be stored to outside an initializer", g.SymName())
	}
	return nil
}

// initializerOnly reports whether op runs only while the module
// initializes: it is inside a util.initializer, or inside a private
// function whose every call site is (IREE allows initializers to delegate
// to such functions).
func initializerOnly(r *ir.Registry, op *ir.Operation, visiting map[*ir.Operation]bool) bool {
	if enclosing(op, "util.initializer") != nil {
		return true
	}
	fn := enclosing(op, "util.func")
	if fn == nil {
		fn = enclosing(op, "func.func")
	}
	if fn == nil || visiting[fn] {
		return false
	}
	if v, ok := fn.Attr("sym_visibility").(ir.StringAttr); !ok || v.Value == "public" {
		return false
	}
	visiting[fn] = true
	table := ir.NearestSymbolTable(r, fn)
	if table == nil {
		return false
	}
	only := true
	ir.Walk(table, func(o *ir.Operation) bool {
		if !only {
			return false
		}
		if o.Name == "util.call" || o.Name == "func.call" {
			if c, ok := o.Attr("callee").(ir.SymbolRefAttr); ok && len(c.Nested) == 0 && c.Root == fn.SymName() {
				only = initializerOnly(r, o, visiting)
			}
		}
		return true
	})
	return only
}

// ptrTarget returns T for the type !util.ptr<T>, or nil when t is not a
// pointer or its target does not parse.
func ptrTarget(t ir.Type) ir.Type {
	d, ok := t.(*ir.DialectType)
	if !ok || d.Name != "util.ptr" {
		return nil
	}
	a, err := ir.ParseAttribute(d.Body, nil)
	if err != nil {
		return nil
	}
	if ta, ok := a.(ir.TypeAttr); ok {
		return ta.Type
	}
	return nil
}

// util.global.address [immutable] @name attr-dict : !util.ptr<T>
func parseGlobalAddress(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	return parseGlobalLoad(p, op)
}

func printGlobalAddress(p *ir.Printer, op *ir.Operation) { printGlobalLoad(p, op) }

func verifyGlobalAddress(r *ir.Registry, op *ir.Operation) error {
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	g, err := lookupGlobal(r, op)
	if err != nil {
		return err
	}
	rt := op.Results[0].Type
	target := ptrTarget(rt)
	if target == nil {
		return ir.OpErrorf(op, "result must be a !util.ptr<T>, found '%s'", ir.TypeString(rt))
	}
	if gt := (Global{g}).Type(); !Compatible(gt, target) {
		return ir.OpErrorf(op, "global type mismatch; global @%s is '%s' but the address is '%s'", g.SymName(), ir.TypeString(gt), ir.TypeString(rt))
	}
	if op.HasAttr("is_immutable") && (Global{g}).Mutable() {
		return ir.OpErrorf(op, "is marked as immutable but the global is mutable")
	}
	return nil
}

// util.global.load.indirect [immutable] %ptr attr-dict : !util.ptr<T> -> T
func parseLoadIndirect(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if p.OptionalKeyword("immutable") {
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "is_immutable", Value: ir.UnitAttr{}})
	}
	ptr, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	pt, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	if err := p.ResolveType(ptr, pt, tpos); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{ptr}
	return []ir.Type{t}, nil
}

func printLoadIndirect(p *ir.Printer, op *ir.Operation) {
	if op.HasAttr("is_immutable") {
		p.WriteString(" immutable")
	}
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	p.AttrDictColonType(op, op.Operands[0].Type, "is_immutable")
	p.WriteString(" -> ")
	p.Type(op.Results[0].Type)
}

func verifyLoadIndirect(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 1); err != nil {
		return err
	}
	if err := ir.ExpectResults(op, 1); err != nil {
		return err
	}
	target := ptrTarget(op.Operands[0].Type)
	if target == nil {
		return ir.OpErrorf(op, "operand must be a !util.ptr<T>, found '%s'", ir.TypeString(op.Operands[0].Type))
	}
	if !Compatible(target, op.Results[0].Type) {
		return ir.OpErrorf(op, "global type mismatch; global pointer is '%s' but load is '%s'", ir.TypeString(op.Operands[0].Type), ir.TypeString(op.Results[0].Type))
	}
	return nil
}

// util.global.store.indirect %value, %ptr attr-dict : T -> !util.ptr<T>
func parseStoreIndirect(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	v, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	ptr, err := p.ParseOperand()
	if err != nil {
		return nil, err
	}
	t, tpos, err := p.ParseAttrDictColonType(op)
	if err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	pt, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	if err := p.ResolveTypes([]*ir.Value{v, ptr}, []ir.Type{t, pt}, tpos); err != nil {
		return nil, err
	}
	op.Operands = []*ir.Value{v, ptr}
	return nil, nil
}

func printStoreIndirect(p *ir.Printer, op *ir.Operation) {
	p.WriteString(" ")
	p.Operands(op.Operands)
	p.AttrDictColonType(op, op.Operands[0].Type)
	p.WriteString(" -> ")
	p.Type(op.Operands[1].Type)
}

func verifyStoreIndirect(op *ir.Operation) error {
	if err := ir.ExpectOperands(op, 2); err != nil {
		return err
	}
	target := ptrTarget(op.Operands[1].Type)
	if target == nil {
		return ir.OpErrorf(op, "operand #1 must be a !util.ptr<T>, found '%s'", ir.TypeString(op.Operands[1].Type))
	}
	if !Compatible(target, op.Operands[0].Type) {
		return ir.OpErrorf(op, "global type mismatch; global pointer is '%s' but store is '%s'", ir.TypeString(op.Operands[1].Type), ir.TypeString(op.Operands[0].Type))
	}
	return nil
}
