package vulkan

/*
#include <stdlib.h>
#include "gvk.h"
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

// executableCache prepares SPIR-V executables for one device.
type executableCache struct{ device *Device }

// CanPrepareFormat implements hal.ExecutableCache.
func (executableCache) CanPrepareFormat(format string) bool { return format == spirv.Format }

// PrepareExecutable implements hal.ExecutableCache: it decodes the
// "vulkan-spirv-fb" payload, checks that the module declares a GLCompute
// entry point for every export, and builds one pipeline per export.
func (c executableCache) PrepareExecutable(params hal.ExecutableParams) (hal.Executable, error) {
	if params.Format != spirv.Format {
		return nil, status.Errorf(status.InvalidArgument, "vulkan cannot prepare executable format %q (it supports %s)", params.Format, spirv.Format)
	}
	def, err := spirv.Unmarshal(params.Data)
	if err != nil {
		return nil, status.Wrap(status.InvalidArgument, err, "preparing vulkan executable")
	}
	if len(params.Layouts) != 0 && len(params.Layouts) != len(def.EntryPoints) {
		return nil, status.Errorf(status.InvalidArgument, "preparing vulkan executable: %d layouts for %d entry points", len(params.Layouts), len(def.EntryPoints))
	}
	entries, err := spirvEntryPoints(def.Code)
	if err != nil {
		return nil, status.Wrap(status.InvalidArgument, err, "preparing vulkan executable")
	}
	needs, err := scanModule(def.Code)
	if err != nil {
		return nil, status.Wrap(status.InvalidArgument, err, "preparing vulkan executable")
	}
	caps := c.device.caps()
	if err := caps.checkFeatures(needs); err != nil {
		return nil, status.Errorf(status.Unimplemented, "preparing vulkan executable%s: %v", executableName(params.Name), err)
	}
	if err := checkMatrixFeatures(needs, c.device.name, uint32(c.device.dev.features)); err != nil {
		return nil, status.Errorf(status.Unimplemented, "preparing vulkan executable%s: %v", executableName(params.Name), err)
	}
	if err := caps.checkSizes(needs); err != nil {
		return nil, status.Errorf(status.OutOfRange, "preparing vulkan executable%s: %v", executableName(params.Name), err)
	}
	if err := checkSharedMemory(def.Code, c.device.name, uint32(c.device.dev.max_shared_memory)); err != nil {
		return nil, status.Errorf(status.OutOfRange, "preparing vulkan executable%s: %v", executableName(params.Name), err)
	}
	exports := make([]hal.ExportInfo, len(def.EntryPoints))
	var names strings.Builder
	consts := make([]C.uint32_t, len(def.EntryPoints))
	binds := make([]C.uint32_t, len(def.EntryPoints))
	for i, ep := range def.EntryPoints {
		if !entries[ep.Name] {
			return nil, status.Errorf(status.NotFound, "preparing vulkan executable: SPIR-V module has no GLCompute entry point %q for export %d (it has: %s)", ep.Name, i, entryList(entries))
		}
		nc, nb := int(ep.ConstantCount), int(ep.BindingCount)
		if len(params.Layouts) > 0 {
			l := params.Layouts[i]
			if (nc != 0 || nb != 0) && (l.ConstantCount != nc || l.BindingCount != nb) {
				return nil, status.Errorf(status.InvalidArgument, "preparing vulkan executable: export %q declares %d constants and %d bindings but its layout has %d and %d", ep.Name, nc, nb, l.ConstantCount, l.BindingCount)
			}
			nc, nb = l.ConstantCount, l.BindingCount
		}
		if nc > hal.MaxConstants || nb > hal.MaxBindings {
			return nil, status.Errorf(status.OutOfRange, "preparing vulkan executable: export %q has %d constants and %d bindings (limits %d and %d)", ep.Name, nc, nb, hal.MaxConstants, hal.MaxBindings)
		}
		if err := checkStorageBuffers(ep.Name, nb, c.device.name, uint32(c.device.maxStorageBuffers())); err != nil {
			return nil, status.Errorf(status.OutOfRange, "preparing vulkan executable%s: %v", executableName(params.Name), err)
		}
		exports[i] = hal.ExportInfo{Name: ep.Name, ConstantCount: nc, BindingCount: nb}
		consts[i], binds[i] = C.uint32_t(nc), C.uint32_t(nb)
		names.WriteString(ep.Name)
		names.WriteByte(0)
	}
	if need := 4 * uint32(maxConstants(exports)); need > uint32(c.device.dev.max_push_constants_size) {
		return nil, status.Errorf(status.OutOfRange, "preparing vulkan executable: %d bytes of push constants exceed the device's maxPushConstantsSize %d", need, c.device.dev.max_push_constants_size)
	}
	words := withoutDenormPreserve(def.Code, needs.denormModes, uint32(c.device.dev.denorm_preserve))
	code := C.malloc(C.size_t(4 * len(words)))
	defer C.free(code)
	copy(unsafe.Slice((*uint32)(code), len(words)), words)
	cnames := C.CString(names.String())
	defer C.free(unsafe.Pointer(cnames))
	e := &Executable{device: c.device, exports: exports}
	err = c.device.live("preparing executable", func() error {
		var failed C.int
		r := C.gvk_executable_create(c.device.dev, (*C.uint32_t)(code), C.size_t(len(words)), C.uint32_t(len(exports)),
			cnames, &consts[0], &binds[0], &e.exe, &failed)
		if r != C.VK_SUCCESS {
			if failed >= 0 && int(failed) < len(exports) {
				return vkError(r, "creating the compute pipeline of export %q", exports[failed].Name)
			}
			return vkError(r, "creating the vulkan shader module")
		}
		return nil
	})
	if err != nil {
		return nil, hal.ErrorContext(err, "preparing vulkan executable")
	}
	return e, nil
}

// executableName is " <name>" for messages, or "" for an unnamed
// executable.
func executableName(name string) string {
	if name == "" {
		return ""
	}
	return " " + name
}

// caps is what the device offers shaders, as gvk_device_create found it.
func (d *Device) caps() deviceCaps {
	c := deviceCaps{
		name:           d.name,
		features:       uint32(d.dev.features),
		subgroupOps:    uint32(d.dev.subgroup_ops),
		maxInvocations: uint32(d.dev.max_workgroup_invocations),
	}
	for i := range c.maxSize {
		c.maxSize[i] = uint32(d.dev.max_workgroup_size[i])
	}
	return c
}

// Features lists the optional shader features the device supports (and
// that the driver enables on it), by their Vulkan feature names
// (shaderFloat64, storageBuffer16BitAccess, ...), then the subgroup
// operations compute shaders may use, as "subgroup:<operation>".
func (d *Device) Features() []string {
	c := d.caps()
	var out []string
	for _, cp := range sortedCapabilities() {
		need := capabilityNeeds[cp]
		if need.feature != 0 && c.features&need.feature != 0 {
			out = append(out, need.featName)
		}
	}
	out = append(out, matrixFeatureNames(c.features)...)
	for b, n := range subgroupNames {
		if c.subgroupOps&(1<<b) != 0 {
			out = append(out, "subgroup:"+n)
		}
	}
	return out
}

func maxConstants(exports []hal.ExportInfo) int {
	m := 0
	for _, e := range exports {
		m = max(m, e.ConstantCount)
	}
	return m
}

func entryList(entries map[string]bool) string {
	if len(entries) == 0 {
		return "none"
	}
	var names []string
	for n := range entries {
		names = append(names, fmt.Sprintf("%q", n))
	}
	return strings.Join(sortStrings(names), ", ")
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// SPIR-V constants used by the entry point scan.
const (
	spvOpEntryPoint  = 15
	spvGLCompute     = 5
	spvHeaderWords   = 5
	spvMaxEntryPoint = 1 << 16
)

// spirvEntryPoints returns the names of the module's GLCompute entry
// points. It reads only the instruction stream's framing and the
// OpEntryPoint instructions, rejecting malformed framing.
func spirvEntryPoints(code []uint32) (map[string]bool, error) {
	if len(code) < spvHeaderWords || code[0] != spirv.Magic {
		return nil, fmt.Errorf("not a SPIR-V module")
	}
	out := map[string]bool{}
	for i := spvHeaderWords; i < len(code); {
		n := int(code[i] >> 16)
		op := code[i] & 0xffff
		if n == 0 || i+n > len(code) {
			return nil, fmt.Errorf("SPIR-V instruction at word %d has bad length %d", i, n)
		}
		if op == spvOpEntryPoint && n >= 4 && code[i+1] == spvGLCompute {
			raw := make([]byte, 4*(n-3))
			for k := 0; k < n-3; k++ {
				binary.LittleEndian.PutUint32(raw[4*k:], code[i+3+k])
			}
			if z := strings.IndexByte(string(raw), 0); z >= 0 {
				raw = raw[:z]
			}
			out[string(raw)] = true
			if len(out) > spvMaxEntryPoint {
				return nil, fmt.Errorf("too many entry points")
			}
		}
		i += n
	}
	return out, nil
}

// Executable is a prepared SPIR-V executable: a shader module with one
// compute pipeline per export.
type Executable struct {
	device   *Device
	exports  []hal.ExportInfo
	exe      *C.gvk_executable
	released atomic.Bool
}

// Format implements hal.Executable.
func (e *Executable) Format() string { return spirv.Format }

// Exports implements hal.Executable.
func (e *Executable) Exports() []hal.ExportInfo { return e.exports }

// Release implements hal.Executable.
func (e *Executable) Release() error {
	if !e.released.CompareAndSwap(false, true) {
		return status.Errorf(status.FailedPrecondition, "vulkan executable released twice")
	}
	return e.device.live("releasing executable", func() error {
		C.gvk_executable_destroy(e.device.dev, e.exe)
		return nil
	})
}
