package cuda

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
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
	arch     string // the loaded image's architecture ("" when unknown)
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
		// Every CUDA device since compute capability 2.0 has these
		// maxBlockDim limits.
		if s := e.WorkgroupSize; s[0] > 1024 || s[1] > 1024 || s[2] > 64 {
			return nil, nil, status.Errorf(status.InvalidArgument, "entry point %q: block size %v is beyond CUDA's block dimensions [1024 1024 64]", ep.Name, s)
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

// SelectImage picks the PTX image of exe to load on a device of compute
// capability device ("sm_90"): the newest architecture the device can run
// (see cudafb.Arch.RunsOn; of equal capabilities the arch- or
// family-specific one). PTX for a newer architecture than the device is
// never chosen. An image without an arch (a payload from before per-arch
// images whose PTX names no .target) is taken only when no image has an
// arch the device runs, and left to the JIT. When no image can run, the
// error names the executable, the architectures present and the device's.
func SelectImage(exe *cudafb.Executable, device string) (int, error) {
	dev, err := cudafb.ParseArch(device)
	if err != nil {
		return -1, status.Errorf(status.Internal, "device compute capability: %v", err)
	}
	best, unknown := -1, -1
	var bestArch cudafb.Arch
	for i, im := range exe.Images {
		if im.Arch == "" {
			if unknown < 0 {
				unknown = i
			}
			continue
		}
		a, err := cudafb.ParseArch(im.Arch)
		if err != nil {
			return -1, status.Errorf(status.InvalidArgument, "%s: PTX image %d: %v", executableName(exe), i, err)
		}
		if !a.RunsOn(dev) {
			continue
		}
		if best < 0 || a.Number() > bestArch.Number() || a.Number() == bestArch.Number() && specificity(a) > specificity(bestArch) {
			best, bestArch = i, a
		}
	}
	if best < 0 {
		best = unknown
	}
	if best < 0 {
		return -1, status.Errorf(status.NotFound, "%s has PTX for %s only, none of which runs on this %s device (PTX runs on its own architecture or newer)",
			executableName(exe), strings.Join(exe.Archs(), ", "), device)
	}
	return best, nil
}

// specificity ranks archs of one compute capability: arch-specific PTX
// uses the most of the device, family-specific less, plain the least.
func specificity(a cudafb.Arch) int {
	switch a.Suffix {
	case 'a':
		return 2
	case 'f':
		return 1
	}
	return 0
}

func executableName(exe *cudafb.Executable) string {
	if exe.Name == "" {
		return "cuda executable"
	}
	return fmt.Sprintf("cuda executable @%s", exe.Name)
}

// LoadExecutable selects the payload's PTX image for the device
// (SelectImage), JIT-compiles it and looks up every entry point. The
// choice is logged at glog verbosity 1 (-v=1).
func (d *Device) LoadExecutable(params hal.ExecutableParams) (*Executable, error) {
	def, exports, err := ParseExecutable(params)
	if err != nil {
		return nil, err
	}
	pick, err := SelectImage(def, d.sm)
	if err != nil {
		return nil, err
	}
	chosen := def.Images[pick]
	if glog.V(1) {
		arch := chosen.Arch
		if arch == "" {
			arch = "unknown-arch"
		}
		glog.Infof("%s: loading the %s PTX image (images: %s) on %s (%s)", executableName(def), arch, strings.Join(def.Archs(), ", "), d.id, d.sm)
	}
	image := []byte(chosen.PTX)
	if i := bytes.IndexByte(image, 0); i >= 0 {
		image = image[:i]
	}
	image = append(image, 0)
	mod, err := moduleLoad(d.ctx, image)
	if err != nil {
		if chosen.Arch != "" {
			return nil, hal.ErrorContext(err, "%s: loading its %s PTX on %s", executableName(def), chosen.Arch, d.sm)
		}
		return nil, hal.ErrorContext(err, "%s: loading PTX for %s", executableName(def), d.sm)
	}
	exe := &Executable{dev: d, arch: chosen.Arch, module: mod, exports: exports}
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
		if err := d.checkFunction(fn, ep.Name, exports[i].WorkgroupSize, ep.SharedMemorySize); err != nil {
			moduleUnload(d.ctx, mod)
			return nil, hal.ErrorContext(err, "%s", executableName(def))
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

// Arch returns the architecture of the PTX image that was loaded ("sm_80";
// "" for a payload without per-arch images whose PTX names no .target).
func (e *Executable) Arch() string { return e.arch }

// Exports implements hal.Executable.
func (e *Executable) Exports() []hal.ExportInfo { return e.exports }

// Release implements hal.Executable: it unloads the module.
func (e *Executable) Release() error {
	if !e.released.CompareAndSwap(false, true) {
		return nil
	}
	return moduleUnload(e.dev.ctx, e.module)
}

// funcLimits are a loaded kernel's own limits, as the driver reports them
// after the JIT: what its register use and static shared memory leave.
type funcLimits struct {
	maxThreads   int // CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
	registers    int // per thread
	staticShared int // bytes of .shared the PTX declares
}

// checkFunction refuses an entry point the device cannot launch as the
// executable declares it: a block size beyond what the function's
// registers allow, or more shared memory than a block of the device may
// have. Both would otherwise fail only at the first launch, with
// CUDA_ERROR_INVALID_VALUE or CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES and no
// entry point named.
func (d *Device) checkFunction(fn cuFunction, name string, block [3]uint32, dynamicShared uint32) error {
	var l funcLimits
	var err error
	if l.maxThreads, err = funcAttribute(d.ctx, fn, funcAttrMaxThreadsPerBlock); err != nil {
		return err
	}
	if l.registers, err = funcAttribute(d.ctx, fn, funcAttrNumRegs); err != nil {
		return err
	}
	if l.staticShared, err = funcAttribute(d.ctx, fn, funcAttrSharedSizeBytes); err != nil {
		return err
	}
	limit, err := deviceAttribute(d.dev, attrMaxSharedPerBlockOptin)
	if err != nil || limit == 0 {
		// Devices before sm_70 have no opt-in: the plain limit.
		if limit, err = deviceAttribute(d.dev, attrMaxSharedPerBlock); err != nil {
			return err
		}
	}
	return checkLimits(name, block, dynamicShared, l, limit, d.sm)
}

// checkLimits is checkFunction's decision: nil when a block of block
// threads with dynamicShared bytes of dynamic shared memory can launch
// given the function's limits l and the device's shared memory per block
// (sharedLimit bytes, on a device of compute capability sm), else an
// OUT_OF_RANGE error naming the entry point, what it asks for and the
// limit.
func checkLimits(name string, block [3]uint32, dynamicShared uint32, l funcLimits, sharedLimit int, sm string) error {
	threads := int64(block[0]) * int64(block[1]) * int64(block[2])
	if threads > int64(l.maxThreads) {
		return status.Errorf(status.OutOfRange, "entry point %s: block size %dx%dx%d (%d threads) is over the %d threads a block of it can have on %s (it uses %d registers per thread)",
			name, block[0], block[1], block[2], threads, l.maxThreads, sm, l.registers)
	}
	if total := int64(l.staticShared) + int64(dynamicShared); total > int64(sharedLimit) {
		return status.Errorf(status.OutOfRange, "entry point %s: %d bytes of shared memory (%d static, %d dynamic) are over the %d bytes a block can have on %s",
			name, total, l.staticShared, dynamicShared, sharedLimit, sm)
	}
	return nil
}
