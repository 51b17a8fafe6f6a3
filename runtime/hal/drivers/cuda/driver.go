package cuda

import (
	"errors"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// DriverName is the name used in device URIs.
const DriverName = "cuda"

// Driver creates CUDA devices.
type Driver struct{}

// NewDriver returns the cuda driver. Nothing is loaded until devices are
// listed or created.
func NewDriver() *Driver { return &Driver{} }

// Name implements hal.Driver.
func (*Driver) Name() string { return DriverName }

// Available reports why CUDA cannot be used, or nil when it can.
func Available() error { return load() }

// Devices implements hal.Driver. Where CUDA is absent it lists one
// placeholder entry, its name and Unavailable saying why, so that device
// dumps show the reason; creating it fails with the same reason.
func (*Driver) Devices() ([]hal.DeviceInfo, error) {
	if err := load(); err != nil {
		return []hal.DeviceInfo{{Index: 0, Name: "unavailable: " + errMessage(err), Unavailable: err}}, nil
	}
	n, err := deviceCount()
	if err != nil {
		return nil, err
	}
	out := make([]hal.DeviceInfo, n)
	for i := range out {
		name, err := deviceName(i)
		if err != nil {
			return nil, err
		}
		out[i] = hal.DeviceInfo{Index: i, Name: name}
	}
	return out, nil
}

// CreateDevice implements hal.Driver.
func (*Driver) CreateDevice(index int) (hal.Device, error) {
	return NewDevice(index)
}

// errMessage is err's message without its status code.
func errMessage(err error) string {
	var se *status.Error
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}
