package ir

// TiedSignature is the `: (t{%d}, ...) -> (r{%d} | %arg{%d}, ...)` tail
// shared by dispatch-like ops. Tied[i] is the index in Args of the operand
// result i reuses, or -1.
type TiedSignature struct {
	Args        []*Value
	ArgDims     []*Value
	ResultTypes []Type
	ResultDims  []*Value
	Tied        []int64
}

// ParseTiedSignature parses the signature for the already parsed args.
func (p *Parser) ParseTiedSignature(args []*Value) (*TiedSignature, error) {
	s := &TiedSignature{Args: args}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	var ts []Type
	if !p.Optional(")") {
		for {
			t, err := p.ParseType()
			if err != nil {
				return nil, err
			}
			ts = append(ts, t)
			dims, err := p.ParseDynamicDims(t)
			if err != nil {
				return nil, err
			}
			s.ArgDims = append(s.ArgDims, dims...)
			if p.Optional(")") {
				break
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
	}
	if len(ts) != len(args) {
		return nil, Errorf(tpos, "%d operands present, but the signature lists %d types", len(args), len(ts))
	}
	if err := p.ResolveTypes(args, ts, tpos); err != nil {
		return nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, err
	}
	paren := p.Optional("(")
	if paren && p.Optional(")") {
		return s, nil
	}
	for {
		rpos := p.Pos()
		var t Type
		tied := int64(-1)
		if p.IsValueID() {
			v, err := p.ParseOperand()
			if err != nil {
				return nil, err
			}
			for i, a := range args {
				if a == v {
					tied = int64(i)
					break
				}
			}
			if tied < 0 {
				return nil, Errorf(rpos, "tied result refers to '%%%s', which is not an operand of this op", v.Name)
			}
			t = args[tied].Type
			if p.optionalAs() {
				var err error
				if t, err = p.ParseType(); err != nil {
					return nil, err
				}
			}
		} else {
			var err error
			if t, err = p.ParseType(); err != nil {
				return nil, err
			}
		}
		dims, err := p.ParseDynamicDims(t)
		if err != nil {
			return nil, err
		}
		s.ResultDims = append(s.ResultDims, dims...)
		s.ResultTypes = append(s.ResultTypes, t)
		s.Tied = append(s.Tied, tied)
		if !paren || p.Optional(")") {
			break
		}
		if err := p.Expect(","); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Optional for keywords used inside ParseTiedSignature.
func (p *Parser) optionalAs() bool { return p.OptionalKeyword("as") }

// AnyTied reports whether some result is tied.
func (s *TiedSignature) AnyTied() bool {
	for _, t := range s.Tied {
		if t >= 0 {
			return true
		}
	}
	return false
}

// TiedAttr returns the tied_operands attribute value.
func (s *TiedSignature) TiedAttr() Attribute {
	arr := &ArrayAttr{}
	for _, t := range s.Tied {
		arr.Elems = append(arr.Elems, IndexAttr(t))
	}
	return arr
}

// TiedOperands decodes a tied_operands attribute into one index per result
// (-1 untied).
func TiedOperands(op *Operation) []int64 {
	out := make([]int64, len(op.Results))
	for i := range out {
		out[i] = -1
	}
	arr, ok := op.Attr("tied_operands").(*ArrayAttr)
	if !ok {
		return out
	}
	for i, e := range arr.Elems {
		if ia, ok := e.(IntegerAttr); ok && i < len(out) {
			out[i] = ia.Value
		}
	}
	return out
}

// SegmentSizes decodes operandSegmentSizes (or the older
// operand_segment_sizes).
func SegmentSizes(op *Operation) []int64 {
	for _, n := range []string{"operandSegmentSizes", "operand_segment_sizes"} {
		if a, ok := op.Attr(n).(*DenseArrayAttr); ok {
			return a.Values
		}
	}
	return nil
}

// Segment returns operand segment i according to operandSegmentSizes, or
// nil when the attribute is missing or malformed.
func Segment(op *Operation, i int) []*Value {
	sizes := SegmentSizes(op)
	if i >= len(sizes) {
		return nil
	}
	start := int64(0)
	for _, s := range sizes[:i] {
		start += s
	}
	end := start + sizes[i]
	if start < 0 || end > int64(len(op.Operands)) || end < start {
		return nil
	}
	return op.Operands[start:end]
}

// SegmentsValid checks that operandSegmentSizes has n entries summing to
// the operand count.
func SegmentsValid(op *Operation, n int) error {
	sizes := SegmentSizes(op)
	if len(sizes) != n {
		return OpErrorf(op, "requires an operandSegmentSizes attribute with %d entries", n)
	}
	sum := int64(0)
	for _, s := range sizes {
		if s < 0 {
			return OpErrorf(op, "operandSegmentSizes has a negative entry")
		}
		sum += s
	}
	if sum != int64(len(op.Operands)) {
		return OpErrorf(op, "operandSegmentSizes sums to %d but the op has %d operands", sum, len(op.Operands))
	}
	return nil
}

// SegmentAttr builds an operandSegmentSizes attribute.
func SegmentAttr(sizes ...int) Attribute {
	a := &DenseArrayAttr{Elem: I32}
	for _, s := range sizes {
		a.Values = append(a.Values, int64(s))
	}
	return a
}

// PrintTiedSignature prints ` : (t{%d}, ...) -> results`.
func (p *Printer) PrintTiedSignature(args, argDims []*Value, results []*Value, resultDims []*Value, tied []int64) {
	p.WriteString(" : (")
	di := 0
	for i, a := range args {
		if i > 0 {
			p.WriteString(", ")
		}
		p.Type(a.Type)
		n := DynamicDimCount(a.Type)
		if n > 0 && di+n <= len(argDims) {
			p.DynamicDims(argDims[di : di+n])
			di += n
		}
	}
	p.WriteString(") -> ")
	if len(results) != 1 {
		p.WriteString("(")
	}
	ri := 0
	for i, r := range results {
		if i > 0 {
			p.WriteString(", ")
		}
		if i < len(tied) && tied[i] >= 0 && int(tied[i]) < len(args) {
			p.Operand(args[tied[i]])
			if !TypesEqual(args[tied[i]].Type, r.Type) {
				p.WriteString(" as ")
				p.Type(r.Type)
			}
		} else {
			p.Type(r.Type)
		}
		n := DynamicDimCount(r.Type)
		if n > 0 && ri+n <= len(resultDims) {
			p.DynamicDims(resultDims[ri : ri+n])
			ri += n
		}
	}
	if len(results) != 1 {
		p.WriteString(")")
	}
}

// VerifyTied checks tied_operands against args: indices in range and equal
// types (when sameType), and that dims segments match the dynamic dims.
func VerifyTied(op *Operation, args, argDims, resultDims []*Value) error {
	tied := TiedOperands(op)
	for i, t := range tied {
		if t < 0 {
			continue
		}
		if t >= int64(len(args)) {
			return OpErrorf(op, "result #%d is tied to operand %d, but the op has only %d operands", i, t, len(args))
		}
		if !TypesEqual(args[t].Type, op.Results[i].Type) {
			return OpErrorf(op, "result #%d is tied to operand '%%%s' of type '%s' but has type '%s'", i, args[t].Name, TypeString(args[t].Type), TypeString(op.Results[i].Type))
		}
	}
	n := 0
	for _, a := range args {
		n += DynamicDimCount(a.Type)
	}
	if n != len(argDims) {
		return OpErrorf(op, "operands have %d dynamic dimensions but %d dimension values were given", n, len(argDims))
	}
	n = 0
	for _, r := range op.Results {
		n += DynamicDimCount(r.Type)
	}
	if n != len(resultDims) {
		return OpErrorf(op, "results have %d dynamic dimensions but %d dimension values were given", n, len(resultDims))
	}
	for _, d := range append(append([]*Value(nil), argDims...), resultDims...) {
		if _, ok := d.Type.(IndexType); !ok {
			return OpErrorf(op, "dynamic dimension value '%%%s' must be index, found '%s'", d.Name, TypeString(d.Type))
		}
	}
	return nil
}
