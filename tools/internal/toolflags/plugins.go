package toolflags

import (
	"flag"
	"strings"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/hal/local/plugin"
)

// ExecutablePluginUsage is the --executable_plugin help text shared by the
// tools that run modules.
const ExecutablePluginUsage = "load the CPU executable plugin at `path`, providing the functions executables import (declared without hal.import.static); repeatable, later plugins are searched first. " +
	"A shared library is loaded with dlopen (system plugin); a freestanding ELF, a FatELF ('.sos') or a path prefixed 'embedded:' is loaded by the runtime's own ELF loader (standalone plugin)"

// AddExecutablePluginFlag defines the repeatable --executable_plugin flag
// on fs, appending to l.
func AddExecutablePluginFlag(fs *flag.FlagSet, l *StringList) {
	fs.Var(l, "executable_plugin", ExecutablePluginUsage)
}

// LoadPlugins loads the --executable_plugin values in order into a plugin
// manager for the local devices (an empty one when there are none). The
// caller closes it after the devices; on error nothing stays loaded.
func LoadPlugins(specs []string) (*plugin.Manager, error) {
	trimmed := make([]string, len(specs))
	for i, s := range specs {
		trimmed[i] = strings.TrimSpace(s)
	}
	m, err := plugin.LoadAll(trimmed)
	if err != nil {
		return nil, err
	}
	if glog.V(1) {
		for _, p := range m.Plugins() {
			glog.Infof("loaded executable plugin %s as a %s plugin: %s", p, p.Kind(), p.Description())
		}
	}
	return m, nil
}
