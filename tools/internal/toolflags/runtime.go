package toolflags

import (
	"io"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local/plugin"
)

// Runtime is what a tool that runs modules sets up before its devices:
// the executable plugins and the driver registry.
type Runtime struct {
	Plugins  *plugin.Manager
	Registry *hal.Registry
}

// StartRuntime reports buffers that become garbage unreleased under -v,
// loads the --executable_plugin values and registers the drivers
// (local-task with groupCount worker groups). When a device discovery
// flag was given, it prints what it asks for to stdout and returns done.
// Unless err is set the caller closes the runtime, after its devices:
// plugins stay loaded while executables may call into them.
func StartRuntime(plugins []string, groupCount int, devices *DeviceFlags, stdout io.Writer) (rt *Runtime, done bool, err error) {
	if glog.V(1) {
		hal.SetLeakReporter(func(msg string) { glog.Warning(msg) })
	}
	m, err := LoadPlugins(plugins)
	if err != nil {
		return nil, false, err
	}
	reg, err := NewRegistry(groupCount, m)
	if err != nil {
		m.Close()
		return nil, false, err
	}
	rt = &Runtime{Plugins: m, Registry: reg}
	done, err = devices.Discovery(stdout, reg)
	return rt, done, err
}

// Close unloads the plugins.
func (r *Runtime) Close() { r.Plugins.Close() }
