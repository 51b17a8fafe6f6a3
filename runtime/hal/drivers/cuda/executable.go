package cuda

import (
	"bytes"
	"fmt"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/hal"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/vm/status"
)

// maxStaticShared is the shared memory a kernel may use without opting in
// through CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
const maxStaticShared = 48 << 10

type kernel struct {
	fn     cuFunction
	block  [3]uint32
	shared uint32
}

// Executable is a loaded CUDA module with one function per export.
type Executable struct {
	dev      *Device
	module   cuModule
	exports  []hal.ExportInfo
	kernels  []kernel
	released atomic.Bool
}

type executableCache struct{ d *Device }

func (c executableCache) CanPrepareFormat(format string) bool { return format == Format }

func (c executableCache) PrepareExecutable(params hal.ExecutableParams) (hal.Executable, error) {
	return c.d.LoadExecutable(params)
}

// ParseExecutable decodes a "cuda-nvptx-fb" payload into its export table
// (counts -1 where the payload does not declare them) and checks it
// against the optional layouts.
func ParseExecutable(params hal.ExecutableParams) (*cudafb.Executable, []hal.ExportInfo, error) {
	if params.Format != Format {
		return nil, nil, status.Errorf(status.Unimplemented, "executable format %q is not supported by the cuda driver (supported: %s)", params.Format, Format)
	}
	def, err := cudafb.Unmarshal(params.Data)
	if err != nil {
		return nil, nil, status.Errorf(status.InvalidArgument, "%v", err)
	}
	root := cudafb.GetRootAsCUDAExecutableDef(params.Data, 0)
	hasConsts, hasBinds := root.ConstantCountsLength() > 0, root.BindingCountsLength() > 0
	exports := make([]hal.ExportInfo, len(def.EntryPoints))
	for i, ep := range def.EntryPoints {
		e := hal.ExportInfo{Name: ep.Name, ConstantCount: -1, BindingCount: -1, LocalMemoryBytes: int64(ep.SharedMemorySize), WorkgroupSize: ep.BlockSize}
		if hasConsts {
			e.ConstantCount = int(ep.ConstantCount)
		}
		if hasBinds {
			e.BindingCount = int(ep.BindingCount)
		}
		for j := range e.WorkgroupSize {
			if e.WorkgroupSize[j] == 0 {
				e.WorkgroupSize[j] = 1
			}
		}
		if t := uint64(e.WorkgroupSize[0]) * uint64(e.WorkgroupSize[1]) * uint64(e.WorkgroupSize[2]); t > 1024 {
			return nil, nil, status.Errorf(status.InvalidArgument, "entry point %q: block size %v is %d threads, over CUDA's 1024", ep.Name, e.WorkgroupSize, t)
		}
		exports[i] = e
	}
	if len(params.Layouts) > 0 && params.CachingMode&hal.CachingDisableVerification == 0 {
		if len(params.Layouts) != len(exports) {
			return nil, nil, status.Errorf(status.InvalidArgument, "executable has %d export(s) but %d pipeline layout(s) were given", len(exports), len(params.Layouts))
		}
		for i, lay := range params.Layouts {
			e := &exports[i]
			if e.ConstantCount >= 0 && e.ConstantCount != lay.ConstantCount {
				return nil, nil, status.Errorf(status.InvalidArgument, "entry point %q declares %d constant(s) but its layout has %d", e.Name, e.ConstantCount, lay.ConstantCount)
			}
			if e.BindingCount >= 0 && e.BindingCount != lay.BindingCount {
				return nil, nil, status.Errorf(status.InvalidArgument, "entry point %q declares %d binding(s) but its layout has %d", e.Name, e.BindingCount, lay.BindingCount)
			}
			if e.ConstantCount < 0 {
				e.ConstantCount = lay.ConstantCount
			}
			if e.BindingCount < 0 {
				e.BindingCount = lay.BindingCount
			}
		}
	}
	return def, exports, nil
}

// LoadExecutable JIT-compiles the payload's PTX and looks up every entry
// point.
func (d *Device) LoadExecutable(params hal.ExecutableParams) (*Executable, error) {
	def, exports, err := ParseExecutable(params)
	if err != nil {
		return nil, err
	}
	image := []byte(def.PTX)
	if i := bytes.IndexByte(image, 0); i >= 0 {
		image = image[:i]
	}
	image = append(image, 0)
	mod, err := moduleLoad(d.ctx, image)
	if err != nil {
		return nil, hal.ErrorContext(err, "loading PTX for %s", d.sm)
	}
	exe := &Executable{dev: d, module: mod, exports: exports}
	for i, ep := range def.EntryPoints {
		fn, r := moduleFunction(d.ctx, mod, ep.Name)
		if r == cuErrorNotFound {
			moduleUnload(d.ctx, mod)
			return nil, status.Errorf(status.NotFound, "exported module function %s not found", ep.Name)
		}
		if err := check(r, fmt.Sprintf("cuModuleGetFunction(%s)", ep.Name)); err != nil {
			moduleUnload(d.ctx, mod)
			return nil, err
		}
		if ep.SharedMemorySize > maxStaticShared {
			if err := funcSetMaxDynamicShared(d.ctx, fn, int(ep.SharedMemorySize)); err != nil {
				moduleUnload(d.ctx, mod)
				return nil, hal.ErrorContext(err, "entry point %s: %d bytes of shared memory", ep.Name, ep.SharedMemorySize)
			}
		}
		exe.kernels = append(exe.kernels, kernel{fn: fn, block: exports[i].WorkgroupSize, shared: ep.SharedMemorySize})
	}
	return exe, nil
}

// Format implements hal.Executable.
func (e *Executable) Format() string { return Format }

// Exports implements hal.Executable.
func (e *Executable) Exports() []hal.ExportInfo { return e.exports }

// Release implements hal.Executable: it unloads the module.
func (e *Executable) Release() error {
	if !e.released.CompareAndSwap(false, true) {
		return nil
	}
	return moduleUnload(e.dev.ctx, e.module)
}
