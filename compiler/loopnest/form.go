// Package loopnest forms dispatches from linalg structured ops: each op
// (generalized to linalg.generic) becomes a generated hal.executable whose
// entry function is a loop-nest kernel (see Attr for the contract the
// targets compile) over its tensors, with the op's scalar body as a
// private function, and the op is replaced by a flow.dispatch of it.
// tensor.extract_slice and tensor.insert_slice become copy kernels over
// the slice; an insert_slice's dispatch result is tied to its destination,
// whose buffer the kernel updates in place.
//
// A body may read a tensor from outside the op at indices it computes
// (tensor.extract, as gathers do): the tensor becomes an indexed input of
// the kernel, read with one direct load per extract, every index clamped
// into its dimension first (indexed.go).
//
// A reduction's elementwise consumers (a dense layer's bias add and relu)
// fold into its dispatch as the kernel's epilogue when its targets
// compile epilogues (see epilogue.go); every other linalg op is its own
// dispatch. Dynamic dimensions reach the kernel as push constants.
//
// A flow.dispatch.region the program writes around linalg ops is
// dissolved into its function first (InlineStructuredRegions, a
// global-optimization pass), so its linalg ops are dispatched like any
// other; Form refuses a linalg op still nested in another op.
package loopnest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/dialect/util"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// MaxWorkgroups bounds the number of workgroups a kernel's first parallel
// loop is split into for a target that sets no
// target.Target.LoopNestWorkgroups (a CPU's threads); the tile is the
// loop's range over the budget, rounded up (see gridFor).
const MaxWorkgroups = 64

// IsStructured reports whether op is a linalg structured op this package
// turns into a dispatch (slices are dispatched too; see IsDispatched).
func IsStructured(op *ir.Operation) bool {
	if op.Name == "linalg.generic" {
		return true
	}
	for _, n := range linalg.NamedOps {
		if op.Name == n {
			return true
		}
	}
	return false
}

// IsDispatched reports whether Form turns op into a dispatch: a linalg
// structured op, a tensor.extract_slice, or a tensor.insert_slice (written
// in place into its destination).
func IsDispatched(op *ir.Operation) bool {
	return IsStructured(op) || op.Name == "tensor.insert_slice" || op.Name == "tensor.extract_slice"
}

// Form replaces every linalg structured op and tensor slice in the host
// functions of module (func.func, util.func, util.initializer) by a
// dispatch of a generated executable with one variant per target (the
// registry's fallback target when targets is empty). It returns the number
// of dispatches created.
func Form(module *ir.Operation, targets []*hal.ExecutableTargetAttr) (int, error) {
	body := module.Body()
	if body == nil {
		return 0, fmt.Errorf("module has no body")
	}
	total := 0
	for _, fn := range append([]*ir.Operation(nil), body.Ops...) {
		if !util.IsHostFunction(fn) || fn.Body() == nil {
			continue
		}
		prefix := fn.SymName()
		if prefix == "" {
			prefix = "initializer"
		}
		next := 0
		var ops []*ir.Operation
		var nested *ir.Operation
		ir.Walk(fn, func(o *ir.Operation) bool {
			if IsDispatched(o) {
				if o.ParentOp() == fn {
					if !foldedFill(fn, o) {
						ops = append(ops, o)
					}
				} else if nested == nil && IsStructured(o) {
					nested = o
				}
				return false
			}
			// Slices inside a program's own dispatch regions are device
			// code, left to that region's outlining.
			return true
		})
		flattenTensorReads(ops)
		captureScalars(ops)
		if nested != nil {
			// Inside a flow.dispatch.region (or any other op) the linalg op
			// would be outlined into an executable no target compiles.
			return total, ir.OpErrorf(nested, "linalg ops are dispatched only from a function's body; this one is inside '%s'", nested.ParentOp().Name)
		}
		if len(ops) > 0 && len(targets) == 0 {
			t, err := target.Fallback()
			if err != nil {
				return total, ir.OpErrorf(ops[0], "cannot form a dispatch: %v", err)
			}
			targets = []*hal.ExecutableTargetAttr{t}
		}
		// Row groups (see groupform.go) are formed at their last op,
		// their other ops with it.
		groupOf := map[*ir.Operation][]*ir.Operation{}
		grouped := map[*ir.Operation]bool{}
		if groupsFor(targets) {
			for _, g := range rowGroups(fn, ops) {
				groupOf[g[len(g)-1]] = g
				for _, m := range g {
					grouped[m] = true
				}
			}
			ops = slices.DeleteFunc(ops, func(o *ir.Operation) bool { return grouped[o] && groupOf[o] == nil })
		}
		// The elementwise consumers folded into a reduction's epilogue
		// (see epilogue.go) are formed with it, not on their own.
		chains := map[*ir.Operation][]fused{}
		if epiloguesFor(targets) {
			folded := map[*ir.Operation]bool{}
			for _, op := range ops {
				if folded[op] {
					continue
				}
				c := epilogueChain(fn, op)
				// Two reductions' chains can meet at an op that reads
				// both (the sum of two convolutions' squares): it folds
				// into the first chain only, and the second stops
				// before it, its result becoming an input of the first's
				// epilogue.
				for i, f := range c {
					if folded[f.op] || grouped[f.op] {
						c = c[:i]
						break
					}
				}
				if len(c) > 0 {
					chains[op] = c
					for _, f := range c {
						folded[f.op] = true
					}
				}
			}
			ops = slices.DeleteFunc(ops, func(o *ir.Operation) bool { return folded[o] })
		}
		for _, op := range ops {
			for _, t := range targets {
				if tg, ok := target.Lookup(t.Backend); !ok || !tg.LoopNests {
					return total, ir.OpErrorf(op, "cannot compile '%s' for target backend '%s': %s", op.Name, t.Backend, loopNestBackends())
				}
			}
			name := fmt.Sprintf("%s_linalg_%d", prefix, next)
			for ir.LookupSymbolIn(module, name) != nil {
				name += "_"
			}
			if g := groupOf[op]; g != nil {
				if err := formGroup(module, fn, g, name, targets); err != nil {
					return total, err
				}
				next++
				total++
				continue
			}
			formed, err := formOne(module, fn, op, name, targets, chains[op])
			if err != nil {
				return total, err
			}
			if formed {
				next++
				total++
			}
		}
		removeDeadFills(fn)
		removeDeadEmpties(fn)
	}
	return total, nil
}

// loopNestBackends says which registered backends compile linalg ops.
func loopNestBackends() string {
	var names []string
	for _, t := range target.All() {
		if t.LoopNests {
			names = append(names, t.Name)
		}
	}
	if len(names) == 0 {
		return "no registered target generates code for linalg ops"
	}
	return "linalg ops have a code generator only for " + strings.Join(names, ", ") + " so far"
}

// pushable reports whether a scalar fits one 32-bit push constant the way
// the VM passes primitives (f32 bits, integers of 32 bits or fewer, index
// truncated).
func pushable(t ir.Type) bool {
	switch t := t.(type) {
	case ir.FloatType:
		return t.Name == "f32"
	case ir.IntegerType:
		return t.Width <= 32
	case ir.IndexType:
		return true
	}
	return false
}

// removeDeadEmpties drops tensor.empty ops whose only users were inits
// that the kernels do not read.
func removeDeadEmpties(fn *ir.Operation) {
	var empties []*ir.Operation
	ir.Walk(fn, func(o *ir.Operation) bool {
		if o.Name == "tensor.empty" {
			empties = append(empties, o)
		}
		return true
	})
	for _, e := range empties {
		if !ir.HasUses(fn, e.Results[0]) {
			e.Remove()
		}
	}
}

// formOne outlines one structured op or insert_slice, and reports whether
// it formed a dispatch (an insert_slice of all of its destination is
// replaced by its source instead).
func formOne(module, fn, op *ir.Operation, name string, targets []*hal.ExecutableTargetAttr, chain []fused) (bool, error) {
	switch op.Name {
	case "tensor.insert_slice":
		return formInsertSlice(module, fn, op, name, targets)
	case "tensor.extract_slice":
		return formExtractSlice(module, fn, op, name, targets)
	}
	return true, formStructured(module, fn, op, name, targets, chain)
}

// formStructured outlines one linalg structured op, with the elementwise
// ops of chain (see epilogueChain) as its kernel's epilogue.
func formStructured(module, fn, op *ir.Operation, name string, targets []*hal.ExecutableTargetAttr, chain []fused) error {
	st, err := kernelOf(fn, op, name)
	if err != nil {
		return err
	}
	k, dv, scalarConsts := st.k, st.dv, st.consts
	if len(chain) > 0 {
		if dv.epilogue, dv.epis, err = buildEpilogue(k, op.Results[0], chain, name+"_epilogue"); err != nil {
			return err
		}
		// The kernel stores into a new tensor shaped like the last
		// op's output.
		last := chain[len(chain)-1].op
		dv.replace = last
		dv.outs = []*ir.Value{linalg.Outs(last)[0]}
		if empty := zeroFill(dv.outs[0]); empty != nil && foldedFill(fn, dv.outs[0].Op) {
			dv.outs[0] = empty
		}
		for _, f := range chain {
			for _, v := range linalg.Ins(f.op) {
				if scalarConstant(v) {
					scalarConsts = append(scalarConsts, v.Op)
				}
			}
		}
	}
	if err := emitDispatch(module, fn, op, name, targets, k, st.body, dv); err != nil {
		return err
	}
	for _, f := range chain {
		f.op.Remove()
	}
	removeUnusedConstants(fn, scalarConsts)
	return nil
}

// removeUnusedConstants removes the scalar constants that kernel bodies
// took copies of and that nothing in fn uses any more.
func removeUnusedConstants(fn *ir.Operation, consts []*ir.Operation) {
	for _, sc := range consts {
		if sc.Block != nil && !ir.HasUses(fn, sc.Results[0]) {
			sc.Remove()
		}
	}
}

// structuredKernel is the kernel of one linalg structured op before it is
// dispatched: the contract's description, the body function, the host
// values the dispatch takes, and the scalar constants cloned into the body
// (removed from the host function once unused).
type structuredKernel struct {
	k      *Kernel
	body   *ir.Operation
	dv     dispatchValues
	consts []*ir.Operation
}

// kernelOf describes the loop-nest kernel of the structured op op of fn,
// whose body function is named name + "_body"; it changes nothing in fn.
func kernelOf(fn, op *ir.Operation, name string) (*structuredKernel, error) {
	g, err := linalg.Generalize(op)
	if err != nil {
		return nil, err
	}
	def, err := linalg.DefinitionOf(g)
	if err != nil {
		return nil, err
	}
	ranges, err := def.LoopRanges(g)
	if err != nil {
		return nil, err
	}
	for i, v := range g.Operands {
		if _, ok := v.Type.(*ir.MemRefType); ok {
			return nil, ir.OpErrorf(op, "operand #%d is a memref; only linalg ops on tensors can be dispatched", i)
		}
		if tt, ok := v.Type.(*ir.TensorType); ok && tt.Unranked {
			return nil, ir.OpErrorf(op, "operand #%d is unranked; linalg dispatches need ranked tensors", i)
		}
	}
	// outs is a copy: a folded fill's output is replaced by its empty
	// tensor below without touching g's operands.
	ins, outs := linalg.Ins(g), slices.Clone(linalg.Outs(g))
	blk := g.Regions[0].Blocks[0]
	k := &Kernel{Body: name + "_body", Ranges: ranges, Iterators: def.Iterators}
	// Inputs: tensors become bindings; scalars must be constants, which
	// are cloned into the body.
	var inVals, scalarVals []*ir.Value
	var scalarConsts []*ir.Operation
	scalarArg := map[int]*ir.Operation{}
	for i, v := range ins {
		if tt, ok := v.Type.(*ir.TensorType); ok {
			k.Inputs = append(k.Inputs, Operand{Type: tt, Map: def.Maps[i]})
			inVals = append(inVals, v)
			continue
		}
		if v.Op != nil && v.Op.Name == "arith.constant" {
			// Constants are cloned into the body rather than passed.
			scalarArg[i] = v.Op
			scalarConsts = append(scalarConsts, v.Op)
			continue
		}
		if !pushable(v.Type) {
			return nil, ir.OpErrorf(op, "scalar input #%d of type '%s' cannot be passed to a dispatch (push constants are 32 bits: f32, i32 or narrower integers, index)", i, ir.TypeString(v.Type))
		}
		k.Inputs = append(k.Inputs, Operand{Scalar: v.Type})
		scalarVals = append(scalarVals, v)
	}
	// Tensors the body reads at computed offsets (see indexed.go) follow
	// the op's inputs.
	indexed := indexedTensors(blk)
	for _, v := range indexed {
		k.Inputs = append(k.Inputs, Operand{Type: v.Type.(*ir.TensorType), Map: &ir.AffineMap{NumDims: len(ranges)}, Indexed: true})
		inVals = append(inVals, v)
	}
	var initVals []*ir.Value
	for j, v := range outs {
		tt := v.Type.(*ir.TensorType)
		arg := blk.Args[len(ins)+j]
		read := ir.HasUses(g, arg)
		fromEmpty := v.Op != nil && v.Op.Name == "tensor.empty"
		if empty := zeroFill(v); empty != nil && foldedFill(fn, v.Op) {
			// Accumulate from zero (no init) into a new buffer shaped
			// like the fill's empty tensor; see fill.go.
			fromEmpty = true
			outs[j] = empty
		}
		o := Operand{Type: tt, Map: def.Maps[len(ins)+j], Init: read && !fromEmpty}
		if o.Init {
			initVals = append(initVals, v)
		}
		k.Outputs = append(k.Outputs, o)
	}
	bodyFn, err := buildBody(g, k, scalarArg, indexed)
	if err != nil {
		return nil, err
	}
	dv := dispatchValues{scalars: scalarVals, ins: inVals, inits: initVals, outs: outs, tied: make([]bool, len(outs))}
	return &structuredKernel{k: k, body: bodyFn, dv: dv, consts: scalarConsts}, nil
}

// dispatchValues are the host values a kernel's dispatch takes: scalar
// inputs, tensor inputs, inits, and one value per output: the tensor the
// output's type and dynamic sizes come from, which is also the operand the
// result is tied to when tied[i] is set (the kernel then writes into that
// buffer in place, and elements it does not write keep their values).
type dispatchValues struct {
	scalars, ins, epis, inits, outs []*ir.Value
	tied                            []bool
	// replace, when set, is the op whose results the dispatch replaces
	// and before which it is placed (the last elementwise op of an
	// epilogue); op is then removed as well. Otherwise it is op.
	replace *ir.Operation
	// epilogue is the kernel's epilogue function, if it has one.
	epilogue *ir.Operation
}

// emitDispatch completes k (its tile), adds its executable to module and
// replaces op by a flow.dispatch of it.
func emitDispatch(module, fn, op *ir.Operation, name string, targets []*hal.ExecutableTargetAttr, k *Kernel, bodyFn *ir.Operation, v dispatchValues) error {
	ranges := k.Ranges
	// Each variant gets its target's tile (see gridFor); the kernel is
	// checked with the smallest.
	var tiles map[*hal.ExecutableTargetAttr]grid
	tiles, k.Tile = grids(k, targets)
	// Bindings follow the dispatch's tensor operands, then its untied
	// results (see vmgen), so tied outputs must come first.
	for i := 1; i < len(v.tied); i++ {
		if v.tied[i] && !v.tied[i-1] {
			return ir.OpErrorf(op, "internal error: a tied output follows an untied one")
		}
	}
	var tiedVals []*ir.Value
	for i, t := range v.tied {
		if t {
			tiedVals = append(tiedVals, v.outs[i])
		}
	}
	// Every target decodes the kernel with Decode; a kernel it refuses
	// (an index map the contract does not allow yet) is reported here, at
	// the op, rather than when a target builds it.
	if _, err := DecodeIndexed(k.Dict()); err != nil {
		return ir.OpErrorf(op, "cannot be compiled as a loop nest yet: %v", err)
	}
	fns := []*ir.Operation{bodyFn}
	if v.epilogue != nil {
		fns = append(fns, v.epilogue)
	}
	exe, err := buildExecutable(name, k, fns, len(v.ins)+len(v.epis)+len(v.inits), len(v.outs), targets, tiles)
	if err != nil {
		return err
	}
	// The generated ops carry the op's position, so that a target that
	// cannot compile the kernel (an element type it lacks) names it.
	ir.Walk(exe, func(o *ir.Operation) bool {
		if !o.Pos.IsValid() {
			o.Pos = op.Pos
		}
		return true
	})
	module.Body().InsertBefore(fn, exe)

	// Host side: the dynamic dimensions of every binding (as i32 push
	// constants, and as the dims of the tensor arguments and results),
	// the first parallel loop's range as workload, and the flow.dispatch.
	var pre []*ir.Operation
	emit := func(o *ir.Operation) *ir.Value {
		o.Pos = op.Pos
		pre = append(pre, o)
		return o.Results[0]
	}
	index := func(v int64) *ir.Value {
		return emit(ir.NewOp("arith.constant", nil, []ir.Type{ir.IndexType{}}, []ir.NamedAttr{{Name: "value", Value: ir.IndexAttr(v)}}))
	}
	dims := map[*ir.Value][]*ir.Value{}
	dynDims := func(v *ir.Value) []*ir.Value {
		if ds, ok := dims[v]; ok {
			return ds
		}
		var ds []*ir.Value
		tt := v.Type.(*ir.TensorType)
		n := 0
		for r, sz := range tt.Shape {
			if sz != ir.Dynamic {
				continue
			}
			if v.Op != nil && v.Op.Name == "tensor.empty" && n < len(v.Op.Operands) {
				// The sizes the empty tensor was made with.
				ds = append(ds, v.Op.Operands[n])
			} else {
				ds = append(ds, emit(ir.NewOp("tensor.dim", []*ir.Value{v, index(int64(r))}, []ir.Type{ir.IndexType{}}, nil)))
			}
			n++
		}
		dims[v] = ds
		return ds
	}
	nargs := len(v.ins) + len(v.epis) + len(v.inits)
	bindingVals := slices.Concat(v.ins, v.epis, v.inits, v.outs)
	var consts, argDims, resultDims []*ir.Value
	for i, b := range bindingVals {
		ds := dynDims(b)
		for _, dv := range ds {
			consts = append(consts, emit(ir.NewOp("arith.index_cast", []*ir.Value{dv}, []ir.Type{ir.I32}, nil)))
		}
		if i < nargs {
			argDims = append(argDims, ds...)
		} else {
			resultDims = append(resultDims, ds...)
		}
	}
	for _, t := range tiedVals {
		argDims = append(argDims, dynDims(t)...)
	}
	var workload *ir.Value
	if p := k.OuterParallel(); p < 0 {
		workload = index(1)
	} else if ranges[p] != ir.Dynamic {
		workload = index(ranges[p])
	} else {
		for bi, b := range k.Bindings() {
			for r, e := range b.Map.Results {
				if workload == nil && e.Kind == ir.AffineDim && e.Pos == p {
					if b.Type.Shape[r] != ir.Dynamic {
						workload = index(b.Type.Shape[r])
					} else {
						// The dimension's value computed above: count the
						// dynamic dimensions before it.
						n := 0
						for _, sz := range b.Type.Shape[:r] {
							if sz == ir.Dynamic {
								n++
							}
						}
						workload = dims[bindingVals[bi]][n]
					}
				}
			}
		}
	}
	args := slices.Concat(v.scalars, consts, v.ins, v.epis, v.inits, tiedVals)
	replace := v.replace
	if replace == nil {
		replace = op
	}
	var resultTypes []ir.Type
	for _, r := range replace.Results {
		resultTypes = append(resultTypes, r.Type)
	}
	operands := append(append(append([]*ir.Value{workload}, args...), argDims...), resultDims...)
	d := ir.NewOp("flow.dispatch", operands, resultTypes, nil)
	d.Attrs = []ir.NamedAttr{
		{Name: "entry_points", Value: &ir.ArrayAttr{Elems: []ir.Attribute{ir.SymbolRefAttr{Root: name, Nested: []string{name}}}}},
		{Name: "operandSegmentSizes", Value: ir.SegmentAttr(1, len(args), len(argDims), len(resultDims))},
	}
	if len(tiedVals) > 0 {
		tied := &ir.ArrayAttr{}
		next := len(args) - len(tiedVals)
		for _, t := range v.tied {
			if t {
				tied.Elems = append(tied.Elems, ir.IndexAttr(int64(next)))
				next++
			} else {
				tied.Elems = append(tied.Elems, ir.IndexAttr(-1))
			}
		}
		d.Attrs = append(d.Attrs, ir.NamedAttr{Name: "tied_operands", Value: tied})
	}
	d.Pos, d.Loc = op.Pos, op.Loc
	b := replace.Block
	for _, o := range pre {
		b.InsertBefore(replace, o)
	}
	b.InsertBefore(replace, d)
	for i, r := range replace.Results {
		d.Results[i].Name = r.Name
		ir.ReplaceAllUsesWith(fn, r, d.Results[i])
	}
	replace.Remove()
	op.Remove()
	return nil
}

// buildBody turns the generic's region into a private scalar function:
// (loop indices..., input elements..., indexed tensors..., accumulators...)
// -> accumulators, where indexed are the tensors the body reads at
// computed offsets (the kernel's last inputs).
func buildBody(g *ir.Operation, k *Kernel, scalarArg map[int]*ir.Operation, indexed []*ir.Value) (*ir.Operation, error) {
	ins := linalg.Ins(g)
	blk := g.Regions[0].Blocks[0]
	if len(g.Regions[0].Blocks) != 1 {
		return nil, ir.OpErrorf(g, "a linalg body must be a single block")
	}
	ft := &ir.FunctionType{}
	for range k.Ranges {
		ft.Inputs = append(ft.Inputs, ir.IndexType{})
	}
	for _, o := range k.Inputs {
		switch {
		case o.Scalar != nil:
			ft.Inputs = append(ft.Inputs, o.Scalar)
		case o.Indexed:
			ft.Inputs = append(ft.Inputs, o.Type)
		default:
			ft.Inputs = append(ft.Inputs, o.Type.Elem)
		}
	}
	for _, o := range k.Outputs {
		ft.Inputs = append(ft.Inputs, o.Type.Elem)
		ft.Results = append(ft.Results, o.Type.Elem)
	}
	fn := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
		{Name: "sym_visibility", Value: ir.StringAttr{Value: "private"}},
		{Name: "sym_name", Value: ir.StringAttr{Value: k.Body}},
		{Name: "function_type", Value: ir.TypeAttr{Type: ft}},
	})
	fb := fn.AddRegion().AddBlock(ft.Inputs...)
	for i := range k.Ranges {
		fb.Args[i].Name = fmt.Sprintf("d%d", i)
	}
	mapping := map[*ir.Value]*ir.Value{}
	next := len(k.Ranges)
	for i, a := range blk.Args {
		if i < len(ins) {
			if c, ok := scalarArg[i]; ok {
				n := ir.NewOp("arith.constant", nil, []ir.Type{a.Type}, append([]ir.NamedAttr(nil), c.Attrs...))
				n.Pos = c.Pos
				n.Results[0].Name = c.Results[0].Name
				fb.Append(n)
				mapping[a] = n.Results[0]
				continue
			}
		}
		if i == len(ins) {
			// The indexed tensors' arguments sit between the inputs' and
			// the accumulators'.
			for _, t := range indexed {
				fb.Args[next].Name = t.Name
				mapping[t] = fb.Args[next]
				next++
			}
		}
		fb.Args[next].Name = a.Name
		mapping[a] = fb.Args[next]
		next++
	}
	yield, rets, err := inlineBody(blk, fb, mapping, func(dim int) *ir.Value { return fb.Args[dim] })
	if err != nil {
		return nil, err
	}
	r := ir.NewOp("func.return", rets, nil, nil)
	r.Pos = yield.Pos
	fb.Append(r)
	return fn, nil
}

// inlineBody appends to fb a copy of the ops of a linalg body blk, whose
// arguments mapping maps to values of fb, and returns its linalg.yield
// and the values the copy yields. index gives the value of linalg.index
// for a loop dimension.
func inlineBody(blk, fb *ir.Block, mapping map[*ir.Value]*ir.Value, index func(dim int) *ir.Value) (*ir.Operation, []*ir.Value, error) {
	for _, o := range blk.Ops {
		switch {
		case o.Name == "linalg.yield":
			var rets []*ir.Value
			for _, v := range o.Operands {
				m, ok := mapping[v]
				if !ok {
					m = v
				}
				rets = append(rets, m)
			}
			return o, rets, nil
		case o.Name == "linalg.index":
			dim, _ := o.IntAttr("dim")
			mapping[o.Results[0]] = index(int(dim))
		case o.Name == "tensor.extract" && len(o.Operands) == 2 && isTensorArg(mapping[o.Operands[0]], fb):
			// A computed-index read of an indexed input (see indexed.go).
			if err := cloneOperands(o, blk, fb, mapping, 1); err != nil {
				return nil, nil, err
			}
			fb.Append(ir.Clone(o, mapping))
		case bodyOp(o):
			if err := cloneOperands(o, blk, fb, mapping, 0); err != nil {
				return nil, nil, err
			}
			fb.Append(ir.Clone(o, mapping))
		case o.Name == "tensor.extract":
			return nil, nil, ir.OpErrorf(o, "reads a tensor that is not defined outside the linalg op; only tensors from outside the op can be read at computed indices")
		default:
			return nil, nil, ir.OpErrorf(o, "is not supported in a linalg body (only arith and math ops, tensor.extract of a tensor from outside the op, linalg.index and linalg.yield)")
		}
	}
	return nil, nil, ir.OpErrorf(blk.Region.Op, "the linalg body has no linalg.yield")
}

// cloneOperands makes the operands of o from skip on that come from
// outside the body blk available in fb: only scalar constants can be
// carried into the kernel, as copies.
func cloneOperands(o *ir.Operation, blk, fb *ir.Block, mapping map[*ir.Value]*ir.Value, skip int) error {
	for _, v := range o.Operands[skip:] {
		if _, ok := mapping[v]; !ok && !(v.Op != nil && v.Op.Block == blk) {
			if !scalarConstant(v) {
				return ir.OpErrorf(o, "the body uses %%%s from outside the linalg op; only scalar constants can be used so", v.Name)
			}
			n := ir.Clone(v.Op, nil)
			fb.Append(n)
			mapping[v] = n.Results[0]
		}
	}
	return nil
}

// isTensorArg reports whether v is a tensor-typed argument of fb (an
// indexed input of the kernel body).
func isTensorArg(v *ir.Value, fb *ir.Block) bool {
	if v == nil || v.Block != fb || v.Op != nil {
		return false
	}
	_, ok := v.Type.(*ir.TensorType)
	return ok
}

// bodyOp reports whether a kernel body can hold a copy of o: an arith or
// math op without regions.
func bodyOp(o *ir.Operation) bool {
	return len(o.Regions) == 0 && (strings.HasPrefix(o.Name, "arith.") || strings.HasPrefix(o.Name, "math."))
}

// scalarConstant reports whether v is an arith.constant of a scalar type,
// which a kernel body may clone.
func scalarConstant(v *ir.Value) bool {
	_, shaped := v.Type.(ir.ShapedType)
	return v.Op != nil && v.Op.Name == "arith.constant" && !shaped
}

// buildExecutable creates the hal.executable with one variant per target,
// each exporting the loop-nest entry with the tile of its grid, after the
// private functions it calls (its body and epilogue).
func buildExecutable(name string, k *Kernel, fns []*ir.Operation, nread, nwrite int, targets []*hal.ExecutableTargetAttr, grids map[*hal.ExecutableTargetAttr]grid) (*ir.Operation, error) {
	layout := &hal.PipelineLayoutAttr{Constants: int64(k.NumConstants())}
	for i := 0; i < nread; i++ {
		layout.Bindings = append(layout.Bindings, hal.Binding{Type: "storage_buffer", Flags: []string{"ReadOnly"}})
	}
	for i := 0; i < nwrite; i++ {
		layout.Bindings = append(layout.Bindings, hal.Binding{Type: "storage_buffer"})
	}
	gen := &hal.GeneratedExecutable{
		Name:        name,
		Export:      name,
		Layout:      layout,
		Tile:        k.Tile,
		Targets:     targets,
		VariantName: variantName,
		Grid: func(t *hal.ExecutableTargetAttr) hal.Grid {
			return grids[t]
		},
		Module: func(t *hal.ExecutableTargetAttr, mb *ir.Block) error {
			kt := *k
			if g, ok := grids[t]; ok {
				kt.Tile = g.Tile
			}
			for _, f := range fns {
				mb.Append(ir.Clone(f, nil))
			}
			entry := ir.NewOp("func.func", nil, nil, []ir.NamedAttr{
				{Name: "sym_name", Value: ir.StringAttr{Value: name}},
				{Name: "function_type", Value: ir.TypeAttr{Type: &ir.FunctionType{}}},
				{Name: Attr, Value: kt.Dict()},
			})
			entry.AddRegion().AddBlock().Append(ir.NewOp("func.return", nil, nil, nil))
			mb.Append(entry)
			return nil
		},
	}
	return gen.Build()
}

// variantName derives a unique variant name from a target's format
// (embedded-elf-x86_64 -> x86_64).
func variantName(t *hal.ExecutableTargetAttr, used map[string]bool) string {
	f := t.Format
	if i := strings.LastIndex(f, "-"); i >= 0 && strings.HasPrefix(f, "embedded-elf-") {
		f = f[i+1:]
	}
	var b strings.Builder
	for _, r := range f {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	for base, n := name, 1; used[name]; n++ {
		name = fmt.Sprintf("%s_%d", base, n)
	}
	used[name] = true
	return name
}
