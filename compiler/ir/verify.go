package ir

import "fmt"

// Verify checks the structural rules of op and everything nested in it:
// operands are defined and dominate their uses (within a block, defined
// before use; otherwise defined in an enclosing block), operand and
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
		// Block arguments of every block in the region are visible to the
		// region's ops (dominance across blocks is not analysed).
		regionVis := copyVis(inner)
		for _, b := range r.Blocks {
			for _, a := range b.Args {
				if a.Type == nil {
					return OpErrorf(op, "block argument '%%%s' has no type", a.Name)
				}
				regionVis[a] = true
			}
		}
		for _, b := range r.Blocks {
			local := copyVis(regionVis)
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
