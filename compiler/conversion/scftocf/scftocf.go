// Package scftocf lowers structured control flow (scf.for, scf.if,
// scf.while, scf.execute_region) to blocks and cf branches, as MLIR's
// SCFToControlFlow conversion does, so that host code generation sees
// only branches between blocks of a function.
//
// Each op splits its block at the op: the ops after it move to a
// continuation block whose arguments are the op's results, and the op's
// regions are inlined between the two, their scf.yield / scf.condition
// terminators becoming branches:
//
//	scf.for:   br ^cond(lb, inits); ^cond(iv, iters): cond_br (iv < ub),
//	           ^body(iv, iters), ^cont(iters); the body's yield adds the
//	           step and branches back to ^cond.
//	scf.if:    cond_br c, ^then, ^else (or ^cont when there is no else);
//	           each yield branches to ^cont with its values.
//	scf.while: br ^before(inits); scf.condition(c, args) is
//	           cond_br c, ^after(args), ^cont(args); the after region's
//	           yield branches back to ^before.
//	scf.execute_region: br ^region; its yields branch to ^cont.
//
// Nested ops are lowered first, so an op's regions may already hold
// several blocks when it is lowered.
package scftocf

import (
	"github.com/goiree/goiree/compiler/dialect/util"
	"github.com/goiree/goiree/compiler/ir"
)

// isSCF reports whether op is one of the ops lowered here.
func isSCF(op *ir.Operation) bool {
	switch op.Name {
	case "scf.for", "scf.if", "scf.while", "scf.execute_region":
		return true
	}
	return false
}

// Run lowers the scf ops of the host functions in root (a module, or a
// function). Only host code is lowered: scf inside the region of any
// other op (a flow.dispatch.region's body, a linalg body, an
// executable's functions) is device code and left to its code generator.
func Run(root *ir.Operation) error {
	var ops []*ir.Operation
	var visit func(o *ir.Operation)
	visit = func(o *ir.Operation) {
		for _, r := range o.Regions {
			for _, b := range r.Blocks {
				for _, c := range b.Ops {
					if isSCF(c) {
						ops = append(ops, c)
						visit(c)
					}
				}
			}
		}
	}
	if util.IsHostFunction(root) {
		visit(root)
	} else if body := root.Body(); body != nil {
		for _, fn := range body.Ops {
			if util.IsHostFunction(fn) {
				visit(fn)
			}
		}
	}
	// Reverse preorder: an op's nested ops are lowered before it.
	for i := len(ops) - 1; i >= 0; i-- {
		if err := lower(ops[i]); err != nil {
			return err
		}
	}
	return nil
}

func lower(op *ir.Operation) error {
	if op.Block == nil || op.Block.Region == nil {
		return ir.OpErrorf(op, "'%s' is not inside a region", op.Name)
	}
	switch op.Name {
	case "scf.for":
		return lowerFor(op)
	case "scf.if":
		return lowerIf(op)
	case "scf.while":
		return lowerWhile(op)
	}
	return lowerExecuteRegion(op)
}

// split moves the ops after op in its block to a new block, placed right
// after it, whose arguments replace op's results. op itself is removed.
func split(op *ir.Operation) (before, cont *ir.Block) {
	b := op.Block
	r := b.Region
	cont = &ir.Block{Region: r}
	for i, res := range op.Results {
		a := &ir.Value{Type: res.Type, Block: cont, Index: i, Name: res.Name, Pos: res.Pos}
		cont.Args = append(cont.Args, a)
	}
	idx := indexOfOp(b, op)
	rest := append([]*ir.Operation(nil), b.Ops[idx+1:]...)
	b.Ops = b.Ops[:idx]
	op.Block = nil
	for _, o := range rest {
		cont.Append(o)
	}
	insertBlocksAfter(r, b, cont)
	// Uses of the results may be anywhere the op dominated: later in the
	// block (now cont) and in the blocks it branches to.
	for i, res := range op.Results {
		replaceUses(r.Op, res, cont.Args[i])
	}
	return b, cont
}

func indexOfOp(b *ir.Block, op *ir.Operation) int {
	for i, o := range b.Ops {
		if o == op {
			return i
		}
	}
	return -1
}

// insertBlocksAfter inserts blocks into r right after block at.
func insertBlocksAfter(r *ir.Region, at *ir.Block, blocks ...*ir.Block) {
	i := 0
	for i < len(r.Blocks) && r.Blocks[i] != at {
		i++
	}
	out := append([]*ir.Block(nil), r.Blocks[:i+1]...)
	out = append(out, blocks...)
	out = append(out, r.Blocks[i+1:]...)
	r.Blocks = out
	for _, b := range blocks {
		b.Region = r
	}
}

// replaceUses rewrites every use of old inside root (operands of nested
// ops in any region) with new.
func replaceUses(root *ir.Operation, old, new *ir.Value) {
	ir.ReplaceAllUsesWith(root, old, new)
}

// inline moves the blocks of region src into the region of before, right
// after it, and returns them.
func inline(src *ir.Region, before *ir.Block) []*ir.Block {
	blocks := src.Blocks
	src.Blocks = nil
	insertBlocksAfter(before.Region, before, blocks...)
	return blocks
}

// terminators returns the terminators named name of the given blocks.
func terminators(blocks []*ir.Block, name string) []*ir.Operation {
	var out []*ir.Operation
	for _, b := range blocks {
		if t := b.Terminator(); t != nil && t.Name == name {
			out = append(out, t)
		}
	}
	return out
}

func br(pos ir.Pos, dest *ir.Block, args []*ir.Value) *ir.Operation {
	op := ir.NewOp("cf.br", append([]*ir.Value(nil), args...), nil, nil)
	op.Successors = []*ir.Block{dest}
	op.Pos = pos
	return op
}

func condBr(pos ir.Pos, cond *ir.Value, t *ir.Block, targs []*ir.Value, f *ir.Block, fargs []*ir.Value) *ir.Operation {
	operands := append([]*ir.Value{cond}, targs...)
	operands = append(operands, fargs...)
	op := ir.NewOp("cf.cond_br", operands, nil, []ir.NamedAttr{{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(targs), len(fargs))}})
	op.Successors = []*ir.Block{t, f}
	op.Pos = pos
	return op
}

// replaceTerminator swaps t for repl at the end of its block.
func replaceTerminator(t, repl *ir.Operation) {
	b := t.Block
	t.Remove()
	b.Append(repl)
}

func lowerFor(op *ir.Operation) error {
	if len(op.Operands) < 3 || len(op.Regions) != 1 || len(op.Regions[0].Blocks) == 0 {
		return ir.OpErrorf(op, "malformed scf.for")
	}
	lb, ub, step := op.Operands[0], op.Operands[1], op.Operands[2]
	inits := op.Operands[3:]
	entry := op.Regions[0].Blocks[0]
	if len(entry.Args) != 1+len(inits) {
		return ir.OpErrorf(op, "scf.for body takes %d arguments, want the induction variable and %d iter_args", len(entry.Args), len(inits))
	}
	before, cont := split(op)
	// ^cond(iv, iters...): the loop test.
	cond := &ir.Block{}
	for i, a := range entry.Args {
		cond.Args = append(cond.Args, &ir.Value{Type: a.Type, Block: cond, Index: i, Name: a.Name, Pos: a.Pos})
	}
	insertBlocksAfter(before.Region, before, cond)
	body := inline(op.Regions[0], cond)
	for _, y := range terminators(body, "scf.yield") {
		iv := entry.Args[0]
		next := ir.NewOp("arith.addi", []*ir.Value{iv, step}, []ir.Type{iv.Type}, nil)
		next.Pos = y.Pos
		y.Block.InsertBefore(y, next)
		replaceTerminator(y, br(y.Pos, cond, append([]*ir.Value{next.Results[0]}, y.Operands...)))
	}
	pred := int64(2) // slt
	if op.HasAttr("unsignedCmp") {
		pred = 6 // ult
	}
	cmp := ir.NewOp("arith.cmpi", []*ir.Value{cond.Args[0], ub}, []ir.Type{ir.IntegerType{Width: 1}}, []ir.NamedAttr{{Name: "predicate", Value: ir.IntegerAttr{Value: pred, Type: ir.I64}}})
	cmp.Pos = op.Pos
	cond.Append(cmp)
	cond.Append(condBr(op.Pos, cmp.Results[0], entry, cond.Args, cont, cond.Args[1:]))
	before.Append(br(op.Pos, cond, append([]*ir.Value{lb}, inits...)))
	return nil
}

func lowerIf(op *ir.Operation) error {
	if len(op.Operands) != 1 || len(op.Regions) != 2 || len(op.Regions[0].Blocks) == 0 {
		return ir.OpErrorf(op, "malformed scf.if")
	}
	c := op.Operands[0]
	thenR, elseR := op.Regions[0], op.Regions[1]
	before, cont := split(op)
	// Inline else first so that then's blocks come before it.
	var elseEntry *ir.Block
	if len(elseR.Blocks) > 0 {
		elseBlocks := inline(elseR, before)
		elseEntry = elseBlocks[0]
		for _, y := range terminators(elseBlocks, "scf.yield") {
			replaceTerminator(y, br(y.Pos, cont, y.Operands))
		}
	} else if len(op.Results) > 0 {
		return ir.OpErrorf(op, "scf.if with results needs an else region")
	}
	thenBlocks := inline(thenR, before)
	for _, y := range terminators(thenBlocks, "scf.yield") {
		replaceTerminator(y, br(y.Pos, cont, y.Operands))
	}
	if elseEntry == nil {
		elseEntry = cont
	}
	before.Append(condBr(op.Pos, c, thenBlocks[0], nil, elseEntry, nil))
	return nil
}

func lowerWhile(op *ir.Operation) error {
	if len(op.Regions) != 2 || len(op.Regions[0].Blocks) == 0 || len(op.Regions[1].Blocks) == 0 {
		return ir.OpErrorf(op, "malformed scf.while")
	}
	inits := op.Operands
	beforeR, afterR := op.Regions[0], op.Regions[1]
	before, cont := split(op)
	afterBlocks := inline(afterR, before)
	beforeBlocks := inline(beforeR, before)
	for _, t := range terminators(beforeBlocks, "scf.condition") {
		if len(t.Operands) == 0 {
			return ir.OpErrorf(t, "scf.condition needs a condition")
		}
		args := t.Operands[1:]
		replaceTerminator(t, condBr(t.Pos, t.Operands[0], afterBlocks[0], args, cont, args))
	}
	for _, y := range terminators(afterBlocks, "scf.yield") {
		replaceTerminator(y, br(y.Pos, beforeBlocks[0], y.Operands))
	}
	before.Append(br(op.Pos, beforeBlocks[0], inits))
	return nil
}

func lowerExecuteRegion(op *ir.Operation) error {
	if len(op.Regions) != 1 || len(op.Regions[0].Blocks) == 0 {
		return ir.OpErrorf(op, "malformed scf.execute_region")
	}
	before, cont := split(op)
	blocks := inline(op.Regions[0], before)
	for _, y := range terminators(blocks, "scf.yield") {
		replaceTerminator(y, br(y.Pos, cont, y.Operands))
	}
	before.Append(br(op.Pos, blocks[0], nil))
	return nil
}
