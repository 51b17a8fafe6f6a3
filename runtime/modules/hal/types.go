package hal

import (
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// VM ref types of the HAL objects, registered under IREE's names.
var (
	BufferType        = vm.RegisterRefType("hal.buffer")
	BufferViewType    = vm.RegisterRefType("hal.buffer_view")
	DeviceType        = vm.RegisterRefType("hal.device")
	AllocatorType     = vm.RegisterRefType("hal.allocator")
	CommandBufferType = vm.RegisterRefType("hal.command_buffer")
	ExecutableType    = vm.RegisterRefType("hal.executable")
	FenceType         = vm.RegisterRefType("hal.fence")
	SemaphoreType     = vm.RegisterRefType("hal.semaphore")
)

// Buffers and buffer views are reference-counted (vm.RefCounted); the VM
// retains and releases them through these functions, which know their Go
// types, at every register store.
func init() {
	BufferType.SetCounting(vm.Counting{
		Retain: func(o any) {
			if b, ok := o.(*hal.Buffer); ok {
				b.Retain()
			}
		},
		Release: func(o any) error {
			if b, ok := o.(*hal.Buffer); ok {
				return b.Release()
			}
			return nil
		},
		Released: func(o any) bool {
			b, ok := o.(*hal.Buffer)
			return ok && b.Released()
		},
	})
	BufferViewType.SetCounting(vm.Counting{
		Retain: func(o any) {
			if v, ok := o.(*hal.BufferView); ok {
				v.Retain()
			}
		},
		Release: func(o any) error {
			if v, ok := o.(*hal.BufferView); ok {
				return v.Release()
			}
			return nil
		},
		Released: func(o any) bool {
			v, ok := o.(*hal.BufferView)
			return ok && v.Released()
		},
	})
}

// BufferRef wraps b as a "hal.buffer" ref.
func BufferRef(b *hal.Buffer) vm.Ref { return vm.NewRef(BufferType, b) }

// BufferViewRef wraps v as a "hal.buffer_view" ref.
func BufferViewRef(v *hal.BufferView) vm.Ref { return vm.NewRef(BufferViewType, v) }

// DeviceRef wraps d as a "hal.device" ref.
func DeviceRef(d hal.Device) vm.Ref { return vm.NewRef(DeviceType, d) }

// BufferViewOf returns the buffer view a "hal.buffer_view" value holds, or
// an error naming what it holds instead.
func BufferViewOf(v vm.Value) (*hal.BufferView, error) {
	o, err := v.RefAs(BufferViewType)
	if err != nil {
		return nil, err
	}
	return o.(*hal.BufferView), nil
}
