package ir

import "fmt"

// Pos is a position in a source file, used for diagnostics.
type Pos struct {
	File      string
	Line, Col int // 1-based; 0 when unknown
}

// IsValid reports whether the position is known.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String formats the position as file:line:col.
func (p Pos) String() string {
	if !p.IsValid() {
		if p.File != "" {
			return p.File
		}
		return "<unknown>"
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Value is an SSA value: either a block argument (Block != nil) or a result
// of an operation (Op != nil).
type Value struct {
	Type  Type
	Op    *Operation // defining op, for results
	Index int        // result or argument index
	Block *Block     // owning block, for arguments
	Name  string     // name hint from the source, without '%'
	Pos   Pos        // where it was defined
	Attrs *DictAttr  // argument attributes (function arguments only)
}

// IsBlockArg reports whether v is a block argument.
func (v *Value) IsBlockArg() bool { return v.Block != nil }

// ParentBlock returns the block in which v is defined.
func (v *Value) ParentBlock() *Block {
	if v.Block != nil {
		return v.Block
	}
	if v.Op != nil {
		return v.Op.Block
	}
	return nil
}

// Operation is one IR operation.
type Operation struct {
	Name       string
	Operands   []*Value
	Results    []*Value
	Attrs      []NamedAttr
	Regions    []*Region
	Successors []*Block
	Loc        Attribute // explicit loc(...) from the source, or nil
	Pos        Pos       // source position of the op name
	Block      *Block    // containing block
}

// Block is a list of operations with arguments.
type Block struct {
	Args   []*Value
	Ops    []*Operation
	Region *Region
	Name   string // label hint from the source, without '^'
}

// Region is a list of blocks owned by an operation.
type Region struct {
	Blocks []*Block
	Op     *Operation
}

// NewOp creates a detached operation with results of the given types.
func NewOp(name string, operands []*Value, resultTypes []Type, attrs []NamedAttr) *Operation {
	op := &Operation{Name: name, Operands: operands, Attrs: attrs}
	for i, t := range resultTypes {
		op.Results = append(op.Results, &Value{Type: t, Op: op, Index: i})
	}
	return op
}

// Result returns result i.
func (op *Operation) Result(i int) *Value { return op.Results[i] }

// Attr returns the attribute named name, or nil.
func (op *Operation) Attr(name string) Attribute {
	for _, a := range op.Attrs {
		if a.Name == name {
			return a.Value
		}
	}
	return nil
}

// HasAttr reports whether the op carries an attribute named name.
func (op *Operation) HasAttr(name string) bool { return op.Attr(name) != nil }

// SetAttr sets or replaces an attribute, keeping order for existing names.
func (op *Operation) SetAttr(name string, v Attribute) {
	for i := range op.Attrs {
		if op.Attrs[i].Name == name {
			op.Attrs[i].Value = v
			return
		}
	}
	op.Attrs = append(op.Attrs, NamedAttr{Name: name, Value: v})
}

// RemoveAttr deletes an attribute if present.
func (op *Operation) RemoveAttr(name string) {
	for i := range op.Attrs {
		if op.Attrs[i].Name == name {
			op.Attrs = append(op.Attrs[:i:i], op.Attrs[i+1:]...)
			return
		}
	}
}

// SymName returns the op's sym_name attribute, or "".
func (op *Operation) SymName() string {
	if s, ok := op.Attr("sym_name").(StringAttr); ok {
		return s.Value
	}
	return ""
}

// IntAttr returns the integer attribute name and whether it exists.
func (op *Operation) IntAttr(name string) (int64, bool) {
	if a, ok := op.Attr(name).(IntegerAttr); ok {
		return a.Value, true
	}
	return 0, false
}

// ParentOp returns the operation whose region contains op, or nil.
func (op *Operation) ParentOp() *Operation {
	if op.Block == nil || op.Block.Region == nil {
		return nil
	}
	return op.Block.Region.Op
}

// AddRegion appends a new region with one empty block and returns it.
func (op *Operation) AddRegion() *Region {
	r := &Region{Op: op}
	op.Regions = append(op.Regions, r)
	return r
}

// Body returns the first block of the first region, or nil.
func (op *Operation) Body() *Block {
	if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 {
		return nil
	}
	return op.Regions[0].Blocks[0]
}

// AddBlock appends a block with arguments of the given types.
func (r *Region) AddBlock(argTypes ...Type) *Block {
	b := &Block{Region: r}
	for i, t := range argTypes {
		b.Args = append(b.Args, &Value{Type: t, Block: b, Index: i})
	}
	r.Blocks = append(r.Blocks, b)
	return b
}

// Append adds op at the end of b.
func (b *Block) Append(op *Operation) {
	op.Block = b
	b.Ops = append(b.Ops, op)
}

// InsertBefore inserts op before the existing operation before in b.
func (b *Block) InsertBefore(before, op *Operation) {
	op.Block = b
	for i, o := range b.Ops {
		if o == before {
			b.Ops = append(b.Ops[:i], append([]*Operation{op}, b.Ops[i:]...)...)
			return
		}
	}
	b.Ops = append(b.Ops, op)
}

// Remove detaches op from its block.
func (op *Operation) Remove() {
	b := op.Block
	if b == nil {
		return
	}
	for i, o := range b.Ops {
		if o == op {
			b.Ops = append(b.Ops[:i], b.Ops[i+1:]...)
			break
		}
	}
	op.Block = nil
}

// Terminator returns the last operation of b, or nil.
func (b *Block) Terminator() *Operation {
	if len(b.Ops) == 0 {
		return nil
	}
	return b.Ops[len(b.Ops)-1]
}

// Walk calls fn for op and every operation nested in it, pre-order. If fn
// returns false the walk does not descend into that op's regions.
func Walk(op *Operation, fn func(*Operation) bool) {
	if !fn(op) {
		return
	}
	for _, r := range op.Regions {
		for _, b := range r.Blocks {
			for _, o := range append([]*Operation(nil), b.Ops...) {
				Walk(o, fn)
			}
		}
	}
}

// ReplaceAllUsesWith rewrites every use of old inside root with new.
func ReplaceAllUsesWith(root *Operation, old, new *Value) {
	Walk(root, func(o *Operation) bool {
		for i, v := range o.Operands {
			if v == old {
				o.Operands[i] = new
			}
		}
		return true
	})
}

// HasUses reports whether v is used inside root.
func HasUses(root *Operation, v *Value) bool {
	used := false
	Walk(root, func(o *Operation) bool {
		for _, x := range o.Operands {
			if x == v {
				used = true
			}
		}
		return !used
	})
	return used
}

// Clone deep-copies op and its regions. Operands that refer to values
// defined outside op are mapped through mapping when present there and
// kept otherwise; mapping is extended with every cloned value.
func Clone(op *Operation, mapping map[*Value]*Value) *Operation {
	if mapping == nil {
		mapping = map[*Value]*Value{}
	}
	blocks := map[*Block]*Block{}
	// First pass: create all blocks and values so forward references work.
	var pre func(o *Operation) *Operation
	pre = func(o *Operation) *Operation {
		n := &Operation{Name: o.Name, Loc: o.Loc, Pos: o.Pos}
		n.Attrs = append([]NamedAttr(nil), o.Attrs...)
		for _, r := range o.Results {
			nv := &Value{Type: r.Type, Op: n, Index: r.Index, Name: r.Name, Pos: r.Pos}
			mapping[r] = nv
			n.Results = append(n.Results, nv)
		}
		for _, r := range o.Regions {
			nr := &Region{Op: n}
			for _, b := range r.Blocks {
				nb := &Block{Region: nr, Name: b.Name}
				blocks[b] = nb
				for _, a := range b.Args {
					na := &Value{Type: a.Type, Block: nb, Index: a.Index, Name: a.Name, Pos: a.Pos, Attrs: a.Attrs}
					mapping[a] = na
					nb.Args = append(nb.Args, na)
				}
				nr.Blocks = append(nr.Blocks, nb)
			}
			n.Regions = append(n.Regions, nr)
			for bi, b := range r.Blocks {
				for _, c := range b.Ops {
					nr.Blocks[bi].Append(pre(c))
				}
			}
		}
		return n
	}
	n := pre(op)
	// Second pass: operands and successors.
	var fix func(o, n *Operation)
	fix = func(o, n *Operation) {
		for _, v := range o.Operands {
			if m, ok := mapping[v]; ok {
				n.Operands = append(n.Operands, m)
			} else {
				n.Operands = append(n.Operands, v)
			}
		}
		for _, s := range o.Successors {
			if m, ok := blocks[s]; ok {
				n.Successors = append(n.Successors, m)
			} else {
				n.Successors = append(n.Successors, s)
			}
		}
		for ri, r := range o.Regions {
			for bi, b := range r.Blocks {
				for oi, c := range b.Ops {
					fix(c, n.Regions[ri].Blocks[bi].Ops[oi])
				}
			}
		}
	}
	fix(op, n)
	return n
}

// Module is a parsed source file: its top-level operation and the aliases
// it defined, which the printer reuses.
type Module struct {
	// Op is the top-level builtin.module.
	Op *Operation
	// Implicit is set when the source had no explicit top-level module; the
	// printer then prints only its body.
	Implicit bool
	// AttrAliases and TypeAliases are the `#name = ...` and `!name = ...`
	// definitions in source order.
	AttrAliases []NamedAttr
	TypeAliases []NamedType
	// Resources are the entries of the file's dialect_resources block in
	// source order; ExternalResources is its external_resources group as
	// written ({...}), printed back unchanged.
	Resources         []*Resource
	ExternalResources string
}

// NamedType is a type alias definition.
type NamedType struct {
	Name string
	Type Type
}
