package pdl

import (
	"fmt"
	"os"
	"slices"

	"github.com/goiree/goiree/compiler/ir"
)

// ApplyFile registers the pdl ops in reg, parses the patterns in file and
// applies them to payload until none matches.
func ApplyFile(file string, payload *ir.Operation, reg *ir.Registry) error {
	Register(reg)
	src, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading the PDL spec: %w", err)
	}
	spec, err := ir.Parse(file, src, reg)
	if err != nil {
		return err
	}
	return Apply(spec.Op, payload, reg)
}

// maxRewrites bounds the rewrites of one Apply: patterns whose rewrite
// recreates what they match would run forever.
const maxRewrites = 10000

// Apply applies the pdl.pattern ops of spec to the ops nested in payload
// (reg parses what native rewrites generate),
// highest benefit first, each rewrite followed by a fresh walk, until no
// pattern matches.
func Apply(spec, payload *ir.Operation, reg *ir.Registry) error {
	var patterns []*ir.Operation
	ir.Walk(spec, func(o *ir.Operation) bool {
		if o.Name == "pdl.pattern" {
			patterns = append(patterns, o)
			return false
		}
		return true
	})
	if len(patterns) == 0 {
		return ir.OpErrorf(spec, "the PDL spec holds no pdl.pattern")
	}
	slices.SortStableFunc(patterns, func(a, b *ir.Operation) int {
		x, _ := a.IntAttr("benefit")
		y, _ := b.IntAttr("benefit")
		return int(y - x)
	})
	for n := 0; ; n++ {
		if n == maxRewrites {
			return ir.OpErrorf(spec, "the PDL patterns still match after %d rewrites", maxRewrites)
		}
		rewrote, err := applyOnce(patterns, payload, reg)
		if err != nil || !rewrote {
			return err
		}
	}
}

func applyOnce(patterns []*ir.Operation, payload *ir.Operation, reg *ir.Registry) (bool, error) {
	for _, pat := range patterns {
		body := pat.Regions[0].Blocks[0]
		rw := body.Terminator()
		if rw == nil || rw.Name != "pdl.rewrite" || len(rw.Operands) != 1 {
			return false, ir.OpErrorf(pat, "the pattern must end in pdl.rewrite of its root operation")
		}
		root := rw.Operands[0].Op
		if err := checkConstraints(body); err != nil {
			return false, err
		}
		var found *binding
		ir.Walk(payload, func(o *ir.Operation) bool {
			if found != nil || o == payload {
				return found == nil
			}
			b := &binding{vals: map[*ir.Value]any{}, reg: reg}
			if b.matchOp(root, o) && b.matchRest(body, payload) && b.constraints(body) {
				found = b
			}
			return found == nil
		})
		if found == nil {
			continue
		}
		return true, found.rewrite(rw, found.vals[rw.Operands[0]].(*ir.Operation))
	}
	return false, nil
}

// binding maps the pattern's values to payload ops, values, types and
// attributes.
type binding struct {
	vals map[*ir.Value]any
	reg  *ir.Registry // parses the generated executable and dispatch
}

func (b *binding) bind(v *ir.Value, x any) bool {
	if prev, ok := b.vals[v]; ok {
		switch p := prev.(type) {
		case ir.Type:
			t, isType := x.(ir.Type)
			return isType && ir.TypesEqual(p, t)
		case ir.Attribute:
			a, isAttr := x.(ir.Attribute)
			return isAttr && ir.AttrString(p) == ir.AttrString(a)
		}
		return prev == x
	}
	b.vals[v] = x
	return true
}

func counts(op *ir.Operation) (nOperands, nAttrs, nResults int) {
	a, _ := op.IntAttr("num_operands")
	r, _ := op.IntAttr("num_results")
	names, _ := op.Attr("attributeValueNames").(*ir.ArrayAttr)
	return int(a), len(names.Elems), int(r)
}

// matchOp matches the pdl.operation p with the payload op q.
func (b *binding) matchOp(p, q *ir.Operation) bool {
	if p == nil || p.Name != "pdl.operation" {
		return false
	}
	if name, ok := p.Attr("opName").(ir.StringAttr); ok && name.Value != q.Name {
		return false
	}
	if !b.bind(p.Results[0], q) {
		return false
	}
	nOps, nAttrs, nRes := counts(p)
	operands := p.Operands[:nOps]
	if nOps > 0 && nOps != len(q.Operands) {
		return false
	}
	for i, pv := range operands {
		if !b.matchValue(pv, q.Operands[i]) {
			return false
		}
	}
	names := p.Attr("attributeValueNames").(*ir.ArrayAttr).Elems
	for i, pv := range p.Operands[nOps : nOps+nAttrs] {
		a := q.Attr(names[i].(ir.StringAttr).Value)
		if a == nil || !b.matchAttr(pv, a) {
			return false
		}
	}
	if nRes > 0 && nRes != len(q.Results) {
		return false
	}
	for i, pv := range p.Operands[nOps+nAttrs:] {
		if !b.matchType(pv, q.Results[i].Type) {
			return false
		}
	}
	return true
}

func (b *binding) matchValue(pv, qv *ir.Value) bool {
	d := pv.Op
	if d == nil {
		return false
	}
	switch d.Name {
	case "pdl.operand":
		if len(d.Operands) == 1 && !b.matchType(d.Operands[0], qv.Type) {
			return false
		}
		return b.bind(pv, qv)
	case "pdl.result":
		i, _ := d.IntAttr("index")
		if qv.Op == nil || int(i) != qv.Index || !b.bind(pv, qv) {
			return false
		}
		return b.matchOp(d.Operands[0].Op, qv.Op)
	}
	return false
}

func (b *binding) matchType(pv *ir.Value, t ir.Type) bool {
	d := pv.Op
	if d == nil || d.Name != "pdl.type" {
		return false
	}
	if c, ok := d.Attr("constantType").(ir.TypeAttr); ok && !ir.TypesEqual(c.Type, t) {
		return false
	}
	return b.bind(pv, t)
}

func (b *binding) matchAttr(pv *ir.Value, a ir.Attribute) bool {
	d := pv.Op
	if d == nil || d.Name != "pdl.attribute" {
		return false
	}
	if c := d.Attr("value"); c != nil && ir.AttrString(c) != ir.AttrString(a) {
		return false
	}
	return b.bind(pv, a)
}

// checkConstraints reports an error for a pdl.apply_native_constraint the
// interpreter does not know: only checkTensorElementType, with two
// operands.
func checkConstraints(body *ir.Block) error {
	for _, op := range body.Ops {
		if op.Name == "pdl.apply_native_constraint" {
			if name := op.Attr("name").(ir.StringAttr).Value; name != "checkTensorElementType" || len(op.Operands) != 2 {
				return ir.OpErrorf(op, "native constraint %q with %d operands is not supported (checkTensorElementType(type, element type) is)", name, len(op.Operands))
			}
		}
	}
	return nil
}

// constraints evaluates the pattern's pdl.apply_native_constraint ops on
// a match: checkTensorElementType(tensor type, element type), as IREE
// registers it, holds when the first is a shaped type of the second.
func (b *binding) constraints(body *ir.Block) bool {
	for _, op := range body.Ops {
		if op.Name != "pdl.apply_native_constraint" {
			continue
		}
		shaped, ok1 := b.get(op.Operands[0]).(ir.ShapedType)
		elem, ok2 := b.get(op.Operands[1]).(ir.Type)
		if !ok1 || !ok2 || !ir.TypesEqual(shaped.ElementType(), elem) {
			return false
		}
	}
	return true
}

// matchRest matches the pattern's operations that the walk up from the
// root did not reach (consumers of its values, such as a relu reading a
// matmul's result): each with the first payload op in payload that matches
// it given the bindings so far.
func (b *binding) matchRest(body *ir.Block, payload *ir.Operation) bool {
	for _, p := range body.Ops {
		if p.Name != "pdl.operation" {
			continue
		}
		if _, bound := b.vals[p.Results[0]]; bound {
			continue
		}
		matched := false
		ir.Walk(payload, func(q *ir.Operation) bool {
			if matched || q == payload {
				return !matched
			}
			try := &binding{vals: make(map[*ir.Value]any, len(b.vals)), reg: b.reg}
			for k, v := range b.vals {
				try.vals[k] = v
			}
			if try.matchOp(p, q) {
				b.vals, matched = try.vals, true
			}
			return !matched
		})
		if !matched {
			return false
		}
	}
	return true
}
