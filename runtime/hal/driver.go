package hal

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/goiree/goiree/runtime/base/status"
)

// Driver creates devices of one kind (for example "local-task").
type Driver interface {
	// Name is the driver name used in device URIs.
	Name() string
	// Devices lists the devices this driver can create, in index order.
	Devices() ([]DeviceInfo, error)
	// CreateDevice creates the device with the given index (see Devices).
	CreateDevice(index int) (Device, error)
}

// DeviceInfo describes one device a driver can create.
type DeviceInfo struct {
	// Index is the value accepted in "<driver>://<index>".
	Index int
	// Name is a human-readable device name.
	Name string
	// Unavailable, when set, marks a placeholder entry of a driver that
	// cannot run on this machine (no GPU library, no loader): it says why,
	// and creating the device fails with the same reason. Device listings
	// leave such entries out, as IREE lists no devices for a driver it
	// cannot create.
	Unavailable error
}

// DeviceURI is a parsed "--device=" value: "<driver>" or
// "<driver>://<index>".
type DeviceURI struct {
	Driver string
	// Index is the device index; 0 when the URI names none.
	Index int
	// HasIndex reports whether the URI gave an explicit index.
	HasIndex bool
}

// String formats the URI back to its canonical text.
func (u DeviceURI) String() string {
	if u.HasIndex {
		return u.Driver + "://" + strconv.Itoa(u.Index)
	}
	return u.Driver
}

// ParseDeviceURI parses "<driver>" or "<driver>://<index>". Driver names are
// lower-case letters, digits, '-' and '_'; the index is a non-negative
// decimal integer.
func ParseDeviceURI(s string) (DeviceURI, error) {
	name, rest, hasSep := strings.Cut(s, "://")
	if name == "" {
		return DeviceURI{}, status.Errorf(status.InvalidArgument, "invalid device URI %q: missing driver name", s)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return DeviceURI{}, status.Errorf(status.InvalidArgument, "invalid device URI %q: bad character %q in driver name", s, r)
		}
	}
	u := DeviceURI{Driver: name}
	if !hasSep {
		return u, nil
	}
	idx, err := strconv.ParseUint(rest, 10, 31)
	if err != nil {
		return DeviceURI{}, status.Errorf(status.InvalidArgument, "invalid device URI %q: device index %q is not a non-negative integer", s, rest)
	}
	u.Index, u.HasIndex = int(idx), true
	return u, nil
}

// Registry maps driver names to drivers. The zero value is empty and ready
// to use; it is safe for concurrent use.
type Registry struct {
	mu      sync.RWMutex
	drivers map[string]Driver
}

// DefaultRegistry is the process-wide registry used by the package-level
// functions.
var DefaultRegistry = &Registry{}

// Register adds d under d.Name(). Registering a second driver with the same
// name is an error.
func (r *Registry) Register(d Driver) error {
	name := d.Name()
	if _, err := ParseDeviceURI(name); err != nil || strings.Contains(name, ":") {
		return status.Errorf(status.InvalidArgument, "invalid driver name %q", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.drivers == nil {
		r.drivers = map[string]Driver{}
	}
	if _, ok := r.drivers[name]; ok {
		return status.Errorf(status.AlreadyExists, "driver %q is already registered", name)
	}
	r.drivers[name] = d
	return nil
}

// Names returns the registered driver names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.drivers))
	for n := range r.drivers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the driver named name, or an error naming the available
// drivers.
func (r *Registry) Lookup(name string) (Driver, error) {
	r.mu.RLock()
	d, ok := r.drivers[name]
	r.mu.RUnlock()
	if !ok {
		avail := r.Names()
		list := "none"
		if len(avail) > 0 {
			list = strings.Join(avail, ", ")
		}
		return nil, status.Errorf(status.NotFound, "unknown driver %q (available drivers: %s)", name, list)
	}
	return d, nil
}

// CreateDevice parses uri and creates the device it names.
func (r *Registry) CreateDevice(uri string) (Device, error) {
	u, err := ParseDeviceURI(uri)
	if err != nil {
		return nil, err
	}
	d, err := r.Lookup(u.Driver)
	if err != nil {
		return nil, err
	}
	infos, err := d.Devices()
	if err != nil {
		return nil, errContext(err, "listing devices of driver %q", u.Driver)
	}
	if u.Index >= len(infos) {
		return nil, status.Errorf(status.NotFound, "device %q not found: driver %q has %d device(s)", uri, u.Driver, len(infos))
	}
	dev, err := d.CreateDevice(u.Index)
	if err != nil {
		return nil, errContext(err, "creating device %q", uri)
	}
	return dev, nil
}

// RegisterDriver registers d in DefaultRegistry.
func RegisterDriver(d Driver) error { return DefaultRegistry.Register(d) }

// DriverNames returns the names of the drivers in DefaultRegistry, sorted.
func DriverNames() []string { return DefaultRegistry.Names() }

// LookupDriver returns the driver named name from DefaultRegistry.
func LookupDriver(name string) (Driver, error) { return DefaultRegistry.Lookup(name) }

// CreateDevice creates the device named by uri from DefaultRegistry.
func CreateDevice(uri string) (Device, error) { return DefaultRegistry.CreateDevice(uri) }
