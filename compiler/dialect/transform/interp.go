package transform

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// EntryPoint is the sequence Apply runs on the program's module.
const EntryPoint = "__transform_main"

// Apply runs spec's @__transform_main on payload (the program's top-level
// module), rewriting it in place. reg tells which ops are symbol tables.
func Apply(spec, payload *ir.Operation, reg *ir.Registry) error {
	main := lookup(spec, EntryPoint)
	if main == nil || main.Name != "transform.named_sequence" {
		return ir.OpErrorf(spec, "the transform spec has no transform.named_sequence @%s", EntryPoint)
	}
	in := &interp{spec: spec, reg: reg}
	_, err := in.call(main, []handle{{ops: []*ir.Operation{payload}}})
	var mf *matchFailure
	if errors.As(err, &mf) {
		return ir.OpErrorf(mf.op, "transform failed: %s", mf.msg)
	}
	return err
}

// handle is what a transform value holds: payload ops, payload values or
// parameters.
type handle struct {
	ops    []*ir.Operation
	values []*ir.Value
	params []ir.Attribute
}

// matchFailure is a silenceable failure: a matcher that does not match.
type matchFailure struct {
	op  *ir.Operation
	msg string
}

func (m *matchFailure) Error() string { return m.msg }

func noMatch(op *ir.Operation, format string, args ...any) error {
	return &matchFailure{op: op, msg: fmt.Sprintf(format, args...)}
}

type interp struct {
	spec *ir.Operation
	reg  *ir.Registry
}

// lookup finds the symbol name directly in table's body.
func lookup(table *ir.Operation, name string) *ir.Operation {
	if table.Body() == nil {
		return nil
	}
	for _, o := range table.Body().Ops {
		if o.SymName() == name {
			return o
		}
	}
	return nil
}

// call runs a named sequence with args bound to its arguments and returns
// the handles it yields.
func (in *interp) call(seq *ir.Operation, args []handle) ([]handle, error) {
	body := seq.Body()
	if body == nil {
		return nil, ir.OpErrorf(seq, "named sequence @%s has no body", seq.SymName())
	}
	if len(args) != len(body.Args) {
		return nil, ir.OpErrorf(seq, "named sequence @%s takes %d arguments, given %d", seq.SymName(), len(body.Args), len(args))
	}
	env := map[*ir.Value]handle{}
	for i, a := range body.Args {
		env[a] = args[i]
	}
	return in.block(body, env)
}

// block runs ops in order; a transform.yield ends it with its operands.
func (in *interp) block(b *ir.Block, env map[*ir.Value]handle) ([]handle, error) {
	for _, op := range b.Ops {
		if op.Name == "transform.yield" {
			out := make([]handle, len(op.Operands))
			for i, v := range op.Operands {
				out[i] = env[v]
			}
			return out, nil
		}
		results, err := in.op(op, env)
		if err != nil {
			return nil, err
		}
		for i, r := range op.Results {
			if i < len(results) {
				env[r] = results[i]
			}
		}
	}
	return nil, nil
}

func (in *interp) op(op *ir.Operation, env map[*ir.Value]handle) ([]handle, error) {
	arg := func(i int) handle { return env[op.Operands[i]] }
	switch op.Name {
	case "transform.structured.match":
		return in.structuredMatch(op, arg(0))
	case "transform.foreach":
		if len(op.Results) > 0 {
			return nil, ir.OpErrorf(op, "transform.foreach with results is not supported")
		}
		if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 || len(op.Regions[0].Blocks[0].Args) != 1 {
			return nil, ir.OpErrorf(op, "transform.foreach needs a body block with one argument")
		}
		h := arg(0)
		for _, o := range h.ops {
			inner := maps(env)
			inner[op.Regions[0].Blocks[0].Args[0]] = handle{ops: []*ir.Operation{o}}
			if _, err := in.block(op.Regions[0].Blocks[0], inner); err != nil {
				return nil, err
			}
		}
		return nil, nil
	case "transform.foreach_match":
		return in.foreachMatch(op, arg(0))
	case "transform.iree.match.cast_compatible_dag_from_root":
		return matchDAG(op, arg(0))
	case "transform.get_defining_op":
		var out handle
		for _, v := range arg(0).values {
			if v.Op == nil {
				return nil, noMatch(op, "the value is a block argument, defined by no op")
			}
			out.ops = append(out.ops, v.Op)
		}
		return []handle{out}, nil
	case "transform.util.get_nearest_symbol_table":
		var out handle
		for _, o := range arg(0).ops {
			t := o
			for t != nil && !in.isSymbolTable(t) {
				t = t.ParentOp()
			}
			if t == nil {
				return nil, ir.OpErrorf(op, "%s at %s is in no symbol table", o.Name, o.Pos)
			}
			out.ops = append(out.ops, t)
		}
		return []handle{out}, nil
	case "transform.util.import_symbol":
		return in.importSymbol(op, arg(0))
	case "transform.util.cast_and_call", "transform.func.cast_and_call":
		return in.castAndCall(op, env)
	case "transform.apply_registered_pass":
		return in.applyPass(op, arg(0))
	case "transform.apply_dce":
		for _, o := range arg(0).ops {
			dce(o)
		}
		return nil, nil
	}
	if results, ok, err := in.matchOp(op, env); ok {
		return results, err
	}
	return nil, ir.OpErrorf(op, "transform op %s is not supported by the interpreter", op.Name)
}

func maps(env map[*ir.Value]handle) map[*ir.Value]handle {
	out := make(map[*ir.Value]handle, len(env)+1)
	for k, v := range env {
		out[k] = v
	}
	return out
}

func (in *interp) isSymbolTable(op *ir.Operation) bool {
	if op.Name == "builtin.module" {
		return true
	}
	d := in.reg.Op(op.Name)
	return d != nil && d.SymbolTable
}

// nested lists the ops nested in root, pre-order, without root itself.
func nested(root *ir.Operation) []*ir.Operation {
	var out []*ir.Operation
	ir.Walk(root, func(o *ir.Operation) bool {
		if o != root {
			out = append(out, o)
		}
		return true
	})
	return out
}

// preprocessingName is o's name as IREE has it when preprocessing specs
// run: its input conversion has turned every func.func into util.func by
// then, and specs match util.func; this compiler keeps func.func longer.
func preprocessingName(o *ir.Operation) string {
	if o.Name == "func.func" {
		return "util.func"
	}
	return o.Name
}

func (in *interp) structuredMatch(op *ir.Operation, h handle) ([]handle, error) {
	var names []string
	if arr, ok := op.Attr("ops").(*ir.ArrayAttr); ok {
		for _, e := range arr.Elems {
			s, ok := e.(ir.StringAttr)
			if !ok {
				return nil, ir.OpErrorf(op, "ops{...} must list op names as strings")
			}
			names = append(names, s.Value)
		}
	} else {
		return nil, ir.OpErrorf(op, "transform.structured.match without ops{[...]} is not supported")
	}
	var out handle
	for _, root := range h.ops {
		for _, o := range nested(root) {
			if slices.Contains(names, preprocessingName(o)) {
				out.ops = append(out.ops, o)
			}
		}
	}
	return []handle{out}, nil
}

func (in *interp) sequence(op *ir.Operation, ref ir.Attribute) (*ir.Operation, error) {
	s, ok := ref.(ir.SymbolRefAttr)
	if !ok || len(s.Nested) > 0 {
		return nil, ir.OpErrorf(op, "expected a named sequence reference, found %s", ir.AttrString(ref))
	}
	seq := lookup(in.spec, s.Root)
	if seq == nil || seq.Name != "transform.named_sequence" {
		return nil, ir.OpErrorf(op, "no transform.named_sequence @%s in the spec", s.Root)
	}
	return seq, nil
}

func (in *interp) foreachMatch(op *ir.Operation, root handle) ([]handle, error) {
	if len(op.Operands) != 1 || op.HasAttr("restrict_root") || op.HasAttr("flatten_results") {
		return nil, ir.OpErrorf(op, "transform.foreach_match is supported with one root and no restrict_root or flatten_results")
	}
	matchers, _ := op.Attr("matchers").(*ir.ArrayAttr)
	actions, _ := op.Attr("actions").(*ir.ArrayAttr)
	type match struct {
		action *ir.Operation
		args   []handle
	}
	var found []match
	for _, r := range root.ops {
		for _, o := range nested(r) {
			for i, m := range matchers.Elems {
				seq, err := in.sequence(op, m)
				if err != nil {
					return nil, err
				}
				res, err := in.call(seq, []handle{{ops: []*ir.Operation{o}}})
				var mf *matchFailure
				if errors.As(err, &mf) {
					continue
				}
				if err != nil {
					return nil, err
				}
				act, err := in.sequence(op, actions.Elems[i])
				if err != nil {
					return nil, err
				}
				found = append(found, match{act, res})
				break
			}
		}
	}
	for _, m := range found {
		if _, err := in.call(m.action, m.args); err != nil {
			return nil, err
		}
	}
	return []handle{root}, nil
}

func (in *interp) importSymbol(op *ir.Operation, tables handle) ([]handle, error) {
	ref, _ := op.Attr("symbol").(ir.SymbolRefAttr)
	src := lookup(in.spec, ref.Root)
	if src == nil {
		return nil, ir.OpErrorf(op, "the spec defines no symbol @%s to import", ref.Root)
	}
	var out handle
	for _, t := range tables.ops {
		if have := lookup(t, ref.Root); have != nil {
			if !op.HasAttr("if_undefined") {
				return nil, ir.OpErrorf(op, "@%s is already defined in the target symbol table (at %s)", ref.Root, have.Pos)
			}
			out.ops = append(out.ops, have)
			continue
		}
		c := ir.Clone(src, nil)
		t.Body().Append(c)
		out.ops = append(out.ops, c)
	}
	return []handle{out}, nil
}

func (in *interp) castAndCall(op *ir.Operation, env map[*ir.Value]handle) ([]handle, error) {
	if op.HasAttr("function_name") {
		return nil, ir.OpErrorf(op, "%s by symbol name is not supported; pass the function handle", op.Name)
	}
	nIn, _ := op.IntAttr("num_inputs")
	nOut, _ := op.IntAttr("num_outputs")
	fns := env[op.Operands[0]].ops
	var ins, outs []*ir.Value
	for _, v := range op.Operands[1 : 1+nIn] {
		ins = append(ins, env[v].values...)
	}
	for _, v := range op.Operands[1+nIn : 1+nIn+nOut] {
		outs = append(outs, env[v].values...)
	}
	points := env[op.Operands[len(op.Operands)-1]].ops
	if len(fns) != 1 || len(points) != 1 {
		return nil, ir.OpErrorf(op, "expected one function and one insertion point, found %d and %d", len(fns), len(points))
	}
	fn, point := fns[0], points[0]
	callName := "func.call"
	if op.Name == "transform.util.cast_and_call" {
		callName = "util.call"
	}
	castDynamic := false
	if len(op.Regions) > 0 && len(op.Regions[0].Blocks) > 0 {
		for _, c := range op.Regions[0].Blocks[0].Ops {
			if c.Name != "transform.type_conversion.tensor.cast_shape_dynamic_dims" {
				return nil, ir.OpErrorf(c, "type conversion %s is not supported", c.Name)
			}
			castDynamic = true
		}
	}
	ft, _ := fn.Attr("function_type").(ir.TypeAttr)
	sig, ok := ft.Type.(*ir.FunctionType)
	if !ok {
		return nil, ir.OpErrorf(op, "%s @%s has no function type", fn.Name, fn.SymName())
	}
	if len(sig.Inputs) != len(ins) || len(sig.Results) != len(outs) {
		return nil, ir.OpErrorf(op, "@%s takes %d inputs and gives %d results; the call has %d inputs and %d outputs",
			fn.SymName(), len(sig.Inputs), len(sig.Results), len(ins), len(outs))
	}
	var newOps []*ir.Operation
	convert := func(v *ir.Value, to ir.Type) (*ir.Value, error) {
		if ir.TypesEqual(v.Type, to) {
			return v, nil
		}
		if !castDynamic || !castCompatible(v.Type, to) {
			return nil, ir.OpErrorf(op, "cannot convert %s to %s for @%s", ir.TypeString(v.Type), ir.TypeString(to), fn.SymName())
		}
		c := ir.NewOp("tensor.cast", []*ir.Value{v}, []ir.Type{to}, nil)
		c.Pos = op.Pos
		newOps = append(newOps, c)
		return c.Results[0], nil
	}
	var args []*ir.Value
	for i, v := range ins {
		a, err := convert(v, sig.Inputs[i])
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	call := ir.NewOp(callName, args, sig.Results, []ir.NamedAttr{{Name: "callee", Value: ir.SymbolRefAttr{Root: fn.SymName()}}})
	call.Pos = op.Pos
	newOps = append(newOps, call)
	replace := make([]*ir.Value, len(outs))
	for i, o := range outs {
		r, err := convert(call.Results[i], o.Type)
		if err != nil {
			return nil, err
		}
		replace[i] = r
	}
	b := point.Block
	at := slices.Index(b.Ops, point)
	if op.Attr("insert_after").(ir.BoolAttr).Value {
		at++
	}
	b.Ops = slices.Insert(b.Ops, at, newOps...)
	for _, n := range newOps {
		n.Block = b
	}
	scope := b.Region.Op
	for scope.ParentOp() != nil && !in.isSymbolTable(scope) {
		scope = scope.ParentOp()
	}
	for i, o := range outs {
		ir.ReplaceAllUsesWith(scope, o, replace[i])
	}
	return []handle{{ops: []*ir.Operation{call}}}, nil
}

// castCompatible reports whether a and b are tensors of one element type
// and rank whose static dimensions agree where both are static.
func castCompatible(a, b ir.Type) bool {
	ta, ok1 := a.(*ir.TensorType)
	tb, ok2 := b.(*ir.TensorType)
	if !ok1 || !ok2 {
		return ir.TypesEqual(a, b)
	}
	if !ir.TypesEqual(ta.Elem, tb.Elem) || len(ta.Shape) != len(tb.Shape) {
		return false
	}
	for i := range ta.Shape {
		if ta.Shape[i] != ir.Dynamic && tb.Shape[i] != ir.Dynamic && ta.Shape[i] != tb.Shape[i] {
			return false
		}
	}
	return true
}

// pureDialects hold ops free of side effects when they work on values
// (no memref operands).
var pureDialects = []string{"arith", "math", "tensor", "linalg"}

func removable(o *ir.Operation) bool {
	if len(o.Results) == 0 {
		return false
	}
	for _, v := range o.Operands {
		if _, ok := v.Type.(*ir.MemRefType); ok {
			return false
		}
	}
	if o.Name == "affine.apply" {
		return true
	}
	d, _, _ := strings.Cut(o.Name, ".")
	return slices.Contains(pureDialects, d)
}

// dce removes unused side-effect-free ops nested in root until none is
// left.
func dce(root *ir.Operation) {
	for {
		used := map[*ir.Value]bool{}
		ir.Walk(root, func(o *ir.Operation) bool {
			for _, v := range o.Operands {
				used[v] = true
			}
			return true
		})
		var dead []*ir.Operation
		ir.Walk(root, func(o *ir.Operation) bool {
			if o == root || !removable(o) {
				return true
			}
			for _, r := range o.Results {
				if used[r] {
					return true
				}
			}
			dead = append(dead, o)
			return false
		})
		if len(dead) == 0 {
			return
		}
		for _, o := range dead {
			o.Remove()
		}
	}
}

// ApplyFile parses the spec in file with reg and applies it to payload.
// Errors name the spec's positions.
func ApplyFile(file string, payload *ir.Operation, reg *ir.Registry) error {
	src, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("reading the transform spec: %w", err)
	}
	spec, err := ir.Parse(file, src, reg)
	if err != nil {
		return err
	}
	if !spec.Op.HasAttr("transform.with_named_sequence") {
		return ir.OpErrorf(spec.Op, "the transform spec's module lacks the transform.with_named_sequence attribute")
	}
	return Apply(spec.Op, payload, reg)
}
