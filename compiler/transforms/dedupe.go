package transforms

import (
	"crypto/sha256"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// DeduplicateExecutables merges private hal.executables that differ only in
// their names, as IREE's executable deduplication does: every dispatch of a
// duplicate is pointed at the first executable of its kind, and the
// duplicates are removed. Models whose layers repeat the same shapes
// (IREE's unrolled BERT: 2575 dispatches, 55 distinct) then build each
// distinct executable once instead of running the target's tools thousands
// of times.
//
// Two executables are the same when their printed forms are equal once
// each executable's own name is replaced by a placeholder wherever a symbol
// starts with it (@name, @name_body, @"name..."; not @name7, which is
// another executable's name). The references of the removed executables
// are renamed the same way: the root to the kept executable, and a nested
// symbol that starts with the removed name to the kept name with the same
// suffix, which is the symbol at the same place in the kept executable.
func DeduplicateExecutables(module *ir.Operation, reg *ir.Registry) {
	if len(module.Regions) == 0 || len(module.Regions[0].Blocks) == 0 {
		return
	}
	kept := map[[sha256.Size]byte]string{}
	rename := map[string]string{}
	var dups []*ir.Operation
	for _, op := range module.Regions[0].Blocks[0].Ops {
		if v, _ := op.Attr("sym_visibility").(ir.StringAttr); op.Name != "hal.executable" || v.Value != "private" {
			continue
		}
		name := op.SymName()
		key := sha256.Sum256([]byte(renameSymbols(ir.PrintOp(op, reg, ir.PrintOptions{}), name, "\x00")))
		if first, ok := kept[key]; ok {
			rename[name] = first
			dups = append(dups, op)
			continue
		}
		kept[key] = name
	}
	if len(dups) == 0 {
		return
	}
	for _, d := range dups {
		d.Remove()
	}
	ir.Walk(module, func(op *ir.Operation) bool {
		for i, a := range op.Attrs {
			op.Attrs[i].Value = renameRefs(a.Value, rename)
		}
		return true
	})
}

// renameSymbols replaces from with to in every symbol of text (after '@'
// or '@"') that starts with from and does not continue it with a digit.
func renameSymbols(text, from, to string) string {
	var b strings.Builder
	for {
		i := strings.Index(text, "@")
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i+1])
		text = text[i+1:]
		if strings.HasPrefix(text, `"`) {
			b.WriteByte('"')
			text = text[1:]
		}
		if rest, ok := strings.CutPrefix(text, from); ok && !startsWithDigit(rest) {
			b.WriteString(to)
			text = rest
		}
	}
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// renameRefs returns a with the symbol references rooted at a renamed
// executable pointing at the executable kept in its place.
func renameRefs(a ir.Attribute, rename map[string]string) ir.Attribute {
	switch a := a.(type) {
	case ir.SymbolRefAttr:
		to, ok := rename[a.Root]
		if !ok {
			return a
		}
		r := ir.SymbolRefAttr{Root: to}
		for _, n := range a.Nested {
			if rest, ok := strings.CutPrefix(n, a.Root); ok && !startsWithDigit(rest) {
				n = to + rest
			}
			r.Nested = append(r.Nested, n)
		}
		return r
	case *ir.ArrayAttr:
		for i, e := range a.Elems {
			a.Elems[i] = renameRefs(e, rename)
		}
	case *ir.DictAttr:
		for i, e := range a.Entries {
			a.Entries[i].Value = renameRefs(e.Value, rename)
		}
	}
	return a
}
