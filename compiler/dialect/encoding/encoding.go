// Package encoding registers the ops of IREE's iree_encoding dialect that
// programs write to mark tensors for data tiling:
//
//	%e = iree_encoding.set_encoding %t : tensor<4x8xf32> -> tensor<4x8xf32, #iree_encoding.encoding<...>>
//	%t = iree_encoding.unset_encoding %e : tensor<?x8xf32, #enc> -> tensor<?x8xf32>{%d}
//
// with the optional `encoding_dims {%a, %b}` clause after the source (the
// sizes the encoding is specialized for). set_encoding holds the source and
// the encoding_dims; unset_encoding the source, the result's dynamic sizes
// and the encoding_dims (operandSegmentSizes).
//
// The encoding attributes themselves (#iree_encoding.encoding<...>,
// #iree_encoding.layout<...>, ...) are held as the opaque dialect
// attributes the parser keeps, as tensor type encodings. goiree does not
// data-tile by encoding: the input phase drops these ops and every
// iree_encoding layout encoding (package conversion/dropencodings), which
// leaves every value unchanged. #iree_encoding.packed_storage is not a
// layout hint but a storage format (eight i1 to a byte) and is kept.
package encoding

import (
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// Op names.
const (
	SetEncoding   = "iree_encoding.set_encoding"
	UnsetEncoding = "iree_encoding.unset_encoding"
)

// Register adds the iree_encoding ops to r.
func Register(r *ir.Registry) {
	r.RegisterOp(&ir.OpDef{Name: SetEncoding, Parse: parseSet, Print: printSet, Verify: verify})
	r.RegisterOp(&ir.OpDef{Name: UnsetEncoding, Parse: parseUnset, Print: printUnset, Verify: verify})
}

// IsLayout reports whether a tensor type encoding is one of
// iree_encoding's layout encodings: any iree_encoding attribute but
// packed_storage.
func IsLayout(a ir.Attribute) bool {
	if a == nil {
		return false
	}
	s := ir.AttrString(a)
	return strings.HasPrefix(s, "#iree_encoding.") && !strings.HasPrefix(s, "#iree_encoding.packed_storage")
}

// parseHead parses `attr-dict %source (encoding_dims {%a, ...})? :
// type -> type` and returns the source, the encoding dims and the result
// type.
func parseHead(p *ir.Parser, op *ir.Operation) (*ir.Value, []*ir.Value, ir.Type, error) {
	if err := p.ParseOptionalAttrDict(op); err != nil {
		return nil, nil, nil, err
	}
	src, err := p.ParseOperand()
	if err != nil {
		return nil, nil, nil, err
	}
	var dims []*ir.Value
	if p.OptionalKeyword("encoding_dims") {
		pos := p.Pos()
		if dims, err = p.ParseDelimitedOperands("{", "}"); err != nil {
			return nil, nil, nil, err
		}
		for _, d := range dims {
			if err := p.ResolveType(d, ir.IndexType{}, pos); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	pos := p.Pos()
	st, err := p.ParseColonType()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := p.ResolveType(src, st, pos); err != nil {
		return nil, nil, nil, err
	}
	if err := p.Expect("->"); err != nil {
		return nil, nil, nil, err
	}
	rt, err := p.ParseType()
	if err != nil {
		return nil, nil, nil, err
	}
	return src, dims, rt, nil
}

func parseSet(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, dims, rt, err := parseHead(p, op)
	if err != nil {
		return nil, err
	}
	op.Operands = append([]*ir.Value{src}, dims...)
	return []ir.Type{rt}, nil
}

func parseUnset(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	src, dims, rt, err := parseHead(p, op)
	if err != nil {
		return nil, err
	}
	rdims, err := p.ParseDynamicDims(rt)
	if err != nil {
		return nil, err
	}
	op.Operands = append(append([]*ir.Value{src}, rdims...), dims...)
	op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(rdims), len(dims))})
	return []ir.Type{rt}, nil
}

func printHead(p *ir.Printer, op *ir.Operation, dims []*ir.Value) {
	p.AttrDict(op, "operandSegmentSizes")
	p.WriteString(" ")
	p.Operand(op.Operands[0])
	if len(dims) > 0 {
		p.WriteString(" encoding_dims ")
		p.DynamicDims(dims)
	}
	p.WriteString(" : ")
	p.Type(op.Operands[0].Type)
	p.WriteString(" -> ")
	p.Type(op.Results[0].Type)
}

func printSet(p *ir.Printer, op *ir.Operation) { printHead(p, op, op.Operands[1:]) }

func printUnset(p *ir.Printer, op *ir.Operation) {
	printHead(p, op, encodingDims(op))
	p.DynamicDims(resultDims(op))
}

// resultDims returns an unset_encoding's result sizes.
func resultDims(op *ir.Operation) []*ir.Value {
	if op.Name == SetEncoding {
		return nil
	}
	return ir.Segment(op, 1)
}

// encodingDims returns the op's encoding_dims.
func encodingDims(op *ir.Operation) []*ir.Value {
	if op.Name == SetEncoding {
		return op.Operands[1:]
	}
	return ir.Segment(op, 2)
}

// verify checks that the op changes only the encoding: source and result
// are ranked tensors of one shape and element type, set_encoding's result
// and unset_encoding's source carry an encoding, the sizes are indices
// and an unset_encoding gives one size per dynamic result dimension.
func verify(op *ir.Operation) error {
	if len(op.Operands) < 1 || len(op.Results) != 1 {
		return ir.OpErrorf(op, "expects a source and one result")
	}
	if op.Name == UnsetEncoding {
		if err := ir.SegmentsValid(op, 3); err != nil {
			return err
		}
	}
	st, ok1 := op.Operands[0].Type.(*ir.TensorType)
	rt, ok2 := op.Results[0].Type.(*ir.TensorType)
	if !ok1 || !ok2 || st.Unranked || rt.Unranked {
		return ir.OpErrorf(op, "source and result must be ranked tensors")
	}
	if len(st.Shape) != len(rt.Shape) || !ir.TypesEqual(st.Elem, rt.Elem) {
		return ir.OpErrorf(op, "source '%s' and result '%s' must have the same shape and element type", ir.TypeString(st), ir.TypeString(rt))
	}
	for i := range st.Shape {
		if st.Shape[i] != rt.Shape[i] && st.Shape[i] != ir.Dynamic && rt.Shape[i] != ir.Dynamic {
			return ir.OpErrorf(op, "source '%s' and result '%s' must have the same shape and element type", ir.TypeString(st), ir.TypeString(rt))
		}
	}
	encoded := rt
	if op.Name == UnsetEncoding {
		encoded = st
		if n := ir.DynamicDimCount(rt); len(resultDims(op)) != n {
			return ir.OpErrorf(op, "result '%s' has %d dynamic dimensions but %d sizes were given", ir.TypeString(rt), n, len(resultDims(op)))
		}
	}
	if encoded.Encoding == nil {
		which := "result"
		if op.Name == UnsetEncoding {
			which = "source"
		}
		return ir.OpErrorf(op, "%s '%s' has no encoding", which, ir.TypeString(encoded))
	}
	for _, d := range append(resultDims(op), encodingDims(op)...) {
		if _, ok := d.Type.(ir.IndexType); !ok {
			return ir.OpErrorf(op, "sizes must be 'index', found '%s'", ir.TypeString(d.Type))
		}
	}
	return nil
}
