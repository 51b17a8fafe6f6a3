package ir

// IsSymbolTable reports whether op holds a symbol table according to reg.
func IsSymbolTable(reg *Registry, op *Operation) bool {
	if d := reg.Op(op.Name); d != nil {
		return d.SymbolTable
	}
	return false
}

// LookupSymbolIn returns the op named name directly inside the symbol table
// op, or nil.
func LookupSymbolIn(table *Operation, name string) *Operation {
	for _, r := range table.Regions {
		for _, b := range r.Blocks {
			for _, o := range b.Ops {
				if o.SymName() == name {
					return o
				}
			}
		}
	}
	return nil
}

// NearestSymbolTable returns the closest ancestor of op (excluding op) that
// is a symbol table.
func NearestSymbolTable(reg *Registry, op *Operation) *Operation {
	for p := op.ParentOp(); p != nil; p = p.ParentOp() {
		if IsSymbolTable(reg, p) {
			return p
		}
	}
	return nil
}

// ResolveSymbolRef resolves ref from the symbol table nearest to from,
// following nested references; it returns the op for each component.
func ResolveSymbolRef(reg *Registry, from *Operation, ref SymbolRefAttr) ([]*Operation, error) {
	table := NearestSymbolTable(reg, from)
	if table == nil {
		return nil, OpErrorf(from, "has no enclosing symbol table to resolve %s", AttrString(ref))
	}
	var out []*Operation
	cur := table
	for i, n := range ref.Path() {
		o := LookupSymbolIn(cur, n)
		if o == nil {
			if i == 0 {
				return nil, OpErrorf(from, "refers to an undefined symbol %s", SymbolName(n))
			}
			return nil, OpErrorf(from, "symbol %s has no nested symbol %s (in %s)", SymbolName(ref.Path()[i-1]), SymbolName(n), AttrString(ref))
		}
		out = append(out, o)
		cur = o
	}
	return out, nil
}
