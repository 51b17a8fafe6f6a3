package ir

import (
	"strconv"
	"strings"
)

// PrintOptions control printing.
type PrintOptions struct {
	// Generic prints every op in the generic form.
	Generic bool
	// NoAliases prints attributes and types in full even where the module
	// defines an alias.
	NoAliases bool
}

// Printer prints operations; custom assembly hooks call its methods.
type Printer struct {
	w      *AsmWriter
	reg    *Registry
	opts   PrintOptions
	indent int
	names  map[*Value]string
	defs   map[*Value]string // definition text for result groups
	blocks map[*Block]string
}

type nameScope struct {
	used    map[string]bool
	counter int
	args    int
}

// PrintModule prints a parsed module with its aliases.
func PrintModule(m *Module, reg *Registry, opts PrintOptions) string {
	p := newPrinter(reg, opts)
	if !opts.NoAliases {
		// Each alias definition may only refer to aliases defined before
		// it, so the substitution maps grow as definitions are printed.
		p.w.attrAliases = map[string]string{}
		p.w.typeAliases = map[string]string{}
		for _, a := range m.TypeAliases {
			p.w.WriteString("!" + a.Name + " = ")
			p.w.Type(a.Type)
			p.w.WriteString("\n")
			if k := TypeString(a.Type); p.w.typeAliases[k] == "" {
				p.w.typeAliases[k] = a.Name
			}
		}
		for _, a := range m.AttrAliases {
			p.w.WriteString("#" + a.Name + " = ")
			p.w.Attr(a.Value)
			p.w.WriteString("\n")
			if k := AttrString(a.Value); p.w.attrAliases[k] == "" {
				p.w.attrAliases[k] = a.Name
			}
		}
	}
	p.assignNames(m.Op, &nameScope{used: map[string]bool{}})
	if m.Implicit {
		for _, r := range m.Op.Regions {
			for _, b := range r.Blocks {
				for _, o := range b.Ops {
					p.printOp(o)
					p.w.WriteString("\n")
				}
			}
		}
	} else {
		p.printOp(m.Op)
		p.w.WriteString("\n")
	}
	printResourceBlock(p.w, m)
	return p.w.String()
}

// PrintOp prints one operation (and its regions) on its own.
func PrintOp(op *Operation, reg *Registry, opts PrintOptions) string {
	p := newPrinter(reg, opts)
	p.assignNames(op, &nameScope{used: map[string]bool{}})
	p.printOp(op)
	return p.w.String()
}

func newPrinter(reg *Registry, opts PrintOptions) *Printer {
	return &Printer{w: &AsmWriter{}, reg: reg, opts: opts, names: map[*Value]string{}, defs: map[*Value]string{}, blocks: map[*Block]string{}}
}

func isNumeric(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func (s *nameScope) pick(hint string) string {
	if i := strings.IndexByte(hint, '#'); i >= 0 {
		hint = hint[:i]
	}
	if hint != "" && !isNumeric(hint) {
		if !s.used[hint] {
			s.used[hint] = true
			return hint
		}
		for i := 1; ; i++ {
			c := hint + "_" + strconv.Itoa(i)
			if !s.used[c] {
				s.used[c] = true
				return c
			}
		}
	}
	for {
		c := strconv.Itoa(s.counter)
		s.counter++
		if !s.used[c] {
			s.used[c] = true
			return c
		}
	}
}

func (s *nameScope) pickArg(hint string) string {
	if hint != "" && !isNumeric(hint) {
		return s.pick(hint)
	}
	for {
		c := "arg" + strconv.Itoa(s.args)
		s.args++
		if !s.used[c] {
			s.used[c] = true
			return c
		}
	}
}

func (p *Printer) assignNames(op *Operation, s *nameScope) {
	if len(op.Results) > 0 {
		same := true
		for _, r := range op.Results {
			if r.Name != op.Results[0].Name {
				same = false
			}
		}
		if same || len(op.Results) == 1 {
			base := s.pick(op.Results[0].Name)
			if len(op.Results) == 1 {
				p.names[op.Results[0]] = base
				p.defs[op.Results[0]] = "%" + base
			} else {
				for i, r := range op.Results {
					p.names[r] = base + "#" + strconv.Itoa(i)
				}
				p.defs[op.Results[0]] = "%" + base + ":" + strconv.Itoa(len(op.Results))
			}
		} else {
			var parts []string
			for _, r := range op.Results {
				n := s.pick(r.Name)
				p.names[r] = n
				parts = append(parts, "%"+n)
			}
			p.defs[op.Results[0]] = strings.Join(parts, ", ")
		}
	}
	inner := s
	if d := p.reg.Op(op.Name); d != nil && d.IsolatedFromAbove {
		inner = &nameScope{used: map[string]bool{}}
	}
	for _, r := range op.Regions {
		bs := &nameScope{used: map[string]bool{}}
		for _, b := range r.Blocks {
			if b.Name != "" && !isNumeric(strings.TrimPrefix(b.Name, "bb")) {
				p.blocks[b] = bs.pick(b.Name)
			} else {
				for {
					c := "bb" + strconv.Itoa(bs.counter)
					bs.counter++
					if !bs.used[c] {
						bs.used[c] = true
						p.blocks[b] = c
						break
					}
				}
			}
			for _, a := range b.Args {
				p.names[a] = inner.pickArg(a.Name)
			}
			for _, o := range b.Ops {
				p.assignNames(o, inner)
			}
		}
	}
}

// WriteString writes raw text.
func (p *Printer) WriteString(s string) { p.w.WriteString(s) }

// Operand prints a value use.
func (p *Printer) Operand(v *Value) {
	if n, ok := p.names[v]; ok {
		p.w.WriteString("%" + n)
		return
	}
	p.w.WriteString("%<<UNKNOWN SSA VALUE>>")
}

// Operands prints values separated by ", ".
func (p *Printer) Operands(vs []*Value) {
	for i, v := range vs {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.Operand(v)
	}
}

// Type prints a type.
func (p *Printer) Type(t Type) { p.w.Type(t) }

// Types prints types separated by ", ".
func (p *Printer) Types(ts []Type) { p.w.TypeList(ts) }

// ResultTypes prints a function result list.
func (p *Printer) ResultTypes(ts []Type) { p.w.ResultTypes(ts) }

// Attr prints an attribute.
func (p *Printer) Attr(a Attribute) { p.w.Attr(a) }

// Symbol prints @name.
func (p *Printer) Symbol(name string) { p.w.WriteString(SymbolName(name)) }

// AttrDict prints ` {..}` with op's attributes except elided; nothing if
// none remain.
func (p *Printer) AttrDict(op *Operation, elided ...string) {
	p.attrDict(op, false, elided)
}

// AttrDictWithKeyword prints ` attributes {..}` like AttrDict.
func (p *Printer) AttrDictWithKeyword(op *Operation, elided ...string) {
	p.attrDict(op, true, elided)
}

func (p *Printer) attrDict(op *Operation, kw bool, elided []string) {
	var rest []NamedAttr
outer:
	for _, a := range op.Attrs {
		for _, e := range elided {
			if a.Name == e {
				continue outer
			}
		}
		rest = append(rest, a)
	}
	if len(rest) == 0 {
		return
	}
	if kw {
		p.w.WriteString(" attributes")
	}
	p.w.WriteString(" {")
	p.w.namedAttrs(rest)
	p.w.WriteString("}")
}

// ArgList prints `(%a: t {attrs}, ...)` for block arguments.
func (p *Printer) ArgList(args []*Value) {
	p.w.WriteString("(")
	for i, a := range args {
		if i > 0 {
			p.w.WriteString(", ")
		}
		p.Operand(a)
		p.w.WriteString(": ")
		p.Type(a.Type)
		if a.Attrs != nil && len(a.Attrs.Entries) > 0 {
			p.w.WriteString(" ")
			p.Attr(a.Attrs)
		}
	}
	p.w.WriteString(")")
}

// ShadowArgs makes the entry arguments of r print with the names of like,
// as MLIR does for an op whose custom form names the arguments of several
// regions once (stablehlo.while's iteration arguments, shared by its cond
// and do regions). Call it before printing r without its entry arguments.
func (p *Printer) ShadowArgs(r *Region, like []*Value) {
	if len(r.Blocks) == 0 {
		return
	}
	for i, a := range r.Blocks[0].Args {
		if i < len(like) {
			if n, ok := p.names[like[i]]; ok {
				p.names[a] = n
			}
		}
	}
}

// DynamicDims prints `{%a, %b}` when vs is not empty.
func (p *Printer) DynamicDims(vs []*Value) {
	if len(vs) == 0 {
		return
	}
	p.w.WriteString("{")
	p.Operands(vs)
	p.w.WriteString("}")
}

// Region prints ` {` body `}`; the entry block's label and arguments are
// printed only when printEntryArgs is set and it has arguments or is empty
// (as MLIR's generic form does, so that `{^bb0:}`, one empty block, reads
// back differently from `{}`, no block).
func (p *Printer) Region(r *Region, printEntryArgs bool) {
	p.region(r, printEntryArgs, true)
}

// RegionElidingTerminators prints r like Region but leaves out the last op
// of each block, as MLIR does for ops whose terminator is implicit (an
// scf.for or scf.if yielding nothing); the parser of such an op puts the
// terminator back.
func (p *Printer) RegionElidingTerminators(r *Region, printEntryArgs bool) {
	p.region(r, printEntryArgs, false)
}

func (p *Printer) region(r *Region, printEntryArgs, terminators bool) {
	p.w.WriteString("{\n")
	p.indent++
	for i, b := range r.Blocks {
		if i > 0 || (printEntryArgs && (len(b.Args) > 0 || len(b.Ops) == 0)) || len(b.Ops) == 0 && len(r.Blocks) > 1 {
			p.indent--
			p.newline()
			p.w.WriteString("^" + p.blocks[b])
			if len(b.Args) > 0 {
				p.ArgList(b.Args)
			}
			p.w.WriteString(":\n")
			p.indent++
		}
		ops := b.Ops
		if !terminators && len(ops) > 0 {
			ops = ops[:len(ops)-1]
		}
		for _, o := range ops {
			p.newline()
			p.printOp(o)
			p.w.WriteString("\n")
		}
	}
	p.indent--
	p.newline()
	p.w.WriteString("}")
}

func (p *Printer) newline() {
	for i := 0; i < p.indent; i++ {
		p.w.WriteString("  ")
	}
}

func (p *Printer) printOp(op *Operation) {
	if len(op.Results) > 0 {
		p.w.WriteString(p.defs[op.Results[0]])
		p.w.WriteString(" = ")
	}
	def := p.reg.Op(op.Name)
	if def != nil && def.Print != nil && !p.opts.Generic {
		name := op.Name
		if name == "builtin.module" {
			name = "module"
		}
		p.w.WriteString(name)
		def.Print(p, op)
	} else {
		p.printGeneric(op)
	}
	if op.Loc != nil {
		p.w.WriteString(" ")
		p.Attr(op.Loc)
	}
}

func (p *Printer) printGeneric(op *Operation) {
	p.w.WriteString(QuoteString(op.Name))
	p.w.WriteString("(")
	p.Operands(op.Operands)
	p.w.WriteString(")")
	if len(op.Successors) > 0 {
		p.w.WriteString("[")
		for i, b := range op.Successors {
			if i > 0 {
				p.w.WriteString(", ")
			}
			p.w.WriteString("^" + p.blocks[b])
		}
		p.w.WriteString("]")
	}
	if len(op.Regions) > 0 {
		p.w.WriteString(" (")
		for i, r := range op.Regions {
			if i > 0 {
				p.w.WriteString(", ")
			}
			p.Region(r, true)
		}
		p.w.WriteString(")")
	}
	p.AttrDict(op)
	p.w.WriteString(" : ")
	ft := &FunctionType{}
	for _, v := range op.Operands {
		ft.Inputs = append(ft.Inputs, v.Type)
	}
	for _, v := range op.Results {
		ft.Results = append(ft.Results, v.Type)
	}
	p.w.WriteString("(")
	p.w.TypeList(ft.Inputs)
	p.w.WriteString(") -> ")
	if len(ft.Results) == 1 {
		if _, isFn := ft.Results[0].(*FunctionType); !isFn {
			p.Type(ft.Results[0])
			return
		}
	}
	p.w.WriteString("(")
	p.w.TypeList(ft.Results)
	p.w.WriteString(")")
}

// Newline starts a new line indented to the current depth plus extra
// levels.
func (p *Printer) Newline(extra int) {
	p.w.WriteString("\n")
	for i := 0; i < p.indent+extra; i++ {
		p.w.WriteString("  ")
	}
}

// Indent increases the indentation of following lines by one level.
func (p *Printer) Indent() { p.indent++ }

// Dedent undoes Indent.
func (p *Printer) Dedent() { p.indent-- }
