package stablehlo

import (
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// This file holds the custom forms of the ops with regions:
//
//	%r = stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
//	%r = stablehlo.reduce(%x init: %c) across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
//	  reducer(%a: tensor<f32>, %b: tensor<f32>) { ... stablehlo.return %s : tensor<f32> }
//	%r:2 = stablehlo.while(%i = %0, %x = %1) : tensor<i32>, tensor<f32> cond { ... } do { ... }
//
// The compact `applies` form stands for a body of one binary op on the
// body's two arguments; it parses into that body.

// registerRegionOps adds reduce and while under prefix pre. Reduce's
// operands and body are checked by its lowering, which names the rule
// each breaks.
func registerRegionOps(r *ir.Registry, pre string) {
	r.RegisterOp(&ir.OpDef{Name: pre + "reduce", Parse: parseReduce, Print: printReduce})
	r.RegisterOp(&ir.OpDef{Name: pre + "while", Parse: parseWhile, Print: printWhile, Verify: verifyWhile})
}

// parseReduce parses `(%x init: %c), ... (applies OP)? across dimensions
// = [..] attr-dict : (types) -> results`, then, without applies, the
// body `reducer(%a: t, %b: t) ... { ... }` with one pair of arguments
// per input (the accumulated value and the element).
func parseReduce(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	var inputs, inits []*ir.Value
	for {
		if err := p.Expect("("); err != nil {
			return nil, err
		}
		x, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		if err := p.ExpectKeyword("init"); err != nil {
			return nil, err
		}
		if err := p.Expect(":"); err != nil {
			return nil, err
		}
		c, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		if err := p.Expect(")"); err != nil {
			return nil, err
		}
		inputs, inits = append(inputs, x), append(inits, c)
		if !p.Optional(",") {
			break
		}
	}
	applies, apos := "", p.Pos()
	if p.OptionalKeyword("applies") {
		apos = p.Pos()
		name, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		applies = name
		if n := strings.TrimPrefix(name, dialectOf(op)+"."); n == name || Arity[n] != 2 {
			return nil, ir.Errorf(apos, "'applies' needs a binary %s op such as %s.add, found '%s'", dialectOf(op), dialectOf(op), name)
		}
		if len(inputs) != 1 {
			return nil, ir.Errorf(apos, "'applies' takes one input, found %d", len(inputs))
		}
	}
	// The clause is left out when the dimensions are in the dictionary
	// (as an MHLO dense<...>, say).
	if p.OptionalKeyword("across") {
		if err := parseClause(p, op, clause{"dimensions", "dimensions", listClause}); err != nil {
			return nil, err
		}
	}
	results, err := parseFunctionTypeTail(p, op, append(inputs, inits...))
	if err != nil {
		return nil, err
	}
	if applies != "" {
		t := inits[0].Type
		r := &ir.Region{Op: op}
		b := r.AddBlock(t, t)
		body := ir.NewOp(applies, []*ir.Value{b.Args[0], b.Args[1]}, []ir.Type{t}, nil)
		body.Pos = apos
		b.Append(body)
		ret := ir.NewOp(dialectOf(op)+".return", body.Results, nil, nil)
		ret.Pos = apos
		b.Append(ret)
		op.Regions = append(op.Regions, r)
		return results, nil
	}
	if err := p.ExpectKeyword("reducer"); err != nil {
		return nil, err
	}
	acc := make([]ir.Argument, 0, len(inputs))
	elem := make([]ir.Argument, 0, len(inputs))
	for range inputs {
		pos := p.Pos()
		pair, err := p.ParseArgumentList(true)
		if err != nil {
			return nil, err
		}
		if len(pair) != 2 {
			return nil, ir.Errorf(pos, "a reducer takes a pair of arguments per input, found %d", len(pair))
		}
		acc, elem = append(acc, pair[0]), append(elem, pair[1])
	}
	if _, err := p.ParseRegion(op, append(acc, elem...)); err != nil {
		return nil, err
	}
	return results, nil
}

// compactReducer returns the op a reduce's body applies when the body is
// just that binary op on its two arguments, so that the `applies` form
// can stand for it.
func compactReducer(op *ir.Operation) (string, bool) {
	if len(op.Operands) != 2 || len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 {
		return "", false
	}
	b := op.Regions[0].Blocks[0]
	if len(b.Args) != 2 || len(b.Ops) != 2 || ir.TypeString(b.Args[0].Type) != ir.TypeString(op.Operands[1].Type) ||
		ir.TypeString(b.Args[1].Type) != ir.TypeString(op.Operands[1].Type) {
		return "", false
	}
	body, ret := b.Ops[0], b.Ops[1]
	dialect := dialectOf(op)
	n, ok := strings.CutPrefix(body.Name, dialect+".")
	if !ok || Arity[n] != 2 || len(body.Attrs) != 0 || len(body.Regions) != 0 || len(body.Results) != 1 ||
		len(body.Operands) != 2 || body.Operands[0] != b.Args[0] || body.Operands[1] != b.Args[1] ||
		ir.TypeString(body.Results[0].Type) != ir.TypeString(b.Args[0].Type) || body.Loc != nil {
		return "", false
	}
	if ret.Name != dialect+".return" || len(ret.Operands) != 1 || ret.Operands[0] != body.Results[0] || len(ret.Attrs) != 0 || ret.Loc != nil {
		return "", false
	}
	return body.Name, true
}

func printReduce(p *ir.Printer, op *ir.Operation) {
	dims, ok := i64Array(op, "dimensions")
	n := len(op.Operands) / 2
	if len(op.Operands)%2 != 0 || len(op.Regions) != 1 || len(op.Regions[0].Blocks) != 1 || len(op.Regions[0].Blocks[0].Args) != 2*n {
		// The custom form needs a body of argument pairs; an op without
		// one (which does not verify) prints as the generic form would.
		printGenericTail(p, op)
		return
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			p.WriteString(", ")
		}
		p.WriteString("(")
		p.Operand(op.Operands[i])
		p.WriteString(" init: ")
		p.Operand(op.Operands[n+i])
		p.WriteString(")")
	}
	name, compact := compactReducer(op)
	if compact {
		p.WriteString(" applies " + name)
	}
	if ok {
		p.WriteString(" across dimensions = " + formatI64List(dims))
		printFunctionTypeTail(p, op, "dimensions")
	} else {
		printFunctionTypeTail(p, op)
	}
	if compact {
		return
	}
	args := op.Regions[0].Blocks[0].Args
	p.Newline(1)
	p.WriteString("reducer")
	for i := 0; i < n; i++ {
		if i > 0 {
			p.WriteString(" ")
		}
		p.ArgList([]*ir.Value{args[i], args[n+i]})
	}
	p.WriteString(" ")
	p.Region(op.Regions[0], false)
}

// printGenericTail prints an op the way the generic form would after its
// name: `(operands) ({regions}) {attrs} : (types) -> results`, for an op
// too malformed for its custom form (one that fails verification, printed
// in a diagnostic); the custom parsers do not read it back.
func printGenericTail(p *ir.Printer, op *ir.Operation) {
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	if len(op.Regions) > 0 {
		p.WriteString(" (")
		for i, r := range op.Regions {
			if i > 0 {
				p.WriteString(", ")
			}
			p.Region(r, true)
		}
		p.WriteString(")")
	}
	printFunctionTypeTail(p, op)
}

// parseWhile parses `(%a = %init, ...) : t, ... attr-dict-with-keyword
// cond { ... } do { ... }`; both regions take the named arguments.
func parseWhile(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	if err := p.Expect("("); err != nil {
		return nil, err
	}
	var args []ir.Argument
	var inits []*ir.Value
	for !p.Optional(")") {
		if len(args) > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		name, pos, err := p.ParseValueName()
		if err != nil {
			return nil, err
		}
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		v, err := p.ParseOperand()
		if err != nil {
			return nil, err
		}
		args, inits = append(args, ir.Argument{Name: name, Pos: pos}), append(inits, v)
	}
	var types []ir.Type
	if len(inits) > 0 {
		if err := p.Expect(":"); err != nil {
			return nil, err
		}
		tpos := p.Pos()
		ts, err := p.ParseTypeList()
		if err != nil {
			return nil, err
		}
		if err := p.ResolveTypes(inits, ts, tpos); err != nil {
			return nil, err
		}
		types = ts
	}
	for i := range args {
		args[i].Type = types[i]
	}
	op.Operands = inits
	if err := p.ParseOptionalAttrDictWithKeyword(op); err != nil {
		return nil, err
	}
	sort.SliceStable(op.Attrs, func(i, j int) bool { return op.Attrs[i].Name < op.Attrs[j].Name })
	for _, kw := range []string{"cond", "do"} {
		if err := p.ExpectKeyword(kw); err != nil {
			return nil, err
		}
		// Each region gets its own copies of the arguments.
		if _, err := p.ParseRegion(op, append([]ir.Argument(nil), args...)); err != nil {
			return nil, err
		}
	}
	return types, nil
}

func printWhile(p *ir.Printer, op *ir.Operation) {
	if len(op.Regions) != 2 || len(op.Regions[0].Blocks) == 0 || len(op.Regions[1].Blocks) == 0 ||
		len(op.Regions[0].Blocks[0].Args) != len(op.Operands) || len(op.Regions[1].Blocks[0].Args) != len(op.Operands) {
		printGenericTail(p, op)
		return
	}
	args := op.Regions[0].Blocks[0].Args
	p.WriteString("(")
	for i, a := range args {
		if i > 0 {
			p.WriteString(", ")
		}
		p.Operand(a)
		p.WriteString(" = ")
		p.Operand(op.Operands[i])
	}
	p.WriteString(")")
	if len(args) > 0 {
		var ts []ir.Type
		for _, v := range op.Operands {
			ts = append(ts, v.Type)
		}
		p.WriteString(" : ")
		p.Types(ts)
	}
	p.AttrDictWithKeyword(op)
	p.Newline(0)
	p.WriteString(" cond ")
	p.Region(op.Regions[0], false)
	p.WriteString(" do ")
	p.ShadowArgs(op.Regions[1], args)
	p.Region(op.Regions[1], false)
}

func verifyWhile(op *ir.Operation) error {
	if len(op.Regions) != 2 {
		return ir.OpErrorf(op, "expects a cond and a do region")
	}
	if len(op.Results) != len(op.Operands) {
		return ir.OpErrorf(op, "has %d results for %d operands", len(op.Results), len(op.Operands))
	}
	for i, v := range op.Operands {
		if ir.TypeString(v.Type) != ir.TypeString(op.Results[i].Type) {
			return ir.OpErrorf(op, "result #%d has type '%s' but its operand '%s'", i, ir.TypeString(op.Results[i].Type), ir.TypeString(v.Type))
		}
	}
	for ri, r := range op.Regions {
		if len(r.Blocks) == 0 || len(r.Blocks[0].Args) != len(op.Operands) {
			return ir.OpErrorf(op, "region #%d must take %d arguments", ri, len(op.Operands))
		}
	}
	return nil
}
