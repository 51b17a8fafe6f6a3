package loopnest

import (
	"github.com/goiree/goiree/compiler/ir"
)

// InlineStructuredRegions dissolves every flow.dispatch.region (written
// by the program) that holds a linalg structured op: its body moves in
// front of it and the values its flow.return yields stand for its results.
// A dispatch region only groups ops into one dispatch, so the values are
// unchanged; Form then makes each linalg op its own dispatch (and the
// tensor math around them fuses at executable-sources), where a region
// outlined as it is would hold linalg ops that no target compiles. A
// region's workgroup count body, a launch hint, goes with it. Regions of
// other ops are left to the flow phase's outlining.
func InlineStructuredRegions(module *ir.Operation) error {
	var regions []*ir.Operation
	ir.Walk(module, func(o *ir.Operation) bool {
		if o.Name != "flow.dispatch.region" {
			return true
		}
		structured := false
		ir.Walk(o, func(n *ir.Operation) bool {
			structured = structured || IsStructured(n)
			return !structured
		})
		if structured {
			regions = append(regions, o)
			return false
		}
		return true
	})
	repl := map[*ir.Value]*ir.Value{}
	for _, o := range regions {
		if len(o.Regions) == 0 || len(o.Regions[0].Blocks) != 1 {
			return ir.OpErrorf(o, "a dispatch region holding linalg ops must have a body of one block")
		}
		body := o.Regions[0].Blocks[0]
		ret := body.Terminator()
		if ret == nil || ret.Name != "flow.return" || len(ret.Operands) != len(o.Results) {
			return ir.OpErrorf(o, "the body must end in a flow.return of its %d results", len(o.Results))
		}
		for _, n := range append([]*ir.Operation(nil), body.Ops[:len(body.Ops)-1]...) {
			n.Remove()
			o.Block.InsertBefore(o, n)
		}
		for i, r := range o.Results {
			repl[r] = ret.Operands[i]
		}
		o.Remove()
	}
	if len(repl) == 0 {
		return nil
	}
	ir.Walk(module, func(o *ir.Operation) bool {
		for i, v := range o.Operands {
			for {
				n, ok := repl[v]
				if !ok {
					break
				}
				v = n
			}
			o.Operands[i] = v
		}
		return true
	})
	return nil
}
