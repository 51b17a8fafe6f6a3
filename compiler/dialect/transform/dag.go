package transform

import (
	"slices"

	"github.com/goiree/goiree/compiler/ir"
)

// operationNameOnly marks a pattern op compared by its name alone.
const operationNameOnly = "match.operation_name_only"

// matchDAG runs transform.iree.match.cast_compatible_dag_from_root on the
// single op of h (see the package doc).
func matchDAG(op *ir.Operation, h handle) ([]handle, error) {
	if len(h.ops) != 1 {
		return nil, ir.OpErrorf(op, "expected one root op, found %d", len(h.ops))
	}
	if len(op.Regions) == 0 || len(op.Regions[0].Blocks) == 0 || len(op.Regions[0].Blocks[0].Ops) == 0 {
		return nil, ir.OpErrorf(op, "the pattern region is empty")
	}
	pat := op.Regions[0].Blocks[0]
	m := &dagMatch{pattern: pat, bound: make([]*ir.Value, len(pat.Args)), seen: map[*ir.Operation]*ir.Operation{}}
	root := h.ops[0]
	if !m.op(pat.Ops[len(pat.Ops)-1], root) {
		return nil, noMatch(op, "%s does not match the pattern", root.Name)
	}
	var ins handle
	for i, v := range m.bound {
		if v == nil {
			return nil, ir.OpErrorf(op, "pattern argument #%d is used by no op the match follows", i)
		}
		ins.values = append(ins.values, v)
	}
	return []handle{ins, {values: root.Results}}, nil
}

type dagMatch struct {
	pattern *ir.Block
	bound   []*ir.Value                     // payload value of each pattern argument
	seen    map[*ir.Operation]*ir.Operation // pattern op -> payload op
}

func (m *dagMatch) op(p, q *ir.Operation) bool {
	if prev, ok := m.seen[p]; ok {
		return prev == q
	}
	if p.Name != q.Name {
		return false
	}
	m.seen[p] = q
	if p.HasAttr(operationNameOnly) {
		return true
	}
	if len(p.Operands) != len(q.Operands) || len(p.Results) != len(q.Results) || !sameAttrs(p, q) {
		return false
	}
	for i, r := range p.Results {
		if !castCompatible(r.Type, q.Results[i].Type) {
			return false
		}
	}
	if !sameRegions(p, q, map[*ir.Value]*ir.Value{}, m.value) {
		return false
	}
	for i, pv := range p.Operands {
		if !m.value(pv, q.Operands[i]) {
			return false
		}
	}
	return true
}

// value matches the pattern value pv, an argument of the pattern or a
// result of one of its ops, with the payload value qv.
func (m *dagMatch) value(pv, qv *ir.Value) bool {
	if pv.Block == m.pattern {
		if b := m.bound[pv.Index]; b != nil {
			return b == qv
		}
		if !castCompatible(pv.Type, qv.Type) {
			return false
		}
		m.bound[pv.Index] = qv
		return true
	}
	return pv.Op != nil && qv.Op != nil && pv.Index == qv.Index && pv.Op.Block == m.pattern && m.op(pv.Op, qv.Op)
}

// sameAttrs compares the attributes of p (less the matcher's own marker)
// and q as sets of printed name=value pairs.
func sameAttrs(p, q *ir.Operation) bool {
	set := func(o *ir.Operation) []string {
		var out []string
		for _, a := range o.Attrs {
			if a.Name != operationNameOnly {
				out = append(out, a.Name+"="+ir.AttrString(a.Value))
			}
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(set(p), set(q))
}

// sameRegions compares the regions of p and q op by op, values in
// correspondence through vmap; a value the regions use from outside is
// compared by outer (nil: such values must be the same).
func sameRegions(p, q *ir.Operation, vmap map[*ir.Value]*ir.Value, outer func(pv, qv *ir.Value) bool) bool {
	if len(p.Regions) != len(q.Regions) {
		return false
	}
	for ri, pr := range p.Regions {
		qr := q.Regions[ri]
		if len(pr.Blocks) != len(qr.Blocks) {
			return false
		}
		for bi, pb := range pr.Blocks {
			qb := qr.Blocks[bi]
			if len(pb.Args) != len(qb.Args) || len(pb.Ops) != len(qb.Ops) {
				return false
			}
			for i, a := range pb.Args {
				if !ir.TypesEqual(a.Type, qb.Args[i].Type) {
					return false
				}
				vmap[a] = qb.Args[i]
			}
			for i, po := range pb.Ops {
				qo := qb.Ops[i]
				if po.Name != qo.Name || len(po.Operands) != len(qo.Operands) || len(po.Results) != len(qo.Results) || !sameAttrs(po, qo) {
					return false
				}
				for j, v := range po.Operands {
					w, inside := vmap[v]
					switch {
					case inside && w != qo.Operands[j]:
						return false
					case !inside && outer != nil && !outer(v, qo.Operands[j]):
						return false
					case !inside && outer == nil && v != qo.Operands[j]:
						return false
					}
				}
				for j, r := range po.Results {
					if !ir.TypesEqual(r.Type, qo.Results[j].Type) {
						return false
					}
					vmap[r] = qo.Results[j]
				}
				if !sameRegions(po, qo, vmap, outer) {
					return false
				}
			}
		}
	}
	return true
}
