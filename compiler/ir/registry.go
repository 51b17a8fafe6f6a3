package ir

import "sort"

// OpDef describes a registered operation: its custom assembly, verifier
// and traits. Any field may be nil/false; an op without Parse/Print uses the
// generic form.
type OpDef struct {
	// Name is the full op name, e.g. "hal.executable.export".
	Name string
	// Parse parses the custom form after the op name. It fills op (operands,
	// attributes, regions) and returns the result types.
	Parse func(p *Parser, op *Operation) ([]Type, error)
	// Print prints the custom form after the op name (including the leading
	// space if needed).
	Print func(p *Printer, op *Operation)
	// Verify checks op-specific rules; it runs after the generic checks.
	Verify func(op *Operation) error
	// IsolatedFromAbove ops start a fresh SSA name scope.
	IsolatedFromAbove bool
	// SymbolTable ops hold a symbol table in their single region.
	SymbolTable bool
	// NoTerminator ops have a body region whose block needs no terminator.
	NoTerminator bool
	// Aliases are extra names (e.g. "module" for "builtin.module", or
	// "func" default-dialect short names) that parse to this op.
	Aliases []string
}

// AttrParseFunc parses a dialect attribute after `#name`; when the source
// had `<` next, the parser is positioned on it.
type AttrParseFunc func(p *Parser) (Attribute, error)

// Registry holds the known operations and dialect attributes.
type Registry struct {
	ops      map[string]*OpDef
	attrs    map[string]AttrParseFunc
	dialects map[string]bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{ops: map[string]*OpDef{}, attrs: map[string]AttrParseFunc{}, dialects: map[string]bool{}}
}

// RegisterOp adds an op definition; it replaces an earlier one of the same
// name.
func (r *Registry) RegisterOp(d *OpDef) {
	r.ops[d.Name] = d
	for _, a := range d.Aliases {
		r.ops[a] = d
	}
	if i := indexByte(d.Name, '.'); i > 0 {
		r.dialects[d.Name[:i]] = true
	}
}

// RegisterAttr adds a parser for the dialect attribute #name<...>.
func (r *Registry) RegisterAttr(name string, fn AttrParseFunc) { r.attrs[name] = fn }

// Op returns the definition registered under name, or nil.
func (r *Registry) Op(name string) *OpDef {
	if r == nil {
		return nil
	}
	return r.ops[name]
}

// OpNames returns the canonical names of all registered ops, sorted.
func (r *Registry) OpNames() []string {
	var out []string
	for n, d := range r.ops {
		if n == d.Name {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}
