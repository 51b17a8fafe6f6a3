package util

import "github.com/goiree/goiree/compiler/ir"

// FoldGlobalAddresses rewrites indirect global accesses whose pointer is a
// util.global.address of a known global into direct ones, as IREE's util
// canonicalization does: util.global.load.indirect of such a pointer
// becomes util.global.load of the global (keeping `immutable`), and
// util.global.store.indirect becomes util.global.store. Addresses left
// without uses are removed. TensorFlow-imported models take every weight
// this way (IREE's BERT and MobileNet e2e models load over a thousand), and
// the host code generator handles only direct accesses; a pointer that
// flows through block arguments or calls is left as written, for the
// host code generator to refuse at its location.
//
// Each rewritten op is changed in place, so the pass is one walk over the
// module whatever the number of globals.
func FoldGlobalAddresses(root *ir.Operation) {
	var addrs []*ir.Operation
	used := map[*ir.Value]bool{}
	ir.Walk(root, func(op *ir.Operation) bool {
		switch op.Name {
		case "util.global.address":
			addrs = append(addrs, op)
		case "util.global.load.indirect":
			if a := addressOf(op.Operands[0]); a != nil {
				op.Name = "util.global.load"
				op.Operands = nil
				op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "global", Value: a.Attr("global")})
				if a.HasAttr("is_immutable") && !op.HasAttr("is_immutable") {
					op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "is_immutable", Value: ir.UnitAttr{}})
				}
				return true
			}
		case "util.global.store.indirect":
			if a := addressOf(op.Operands[1]); a != nil {
				op.Name = "util.global.store"
				op.Operands = op.Operands[:1]
				op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "global", Value: a.Attr("global")})
				return true
			}
		}
		for _, v := range op.Operands {
			used[v] = true
		}
		return true
	})
	for _, a := range addrs {
		if !used[a.Results[0]] {
			a.Remove()
		}
	}
}

// addressOf returns the util.global.address op that defines v, or nil.
func addressOf(v *ir.Value) *ir.Operation {
	if v == nil || v.Op == nil || v.Op.Name != "util.global.address" {
		return nil
	}
	if _, ok := globalRef(v.Op); !ok {
		return nil
	}
	return v.Op
}
