package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// combiner returns the single elementwise op name a reduce body applies
// to its two arguments before returning the result.
func (c *converter) combiner() (string, error) {
	b := c.op.Body()
	if b == nil || len(b.Args) != 2 || len(b.Ops) != 2 {
		return "", c.errorf("only a body of one combining op on its two arguments is supported")
	}
	comb, ret := b.Ops[0], b.Ops[1]
	name, _ := opName(comb)
	rn, _ := opName(ret)
	if _, ok := binary[name]; !ok || rn != "return" || len(comb.Operands) != 2 || len(ret.Operands) != 1 || ret.Operands[0] != comb.Results[0] ||
		!(comb.Operands[0] == b.Args[0] && comb.Operands[1] == b.Args[1] || comb.Operands[0] == b.Args[1] && comb.Operands[1] == b.Args[0]) {
		return "", c.errorf("only a body of one combining op on its two arguments is supported")
	}
	switch name {
	case "add", "multiply", "maximum", "minimum", "and", "or", "xor":
		return name, nil
	}
	return "", c.errorf("'%s' is not an associative combiner", comb.Name)
}

// reduce combines the operand along dimensions into a result filled with
// the (rank-0) init value; the loops are the operand's dimensions.
func (c *converter) reduce(rt *ir.TensorType) error {
	if len(c.op.Operands) != 2 {
		return c.errorf("only a reduce of one operand is supported")
	}
	in, init := stablehlo.Ranked(c.op.Operands[0].Type), stablehlo.Ranked(c.op.Operands[1].Type)
	if len(init.Shape) != 0 || ir.TypeString(init.Elem) != ir.TypeString(in.Elem) || ir.TypeString(rt.Elem) != ir.TypeString(in.Elem) {
		return c.errorf("requires a rank-0 init value and result of the operand's element type")
	}
	n := len(in.Shape)
	dims, ok := c.ints("dimensions")
	if !ok {
		return c.errorf("requires 'dimensions', a list of integers")
	}
	reduced := make([]bool, n)
	for _, d := range dims {
		if d < 0 || int(d) >= n || reduced[d] {
			return c.errorf("dimensions %v are not distinct dimensions of rank %d", dims, n)
		}
		reduced[d] = true
	}
	name, err := c.combiner()
	if err != nil {
		return err
	}
	body, err := c.scalarBody(name, in.Elem)
	if err != nil {
		return err
	}
	om := &ir.AffineMap{NumDims: n, Results: []*ir.AffineExpr{}}
	iters := make([]string, n)
	var kept []int64
	for d := 0; d < n; d++ {
		iters[d] = "reduction"
		if !reduced[d] {
			iters[d] = "parallel"
			om.Results = append(om.Results, dim(d))
			kept = append(kept, in.Shape[d])
		}
	}
	if len(kept) != len(rt.Shape) {
		return c.errorf("reducing %v of '%s' does not give '%s'", dims, ir.TypeString(in), ir.TypeString(rt))
	}
	for i, s := range kept {
		if s != rt.Shape[i] {
			return c.errorf("reducing %v of '%s' does not give '%s'", dims, ir.TypeString(in), ir.TypeString(rt))
		}
	}
	empty := c.emit(ir.NewOp("tensor.empty", nil, []ir.Type{rt}, nil)).Results[0]
	m := len(rt.Shape)
	par := make([]string, m)
	for i := range par {
		par[i] = "parallel"
	}
	filled, err := c.genericOp(c.op.Operands[1:], []*ir.AffineMap{{NumDims: m, Results: []*ir.AffineExpr{}}, identity(m)}, empty, par,
		func(x builder, a []*ir.Value) (*ir.Value, error) { return a[0], nil })
	if err != nil {
		return err
	}
	r, err := c.genericOp(c.op.Operands[:1], []*ir.AffineMap{identity(n), om}, filled, iters,
		func(x builder, a []*ir.Value) (*ir.Value, error) { return body(x, []*ir.Value{a[1], a[0]}) })
	if err != nil {
		return err
	}
	c.replace(r)
	return nil
}
