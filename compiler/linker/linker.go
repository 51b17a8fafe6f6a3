// Package linker links MLIR modules at the source level, as IREE's
// iree-link does: a program declares the functions it takes from
// libraries (`util.func private @module_b.helper(i32) -> i32`, no body),
// and linking replaces each declaration with the library's definition and
// copies in what that definition needs.
//
// A library module named @m exports its public functions as m.name; an
// anonymous module exports them under their own names. The copy of a
// definition brings along, transitively:
//   - the library's private symbols it refers to (functions, globals,
//     executables), renamed name_0, name_1, ... when the program already
//     has a symbol of that name;
//   - the library's public functions it calls, under their exported names;
//   - the library's own declarations it calls, which are resolved in turn
//     (module_a calling @module_b.process links module_b's process too).
//
// Declarations nothing defines stay declarations. Symbols are rewritten
// wherever a copied op refers to them (flat or nested references in any
// attribute), except inside ops that are symbol tables of their own
// (executables), whose references are relative to themselves.
package linker

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// Library is one module to link from.
type Library struct {
	// Path names the module in errors.
	Path   string
	Module *ir.Module
}

// Name is the library's module name (its sym_name), "" when anonymous.
func (l *Library) Name() string { return l.Module.Op.SymName() }

// qualified is the name a library's public symbol is exported as.
func (l *Library) qualified(name string) string {
	if l.Name() == "" {
		return name
	}
	return l.Name() + "." + name
}

// IsFunction reports whether op is a function (func.func or util.func).
func IsFunction(op *ir.Operation) bool { return op.Name == "func.func" || op.Name == "util.func" }

// IsDeclaration reports whether op is a function without a body.
func IsDeclaration(op *ir.Operation) bool {
	return IsFunction(op) && (len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0)
}

// Private reports whether op's symbol is private.
func Private(op *ir.Operation) bool {
	v, ok := op.Attr("sym_visibility").(ir.StringAttr)
	return ok && v.Value == "private"
}

// PublicFunctions returns the names of the public functions of module, in
// order: what a library exports (and what iree-link --list-symbols prints).
func PublicFunctions(module *ir.Operation) []string {
	var out []string
	for _, op := range module.Body().Ops {
		if IsFunction(op) && !Private(op) && op.SymName() != "" {
			out = append(out, op.SymName())
		}
	}
	return out
}

// definition is an exported function: its library and op.
type definition struct {
	lib *Library
	op  *ir.Operation
}

// linker holds one Link's state.
type linker struct {
	reg  *ir.Registry
	main *ir.Module
	// exported maps exported names to their definitions.
	exported map[string]definition
	// copied maps a library symbol already copied into main to its name
	// there.
	copied map[*ir.Operation]string
	// pending are main's declarations still to resolve.
	pending []*ir.Operation
}

// Link links libs into main: every declaration of main that a library
// exports becomes that library's definition, with its dependencies.
// Two libraries exporting one name is an error naming both.
func Link(reg *ir.Registry, main *ir.Module, libs []*Library) error {
	l := &linker{reg: reg, main: main, exported: map[string]definition{}, copied: map[*ir.Operation]string{}}
	for _, lib := range libs {
		for _, op := range lib.Module.Op.Body().Ops {
			if !IsFunction(op) || IsDeclaration(op) || Private(op) {
				continue
			}
			name := lib.qualified(op.SymName())
			if prev, ok := l.exported[name]; ok {
				return fmt.Errorf("%s: @%s is exported by both %s and %s", op.Pos, name, prev.lib.Path, lib.Path)
			}
			l.exported[name] = definition{lib, op}
		}
	}
	for _, op := range main.Op.Body().Ops {
		if IsDeclaration(op) {
			l.pending = append(l.pending, op)
		}
	}
	for len(l.pending) > 0 {
		decl := l.pending[0]
		l.pending = l.pending[1:]
		if err := l.resolve(decl); err != nil {
			return err
		}
	}
	for _, lib := range libs {
		if err := mergeResources(main, lib); err != nil {
			return err
		}
	}
	return nil
}

// resolve replaces the declaration decl of main with the definition its
// name is exported under, if any.
func (l *linker) resolve(decl *ir.Operation) error {
	def, ok := l.exported[decl.SymName()]
	if !ok {
		return nil
	}
	if !sameSignature(decl, def.op) {
		return fmt.Errorf("%s: @%s is declared as %s but %s defines it as %s", decl.Pos, decl.SymName(),
			ir.AttrString(decl.Attr("function_type")), def.lib.Path, ir.AttrString(def.op.Attr("function_type")))
	}
	c := ir.Clone(def.op, nil)
	c.SetAttr("sym_name", ir.StringAttr{Value: decl.SymName()})
	if v := decl.Attr("sym_visibility"); v != nil {
		c.SetAttr("sym_visibility", v)
	} else {
		c.RemoveAttr("sym_visibility")
	}
	l.copied[def.op] = decl.SymName()
	if err := l.copyDependencies(def.lib, def.op, c); err != nil {
		return err
	}
	replace(decl, c)
	return nil
}

// copyDependencies makes every library symbol src refers to available in
// main and rewrites the references of its copy c accordingly.
func (l *linker) copyDependencies(lib *Library, src, c *ir.Operation) error {
	names := map[string]string{}
	for _, root := range references(l.reg, src) {
		if _, done := names[root]; done {
			continue
		}
		dep := ir.LookupSymbolIn(lib.Module.Op, root)
		if dep == nil {
			continue // a symbol of a nested table, or one the library lacks
		}
		name, err := l.provide(lib, dep)
		if err != nil {
			return err
		}
		names[root] = name
	}
	rename(l.reg, c, names)
	return nil
}

// provide makes the library symbol dep available in main and returns its
// name there.
func (l *linker) provide(lib *Library, dep *ir.Operation) (string, error) {
	if name, ok := l.copied[dep]; ok {
		return name, nil
	}
	switch {
	case IsDeclaration(dep):
		// The library's own external reference: main resolves the same
		// name, declaring it when it does not have it yet.
		name := dep.SymName()
		existing := ir.LookupSymbolIn(l.main.Op, name)
		if existing == nil {
			d := ir.Clone(dep, nil)
			l.main.Op.Body().Append(d)
			l.pending = append(l.pending, d)
		} else if !IsFunction(existing) {
			return "", fmt.Errorf("%s: @%s is declared by %s as a function but the program's @%s is a '%s'", dep.Pos, name, lib.Path, name, existing.Name)
		}
		l.copied[dep] = name
		return name, nil
	case IsFunction(dep) && !Private(dep):
		// Another exported function of the same library: linked under its
		// exported name.
		name := lib.qualified(dep.SymName())
		l.copied[dep] = name
		if existing := ir.LookupSymbolIn(l.main.Op, name); existing != nil {
			if IsDeclaration(existing) && !slices.Contains(l.pending, existing) {
				l.pending = append(l.pending, existing)
			}
			return name, nil
		}
		d := ir.Clone(dep, nil)
		d.SetAttr("sym_name", ir.StringAttr{Value: name})
		d.SetAttr("sym_visibility", ir.StringAttr{Value: "private"})
		l.main.Op.Body().Append(d)
		return name, l.copyDependencies(lib, dep, d)
	}
	// A private definition: copied under a name main does not use.
	name := unique(l.main.Op, dep.SymName())
	l.copied[dep] = name
	d := ir.Clone(dep, nil)
	d.SetAttr("sym_name", ir.StringAttr{Value: name})
	l.main.Op.Body().Append(d)
	if ir.IsSymbolTable(l.reg, dep) {
		return name, nil
	}
	return name, l.copyDependencies(lib, dep, d)
}

// unique returns name, or name_0, name_1, ... : the first that table does
// not define.
func unique(table *ir.Operation, name string) string {
	if ir.LookupSymbolIn(table, name) == nil {
		return name
	}
	for i := 0; ; i++ {
		n := name + "_" + strconv.Itoa(i)
		if ir.LookupSymbolIn(table, n) == nil {
			return n
		}
	}
}

// sameSignature reports whether two functions have the same type.
func sameSignature(a, b *ir.Operation) bool {
	ta, tb := a.Attr("function_type"), b.Attr("function_type")
	if ta == nil || tb == nil {
		return ta == nil && tb == nil
	}
	return ir.AttrString(ta) == ir.AttrString(tb)
}

// replace puts n where old is in old's block.
func replace(old, n *ir.Operation) {
	b := old.Block
	i := slices.Index(b.Ops, old)
	b.Ops[i] = n
	n.Block = b
	old.Block = nil
}

// references returns the root names of the symbol references in op and
// the ops it holds, in order of first appearance, not looking inside
// nested symbol tables.
func references(reg *ir.Registry, op *ir.Operation) []string {
	var out []string
	seen := map[string]bool{}
	walkRefs(reg, op, func(r ir.SymbolRefAttr) ir.SymbolRefAttr {
		if !seen[r.Root] {
			seen[r.Root] = true
			out = append(out, r.Root)
		}
		return r
	})
	return out
}

// rename rewrites the roots of the symbol references in op per names.
func rename(reg *ir.Registry, op *ir.Operation, names map[string]string) {
	walkRefs(reg, op, func(r ir.SymbolRefAttr) ir.SymbolRefAttr {
		if n, ok := names[r.Root]; ok {
			r.Root = n
		}
		return r
	})
}

// walkRefs replaces every symbol reference in the attributes of op and the
// ops nested in it by fn's result, skipping the insides of nested symbol
// tables (op itself included when it is one).
func walkRefs(reg *ir.Registry, op *ir.Operation, fn func(ir.SymbolRefAttr) ir.SymbolRefAttr) {
	if ir.IsSymbolTable(reg, op) {
		return
	}
	var visit func(o *ir.Operation)
	visit = func(o *ir.Operation) {
		for i := range o.Attrs {
			if m, changed := mapRefs(o.Attrs[i].Value, fn); changed {
				o.Attrs[i].Value = m
			}
		}
		for _, r := range o.Regions {
			for _, b := range r.Blocks {
				for _, c := range b.Ops {
					if !ir.IsSymbolTable(reg, c) {
						visit(c)
					}
				}
			}
		}
	}
	visit(op)
}

// mapRefs returns a with fn applied to every symbol reference in it,
// copying arrays and dictionaries that change, and whether anything did.
func mapRefs(a ir.Attribute, fn func(ir.SymbolRefAttr) ir.SymbolRefAttr) (ir.Attribute, bool) {
	switch a := a.(type) {
	case ir.SymbolRefAttr:
		m := fn(a)
		return m, m.Root != a.Root || !slices.Equal(m.Nested, a.Nested)
	case *ir.ArrayAttr:
		var out *ir.ArrayAttr
		for i, e := range a.Elems {
			if m, changed := mapRefs(e, fn); changed {
				if out == nil {
					out = &ir.ArrayAttr{Elems: slices.Clone(a.Elems)}
				}
				out.Elems[i] = m
			}
		}
		if out != nil {
			return out, true
		}
	case *ir.DictAttr:
		var out *ir.DictAttr
		for i, e := range a.Entries {
			if m, changed := mapRefs(e.Value, fn); changed {
				if out == nil {
					out = &ir.DictAttr{Entries: slices.Clone(a.Entries)}
				}
				out.Entries[i].Value = m
			}
		}
		if out != nil {
			return out, true
		}
	}
	return a, false
}

// mergeResources adds the dialect resources of lib to main's; one key with
// two contents is an error.
func mergeResources(main *ir.Module, lib *Library) error {
	for _, r := range lib.Module.Resources {
		dup := false
		for _, m := range main.Resources {
			if m.Dialect == r.Dialect && m.Key == r.Key {
				if m.IsBlob != r.IsBlob || !bytes.Equal(m.Blob, r.Blob) || m.Alignment != r.Alignment {
					return fmt.Errorf("%s: resource %s of dialect %s differs from the one the program already has", lib.Path, r.Key, r.Dialect)
				}
				dup = true
			}
		}
		if !dup {
			main.Resources = append(main.Resources, r)
		}
	}
	return nil
}

// Bundle returns one module holding libs, in order: each named library as
// a nested module of its name, the ops of each anonymous one at the top
// level. Where an anonymous library defines a private symbol the bundle
// already has, the later one is renamed (name_0, ...) along with its uses
// there; a declaration of a name the bundle defines is dropped; two public
// definitions of one name are an error.
func Bundle(reg *ir.Registry, libs []*Library) (*ir.Module, error) {
	out := &ir.Module{Op: ir.NewOp("builtin.module", nil, nil, nil)}
	top := out.Op.AddRegion().AddBlock()
	for _, lib := range libs {
		if err := mergeResources(out, lib); err != nil {
			return nil, err
		}
		if lib.Name() != "" {
			if ir.LookupSymbolIn(out.Op, lib.Name()) != nil {
				return nil, fmt.Errorf("%s: a module named @%s is already in the bundle", lib.Path, lib.Name())
			}
			top.Append(ir.Clone(lib.Module.Op, nil))
			continue
		}
		names := map[string]string{}
		var ops []*ir.Operation
		for _, op := range lib.Module.Op.Body().Ops {
			name := op.SymName()
			existing := ir.LookupSymbolIn(out.Op, name)
			switch {
			case name == "" || existing == nil:
			case IsDeclaration(op):
				continue // the bundle defines or declares it already
			case IsDeclaration(existing):
				existing.Remove()
			case Private(op):
				names[name] = unique(out.Op, name)
			default:
				return nil, fmt.Errorf("%s: @%s is defined by %s and by an earlier module of the bundle", op.Pos, name, lib.Path)
			}
			ops = append(ops, op)
		}
		for _, op := range ops {
			c := ir.Clone(op, nil)
			if n, ok := names[op.SymName()]; ok {
				c.SetAttr("sym_name", ir.StringAttr{Value: n})
			}
			rename(reg, c, names)
			top.Append(c)
		}
	}
	return out, nil
}
