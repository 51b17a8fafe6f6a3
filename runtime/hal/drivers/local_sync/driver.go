// Package localsync is the "local-sync" HAL driver: a CPU device that runs
// every command buffer inline on the goroutine that submits it, with each
// dispatch's whole workgroup grid executed by one call into the cgo
// trampoline.
package localsync

import (
	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
)

// DriverName is the name used in device URIs.
const DriverName = "local-sync"

// Options configure the devices the driver creates.
type Options struct {
	// Imports resolves the imports of executables against the loaded
	// executable plugins (nil: executables with imports are refused).
	Imports local.ImportResolver
}

// Driver creates local-sync devices.
type Driver struct {
	opts Options
}

// NewDriver returns the local-sync driver.
func NewDriver() *Driver { return &Driver{} }

// NewDriverWithOptions returns the local-sync driver creating devices
// configured by opts.
func NewDriverWithOptions(opts Options) *Driver { return &Driver{opts: opts} }

// Name implements hal.Driver.
func (*Driver) Name() string { return DriverName }

// Devices implements hal.Driver: one device, the host CPU.
func (*Driver) Devices() ([]hal.DeviceInfo, error) {
	return []hal.DeviceInfo{{Index: 0, Name: "host CPU (inline execution)"}}, nil
}

// CreateDevice implements hal.Driver.
func (d *Driver) CreateDevice(index int) (hal.Device, error) {
	if index != 0 {
		return nil, status.Errorf(status.NotFound, "%s has only device 0, not %d", DriverName, index)
	}
	return NewDeviceWithOptions(d.opts)
}

// NewDevice returns a new local-sync device.
func NewDevice() (*local.Device, error) { return NewDeviceWithOptions(Options{}) }

// NewDeviceWithOptions returns a new local-sync device configured by opts.
func NewDeviceWithOptions(opts Options) (*local.Device, error) {
	return local.NewDevice(local.DeviceOptions{ID: DriverName, Runner: &local.InlineRunner{}, Imports: opts.Imports})
}
