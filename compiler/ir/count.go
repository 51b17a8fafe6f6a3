package ir

import (
	"slices"
	"strings"
)

// VerifyCountReturns checks the terminators of a workgroup count region
// (flow.dispatch.region's, stream and hal exports'): each block must end
// with one of the named ops returning three index values (x, y, z).
// Errors are reported on op, the region's owner.
func VerifyCountReturns(op *Operation, r *Region, terminators ...string) error {
	for _, b := range r.Blocks {
		t := b.Terminator()
		if t == nil || !slices.Contains(terminators, t.Name) {
			return OpErrorf(op, "workgroup count region must end with '%s'", strings.Join(terminators, "' or '"))
		}
		if len(t.Operands) != 3 {
			return OpErrorf(op, "workgroup count region must return 3 values (x, y, z), found %d", len(t.Operands))
		}
		for _, v := range t.Operands {
			if _, ok := v.Type.(IndexType); !ok {
				return OpErrorf(op, "workgroup count region must return index values, found '%s'", TypeString(v.Type))
			}
		}
	}
	return nil
}
