package vulkan_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

// TestSharedMemoryLimit: a module declaring more shared memory than the
// device's maxComputeSharedMemorySize is refused when it is prepared,
// naming the entry point and both sizes; one within Vulkan's least limit
// (16 KiB) is prepared and runs.
func TestSharedMemoryLimit(t *testing.T) {
	d := device(t)
	cache, err := d.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	prepare := func(name string) (hal.Executable, error) {
		exe := &spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main", BindingCount: 1}}, Code: glslc(t, name)}
		return cache.PrepareExecutable(hal.ExecutableParams{Name: "@" + name + "::@vulkan", Format: spirv.Format, Data: exe.Marshal()})
	}
	_, err = prepare("shared_huge")
	want := `preparing vulkan executable @shared_huge::@vulkan: entry point "main" declares 262144 bytes of shared (Workgroup) memory, beyond device`
	if status.CodeOf(err) != status.OutOfRange || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "maxComputeSharedMemorySize") {
		t.Fatalf("256 KiB of shared memory: error %v, want OutOfRange containing %q", err, want)
	}
	t.Log(err)
	exe, err := prepare("shared_16k")
	if err != nil {
		t.Fatalf("16 KiB of shared memory: %v", err)
	}
	defer exe.Release()
	out := alloc(t, d, 0, 4*128)
	err = submit(t, d, func(cb *hal.CommandBuffer) error {
		return cb.DispatchWith(exe, 0, [3]uint32{2, 1, 1}, nil, []hal.Binding{{Buffer: out, Length: hal.WholeBuffer}})
	})
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 4*128)
	if err := out.Read(0, raw); err != nil {
		t.Fatal(err)
	}
	for i, v := range floats(raw) {
		if want := float32(63 - i%64); v != want {
			t.Fatalf("element %d = %v, want %v", i, v, want)
		}
	}
}

// TestPortableLimits: with DeviceOptions.PortableLimits a device refuses
// what a device with Vulkan's least limits would, though it runs it
// without: 256 invocations (wide_20k), and 20 KiB of shared memory
// (shared_20k).
func TestPortableLimits(t *testing.T) {
	for _, portable := range []bool{true, false} {
		d := deviceWith(t, vulkan.DeviceOptions{PortableLimits: portable})
		cache, err := d.CreateExecutableCache("test")
		if err != nil {
			t.Fatal(err)
		}
		exe, err := cache.PrepareExecutable(hal.ExecutableParams{Name: "@wide", Format: spirv.Format,
			Data: (&spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main", BindingCount: 1}}, Code: glslc(t, "wide_20k")}).Marshal()})
		if portable {
			want := `preparing vulkan executable @wide: entry point "main" has workgroup size [256 1 1] (256 invocations), beyond device`
			if status.CodeOf(err) != status.OutOfRange || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "maxComputeWorkGroupInvocations 128") {
				t.Fatalf("portable limits: error %v, want OutOfRange containing %q", err, want)
			}
			// Within the invocations, the shared memory is refused.
			_, err = cache.PrepareExecutable(hal.ExecutableParams{Name: "@shared", Format: spirv.Format,
				Data: (&spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main", BindingCount: 1}}, Code: glslc(t, "shared_20k")}).Marshal()})
			want = `preparing vulkan executable @shared: entry point "main" declares 20480 bytes of shared (Workgroup) memory, beyond device`
			if status.CodeOf(err) != status.OutOfRange || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "maxComputeSharedMemorySize 16384") {
				t.Fatalf("portable limits, 64 invocations: error %v, want OutOfRange containing %q", err, want)
			}
			continue
		}
		if err != nil {
			t.Skipf("skipping: the device itself does not run 256 invocations with 20 KiB of shared memory: %v", err)
		}
		out := alloc(t, d, 0, 4*256)
		err = submit(t, d, func(cb *hal.CommandBuffer) error {
			return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, nil, []hal.Binding{{Buffer: out, Length: hal.WholeBuffer}})
		})
		exe.Release()
		if err != nil {
			t.Fatal(err)
		}
		raw := make([]byte, 4*256)
		if err := out.Read(0, raw); err != nil {
			t.Fatal(err)
		}
		for i, v := range floats(raw) {
			if want := float32(255 - i); v != want {
				t.Fatalf("element %d = %v, want %v", i, v, want)
			}
		}
	}
}

// TestStorageBufferLimit: an entry point declaring more bindings than the
// device's maxPerStageDescriptorStorageBuffers is refused when prepared,
// before any pipeline layout reaches the driver (lavapipe crashes on one).
func TestStorageBufferLimit(t *testing.T) {
	d := device(t)
	cache, err := d.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	limit := vulkan.MaxStorageBuffers(d)
	if limit == 0 || limit >= hal.MaxBindings {
		t.Skipf("skipping: the device allows %d storage buffers a stage, no fewer than the HAL's %d bindings", limit, hal.MaxBindings)
	}
	exe := &spirv.Executable{EntryPoints: []spirv.EntryPoint{{Name: "main", BindingCount: uint32(limit) + 1}}, Code: glslc(t, "shared_16k")}
	_, err = cache.PrepareExecutable(hal.ExecutableParams{Name: "@many", Format: spirv.Format, Data: exe.Marshal()})
	if status.CodeOf(err) != status.OutOfRange || err == nil || !strings.Contains(err.Error(), "maxPerStageDescriptorStorageBuffers") {
		t.Fatalf("%d bindings: error %v, want OutOfRange naming maxPerStageDescriptorStorageBuffers", limit+1, err)
	}
	t.Log(err)
}
