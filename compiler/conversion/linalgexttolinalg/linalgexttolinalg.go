// Package linalgexttolinalg lowers the ops that are more than one linalg
// structured op into ops the loop-nest code generator compiles: linalg's
// pack and unpack (and their Dec 2022 iree_linalg_ext spellings) into
// padding, reshapes and linalg.transpose; iree_linalg_ext.attention and
// online_attention into linalg.generics (two contractions and a softmax);
// iree_linalg_ext.arg_compare into a reduction with a value and an index
// output; scan into a reduction that recomputes each prefix in order;
// sort into a stable sort by ranks; topk and topk_v2 into a merge of the
// outputs and the input by ranks; gather, reverse and map_load into
// linalg.generics whose bodies read their source directly at the indices
// they compute (tensor.extract, one read per element; map_load pads
// outside the source); scatter and map_store, which write at computed
// indices, into searches over the positions they write; linalg's elementwise
// named ops (linalg.add, linalg.exp, ...) into linalg.generics;
// the Winograd F(6x6, 3x3) input and output transforms into contractions
// with constant matrices. It runs before the tensor ops it emits are converted
// (global-optimization). Any other iree_linalg_ext op is refused at its
// location.
//
// Convert first expands affine.linearize_index and affine.delinearize_index
// into arith ops everywhere in the module (affine.ExpandIndexOps), so that
// the regions it inlines, linalg bodies, dispatch functions and host code
// see plain index arithmetic.
package linalgexttolinalg

import (
	"strings"

	"github.com/goiree/goiree/compiler/conversion/internal/rewrite"
	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/ir"
)

// Convert lowers every op under root that the package lowers (see
// above), and fails at the first iree_linalg_ext op it cannot lower.
func Convert(root *ir.Operation) error {
	if err := affine.ExpandIndexOps(root); err != nil {
		return err
	}
	var ops []*ir.Operation
	ir.Walk(root, func(o *ir.Operation) bool {
		switch {
		case o.Name == "linalg.pack" || o.Name == "linalg.unpack" || isElementwise(o.Name):
			ops = append(ops, o)
		case strings.HasPrefix(o.Name, "iree_linalg_ext."):
			ops = append(ops, o)
			return false // the body's yield and index go with the op
		}
		return true
	})
	for _, op := range ops {
		b := builder{at: op}
		var v *ir.Value
		var err error
		switch op.Name {
		case "linalg.pack", "linalg.unpack", "iree_linalg_ext.pack", "iree_linalg_ext.unpack":
			var r *linalg.Relayout
			if strings.HasPrefix(op.Name, "linalg.") {
				r, err = linalg.RelayoutOf(op)
			} else {
				r, err = linalgext.RelayoutOf(op)
			}
			if err == nil {
				err = linalg.VerifyRelayout(op, r)
			}
			if err != nil {
				return err
			}
			if r.Unpack {
				v = b.unpack(r)
			} else {
				v = b.pack(r)
			}
		case "iree_linalg_ext.attention", "iree_linalg_ext.online_attention", "iree_linalg_ext.arg_compare",
			"iree_linalg_ext.scan", "iree_linalg_ext.sort", "iree_linalg_ext.topk", "iree_linalg_ext.topk_v2":
			var vs []*ir.Value
			switch {
			case op.Name == "iree_linalg_ext.arg_compare":
				vs, err = b.argCompare(op)
			case op.Name == "iree_linalg_ext.scan":
				vs, err = b.scan(op)
			case op.Name == "iree_linalg_ext.sort":
				vs, err = b.sort(op)
			case op.Name == "iree_linalg_ext.topk" || op.Name == "iree_linalg_ext.topk_v2":
				vs, err = b.topk(op)
			case len(op.Results) != len(linalgext.Outs(op)):
				err = ir.OpErrorf(op, "lowering of attention on memrefs is not supported yet")
			default:
				vs, err = b.attention(op)
			}
			if err != nil {
				return err
			}
			for i, r := range op.Results {
				// A name written for several results (%r:3) belongs to
				// the group, so the new values keep the printer's.
				if len(op.Results) == 1 {
					vs[i].Name = r.Name
				}
				ir.ReplaceAllUsesWith(root, r, vs[i])
			}
			op.Remove()
			// An attention's constant scale is folded into the lowering;
			// left unused, it goes (host code may not handle its type).
			if strings.HasSuffix(op.Name, "attention") {
				if sc := linalgext.Ins(op)[3]; sc.Op != nil && sc.Op.Name == "arith.constant" && sc.Op.Block != nil && !ir.HasUses(root, sc) {
					sc.Op.Remove()
				}
			}
			continue
		case "iree_linalg_ext.gather":
			if len(op.Results) != 1 {
				return ir.OpErrorf(op, "lowering of gather on memrefs is not supported yet")
			}
			v, err = b.gather(op)
		case "iree_linalg_ext.scatter":
			v, err = b.scatter(op)
		case "iree_linalg_ext.reverse":
			v, err = b.reverse(op)
		case "iree_linalg_ext.map_load":
			v, err = b.mapLoad(op)
		case "iree_linalg_ext.map_store":
			v, err = b.mapStore(op)
		case "iree_linalg_ext.winograd.input_transform":
			v, err = b.winogradInput(op)
		case "iree_linalg_ext.winograd.output_transform":
			v, err = b.winogradOutput(op)
		default:
			if !isElementwise(op.Name) {
				return ir.OpErrorf(op, "lowering is not supported yet")
			}
			v = b.elementwise(op)
		}
		if err != nil {
			return err
		}
		rewrite.Replace(root, op, v)
	}
	return nil
}

func isElementwise(name string) bool {
	_, ok := linalg.ElementwiseNamed[name]
	return ok
}
