// Package dropencodings removes IREE's data-tiling encodings from a
// program: goiree does not lay tensors out by encoding, so a tensor with
// an iree_encoding layout encoding holds the same elements in the same
// order as the plain tensor.
//
// Every iree_encoding.set_encoding and iree_encoding.unset_encoding is
// replaced by its source, and every tensor type that carries a layout
// encoding (encoding.IsLayout: #iree_encoding.encoding<...> and the other
// iree_encoding attributes) loses it wherever it appears: value types,
// block arguments, function types and type attributes, and the types of
// dense constants. #iree_encoding.packed_storage, a storage format rather
// than a layout, is kept.
package dropencodings

import (
	"github.com/goiree/goiree/compiler/dialect/encoding"
	"github.com/goiree/goiree/compiler/ir"
)

// Convert drops the encoding ops and layout encodings under module.
func Convert(module *ir.Operation) error {
	repl := map[*ir.Value]*ir.Value{}
	var dead []*ir.Operation
	ir.Walk(module, func(o *ir.Operation) bool {
		if o.Name == encoding.SetEncoding || o.Name == encoding.UnsetEncoding {
			repl[o.Results[0]] = o.Operands[0]
			dead = append(dead, o)
		}
		return true
	})
	resolve := func(v *ir.Value) *ir.Value {
		for {
			n, ok := repl[v]
			if !ok {
				return v
			}
			v = n
		}
	}
	for _, o := range dead {
		o.Remove()
	}
	ir.Walk(module, func(o *ir.Operation) bool {
		for i, v := range o.Operands {
			o.Operands[i] = resolve(v)
		}
		for _, v := range o.Results {
			v.Type = strip(v.Type)
		}
		for i, a := range o.Attrs {
			o.Attrs[i].Value = stripAttr(a.Value)
		}
		for _, r := range o.Regions {
			for _, b := range r.Blocks {
				for _, a := range b.Args {
					a.Type = strip(a.Type)
				}
			}
		}
		return true
	})
	return nil
}

// strip returns t without layout encodings (t itself when it has none).
func strip(t ir.Type) ir.Type {
	switch t := t.(type) {
	case *ir.TensorType:
		if encoding.IsLayout(t.Encoding) {
			c := *t
			c.Encoding = nil
			return &c
		}
	case *ir.FunctionType:
		return &ir.FunctionType{Inputs: stripAll(t.Inputs), Results: stripAll(t.Results)}
	case *ir.TupleType:
		return &ir.TupleType{Elems: stripAll(t.Elems)}
	}
	return t
}

func stripAll(ts []ir.Type) []ir.Type {
	out := make([]ir.Type, len(ts))
	for i, t := range ts {
		out[i] = strip(t)
	}
	return out
}

// stripAttr returns a without layout encodings in the types it holds.
func stripAttr(a ir.Attribute) ir.Attribute {
	switch a := a.(type) {
	case ir.TypeAttr:
		return ir.TypeAttr{Type: strip(a.Type)}
	case *ir.ArrayAttr:
		elems := make([]ir.Attribute, len(a.Elems))
		for i, e := range a.Elems {
			elems[i] = stripAttr(e)
		}
		return &ir.ArrayAttr{Elems: elems}
	case *ir.DenseAttr:
		if st, ok := strip(a.Type).(ir.ShapedType); ok && st != a.Type {
			c := *a
			c.Type = st
			return &c
		}
	}
	return a
}
