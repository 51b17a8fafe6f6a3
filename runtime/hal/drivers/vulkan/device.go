package vulkan

/*
#include <stdlib.h>
#include "gvk.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

// Device is a hal.Device on one Vulkan physical device. It is safe for
// concurrent use: submissions to its queue are serialised.
type Device struct {
	id    string
	name  string
	index int
	dev   *C.gvk_device // C memory: the stream's executables point at it too
	alloc *Allocator

	mu     sync.Mutex // guards the queue, command pool, fence, closed and timing
	closed bool
	// timing: submissions are bracketed by timestamps (SetTiming), and
	// lastDevice is the device time of the latest one.
	timing     bool
	lastDevice time.Duration
	// staged: buffers the host may access are staged (HostStaged).
	staged bool
}

// HostAccess says how a device backs the buffers that the host may access
// (every request but DEVICE_LOCAL without HOST_VISIBLE).
type HostAccess int

const (
	// HostDefault is HostMapped. (Staging measured no faster on the H200:
	// the shader runs at the same speed on mapped device-local, device-only
	// and host-written memory; gpu/bench.md, device runs 5 and 6.)
	HostDefault HostAccess = iota
	// HostMapped allocates them in host-visible memory, preferring
	// device-local host-visible memory (a BAR heap), mapped for their
	// lifetime: the host reads and writes the device's memory directly.
	HostMapped
	// HostStaged allocates them in device-only memory with a mirror in
	// host memory: the host reads and writes the mirror, a submission
	// that uses the buffer first uploads the mirror when the host may
	// have written it since the last upload, and host access downloads the
	// buffer first when a submission may have written it since. Shaders
	// read and write device-only memory.
	HostStaged
)

func (h HostAccess) String() string {
	switch h {
	case HostMapped:
		return "mapped"
	case HostStaged:
		return "staged"
	}
	return "default"
}

// Queue says which queue family a device submits to.
type Queue int

const (
	// QueueCompute prefers a compute family without graphics (NVIDIA's
	// async compute family), the default.
	QueueCompute Queue = iota
	// QueueUniversal prefers a graphics and compute family.
	QueueUniversal
)

// DeviceOptions configure NewDeviceWith.
type DeviceOptions struct {
	// Queue picks the queue family; either falls back to any family with
	// compute.
	Queue Queue
	// Dedicated gives every buffer a dedicated allocation
	// (VkMemoryDedicatedAllocateInfo, core in Vulkan 1.1).
	Dedicated bool
	// Host says how buffers the host may access are backed.
	Host HostAccess
	// PortableLimits holds executables and dispatches to the least
	// limits Vulkan allows any device (workgroups of 128 invocations and
	// at most 128 x 128 x 64, 16 KiB of shared memory, 65,535 workgroups
	// a dimension) instead of the device's own, so that a device with larger limits shows whether a
	// module runs on every Vulkan device: one compiled for a larger
	// device (iree-compile's --iree-vulkan-target) is refused when it is
	// prepared, as a small device would refuse it.
	PortableLimits bool
}

// The least compute limits Vulkan allows a device
// (maxComputeWorkGroupInvocations, maxComputeWorkGroupSize,
// maxComputeSharedMemorySize, maxComputeWorkGroupCount), which
// DeviceOptions.PortableLimits imposes.
const (
	portableInvocations = 128
	portableShared      = 16384
	portableCount       = 65535
)

var portableSize = [3]int{128, 128, 64}

func newDevice(pd physicalDevice, index int, o DeviceOptions) (*Device, error) {
	dev := (*C.gvk_device)(C.calloc(1, C.sizeof_gvk_device))
	if dev == nil {
		return nil, status.Errorf(status.ResourceExhausted, "allocating a vulkan device")
	}
	var msg [256]C.char
	queue := C.GVK_QUEUE_COMPUTE
	if o.Queue == QueueUniversal {
		queue = C.GVK_QUEUE_UNIVERSAL
	}
	if r := C.gvk_device_create(pd.handle, C.int(queue), dev, &msg[0], C.size_t(len(msg))); r != C.VK_SUCCESS {
		C.free(unsafePointer(dev))
		return nil, vkError(r, "creating vulkan device %d (%s): %s", index, pd.name, C.GoString(&msg[0]))
	}
	if o.Dedicated {
		dev.dedicated = 1
	}
	if o.PortableLimits {
		dev.max_workgroup_invocations = C.uint32_t(min(int(dev.max_workgroup_invocations), portableInvocations))
		dev.max_shared_memory = C.uint32_t(min(int(dev.max_shared_memory), portableShared))
		for i := range portableSize {
			dev.max_workgroup_size[i] = C.uint32_t(min(int(dev.max_workgroup_size[i]), portableSize[i]))
			dev.max_workgroup_count[i] = C.uint32_t(min(int(dev.max_workgroup_count[i]), portableCount))
		}
	}
	d := &Device{id: DriverName, name: pd.name, index: index, dev: dev}
	d.staged = o.Host == HostStaged
	d.alloc = newAllocator(d)
	return d, nil
}

// HostAccess reports how the device backs buffers the host may access:
// HostStaged or HostMapped.
func (d *Device) HostAccess() HostAccess {
	if d.staged {
		return HostStaged
	}
	return HostMapped
}

// ID implements hal.Device.
func (d *Device) ID() string { return d.id }

// Name returns the physical device's name.
func (d *Device) Name() string { return d.name }

// Allocator implements hal.Device.
func (d *Device) Allocator() hal.Allocator { return d.alloc }

// CreateCommandBuffer implements hal.Device.
func (d *Device) CreateCommandBuffer(mode hal.CommandBufferMode, categories hal.CommandCategory) (*hal.CommandBuffer, error) {
	return hal.NewCommandBuffer(mode, categories), nil
}

// CreateExecutableCache implements hal.Device.
func (d *Device) CreateExecutableCache(identifier string) (hal.ExecutableCache, error) {
	return executableCache{device: d}, nil
}

// CreateSemaphore implements hal.Device.
func (d *Device) CreateSemaphore(initial uint64) (*hal.Semaphore, error) {
	return hal.NewSemaphore(initial), nil
}

// ExecutableFormats implements hal.Device: "vulkan-spirv-fb".
func (d *Device) ExecutableFormats() []string { return []string{spirv.Format} }

// QueryI64 implements hal.Device (see hal.QueryDevice).
func (d *Device) QueryI64(category, key string) (int64, error) {
	return hal.QueryDevice(d.id, d.ExecutableFormats(), 1, category, key)
}

// QueueExecute implements hal.Device. It waits for wait on the host,
// records cbs into one Vulkan command buffer, submits it, waits for its
// fence and then signals signal (or fails it with the error). The error is
// also returned when signal is empty.
func (d *Device) QueueExecute(wait, signal *hal.Fence, cbs []*hal.CommandBuffer) error {
	for i, cb := range cbs {
		if cb == nil || !cb.IsExecutable() {
			return status.Errorf(status.FailedPrecondition, "queue execute: command buffer %d has not been ended", i)
		}
	}
	if err := wait.Wait(hal.InfiniteTimeout); err != nil {
		err = hal.ErrorContext(err, "queue execute: wait fence failed")
		signal.Fail(err)
		return err
	}
	if err := d.execute(cbs); err != nil {
		signal.Fail(err)
		if signal.Len() > 0 {
			return nil
		}
		return err
	}
	return signal.Signal()
}

// Close implements hal.Device: it destroys the allocator's cached buffers
// and the device. Buffers and executables released after Close leak their
// Vulkan objects rather than touch a destroyed device.
func (d *Device) Close() error {
	// The allocator's cached buffers go first, while the device lives.
	d.alloc.Trim()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	C.gvk_device_destroy(d.dev)
	C.free(unsafePointer(d.dev))
	return nil
}

// live runs f with the device lock held, failing when the device is closed.
func (d *Device) live(what string, f func() error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return status.Errorf(status.FailedPrecondition, "%s: vulkan device is closed", what)
	}
	return f()
}

// MemoryReport describes the device's memory heaps and memory types, one
// per line ("heap 0: 80.0 GiB device-local", "type 1 (heap 0):
// device-local host-visible host-coherent"), for benchmark logs: which
// memory a buffer of a given hal memory type lands in depends on them.
func (d *Device) MemoryReport() string {
	m := &d.dev.memory
	var b strings.Builder
	for i := 0; i < int(m.memoryHeapCount); i++ {
		h := m.memoryHeaps[i]
		fmt.Fprintf(&b, "heap %d: %.1f GiB", i, float64(h.size)/(1<<30))
		if h.flags&C.VK_MEMORY_HEAP_DEVICE_LOCAL_BIT != 0 {
			b.WriteString(" device-local")
		}
		b.WriteByte('\n')
	}
	names := []struct {
		bit  C.uint32_t
		name string
	}{
		{C.VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "device-local"},
		{C.VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "host-visible"},
		{C.VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "host-coherent"},
		{C.VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "host-cached"},
	}
	for i := 0; i < int(m.memoryTypeCount); i++ {
		t := m.memoryTypes[i]
		fmt.Fprintf(&b, "type %d (heap %d):", i, t.heapIndex)
		for _, n := range names {
			if C.uint32_t(t.propertyFlags)&n.bit != 0 {
				b.WriteString(" " + n.name)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// QueueFamily describes the queue family the device submits to, e.g.
// "family 2 (compute transfer), 8 queues, timestamps".
func (d *Device) QueueFamily() string {
	var b strings.Builder
	fmt.Fprintf(&b, "family %d (", d.dev.queue_family)
	var flags []string
	for _, f := range []struct {
		bit  C.uint32_t
		name string
	}{{C.VK_QUEUE_GRAPHICS_BIT, "graphics"}, {C.VK_QUEUE_COMPUTE_BIT, "compute"}, {C.VK_QUEUE_TRANSFER_BIT, "transfer"}} {
		if d.dev.queue_flags&f.bit != 0 {
			flags = append(flags, f.name)
		}
	}
	fmt.Fprintf(&b, "%s), %d queues", strings.Join(flags, " "), d.dev.queue_count)
	if d.dev.timestamps != nil {
		b.WriteString(", timestamps")
	}
	return b.String()
}

// SetTiming turns device-side timing of submissions on or off. While it is
// on, each submission's commands are bracketed by two timestamps and
// LastDeviceTime reports the time between them. It fails where the queue
// family has no timestamps.
func (d *Device) SetTiming(on bool) error {
	return d.live("timing", func() error {
		if on && d.dev.timestamps == nil {
			return status.Errorf(status.Unimplemented, "vulkan device %q: its queue family has no timestamps", d.name)
		}
		d.timing, d.lastDevice = on, 0
		return nil
	})
}

// LastDeviceTime returns the device time of the latest submission made
// while timing was on (see SetTiming), or 0 when there was none.
func (d *Device) LastDeviceTime() time.Duration {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.lastDevice
}
