package loopnest

import (
	"fmt"
	"slices"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// Elementwise consumers of a reduction (a dense layer's bias add and relu
// after its matmul, a scale after a row sum) are folded into the
// reduction's dispatch as its epilogue (see Attr), as IREE's dispatch
// creation fuses them: the consumer's dispatch would read back the whole
// result the reduction just wrote, and write it once more.
//
// A consumer folds when it is the only user of the result, is a structured
// op with parallel loops only, one result shaped like the reduction's, and
// reads the result at its own output's map (a permutation of its loops);
// its other tensors become epilogue inputs, read at the reduction's
// parallel loops (they may only broadcast, not window: each index a loop
// or a constant). Consumers fold repeatedly: the next one may read the
// previous one's result. The reduction must have one result, indexed by
// its parallel loops alone, and every target of the dispatch must compile
// epilogues (target.Target.LoopNestEpilogues); otherwise each op keeps its
// own dispatch.

// fused is one elementwise op folded into an epilogue: the op, its
// generalized form and its definition.
type fused struct {
	op, g *ir.Operation
	def   *linalg.Definition
}

// epiloguesFor reports whether every target compiles kernels with
// epilogues.
func epiloguesFor(targets []*hal.ExecutableTargetAttr) bool {
	for _, t := range targets {
		if tg, ok := target.Lookup(t.Backend); !ok || !tg.LoopNestEpilogues {
			return false
		}
	}
	return len(targets) > 0
}

// epilogueChain returns the elementwise ops that fold into op's dispatch,
// in order (none when op is not a reduction with one result indexed by
// its parallel loops).
func epilogueChain(fn, op *ir.Operation) []fused {
	if !IsStructured(op) || op.Name == "linalg.fill" || len(op.Results) != 1 || len(linalg.Outs(op)) != 1 {
		return nil
	}
	def, err := linalg.DefinitionOf(op)
	if err != nil || len(reductions(def.Iterators)) == 0 {
		return nil
	}
	out := def.Maps[len(def.Maps)-1]
	for _, e := range out.Results {
		if e.Kind != ir.AffineDim {
			return nil
		}
	}
	if tt, ok := op.Results[0].Type.(*ir.TensorType); !ok || tt.Unranked {
		return nil
	}
	var chain []fused
	for v := op.Results[0]; ; {
		f, ok := epilogueStep(fn, v, op.Block)
		if !ok {
			return chain
		}
		chain = append(chain, f)
		v = f.op.Results[0]
	}
}

// epilogueStep returns the op that folds into an epilogue after the value
// v: the only user of v, in block, when it is an elementwise op over v's
// shape that reads v at its output's map.
func epilogueStep(fn *ir.Operation, v *ir.Value, block *ir.Block) (fused, bool) {
	var user *ir.Operation
	single := true
	ir.Walk(fn, func(o *ir.Operation) bool {
		if slices.Contains(o.Operands, v) {
			single = single && (user == nil || user == o)
			user = o
		}
		return single
	})
	if !single || user == nil || user.Block != block || !IsStructured(user) || user.Name == "linalg.fill" ||
		len(user.Results) != 1 || len(linalg.Outs(user)) != 1 || slices.Contains(linalg.Outs(user), v) {
		return fused{}, false
	}
	def, err := linalg.DefinitionOf(user)
	if err != nil || len(reductions(def.Iterators)) > 0 {
		return fused{}, false
	}
	ins := linalg.Ins(user)
	outMap := def.Maps[len(ins)]
	if !permutation(outMap) {
		return fused{}, false
	}
	vt := v.Type.(*ir.TensorType)
	rt, ok := user.Results[0].Type.(*ir.TensorType)
	if !ok || rt.Unranked || !slices.Equal(vt.Shape, rt.Shape) {
		return fused{}, false
	}
	for i, x := range ins {
		if x == v {
			if def.Maps[i].String() != outMap.String() {
				return fused{}, false // read transposed, or broadcast
			}
			continue
		}
		if tt, ok := x.Type.(*ir.TensorType); ok && !tt.Unranked {
			for _, e := range def.Maps[i].Results {
				if e.Kind != ir.AffineDim && e.Kind != ir.AffineConst {
					return fused{}, false
				}
			}
			continue
		}
		if !scalarConstant(x) {
			return fused{}, false
		}
	}
	g, err := linalg.Generalize(user)
	if err != nil || len(g.Regions) != 1 || len(g.Regions[0].Blocks) != 1 {
		return fused{}, false
	}
	blk := g.Regions[0].Blocks[0]
	for _, o := range blk.Ops {
		if o.Name == "linalg.yield" || o.Name == "linalg.index" {
			continue
		}
		if !bodyOp(o) {
			return fused{}, false
		}
		for _, x := range o.Operands {
			if (x.Op == nil || x.Op.Block != blk) && x.Block != blk && !scalarConstant(x) {
				return fused{}, false
			}
		}
	}
	// An output the body reads becomes an epilogue input; a zero fill
	// folded into its users has no buffer to read.
	if out := linalg.Outs(user)[0]; ir.HasUses(g, blk.Args[len(ins)]) && zeroFill(out) != nil {
		return fused{}, false
	}
	return fused{op: user, g: g, def: def}, true
}

// permutation reports whether m's results are its dimensions, each once.
func permutation(m *ir.AffineMap) bool {
	if len(m.Results) != m.NumDims || m.NumSyms != 0 {
		return false
	}
	seen := make([]bool, m.NumDims)
	for _, e := range m.Results {
		if e.Kind != ir.AffineDim || seen[e.Pos] {
			return false
		}
		seen[e.Pos] = true
	}
	return true
}

// buildEpilogue makes k's epilogue from the chain folded into its
// dispatch after src, the result of the op k computes: the function (parallel indices, accumulator, epilogue input
// elements) -> stored value, named name, and the epilogue inputs (added
// to k with their maps over k's loops, as the values the dispatch
// passes). k's output becomes the last op's result type, with the
// accumulator's type as Acc when they differ.
func buildEpilogue(k *Kernel, src *ir.Value, chain []fused, name string) (*ir.Operation, []*ir.Value, error) {
	pars := k.Parallel()
	parArg := map[int]int{}
	for i, l := range pars {
		parArg[l] = i
	}
	prodMap := k.Outputs[0].Map
	// substs[c][j] is the kernel loop that loop j of chain[c] runs as: the
	// loop indexing the same dimension of the result.
	substs := make([][]int, len(chain))
	for c, f := range chain {
		outMap := f.def.Maps[len(linalg.Ins(f.op))]
		substs[c] = make([]int, outMap.NumDims)
		for r, e := range outMap.Results {
			substs[c][e.Pos] = prodMap.Results[r].Pos
		}
	}
	compose := func(c int, m *ir.AffineMap) *ir.AffineMap {
		out := &ir.AffineMap{NumDims: len(k.Ranges), Results: []*ir.AffineExpr{}}
		for _, e := range m.Results {
			if e.Kind == ir.AffineDim {
				e = &ir.AffineExpr{Kind: ir.AffineDim, Pos: substs[c][e.Pos]}
			}
			out.Results = append(out.Results, e)
		}
		return out
	}
	// The epilogue inputs, each (value, map) once.
	type key struct {
		v *ir.Value
		m string
	}
	index := map[key]int{}
	var vals []*ir.Value
	// argOf[c][a] is the epilogue input that argument a of chain[c]'s
	// body reads (-1: the accumulated value or a constant).
	argOf := make([][]int, len(chain))
	prev := src
	for c, f := range chain {
		ins, outs := linalg.Ins(f.op), linalg.Outs(f.op)
		blk := f.g.Regions[0].Blocks[0]
		argOf[c] = make([]int, len(blk.Args))
		for a := range blk.Args {
			argOf[c][a] = -1
			var v *ir.Value
			var m *ir.AffineMap
			switch {
			case a < len(ins) && ins[a] == prev:
				continue
			case a < len(ins):
				if _, ok := ins[a].Type.(*ir.TensorType); !ok {
					continue // a scalar constant, cloned into the body
				}
				v, m = ins[a], f.def.Maps[a]
			default:
				if !ir.HasUses(f.g, blk.Args[a]) {
					continue
				}
				v, m = outs[0], f.def.Maps[a]
			}
			km := compose(c, m)
			kk := key{v, km.String()}
			i, ok := index[kk]
			if !ok {
				i = len(vals)
				index[kk] = i
				vals = append(vals, v)
				k.EpilogueInputs = append(k.EpilogueInputs, Operand{Type: v.Type.(*ir.TensorType), Map: km})
			}
			argOf[c][a] = i
		}
		prev = f.op.Results[0]
	}

	acc := k.Outputs[0].Type.Elem
	last := chain[len(chain)-1].op.Results[0].Type.(*ir.TensorType)
	ft := &ir.FunctionType{Results: []ir.Type{last.Elem}}
	for range pars {
		ft.Inputs = append(ft.Inputs, ir.IndexType{})
	}
	ft.Inputs = append(ft.Inputs, acc)
	for _, o := range k.EpilogueInputs {
		ft.Inputs = append(ft.Inputs, o.Type.Elem)
	}
	fn := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
		{Name: "sym_visibility", Value: ir.StringAttr{Value: "private"}},
		{Name: "sym_name", Value: ir.StringAttr{Value: name}},
		{Name: "function_type", Value: ir.TypeAttr{Type: ft}},
	})
	fb := fn.AddRegion().AddBlock(ft.Inputs...)
	for i, l := range pars {
		fb.Args[i].Name = fmt.Sprintf("d%d", l)
	}
	fb.Args[len(pars)].Name = "acc"
	cur := fb.Args[len(pars)]
	var yield *ir.Operation
	for c, f := range chain {
		ins := linalg.Ins(f.op)
		blk := f.g.Regions[0].Blocks[0]
		mapping := map[*ir.Value]*ir.Value{}
		for a, arg := range blk.Args {
			switch {
			case argOf[c][a] >= 0:
				mapping[arg] = fb.Args[len(pars)+1+argOf[c][a]]
			case a < len(ins) && scalarConstant(ins[a]):
				n := ir.Clone(ins[a].Op, nil)
				fb.Append(n)
				mapping[arg] = n.Results[0]
			case a < len(ins):
				mapping[arg] = cur
			}
		}
		subst := substs[c]
		y, rets, err := inlineBody(blk, fb, mapping, func(dim int) *ir.Value { return fb.Args[parArg[subst[dim]]] })
		if err != nil {
			return nil, nil, err
		}
		yield, cur = y, rets[0]
	}
	r := ir.NewOp("func.return", []*ir.Value{cur}, nil, nil)
	r.Pos = yield.Pos
	fb.Append(r)

	k.Epilogue = name
	if !ir.TypesEqual(last.Elem, acc) {
		k.Outputs[0].Acc = acc
	}
	k.Outputs[0].Type = last
	return fn, vals, nil
}
