package local

import (
	"runtime"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local/vmvx"
)

// FormatVMVX is the format of vmvx executables, which the local devices
// interpret with the VM (package vmvx) on any host.
const FormatVMVX = vmvx.Format

// loadVMVX prepares a vmvx executable. Its dispatches run through the same
// Dispatch and Runner paths as native ones; Dispatch.Run calls the VM
// instead of the trampoline.
func loadVMVX(params hal.ExecutableParams) (*Executable, error) {
	if len(params.Constants) > 0 {
		return nil, status.Errorf(status.InvalidArgument, "executable expects 0 constant(s) but %d were provided (vmvx executables take no executable-level constants)", len(params.Constants))
	}
	v, err := vmvx.Load(params.Data)
	if err != nil {
		return nil, err
	}
	exe := &Executable{format: params.Format, name: params.Name, vmvx: v, exports: append([]hal.ExportInfo(nil), v.Exports()...)}
	if len(params.Layouts) > 0 && params.CachingMode&hal.CachingDisableVerification == 0 {
		if len(params.Layouts) != len(exe.exports) {
			return nil, status.Errorf(status.InvalidArgument, "executable has %d export(s) but %d pipeline layout(s) were given", len(exe.exports), len(params.Layouts))
		}
		for i, lay := range params.Layouts {
			e := exe.exports[i]
			if e.ConstantCount != lay.ConstantCount || e.BindingCount != lay.BindingCount {
				return nil, status.Errorf(status.InvalidArgument, "%s takes %d constant(s) and %d binding(s) but its layout has %d and %d", exe.exportName(i), e.ConstantCount, e.BindingCount, lay.ConstantCount, lay.BindingCount)
			}
		}
	}
	return exe, nil
}

// runVMVX runs the workgroups [begin, end) of a vmvx dispatch.
func (d *Dispatch) runVMVX(begin, end uint64) error {
	if err := d.vmvx.Run(begin, end); err != nil {
		return status.Wrap(status.CodeOf(err), err, "dispatch of %s in executable %s failed", d.exe.exportName(d.ordinal), d.exe.displayName())
	}
	return nil
}

// goarchAny marks a format that runs on every host.
const goarchAny = ""

func runsHere(goarch string) bool { return goarch == goarchAny || goarch == runtime.GOARCH }
