package ir

import "fmt"

// Verify checks the structural rules of op and everything nested in it:
// operands are defined and dominate their uses (within a block, defined
// before use; across blocks of a region, defined in a dominating block;
// or defined in an enclosing block before the enclosing op), operand and
// block-argument types are set, symbol names are unique within a symbol
// table, and each registered op's own verifier passes. It returns the first
// error found.
func Verify(op *Operation, reg *Registry) error {
	v := &verifier{reg: reg}
	return v.verifyOp(op, map[*Value]bool{})
}

type verifier struct{ reg *Registry }

func (v *verifier) verifyOp(op *Operation, visible map[*Value]bool) error {
	for i, x := range op.Operands {
		if x == nil {
			return OpErrorf(op, "operand #%d is null", i)
		}
		if x.Type == nil {
			return OpErrorf(op, "operand #%d ('%%%s') has no type", i, x.Name)
		}
		if !visible[x] {
			if x.Op == nil && x.Block == nil {
				return OpErrorf(op, "operand #%d uses undefined value '%%%s'", i, x.Name)
			}
			return OpErrorf(op, "operand #%d ('%%%s') does not dominate this use", i, x.Name)
		}
	}
	d := v.reg.Op(op.Name)
	if d != nil && d.SymbolTable {
		seen := map[string]*Operation{}
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, o := range b.Ops {
					if n := o.SymName(); n != "" {
						if prev, dup := seen[n]; dup {
							return Errorf(o.Pos, "redefinition of symbol named '%s' (previous definition at %s)", n, prev.Pos)
						}
						seen[n] = o
					}
				}
			}
		}
	}
	for _, r := range op.Regions {
		inner := visible
		if d != nil && d.IsolatedFromAbove {
			inner = map[*Value]bool{}
		}
		dom := dominators(r)
		defined := make(map[*Block][]*Value, len(r.Blocks))
		for _, b := range r.Blocks {
			for _, a := range b.Args {
				if a.Type == nil {
					return OpErrorf(op, "block argument '%%%s' has no type", a.Name)
				}
			}
			vals := append([]*Value(nil), b.Args...)
			for _, o := range b.Ops {
				vals = append(vals, o.Results...)
			}
			defined[b] = vals
		}
		for _, b := range r.Blocks {
			// Values of the blocks dominating b are visible in it.
			local := copyVis(inner)
			for _, a := range r.Blocks {
				if a != b && dom[b][a] {
					for _, v := range defined[a] {
						local[v] = true
					}
				}
			}
			for _, a := range b.Args {
				local[a] = true
			}
			for _, o := range b.Ops {
				if o.Block != b {
					return OpErrorf(o, "has a stale parent block pointer")
				}
				if err := v.verifyOp(o, local); err != nil {
					return err
				}
				for _, res := range o.Results {
					local[res] = true
				}
			}
		}
	}
	if d != nil && d.Verify != nil {
		if err := d.Verify(op); err != nil {
			return err
		}
	}
	return nil
}

func copyVis(m map[*Value]bool) map[*Value]bool {
	out := make(map[*Value]bool, len(m)+8)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ExpectOperands checks the operand count of op.
func ExpectOperands(op *Operation, n int) error {
	if len(op.Operands) != n {
		return OpErrorf(op, "expected %d operands, but found %d", n, len(op.Operands))
	}
	return nil
}

// ExpectResults checks the result count of op.
func ExpectResults(op *Operation, n int) error {
	if len(op.Results) != n {
		return OpErrorf(op, "expected %d results, but found %d", n, len(op.Results))
	}
	return nil
}

// TypeMismatch formats a type disagreement.
func TypeMismatch(what string, got, want Type) string {
	return fmt.Sprintf("%s type '%s' does not match expected type '%s'", what, TypeString(got), TypeString(want))
}

// dominators computes, for each block of r, the set of blocks dominating it
// (including itself). Unreachable blocks are dominated by every block.
func dominators(r *Region) map[*Block]map[*Block]bool {
	dom := make(map[*Block]map[*Block]bool, len(r.Blocks))
	if len(r.Blocks) == 0 {
		return dom
	}
	inRegion := map[*Block]bool{}
	for _, b := range r.Blocks {
		inRegion[b] = true
	}
	preds := map[*Block][]*Block{}
	for _, b := range r.Blocks {
		if t := b.Terminator(); t != nil {
			for _, s := range t.Successors {
				if inRegion[s] {
					preds[s] = append(preds[s], b)
				}
			}
		}
	}
	all := func() map[*Block]bool {
		m := make(map[*Block]bool, len(r.Blocks))
		for _, b := range r.Blocks {
			m[b] = true
		}
		return m
	}
	entry := r.Blocks[0]
	for _, b := range r.Blocks {
		if b == entry {
			dom[b] = map[*Block]bool{b: true}
		} else {
			dom[b] = all()
		}
	}
	for changed := true; changed; {
		changed = false
		for _, b := range r.Blocks[1:] {
			if len(preds[b]) == 0 {
				continue
			}
			next := map[*Block]bool{}
			for k := range dom[preds[b][0]] {
				next[k] = true
			}
			for _, p := range preds[b][1:] {
				for k := range next {
					if !dom[p][k] {
						delete(next, k)
					}
				}
			}
			next[b] = true
			if len(next) != len(dom[b]) {
				dom[b] = next
				changed = true
			}
		}
	}
	return dom
}
