package tosatolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/tosa"
	"github.com/goiree/goiree/compiler/ir"
)

// extractBool emits, before the op at, a tensor.extract of the single
// element of the tensor<i1> v.
func extractBool(at *ir.Operation, v *ir.Value) *ir.Value {
	operands := []*ir.Value{v}
	for range tosa.Ranked(v.Type).Shape {
		z := ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(0)}})
		z.Pos = at.Pos
		at.Block.InsertBefore(at, z)
		operands = append(operands, z.Results[0])
	}
	e := ir.NewOp("tensor.extract", operands, []ir.Type{ir.I1}, nil)
	e.Pos = at.Pos
	at.Block.InsertBefore(at, e)
	return e.Results[0]
}

// retarget replaces the tosa.yield ending block b by name, built from
// the yielded values (after the values extra returns, if any).
func retarget(b *ir.Block, name string, extra func(y *ir.Operation) []*ir.Value) {
	y := b.Ops[len(b.Ops)-1]
	operands := y.Operands
	if extra != nil {
		operands = extra(y)
	}
	n := ir.NewOp(name, operands, nil, nil)
	n.Pos = y.Pos
	b.InsertBefore(y, n)
	y.Remove()
}

// moveRegions hands the converted op's regions to n.
func (c *converter) moveRegions(n *ir.Operation) {
	for _, r := range c.op.Regions {
		r.Op = n
	}
	n.Regions = c.op.Regions
	c.op.Regions = nil
}

// replaceAll makes n's results the converted op's and removes the op.
func (c *converter) replaceAll(n *ir.Operation) {
	for i, r := range c.op.Results {
		n.Results[i].Name = r.Name
		ir.ReplaceAllUsesWith(c.root, r, n.Results[i])
	}
	c.op.Remove()
}

func (c *converter) resultTypes() []ir.Type {
	var ts []ir.Type
	for _, r := range c.op.Results {
		ts = append(ts, r.Type)
	}
	return ts
}

// condIf lowers tosa.cond_if to scf.if; the earlier era's region
// arguments are replaced by the values the op passed them.
func (c *converter) condIf() error {
	cond := extractBool(c.op, c.op.Operands[0])
	n := ir.NewOp("scf.if", []*ir.Value{cond}, c.resultTypes(), nil)
	for _, r := range c.op.Regions {
		b := r.Blocks[0]
		for j, a := range b.Args {
			ir.ReplaceAllUsesWith(c.root, a, c.op.Operands[1+j])
		}
		b.Args = nil
		retarget(b, "scf.yield", nil)
	}
	c.moveRegions(n)
	c.emit(n)
	c.replaceAll(n)
	return nil
}

// whileLoop lowers tosa.while_loop to scf.while: the cond region ends in
// scf.condition of its yielded boolean, forwarding the loop-carried
// values, and the body region in scf.yield.
func (c *converter) whileLoop() error {
	before, after := c.op.Regions[0].Blocks[0], c.op.Regions[1].Blocks[0]
	retarget(before, "scf.condition", func(y *ir.Operation) []*ir.Value {
		return append([]*ir.Value{extractBool(y, y.Operands[0])}, before.Args...)
	})
	retarget(after, "scf.yield", nil)
	n := ir.NewOp("scf.while", append([]*ir.Value(nil), c.op.Operands...), c.resultTypes(), nil)
	c.moveRegions(n)
	c.emit(n)
	c.replaceAll(n)
	return nil
}
