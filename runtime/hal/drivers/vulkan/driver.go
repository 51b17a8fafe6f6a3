package vulkan

import (
	"fmt"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// DriverName is the name used in device URIs ("vulkan", "vulkan://1").
const DriverName = "vulkan"

// Driver creates Vulkan devices, one per physical device.
type Driver struct{}

// NewDriver returns the Vulkan driver. Creating it does not touch Vulkan;
// the loader is opened when devices are first listed or created.
func NewDriver() *Driver { return &Driver{} }

// Name implements hal.Driver.
func (*Driver) Name() string { return DriverName }

// Devices implements hal.Driver: the physical devices in the loader's
// order. Where Vulkan is absent it lists one entry, "unavailable: <why>"
// with Unavailable set, so that device dumps still work and say why;
// creating that device fails with the same reason.
func (*Driver) Devices() ([]hal.DeviceInfo, error) {
	if err := open(); err != nil {
		return []hal.DeviceInfo{{Index: 0, Name: "unavailable: " + loader.reason, Unavailable: err}}, nil
	}
	pds, err := physicalDevices()
	if err != nil {
		return nil, err
	}
	infos := make([]hal.DeviceInfo, len(pds))
	for i, pd := range pds {
		infos[i] = hal.DeviceInfo{Index: i, Name: fmt.Sprintf("%s (%s, Vulkan %s)", pd.name, pd.kind, pd.api)}
	}
	return infos, nil
}

// CreateDevice implements hal.Driver.
func (*Driver) CreateDevice(index int) (hal.Device, error) {
	return NewDevice(index)
}

// NewDevice creates a device on physical device index with the default
// options.
func NewDevice(index int) (*Device, error) {
	return NewDeviceWith(index, DeviceOptions{})
}

// NewDeviceWith creates a device on physical device index.
func NewDeviceWith(index int, o DeviceOptions) (*Device, error) {
	pds, err := physicalDevices()
	if err != nil {
		return nil, err
	}
	if index < 0 || index >= len(pds) {
		return nil, status.Errorf(status.NotFound, "vulkan device %d not found: %d physical device(s)", index, len(pds))
	}
	return newDevice(pds[index], index, o)
}
