package llvmcpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// loopNest emits a generated loop-nest kernel (the loopnest.Attr contract)
// and its scalar body, returning the constant and binding counts.
func (g *cgen) loopNest(fn *ir.Operation, d *ir.DictAttr, cname string) (int, int, error) {
	k, err := loopnest.Decode(d)
	if err != nil {
		return 0, 0, ir.OpErrorf(fn, "%v", err)
	}
	body := g.funcs[k.Body]
	if body == nil || body.Body() == nil {
		return 0, 0, ir.OpErrorf(fn, "loop-nest body @%s is not defined in the module", k.Body)
	}
	ft := function.Type(body)
	nl, ni, no := len(k.Ranges), len(k.Inputs), len(k.Outputs)
	if ft == nil || len(ft.Inputs) != nl+ni+no || len(ft.Results) != no {
		return 0, 0, ir.OpErrorf(body, "loop-nest body must take %d indices, %d inputs and %d accumulators and return %d values", nl, ni, no, no)
	}
	bname := "gi_body_" + sanitize(k.Body)
	if !g.staticFn[bname] {
		g.staticFn[bname] = true
		if err := g.scalarFunc(body, bname, ft); err != nil {
			return 0, 0, err
		}
	}
	dims := make([]string, nl)
	for i := range dims {
		dims[i] = "d" + strconv.Itoa(i)
	}
	// offset is the row-major element offset of an operand at its map.
	offset := func(o loopnest.Operand) (string, error) {
		if len(o.Map.Results) == 0 {
			return "0", nil
		}
		var terms []string
		stride := int64(1)
		for r := len(o.Type.Shape) - 1; r >= 0; r-- {
			e, err := affineC(o.Map.Results[r], dims, nil)
			if err != nil {
				return "", err
			}
			terms = append(terms, fmt.Sprintf("(%s) * %dLL", e, stride))
			stride *= o.Type.Shape[r]
		}
		return strings.Join(terms, " + "), nil
	}
	w := &g.body
	fmt.Fprintf(w, "static int %s(const gi_environment_t* env, const gi_dispatch_state_t* ds, const gi_workgroup_state_t* ws) {\n", cname)
	w.WriteString("  (void)env; (void)ws;\n")
	nb := 0
	binding := func(prefix string, i int, o loopnest.Operand, ro bool) error {
		ct, err := cType(o.Type.Elem)
		if err != nil {
			return ir.OpErrorf(fn, "%v", err)
		}
		q := ""
		if ro {
			q = "const "
		}
		bytes := ir.NumElements(o.Type) * int64(elemSize(o.Type.Elem))
		// A binding shorter than its static shape fails the dispatch
		// rather than reading or writing past it.
		fmt.Fprintf(w, "  if (ds->binding_lengths[%d] < %dull) return 1;\n", nb, bytes)
		fmt.Fprintf(w, "  %s%s* restrict %s%d = (%s%s*)ds->binding_ptrs[%d];\n", q, ct, prefix, i, q, ct, nb)
		nb++
		return nil
	}
	for i, o := range k.Inputs {
		if err := binding("in", i, o, true); err != nil {
			return 0, 0, err
		}
	}
	for _, i := range k.Inits() {
		if err := binding("init", i, k.Outputs[i], true); err != nil {
			return 0, 0, err
		}
	}
	for i, o := range k.Outputs {
		if err := binding("out", i, o, false); err != nil {
			return 0, 0, err
		}
	}
	outer := k.OuterParallel()
	if outer >= 0 {
		fmt.Fprintf(w, "  const int64_t gi_lo = (int64_t)ws->workgroup_id_x * %dLL;\n", k.Tile)
		fmt.Fprintf(w, "  const int64_t gi_hi = gi_lo + %dLL < %dLL ? gi_lo + %dLL : %dLL;\n", k.Tile, k.Ranges[outer], k.Tile, k.Ranges[outer])
	} else {
		w.WriteString("  if (ws->workgroup_id_x != 0) return 0;\n")
	}
	indent := "  "
	open := func(i int) {
		if i == outer {
			fmt.Fprintf(w, "%sfor (int64_t d%d = gi_lo; d%d < gi_hi; ++d%d) {\n", indent, i, i, i)
		} else {
			fmt.Fprintf(w, "%sfor (int64_t d%d = 0; d%d < %dLL; ++d%d) {\n", indent, i, i, k.Ranges[i], i)
		}
		indent += "  "
	}
	closeLoop := func() {
		indent = indent[2:]
		fmt.Fprintf(w, "%s}\n", indent)
	}
	var reds []int
	for i, it := range k.Iterators {
		if it == "parallel" {
			open(i)
		} else {
			reds = append(reds, i)
		}
	}
	offs := make([]string, no)
	for i, o := range k.Outputs {
		ct, _ := cType(o.Type.Elem)
		off, err := offset(o)
		if err != nil {
			return 0, 0, ir.OpErrorf(fn, "%v", err)
		}
		offs[i] = off
		if o.Init {
			fmt.Fprintf(w, "%s%s acc%d = init%d[%s];\n", indent, ct, i, i, off)
		} else {
			fmt.Fprintf(w, "%s%s acc%d = (%s)0;\n", indent, ct, i, ct)
		}
	}
	for _, r := range reds {
		open(r)
	}
	args := append([]string(nil), dims...)
	for i, o := range k.Inputs {
		off, err := offset(o)
		if err != nil {
			return 0, 0, ir.OpErrorf(fn, "%v", err)
		}
		args = append(args, fmt.Sprintf("in%d[%s]", i, off))
	}
	for i := range k.Outputs {
		args = append(args, "acc"+strconv.Itoa(i))
	}
	for i := range k.Outputs {
		args = append(args, "&acc"+strconv.Itoa(i))
	}
	fmt.Fprintf(w, "%s%s(%s);\n", indent, bname, strings.Join(args, ", "))
	for range reds {
		closeLoop()
	}
	for i := range k.Outputs {
		fmt.Fprintf(w, "%sout%d[%s] = acc%d;\n", indent, i, offs[i], i)
	}
	for indent != "  " {
		closeLoop()
	}
	w.WriteString("  return 0;\n}\n\n")
	return 0, nb, nil
}

// elemSize is the byte size of a scalar element type in a buffer.
func elemSize(t ir.Type) int {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f16", "bf16":
			return 2
		case "f64":
			return 8
		}
		return 4
	case ir.IntegerType:
		if t.Width <= 8 {
			return 1
		}
		return t.Width / 8
	case ir.IndexType:
		return 8
	}
	return 0
}
