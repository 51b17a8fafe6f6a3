package vulkan

/*
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "gvk.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sync"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
)

// loader is the process-wide state of the Vulkan loader and instance.
var loader struct {
	once   sync.Once
	reason string // why Vulkan is unavailable; empty when it loaded
	err    error
}

// LoaderEnv names the environment variable that overrides the Vulkan
// loader library (default libvulkan.so.1).
const LoaderEnv = "GOIREE_VULKAN_LOADER"

// open loads the Vulkan loader and creates the instance once per process.
func open() error {
	loader.once.Do(func() {
		lib := os.Getenv(LoaderEnv)
		if lib == "" {
			lib = "libvulkan.so.1"
		}
		name := C.CString(lib)
		defer C.free(unsafe.Pointer(name))
		var msg [512]C.char
		if r := C.gvk_open(name, &msg[0], C.size_t(len(msg))); r != C.VK_SUCCESS {
			loader.reason = fmt.Sprintf("%s (%s)", C.GoString(&msg[0]), resultName(r))
			loader.err = status.Errorf(status.Unavailable, "vulkan is unavailable: %s", loader.reason)
		}
	})
	return loader.err
}

// probeLoader reports whether lib can be opened as a Vulkan loader; it is
// the check open makes, on any library name.
func probeLoader(lib string) error {
	name := C.CString(lib)
	defer C.free(unsafe.Pointer(name))
	var msg [512]C.char
	h := C.gvk_try_load(name, &msg[0], C.size_t(len(msg)))
	if h == nil {
		return status.Errorf(status.Unavailable, "vulkan is unavailable: %s", C.GoString(&msg[0]))
	}
	C.gvk_unload(h)
	return nil
}

// Available reports whether the Vulkan loader could be opened and an
// instance created; the error says why not.
func Available() error { return open() }

// resultName returns the VkResult's enumerator name ("VK_ERROR_DEVICE_LOST").
func resultName(r C.VkResult) string { return C.GoString(C.gvk_result_name(r)) }

// vkError maps a failed VkResult to a status error naming the call and the
// result.
func vkError(r C.VkResult, what string, args ...any) error {
	code := status.Internal
	switch r {
	case C.VK_ERROR_OUT_OF_HOST_MEMORY, C.VK_ERROR_OUT_OF_DEVICE_MEMORY, C.VK_ERROR_OUT_OF_POOL_MEMORY, C.VK_ERROR_TOO_MANY_OBJECTS, C.VK_ERROR_FRAGMENTED_POOL:
		code = status.ResourceExhausted
	case C.VK_ERROR_DEVICE_LOST:
		code = status.Aborted
	case C.VK_ERROR_INITIALIZATION_FAILED, C.VK_ERROR_INCOMPATIBLE_DRIVER, C.VK_ERROR_LAYER_NOT_PRESENT:
		code = status.Unavailable
	case C.VK_ERROR_FEATURE_NOT_PRESENT, C.VK_ERROR_EXTENSION_NOT_PRESENT, C.VK_ERROR_FORMAT_NOT_SUPPORTED:
		code = status.Unimplemented
	case C.VK_TIMEOUT:
		code = status.DeadlineExceeded
	case C.VK_ERROR_INVALID_SHADER_NV:
		code = status.InvalidArgument
	}
	return status.Errorf(code, "%s: %s", fmt.Sprintf(what, args...), resultName(r))
}

// physicalDevice is one enumerated device.
type physicalDevice struct {
	handle C.VkPhysicalDevice
	name   string
	kind   string
	api    string
}

var deviceTypes = map[C.uint32_t]string{
	C.VK_PHYSICAL_DEVICE_TYPE_OTHER:          "other",
	C.VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: "integrated GPU",
	C.VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:   "discrete GPU",
	C.VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:    "virtual GPU",
	C.VK_PHYSICAL_DEVICE_TYPE_CPU:            "CPU",
}

// physicalDevices enumerates the instance's physical devices.
func physicalDevices() ([]physicalDevice, error) {
	if err := open(); err != nil {
		return nil, err
	}
	var handles [16]C.VkPhysicalDevice
	n := C.uint32_t(len(handles))
	if r := C.gvk_physical_devices(&n, &handles[0]); r != C.VK_SUCCESS {
		return nil, vkError(r, "vkEnumeratePhysicalDevices")
	}
	out := make([]physicalDevice, n)
	for i := range out {
		var name [C.VK_MAX_PHYSICAL_DEVICE_NAME_SIZE]C.char
		var typ, api C.uint32_t
		C.gvk_describe(handles[i], &name[0], &typ, &api)
		out[i] = physicalDevice{
			handle: handles[i],
			name:   C.GoString(&name[0]),
			kind:   deviceTypes[typ],
			api:    fmt.Sprintf("%d.%d.%d", api>>22, (api>>12)&0x3ff, api&0xfff),
		}
	}
	return out, nil
}
