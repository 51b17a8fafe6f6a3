package stablehlotolinalg

import (
	byteorder "encoding/binary"
	"fmt"
	"math"

	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// reduce lowers a reduce of N operands and N rank-0 init values into N
// results: one linalg.generic whose loops are the operands' dimensions
// (the reduced ones reduction loops) reads the operands and accumulates
// into the results, each filled with its init value first. Its scalar
// body is the reduce's body, whose arguments are the N accumulators and
// then the N operand elements, with each op on rank-0 tensors turned into
// the scalar op it stands for.
func (c *converter) reduce() error {
	n := len(c.op.Results)
	if n == 0 || len(c.op.Operands) != 2*n {
		return c.errorf("expects as many operands as init values and results, found %d operands for %d results", len(c.op.Operands), n)
	}
	ins, inits := c.op.Operands[:n], c.op.Operands[n:]
	in0 := stablehlo.Ranked(ins[0].Type)
	rank := len(in0.Shape)
	var elems []ir.Type
	for i := 0; i < n; i++ {
		t, init, rt := stablehlo.Ranked(ins[i].Type), stablehlo.Ranked(inits[i].Type), stablehlo.Ranked(c.op.Results[i].Type)
		if len(t.Shape) != rank {
			return c.errorf("operand #%d '%s' does not have the shape of operand #0 '%s'", i, ir.TypeString(t), ir.TypeString(in0))
		}
		for d := range t.Shape {
			if !sameSize(t.Shape[d], in0.Shape[d]) {
				return c.errorf("operand #%d '%s' does not have the shape of operand #0 '%s'", i, ir.TypeString(t), ir.TypeString(in0))
			}
		}
		if len(init.Shape) != 0 || !sameType(init.Elem, t.Elem) || !sameType(rt.Elem, t.Elem) {
			return c.errorf("init value #%d '%s' and result #%d '%s' must be rank-0 and of the element type of operand #%d '%s'",
				i, ir.TypeString(init), i, ir.TypeString(rt), i, ir.TypeString(t))
		}
		elems = append(elems, t.Elem)
	}
	dims, ok := c.ints("dimensions")
	if !ok {
		return c.errorf("requires 'dimensions', a list of integers")
	}
	reduced := make([]bool, rank)
	for _, d := range dims {
		if d < 0 || int(d) >= rank || reduced[d] {
			return c.errorf("dimensions %v are not distinct dimensions of rank %d", dims, rank)
		}
		reduced[d] = true
	}
	body, err := c.regionBody(elems)
	if err != nil {
		return err
	}
	om := &ir.AffineMap{NumDims: rank, Results: []*ir.AffineExpr{}}
	iters := make([]string, rank)
	var kept []int64
	for d := 0; d < rank; d++ {
		iters[d] = "reduction"
		if !reduced[d] {
			iters[d] = "parallel"
			om.Results = append(om.Results, dim(d))
			kept = append(kept, in0.Shape[d])
		}
	}
	inMaps := make([]*ir.AffineMap, n)
	for i := range inMaps {
		inMaps[i] = identity(rank)
	}
	var outs []*ir.Value
	for i, r := range c.op.Results {
		rt := stablehlo.Ranked(r.Type)
		if len(kept) != len(rt.Shape) {
			return c.errorf("reducing %v of '%s' does not give '%s'", dims, ir.TypeString(in0), ir.TypeString(rt))
		}
		for j, s := range kept {
			if !sameSize(s, rt.Shape[j]) {
				return c.errorf("reducing %v of '%s' does not give '%s'", dims, ir.TypeString(in0), ir.TypeString(rt))
			}
		}
		filled, err := c.fill(rt, om, ins, inMaps, inits[i])
		if err != nil {
			return err
		}
		outs = append(outs, filled)
	}
	rs, err := c.genericOps(ins, append(inMaps, repeat(om, n)...), outs, iters, func(x builder, a []*ir.Value) ([]*ir.Value, error) {
		// The body takes the accumulators first, the generic's block
		// the inputs first.
		return body(x, append(append([]*ir.Value(nil), a[n:]...), a[:n]...))
	})
	if err != nil {
		return err
	}
	c.replaceAll(rs)
	return nil
}

// opNameOnly is o's name without its dialect ("reduce").
func opNameOnly(o *ir.Operation) string {
	n, _ := opName(o)
	return n
}

func repeat(m *ir.AffineMap, n int) []*ir.AffineMap {
	out := make([]*ir.AffineMap, n)
	for i := range out {
		out[i] = m
	}
	return out
}

func sameType(a, b ir.Type) bool { return ir.TypeString(a) == ir.TypeString(b) }

// fill emits a tensor of type rt, sized as empty sizes it, holding the
// rank-0 tensor v at every element.
func (c *converter) fill(rt *ir.TensorType, outMap *ir.AffineMap, ins []*ir.Value, inMaps []*ir.AffineMap, v *ir.Value) (*ir.Value, error) {
	e, err := c.empty(rt, outMap, ins, inMaps)
	if err != nil {
		return nil, err
	}
	m := len(rt.Shape)
	par := make([]string, m)
	for i := range par {
		par[i] = "parallel"
	}
	return c.genericOp([]*ir.Value{v}, []*ir.AffineMap{{NumDims: m, Results: []*ir.AffineExpr{}}, identity(m)}, e, par,
		func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil })
}

// regionFunc computes a reduction body's results from its arguments.
type regionFunc func(x builder, args []*ir.Value) ([]*ir.Value, error)

// regionBody reads the converted op's body, a block of StableHLO ops on
// rank-0 tensors ending in a return, whose 2N arguments are N
// accumulators and N elements of types elems (each twice) and which
// returns N values of types elems. It returns the function that emits
// the body's scalar ops; the errors point at the body op they are about.
func (c *converter) regionBody(elems []ir.Type) (regionFunc, error) {
	return c.regionBodyOf(append(append([]ir.Type(nil), elems...), elems...), elems, "accumulates")
}

// regionBodyOf is regionBody for a body whose arguments have the element
// types args and whose results the element types rets; what says what
// the op does with a result (in the message about a wrong one).
func (c *converter) regionBodyOf(args, rets []ir.Type, what string) (regionFunc, error) {
	b := c.op.Body()
	if b == nil || len(b.Args) != len(args) {
		return nil, c.errorf("requires a body of %d arguments", len(args))
	}
	for i, a := range b.Args {
		if t := stablehlo.Ranked(a.Type); t == nil || len(t.Shape) != 0 || !sameType(t.Elem, args[i]) {
			return nil, c.errorf("body argument #%d is '%s' but must be 'tensor<%s>'", i, ir.TypeString(a.Type), ir.TypeString(args[i]))
		}
	}
	if len(b.Ops) == 0 {
		return nil, c.errorf("body does not end in a return")
	}
	ret := b.Ops[len(b.Ops)-1]
	if rn, _ := opName(ret); rn != "return" {
		return nil, ir.OpErrorf(ret, "a body must end in a return")
	}
	if len(ret.Operands) != len(rets) {
		return nil, ir.OpErrorf(ret, "returns %d values but must return %d", len(ret.Operands), len(rets))
	}
	for i, v := range ret.Operands {
		if t := stablehlo.Ranked(v.Type); t == nil || len(t.Shape) != 0 || !sameType(t.Elem, rets[i]) {
			return nil, ir.OpErrorf(ret, "returns '%s' as value #%d but the %s %s 'tensor<%s>' there", ir.TypeString(v.Type), i, opNameOnly(c.op), what, ir.TypeString(rets[i]))
		}
	}
	// Check every op now, so that errors come before anything is emitted.
	type step struct {
		op   *ir.Operation
		f    scalarFunc
		cval ir.Attribute
	}
	var steps []step
	for _, o := range b.Ops[:len(b.Ops)-1] {
		sub := &converter{root: c.root, op: o, repl: c.repl}
		name, ok := opName(o)
		if !ok || len(o.Results) != 1 || len(o.Regions) != 0 {
			return nil, ir.OpErrorf(o, "is not supported in the body of '%s'", c.op.Name)
		}
		rt := stablehlo.Ranked(o.Results[0].Type)
		if rt == nil || len(rt.Shape) != 0 {
			return nil, ir.OpErrorf(o, "the body of '%s' computes on rank-0 tensors, found '%s'", c.op.Name, ir.TypeString(o.Results[0].Type))
		}
		if err := sub.checkType("result", rt, true); err != nil {
			return nil, err
		}
		if name == "constant" {
			a, err := sub.scalarConstant(rt)
			if err != nil {
				return nil, err
			}
			steps = append(steps, step{op: o, cval: a})
			continue
		}
		if _, ok := stablehlo.Arity[name]; !ok {
			return nil, ir.OpErrorf(o, "is not supported in the body of '%s'", c.op.Name)
		}
		for i, v := range o.Operands {
			if err := sub.checkType(fmt.Sprintf("operand #%d", i), v.Type, true); err != nil {
				return nil, err
			}
			if t := stablehlo.Ranked(v.Type); len(t.Shape) != 0 {
				return nil, ir.OpErrorf(o, "the body of '%s' computes on rank-0 tensors, found '%s'", c.op.Name, ir.TypeString(v.Type))
			}
		}
		f, err := sub.scalarBody(name, rt.Elem)
		if err != nil {
			return nil, err
		}
		steps = append(steps, step{op: o, f: f})
	}
	return func(x builder, args []*ir.Value) ([]*ir.Value, error) {
		vals := map[*ir.Value]*ir.Value{}
		for i, a := range b.Args {
			vals[a] = args[i]
		}
		lookup := func(o *ir.Operation, vs []*ir.Value) ([]*ir.Value, error) {
			var out []*ir.Value
			for i, v := range vs {
				s, ok := vals[v]
				if !ok {
					return nil, ir.OpErrorf(o, "operand #%d is defined outside the body of '%s', which is not supported", i, c.op.Name)
				}
				out = append(out, s)
			}
			return out, nil
		}
		for _, s := range steps {
			if s.cval != nil {
				et := stablehlo.Ranked(s.op.Results[0].Type).Elem
				vals[s.op.Results[0]] = x.op("arith.constant", nil, et, ir.NamedAttr{Name: "value", Value: s.cval})
				continue
			}
			operands, err := lookup(s.op, s.op.Operands)
			if err != nil {
				return nil, err
			}
			r, err := s.f(x, operands)
			if err != nil {
				return nil, err
			}
			vals[s.op.Results[0]] = r
		}
		return lookup(ret, ret.Operands)
	}, nil
}

// scalarConstant returns the value of the converted op, a rank-0
// constant, as a scalar attribute of its element type.
func (c *converter) scalarConstant(rt *ir.TensorType) (ir.Attribute, error) {
	d, ok := c.op.Attr("value").(*ir.DenseAttr)
	if !ok {
		return nil, c.errorf("requires a dense 'value'")
	}
	et := rt.Elem
	if !d.IsHex && len(d.Elements) == 1 {
		switch e := d.Elements[0].(type) {
		case ir.IntegerAttr:
			if isFloat(et) {
				return ir.FloatAttr{Value: float64(e.Value), Type: et}, nil
			}
			return ir.IntegerAttr{Value: e.Value, Type: et}, nil
		case ir.FloatAttr:
			return ir.FloatAttr{Value: e.Value, Type: et}, nil
		case ir.BoolAttr:
			v := int64(0)
			if e.Value {
				v = 1
			}
			return ir.IntegerAttr{Value: v, Type: et}, nil
		}
	}
	raw, err := d.RawBytes()
	if err != nil {
		return nil, c.errorf("%v", err)
	}
	switch {
	case isFloat(et) && floatBits(et) == 32 && len(raw) == 4:
		return ir.FloatAttr{Value: float64(math.Float32frombits(byteorder.LittleEndian.Uint32(raw))), Type: et}, nil
	case isFloat(et) && floatBits(et) == 64 && len(raw) == 8:
		return ir.FloatAttr{Value: math.Float64frombits(byteorder.LittleEndian.Uint64(raw)), Type: et}, nil
	case !isFloat(et) && len(raw) >= 1 && len(raw) <= 8:
		var buf [8]byte
		copy(buf[:], raw)
		v := int64(byteorder.LittleEndian.Uint64(buf[:]))
		// Sign-extend from the width held.
		shift := 64 - 8*len(raw)
		return ir.IntegerAttr{Value: v << shift >> shift, Type: et}, nil
	}
	return nil, c.errorf("constant %s is not supported in a body", ir.AttrString(d))
}
