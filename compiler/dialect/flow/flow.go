// Package flow registers the flow dialect ops used by custom-dispatch
// programs: flow.dispatch, flow.dispatch.region (a dispatch written inline,
// as IREE's ukernel samples do), the flow.dispatch.workgroup.id/count/size
// queries and flow.return; flow.executable and flow.executable.export (the
// executables IREE's flow phase prints, which iree-link copies between
// modules; the compiler takes its dispatches from hal and stream
// executables and refuses these at the flow phase); and the flow.tensor.*
// ops programs use on the host (tensor_ops.go).
package flow

import (
	"github.com/goiree/goiree/compiler/dialect/internal/executables"
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
	r.RegisterOp(&ir.OpDef{Name: "flow.dispatch.region", Parse: parseRegionOp, Print: printRegionOp, Verify: verifyRegionOp})
	executables.Register(r, "flow.executable", "flow.return")
	registerTensorOps(r)
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

// Region gives structured access to a flow.dispatch.region: operand
// segments result dims then workload (IREE's order), regions body then
// workgroup count (empty when omitted).
type Region struct{ Op *ir.Operation }

// ResultDims returns the dynamic dimensions of the results.
func (r Region) ResultDims() []*ir.Value { return ir.Segment(r.Op, 0) }

// Workload returns the workload operands.
func (r Region) Workload() []*ir.Value { return ir.Segment(r.Op, 1) }

// parseRegionOp parses
//
//	[workload]? (-> (t{dims}, ...))? (attributes {...})? { body }
//	(count(%w: index, ...) -> (index, index, index) { ... })?
func parseRegionOp(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
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
	var results []ir.Type
	var dims []*ir.Value
	if p.Optional("->") {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		for !p.Optional(")") {
			if len(results) > 0 {
				if err := p.Expect(","); err != nil {
					return nil, err
				}
			}
			t, err := p.ParseType()
			if err != nil {
				return nil, err
			}
			ds, err := p.ParseDynamicDims(t)
			if err != nil {
				return nil, err
			}
			results = append(results, t)
			dims = append(dims, ds...)
		}
	}
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	if _, err := p.ParseRegion(op, nil); err != nil {
		return nil, err
	}
	if p.OptionalKeyword("count") {
		args, err := p.ParseArgumentList(true)
		if err != nil {
			return nil, err
		}
		if err := p.Expect("->"); err != nil {
			return nil, err
		}
		pos := p.Pos()
		res, err := p.ParseFunctionResultTypes()
		if err != nil {
			return nil, err
		}
		if len(res) != 3 {
			return nil, ir.Errorf(pos, "workgroup count region must return 3 values (x, y, z), found %d", len(res))
		}
		if args == nil {
			args = []ir.Argument{}
		}
		if _, err := p.ParseRegion(op, args); err != nil {
			return nil, err
		}
	} else {
		op.AddRegion()
	}
	op.Operands = append(append([]*ir.Value(nil), dims...), workload...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(len(dims), len(workload))})
	return results, nil
}

func printRegionOp(p *ir.Printer, op *ir.Operation) {
	r := Region{op}
	if w := r.Workload(); len(w) > 0 {
		p.WriteString("[")
		p.Operands(w)
		p.WriteString("]")
	}
	if len(op.Results) > 0 {
		p.WriteString(" -> (")
		dims := r.ResultDims()
		for i, v := range op.Results {
			if i > 0 {
				p.WriteString(", ")
			}
			p.Type(v.Type)
			n := ir.DynamicDimCount(v.Type)
			if n > len(dims) {
				n = len(dims)
			}
			p.DynamicDims(dims[:n])
			dims = dims[n:]
		}
		p.WriteString(")")
	}
	p.AttrDictWithKeyword(op, "operandSegmentSizes")
	if len(op.Regions) > 0 {
		p.WriteString(" ")
		p.Region(op.Regions[0], false)
	}
	if len(op.Regions) > 1 && len(op.Regions[1].Blocks) > 0 {
		c := op.Regions[1]
		p.WriteString(" count")
		p.ArgList(c.Blocks[0].Args)
		p.WriteString(" -> (index, index, index) ")
		p.Region(c, false)
	}
}

// verifyRegionOp checks IREE's rules: a body without arguments whose
// flow.return values match the results, ranked tensor results with one
// dimension value per dynamic dimension, and a count region taking the
// workload's types and returning three index values with flow.return.
func verifyRegionOp(op *ir.Operation) error {
	if err := ir.SegmentsValid(op, 2); err != nil {
		return err
	}
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "expects a body region and a workgroup count region")
	}
	r := Region{op}
	ndims := 0
	for i, v := range op.Results {
		t, ok := v.Type.(*ir.TensorType)
		if !ok || t.Unranked {
			return ir.OpErrorf(op, "only ranked tensor results are allowed, result #%d is '%s'", i, ir.TypeString(v.Type))
		}
		ndims += ir.NumDynamicDims(t)
	}
	if ndims != len(r.ResultDims()) {
		return ir.OpErrorf(op, "results have %d dynamic dimensions but %d dimension values were given", ndims, len(r.ResultDims()))
	}
	for i, w := range r.Workload() {
		if _, ok := w.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "workload operand #%d must be index, found '%s'", i, ir.TypeString(w.Type))
		}
	}
	body := op.Regions[0]
	if len(body.Blocks) == 0 {
		return ir.OpErrorf(op, "expects a non-empty body")
	}
	if len(body.Blocks[0].Args) != 0 {
		return ir.OpErrorf(op, "expected no block arguments")
	}
	for _, b := range body.Blocks {
		t := b.Terminator()
		if t == nil || t.Name != "flow.return" {
			return ir.OpErrorf(op, "body must end with 'flow.return'")
		}
		if len(t.Operands) != len(op.Results) {
			return ir.OpErrorf(t, "number of results (%d) does not match number of returned values (%d)", len(op.Results), len(t.Operands))
		}
		for i, v := range t.Operands {
			if !ir.TypesEqual(v.Type, op.Results[i].Type) {
				return ir.OpErrorf(t, "operand types do not match with parent results: value #%d is '%s', result is '%s'", i, ir.TypeString(v.Type), ir.TypeString(op.Results[i].Type))
			}
		}
	}
	count := op.Regions[1]
	if len(count.Blocks) == 0 {
		return nil
	}
	args := count.Blocks[0].Args
	if len(args) != len(r.Workload()) {
		return ir.OpErrorf(op, "workload operands and workgroup count args mismatch (%d vs %d)", len(r.Workload()), len(args))
	}
	for i, a := range args {
		if !ir.TypesEqual(a.Type, r.Workload()[i].Type) {
			return ir.OpErrorf(op, "workload value %d type mismatch; operand is '%s' but region captures '%s'", i, ir.TypeString(r.Workload()[i].Type), ir.TypeString(a.Type))
		}
	}
	return ir.VerifyCountReturns(op, count, "flow.return")
}
