// Package flow registers the flow dialect ops used by custom-dispatch
// programs: flow.dispatch, the flow.dispatch.workgroup.id/count/size
// queries and flow.return.
package flow

import (
	"github.com/goiree/goiree/compiler/ir"
)

// Register adds the flow ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: "flow.dispatch", Parse: parseDispatch, Print: printDispatch, Verify: verifyDispatch})
	for _, n := range []string{"id", "count", "size"} {
		r.RegisterOp(ir.DimensionOp("flow.dispatch.workgroup."+n, "dimension"))
	}
	// flow.return ends flow regions (a dispatch region's body and its
	// workgroup count region); as in IREE it names no parent, and the
	// enclosing op checks which terminator it accepts.
	r.RegisterOp(ir.ReturnLikeOp("flow.return", nil))
}

// Dispatch gives structured access to a flow.dispatch op.
type Dispatch struct{ Op *ir.Operation }

// EntryPoints returns the referenced exports.
func (d Dispatch) EntryPoints() []ir.SymbolRefAttr {
	var out []ir.SymbolRefAttr
	if arr, ok := d.Op.Attr("entry_points").(*ir.ArrayAttr); ok {
		for _, e := range arr.Elems {
			if s, ok := e.(ir.SymbolRefAttr); ok {
				out = append(out, s)
			}
		}
	}
	return out
}

// Workload returns the workload operands.
func (d Dispatch) Workload() []*ir.Value { return ir.Segment(d.Op, 0) }

// Arguments returns the dispatch arguments.
func (d Dispatch) Arguments() []*ir.Value { return ir.Segment(d.Op, 1) }

// ArgumentDims returns the dynamic dims of the arguments.
func (d Dispatch) ArgumentDims() []*ir.Value { return ir.Segment(d.Op, 2) }

// ResultDims returns the dynamic dims of the results.
func (d Dispatch) ResultDims() []*ir.Value { return ir.Segment(d.Op, 3) }

func parseDispatch(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	refs := &ir.ArrayAttr{}
	if p.Optional("{") {
		for {
			r, err := p.ParseSymbolRef()
			if err != nil {
				return nil, err
			}
			refs.Elems = append(refs.Elems, r)
			if p.Optional("}") {
				break
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
	} else {
		r, err := p.ParseSymbolRef()
		if err != nil {
			return nil, err
		}
		refs.Elems = append(refs.Elems, r)
	}
	var workload []*ir.Value
	wpos := p.Pos()
	if p.Is("[") {
		var err error
		if workload, err = p.ParseDelimitedOperands("[", "]"); err != nil {
			return nil, err
		}
		for _, w := range workload {
			if err := p.ResolveType(w, ir.IndexType{}, wpos); err != nil {
				return nil, err
			}
		}
	}
	args, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, err
	}
	sig, err := p.ParseTiedSignature(args)
	if err != nil {
		return nil, err
	}
	FillDispatchLike(op, refs, workload, sig)
	return sig.ResultTypes, nil
}

// FillDispatchLike stores the operands and attributes of a dispatch-like op
// parsed with a tied signature.
func FillDispatchLike(op *ir.Operation, refs ir.Attribute, workload []*ir.Value, sig *ir.TiedSignature) {
	op.Operands = append(append(append(append([]*ir.Value(nil), workload...), sig.Args...), sig.ArgDims...), sig.ResultDims...)
	var pre []ir.NamedAttr
	if refs != nil {
		pre = append(pre, ir.NamedAttr{Name: "entry_points", Value: refs})
	}
	op.Attrs = append(pre, op.Attrs...)
	op.SetAttr("operandSegmentSizes", ir.SegmentAttr(len(workload), len(sig.Args), len(sig.ArgDims), len(sig.ResultDims)))
	if sig.AnyTied() {
		op.SetAttr("tied_operands", sig.TiedAttr())
	}
}

func printDispatch(p *ir.Printer, op *ir.Operation) {
	d := Dispatch{op}
	p.WriteString(" ")
	eps := d.EntryPoints()
	if len(eps) == 1 {
		p.Attr(eps[0])
	} else {
		p.WriteString("{")
		for i, e := range eps {
			if i > 0 {
				p.WriteString(", ")
			}
			p.Attr(e)
		}
		p.WriteString("}")
	}
	if w := d.Workload(); len(w) > 0 {
		p.WriteString("[")
		p.Operands(w)
		p.WriteString("]")
	}
	p.WriteString("(")
	p.Operands(d.Arguments())
	p.WriteString(")")
	p.AttrDict(op, "entry_points", "operandSegmentSizes", "operand_segment_sizes", "tied_operands")
	p.PrintTiedSignature(d.Arguments(), d.ArgumentDims(), op.Results, d.ResultDims(), ir.TiedOperands(op))
}

func verifyDispatch(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 4); err != nil {
		return err
	}
	d := Dispatch{op}
	if len(d.EntryPoints()) == 0 {
		return ir.OpErrorf(op, "requires at least one entry point reference in 'entry_points'")
	}
	for _, e := range d.EntryPoints() {
		if len(e.Nested) == 0 {
			return ir.OpErrorf(op, "entry point %s must be nested: @executable::@export or @executable::@variant::@export", ir.AttrString(e))
		}
	}
	for i, w := range d.Workload() {
		if _, ok := w.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "workload operand #%d must be index, found '%s'", i, ir.TypeString(w.Type))
		}
	}
	return ir.VerifyTied(op, d.Arguments(), d.ArgumentDims(), d.ResultDims())
}
