package transforms

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// TargetOptions choose the executable targets of a program that declares
// none, in either of IREE's spellings: the legacy backend list, or target
// devices (each with its backends). Both end in the same device targets,
// so the same choice gives the same module bytes.
type TargetOptions struct {
	// Backends is --iree-hal-target-backends: each backend's default
	// executable target, on the device the backend runs on.
	Backends []string
	// Devices is --iree-hal-target-device, one spec per flag: a device
	// (`local`, `vulkan`, `cuda`), optionally `name=`-prefixed and
	// `[0]`-indexed, a backend standing for its device (`llvm-cpu`), a
	// comma-separated selection of those, or a #hal.device.target attribute.
	Devices []string
	// LocalBackends is --iree-hal-local-target-device-backends: the
	// backends of the local device (default: the registered targets whose
	// device is local).
	LocalBackends []string
}

func deviceType() ir.Type { return &ir.DialectType{Name: "hal.device"} }

// newDevice returns a device target attribute in the current spelling.
func newDevice(id string) *hal.DeviceTargetAttr {
	return &hal.DeviceTargetAttr{Device: id, HasList: true, Targets: []ir.Attribute{}, Type: deviceType()}
}

// deviceSet accumulates device targets in first-seen order, one entry per
// device, each executable target once.
type deviceSet struct {
	devices []*hal.DeviceTargetAttr
	byID    map[string]*hal.DeviceTargetAttr
}

func (s *deviceSet) device(id string) *hal.DeviceTargetAttr {
	if s.byID == nil {
		s.byID = map[string]*hal.DeviceTargetAttr{}
	}
	if d := s.byID[id]; d != nil {
		return d
	}
	d := newDevice(id)
	s.byID[id] = d
	s.devices = append(s.devices, d)
	return d
}

func (s *deviceSet) add(id string, t *hal.ExecutableTargetAttr) {
	d := s.device(id)
	k := ir.AttrString(t)
	for _, e := range d.Targets {
		if ir.AttrString(e) == k {
			return
		}
	}
	d.Targets = append(d.Targets, t)
}

// ResolveTargetOptions turns target flags into device targets. It returns
// nil when no flag chooses a target. Errors name the flag and the value.
func ResolveTargetOptions(o TargetOptions, reg *ir.Registry) ([]*hal.DeviceTargetAttr, error) {
	for _, b := range o.LocalBackends {
		if dev, _ := target.BackendDevice(b); dev != "local" {
			// Every local backend, those only compiled when named included.
			var local []string
			for _, t := range target.All() {
				if t.Device == "local" {
					local = append(local, t.Name)
				}
			}
			return nil, fmt.Errorf("unknown backend '%s' in --iree-hal-local-target-device-backends (available for the local device: %s)", b, strings.Join(local, ", "))
		}
	}
	if len(o.Backends) > 0 && len(o.Devices) > 0 {
		return nil, fmt.Errorf("--iree-hal-target-backends and --iree-hal-target-device cannot be combined; choose the targets with one of them")
	}
	var set deviceSet
	for _, b := range o.Backends {
		t, ok := target.DefaultExecutableTarget(b)
		if !ok {
			return nil, fmt.Errorf("unknown target backend '%s' in --iree-hal-target-backends (available: %s)", b, strings.Join(target.Backends(), ", "))
		}
		dev, _ := target.BackendDevice(b)
		set.add(dev, t)
	}
	named, unnamed := false, false
	for _, spec := range o.Devices {
		rest := strings.TrimSpace(unquote(spec))
		if name, r, ok := nameLiteral(rest); ok {
			named, rest = true, r
			_ = name // names label devices for affinities; one device per module here
		} else {
			unnamed = true
		}
		if named && unnamed {
			return nil, fmt.Errorf("--iree-hal-target-device=%s: if any target device spec has a name then all must be named", spec)
		}
		if err := addDeviceSpec(&set, rest, o.LocalBackends, reg); err != nil {
			return nil, fmt.Errorf("--iree-hal-target-device=%s: %v", spec, err)
		}
	}
	return set.devices, nil
}

func unquote(s string) string {
	s = strings.TrimSpace(s)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// nameLiteral splits a leading `name=` (letters, digits, '_') off a spec.
func nameLiteral(s string) (name, rest string, ok bool) {
	i := strings.IndexByte(s, '=')
	if i <= 0 {
		return "", s, false
	}
	for _, c := range s[:i] {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "", s, false
		}
	}
	return s[:i], strings.TrimSpace(s[i+1:]), true
}

// addDeviceSpec adds one device spec: an attribute, or aliases separated
// by commas (a selection: the device runs the first variant it supports).
func addDeviceSpec(set *deviceSet, spec string, local []string, reg *ir.Registry) error {
	noAliases := func(s string) string { return s }
	if spec == "" {
		return fmt.Errorf("expected one or more target devices")
	}
	if strings.HasPrefix(spec, "#") {
		a, err := ir.ParseAttribute(spec, reg)
		if err != nil {
			return attrError(err)
		}
		return addDeviceAttr(set, a, local, reg, noAliases)
	}
	for _, part := range strings.Split(spec, ",") {
		id, ord, err := aliasLiteral(part)
		if err != nil {
			return err
		}
		if err := addAlias(set, id, ord, local); err != nil {
			return err
		}
	}
	return nil
}

// aliasLiteral parses `id` or `id[N]` (id optionally quoted).
func aliasLiteral(s string) (string, int64, error) {
	s = strings.TrimSpace(s)
	ord := int64(0)
	if i := strings.IndexByte(s, '['); i >= 0 {
		if !strings.HasSuffix(s, "]") {
			return "", 0, fmt.Errorf("expected ']' after the device ordinal in '%s'", s)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(s[i+1:len(s)-1]), 10, 64)
		if err != nil || n < 0 {
			return "", 0, fmt.Errorf("invalid device ordinal in '%s' (expected a non-negative integer)", s)
		}
		s, ord = strings.TrimSpace(s[:i]), n
	}
	s = unquote(s)
	if s == "" {
		return "", 0, fmt.Errorf("expected a target device name")
	}
	return s, ord, nil
}

// addAlias adds a device by name (with its default backends) or a backend
// by name (on its device).
func addAlias(set *deviceSet, id string, ordinal int64, local []string) error {
	if ordinal != 0 {
		return fmt.Errorf("device ordinal [%d] is not supported: a goiree module runs on one device, so only [0] can be honoured", ordinal)
	}
	if backends := target.DeviceBackends(id); len(backends) > 0 {
		if id == "local" && len(local) > 0 {
			backends = local
		}
		set.device(id)
		for _, b := range backends {
			t, _ := target.DefaultExecutableTarget(b)
			set.add(id, t)
		}
		return nil
	}
	if dev, ok := target.BackendDevice(id); ok {
		t, _ := target.DefaultExecutableTarget(id)
		set.add(dev, t)
		return nil
	}
	return fmt.Errorf("unknown target device '%s' (available devices: %s; or a backend standing for its device: %s)", id, strings.Join(target.Devices(), ", "), strings.Join(target.Backends(), ", "))
}

// addDeviceAttr adds the device targets an attribute describes:
// #hal.device.target (either spelling), #hal.device.alias<"id"[N], {...}>
// and #hal.device.select<[...]>, the last two kept opaque by the parser
// (expand substitutes the program's attribute aliases in their text).
func addDeviceAttr(set *deviceSet, a ir.Attribute, local []string, reg *ir.Registry, expand func(string) string) error {
	switch a := a.(type) {
	case *hal.DeviceTargetAttr:
		set.device(a.Device)
		for _, t := range a.ExecutableTargets() {
			set.add(a.Device, t)
		}
		return nil
	case *ir.OpaqueAttr:
		switch a.Name {
		case "hal.device.alias":
			body := strings.TrimSpace(a.Body)
			if i := strings.IndexByte(body, ','); i >= 0 {
				body = body[:i] // a configuration dictionary; the defaults hold
			}
			id, ord, err := aliasLiteral(body)
			if err != nil {
				return err
			}
			return addAlias(set, id, ord, local)
		case "hal.device.select":
			inner, err := ir.ParseAttribute(expand(a.Body), reg)
			if err != nil {
				return fmt.Errorf("in #hal.device.select: %v", attrError(err))
			}
			arr, ok := inner.(*ir.ArrayAttr)
			if !ok {
				return fmt.Errorf("#hal.device.select expects a list of devices, found %s", ir.AttrString(inner))
			}
			for _, e := range arr.Elems {
				if err := addDeviceAttr(set, e, local, reg, expand); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return fmt.Errorf("expected a #hal.device.target, #hal.device.alias or #hal.device.select attribute, found %s", ir.AttrString(a))
}

// aliasExpander returns a function that replaces `#alias` references in
// attribute text by the aliases' definitions, outside string literals.
func aliasExpander(aliases []ir.NamedAttr) func(string) string {
	defs := map[string]string{}
	for _, a := range aliases {
		defs[a.Name] = ir.AttrString(a.Value)
	}
	isIdent := func(c byte) bool {
		return c == '_' || c == '$' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
	}
	return func(s string) string {
		var b strings.Builder
		inString := false
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case inString:
				b.WriteByte(c)
				if c == '\\' && i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				} else if c == '"' {
					inString = false
				}
			case c == '"':
				inString = true
				b.WriteByte(c)
			case c == '#':
				j := i + 1
				for j < len(s) && isIdent(s[j]) {
					j++
				}
				name := strings.TrimPrefix(s[i:j], "#")
				if def, ok := defs[name]; ok {
					b.WriteString(def)
				} else {
					b.WriteString(s[i:j])
				}
				i = j - 1
			default:
				b.WriteByte(c)
			}
		}
		return b.String()
	}
}

// attrError drops the `<attr>:1:N: error:` prefix of an error parsing a
// standalone attribute, keeping the column.
func attrError(err error) error {
	if e, ok := err.(*ir.Error); ok {
		return fmt.Errorf("at column %d: %s", e.Pos.Col, e.Msg)
	}
	return err
}
