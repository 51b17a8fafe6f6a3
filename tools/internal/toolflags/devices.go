package toolflags

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	"github.com/goiree/goiree/runtime/hal/local"
)

// NewRegistry registers the built-in drivers in a registry for one run,
// local-task with groupCount worker groups (--task_topology_group_count,
// 0 for the CPU topology); the local devices resolve executables' imports
// with imports (--executable_plugin).
func NewRegistry(groupCount int, imports local.ImportResolver) (*hal.Registry, error) {
	if groupCount < 0 {
		return nil, fmt.Errorf("--task_topology_group_count=%d must not be negative", groupCount)
	}
	reg := &hal.Registry{}
	opts := drivers.Options{LocalTask: localtask.Options{GroupCount: groupCount}, Imports: imports}
	if err := drivers.Register(reg, opts); err != nil {
		return nil, fmt.Errorf("registering HAL drivers: %w", err)
	}
	return reg, nil
}

// DefaultDevice is IREE's default --device.
const DefaultDevice = "local-task"

// DeviceFlags are the device selection and discovery flags shared by the
// tools that run modules.
type DeviceFlags struct {
	Devices     StringList
	ListDrivers bool
	ListDevices OptionalValue
	DumpDevices OptionalValue
}

// DeviceFlagNames are the names AddDeviceFlags defines, for a help group.
var DeviceFlagNames = []string{"device", "list_drivers", "list_devices", "dump_devices"}

// AddDeviceFlags defines --device (repeatable), --list_drivers,
// --list_devices[=<driver>] and --dump_devices[=<driver>] on fs.
func AddDeviceFlags(fs *flag.FlagSet, d *DeviceFlags) {
	fs.Var(&d.Devices, "device", "HAL device `uri`: <driver>[://<index>], e.g. local-sync, local-task, local-task://0, vulkan, cuda://0 (default "+DefaultDevice+"); repeatable: the first device runs the program, every one is created and checked")
	fs.BoolVar(&d.ListDrivers, "list_drivers", false, "list the registered HAL drivers and exit")
	d.ListDevices.Placeholder = "driver"
	d.DumpDevices.Placeholder = "driver"
	fs.Var(&d.ListDevices, "list_devices", "list the devices of every registered driver (or only of the named driver, e.g. --list_devices=vulkan) as --device URIs and exit")
	fs.Var(&d.DumpDevices, "dump_devices", "print what each device of every driver (or of the named driver) reports: name, executable formats, queries; then exit")
}

// Discovery runs --list_drivers, --list_devices or --dump_devices when one
// was given, writing to w; done reports whether one ran (the tool then
// exits).
func (d *DeviceFlags) Discovery(w io.Writer, reg *hal.Registry) (done bool, err error) {
	switch {
	case d.ListDrivers:
		ListDrivers(w, reg)
		return true, nil
	case d.ListDevices.Given:
		return true, ListDevices(w, reg, d.ListDevices.Value)
	case d.DumpDevices.Given:
		return true, DumpDevices(w, reg, d.DumpDevices.Value)
	}
	return false, nil
}

// CreateDevices creates every --device in order (DefaultDevice when none
// was given). On error the devices already created are closed.
func (d *DeviceFlags) CreateDevices(reg *hal.Registry) ([]hal.Device, error) {
	uris := []string(d.Devices)
	if len(uris) == 0 {
		uris = []string{DefaultDevice}
	}
	var devs []hal.Device
	for _, uri := range uris {
		uri = strings.TrimSpace(uri)
		dev, err := reg.CreateDevice(uri)
		if err != nil {
			for _, d := range devs {
				d.Close()
			}
			// The registry's errors name the URI already.
			return nil, err
		}
		devs = append(devs, dev)
	}
	return devs, nil
}

const actionRule = "# ===----------------------------------------------------------------------==="

// ListDrivers prints the registered driver names under IREE's header.
func ListDrivers(w io.Writer, reg *hal.Registry) {
	fmt.Fprintln(w, actionRule)
	fmt.Fprintln(w, "# Available HAL drivers")
	fmt.Fprintln(w, actionRule)
	fmt.Fprintln(w, "# Use --list_devices={driver name} to enumerate available devices.")
	fmt.Fprintln(w)
	for _, name := range reg.Names() {
		fmt.Fprintf(w, "%16s\n", name)
	}
}

// selectDrivers returns the drivers to list: every registered one, or the one
// named (an unknown name is an error naming the registered drivers).
func selectDrivers(reg *hal.Registry, name string) ([]hal.Driver, error) {
	if name != "" {
		d, err := reg.Lookup(name)
		if err != nil {
			return nil, err
		}
		return []hal.Driver{d}, nil
	}
	var ds []hal.Driver
	for _, n := range reg.Names() {
		d, err := reg.Lookup(n)
		if err != nil {
			return nil, err
		}
		ds = append(ds, d)
	}
	return ds, nil
}

// ListDevices prints one "<driver>://<index>" line per device of every
// driver, or of the driver named. A driver that cannot list its devices,
// or lists only an unavailable placeholder (no GPU library, no Vulkan
// loader), lists none, as in IREE, unless it was named: then that is the
// error. Scripts read this list to learn which --device values can run.
func ListDevices(w io.Writer, reg *hal.Registry, driver string) error {
	ds, err := selectDrivers(reg, driver)
	if err != nil {
		return err
	}
	for _, d := range ds {
		infos, err := d.Devices()
		if err == nil {
			for _, info := range infos {
				if info.Unavailable != nil {
					err = info.Unavailable
					break
				}
			}
		}
		if err != nil {
			if driver != "" {
				return fmt.Errorf("listing devices of driver %s: %w", d.Name(), err)
			}
			continue
		}
		for _, info := range infos {
			fmt.Fprintf(w, "%s://%d\n", d.Name(), info.Index)
		}
	}
	return nil
}

// DumpDevices prints, for every device of every driver (or of the driver
// named), its --device URI and name, then what the created device reports:
// its identifier and executable formats.
func DumpDevices(w io.Writer, reg *hal.Registry, driver string) error {
	ds, err := selectDrivers(reg, driver)
	if err != nil {
		return err
	}
	for i, d := range ds {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "# ============================================================================")
		fmt.Fprintf(w, "# Enumerated devices for driver '%s'\n", d.Name())
		fmt.Fprintln(w, "# ============================================================================")
		fmt.Fprintln(w)
		infos, err := d.Devices()
		if err != nil {
			if driver != "" {
				return fmt.Errorf("listing devices of driver %s: %w", d.Name(), err)
			}
			fmt.Fprintf(w, "# (unavailable: %v)\n", err)
			continue
		}
		for _, info := range infos {
			fmt.Fprintln(w, actionRule)
			fmt.Fprintf(w, "# --device=%s://%d\n", d.Name(), info.Index)
			fmt.Fprintf(w, "#   %s\n", info.Name)
			fmt.Fprintln(w, actionRule)
			dev, err := d.CreateDevice(info.Index)
			if err != nil {
				fmt.Fprintf(w, "(cannot be created: %v)\n", err)
				continue
			}
			fmt.Fprintf(w, "id: %s\n", dev.ID())
			fmt.Fprintf(w, "executable formats: %s\n", strings.Join(dev.ExecutableFormats(), ", "))
			if err := dev.Close(); err != nil {
				return fmt.Errorf("closing %s://%d: %w", d.Name(), info.Index, err)
			}
		}
	}
	return nil
}
