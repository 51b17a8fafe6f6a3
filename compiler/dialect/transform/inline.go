package transform

import (
	"github.com/goiree/goiree/compiler/ir"
)

// parseApplyRegisteredPass parses `"pass" [with options = {...}] to %h :
// (t) -> t`.
func parseApplyRegisteredPass(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	name, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "pass_name", Value: ir.StringAttr{Value: name}})
	if p.OptionalKeyword("with") {
		if err := p.ExpectKeyword("options"); err != nil {
			return nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		opts, err := p.ParseAttribute()
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "options", Value: opts})
	}
	if err := p.ExpectKeyword("to"); err != nil {
		return nil, err
	}
	return parseOperandsFunctional(p, op)
}

// applyPass runs transform.apply_registered_pass on the ops of h; the
// result is the same ops.
func (in *interp) applyPass(op *ir.Operation, h handle) ([]handle, error) {
	name := op.Attr("pass_name").(ir.StringAttr).Value
	if name != "inline" || op.HasAttr("options") {
		return nil, ir.OpErrorf(op, "apply_registered_pass %q is not supported (only \"inline\", without options)", name)
	}
	for _, o := range h.ops {
		if err := in.inline(o); err != nil {
			return nil, err
		}
	}
	return []handle{h}, nil
}

// inline replaces every func.call and util.call nested in table whose
// callee, defined in table, has one block ending in a return, by a copy of
// that block, until none is left; private callees left without calls are
// then removed, as MLIR's inliner does. A callee that calls itself, directly
// or not, is an error.
func (in *interp) inline(table *ir.Operation) error {
	for rounds := 0; ; rounds++ {
		var calls []*ir.Operation
		ir.Walk(table, func(o *ir.Operation) bool {
			if o.Name == "func.call" || o.Name == "util.call" {
				if callee := in.inlinable(table, o); callee != nil {
					calls = append(calls, o)
				}
			}
			return true
		})
		if len(calls) == 0 {
			break
		}
		if rounds > 64 {
			return ir.OpErrorf(calls[0], "inlining does not end: the call graph is recursive")
		}
		for _, call := range calls {
			callee := in.inlinable(table, call)
			body := callee.Body()
			mapping := map[*ir.Value]*ir.Value{}
			for i, a := range body.Args {
				mapping[a] = call.Operands[i]
			}
			b := call.Block
			for _, o := range body.Ops[:len(body.Ops)-1] {
				b.InsertBefore(call, ir.Clone(o, mapping))
			}
			ret := body.Ops[len(body.Ops)-1]
			scope := b.Region.Op
			for i, r := range call.Results {
				v := ret.Operands[i]
				if m, ok := mapping[v]; ok {
					v = m
				}
				ir.ReplaceAllUsesWith(scope, r, v)
			}
			call.Remove()
		}
	}
	called := map[string]bool{}
	ir.Walk(table, func(o *ir.Operation) bool {
		if ref, ok := o.Attr("callee").(ir.SymbolRefAttr); ok {
			called[ref.Root] = true
		}
		return true
	})
	for _, o := range append([]*ir.Operation(nil), table.Body().Ops...) {
		if (o.Name == "func.func" || o.Name == "util.func") && o.Body() != nil && !called[o.SymName()] {
			if v, _ := o.Attr("sym_visibility").(ir.StringAttr); v.Value == "private" {
				o.Remove()
			}
		}
	}
	return nil
}

// inlinable returns the callee of call when it can be inlined: defined in
// table with a single block that ends in a return of as many values as the
// call has results.
func (in *interp) inlinable(table, call *ir.Operation) *ir.Operation {
	ref, ok := call.Attr("callee").(ir.SymbolRefAttr)
	if !ok || len(ref.Nested) > 0 {
		return nil
	}
	callee := lookup(table, ref.Root)
	if callee == nil || (callee.Name != "func.func" && callee.Name != "util.func") || callee.Body() == nil || len(callee.Regions[0].Blocks) != 1 {
		return nil
	}
	body := callee.Body()
	ret := body.Terminator()
	if ret == nil || (ret.Name != "func.return" && ret.Name != "util.return") || len(ret.Operands) != len(call.Results) || len(body.Args) != len(call.Operands) {
		return nil
	}
	return callee
}
