package local

import (
	"runtime"
	"slices"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
)

// Format names.
const (
	FormatEmbeddedELFX86_64 = "embedded-elf-x86_64"
	FormatEmbeddedELFARM64  = "embedded-elf-arm_64"
)

// formatLoader loads one executable format.
type formatLoader struct {
	format string
	// goarch is the host architecture the format runs on.
	goarch string
}

// loaders is the table of recognised executable formats.
var loaders = []formatLoader{
	{FormatEmbeddedELFX86_64, "amd64"},
	{FormatEmbeddedELFARM64, "arm64"},
	{FormatVMVX, goarchAny},
}

// Formats returns the executable formats this host can run.
func Formats() []string {
	var out []string
	for _, l := range loaders {
		if runsHere(l.goarch) {
			out = append(out, l.format)
		}
	}
	return out
}

// RecognisedFormats returns every format the loader table knows, including
// those for other hosts.
func RecognisedFormats() []string {
	out := make([]string, len(loaders))
	for i, l := range loaders {
		out[i] = l.format
	}
	return out
}

// CanLoad reports whether format can run on this host.
func CanLoad(format string) bool { return slices.Contains(Formats(), format) }

// Load prepares an executable from params: it checks the format against the
// loader table, loads the library, and checks the optional layouts against
// the exports. A library with imports fails to load (see LoadWithImports).
func Load(params hal.ExecutableParams) (*Executable, error) {
	return LoadWithImports(params, nil)
}

// LoadWithImports is Load for libraries that may import functions: their
// import tables are resolved through imports (nil: none can be).
func LoadWithImports(params hal.ExecutableParams, imports ImportResolver) (*Executable, error) {
	var l *formatLoader
	for i := range loaders {
		if loaders[i].format == params.Format {
			l = &loaders[i]
		}
	}
	if l == nil {
		return nil, status.Errorf(status.Unimplemented, "executable format %q is not supported by the local devices (supported: %v)", params.Format, Formats())
	}
	if !runsHere(l.goarch) {
		return nil, status.Errorf(status.Unimplemented, "executable format %q is recognised but cannot run on this %s/%s host", params.Format, runtime.GOOS, runtime.GOARCH)
	}
	if l.format == FormatVMVX {
		return loadVMVX(params)
	}
	if err := installFaultHandlers(); err != nil {
		return nil, err
	}
	lib, err := loadLibrary(params.Data, params.Constants, imports)
	if err != nil {
		return nil, err
	}
	exe := &Executable{format: params.Format, name: params.Name, lib: lib}
	for _, e := range lib.exports {
		exe.exports = append(exe.exports, e.info)
	}
	if len(params.Layouts) > 0 && params.CachingMode&hal.CachingDisableVerification == 0 {
		if len(params.Layouts) != len(exe.exports) {
			lib.close()
			return nil, status.Errorf(status.InvalidArgument, "executable has %d export(s) but %d pipeline layout(s) were given", len(exe.exports), len(params.Layouts))
		}
		for i, lay := range params.Layouts {
			e := &exe.exports[i]
			if e.ConstantCount >= 0 && e.ConstantCount != lay.ConstantCount {
				lib.close()
				return nil, status.Errorf(status.InvalidArgument, "%s declares %d constant(s) but its layout has %d", exe.exportName(i), e.ConstantCount, lay.ConstantCount)
			}
			if e.BindingCount >= 0 && e.BindingCount != lay.BindingCount {
				lib.close()
				return nil, status.Errorf(status.InvalidArgument, "%s declares %d binding(s) but its layout has %d", exe.exportName(i), e.BindingCount, lay.BindingCount)
			}
			if e.ConstantCount < 0 {
				e.ConstantCount, e.BindingCount = lay.ConstantCount, lay.BindingCount
			}
		}
	}
	// An executable dropped without Release still frees its library; no
	// dispatch can be running then, since a Dispatch refers to its
	// executable.
	runtime.AddCleanup(exe, func(l *library) { l.close() }, lib)
	return exe, nil
}

// ExecutableCache implements hal.ExecutableCache for the local devices.
type ExecutableCache struct {
	// Imports resolves the imports of executables (nil: executables with
	// imports are refused).
	Imports ImportResolver
}

// CanPrepareFormat implements hal.ExecutableCache.
func (ExecutableCache) CanPrepareFormat(format string) bool { return CanLoad(format) }

// PrepareExecutable implements hal.ExecutableCache.
func (c ExecutableCache) PrepareExecutable(params hal.ExecutableParams) (hal.Executable, error) {
	exe, err := LoadWithImports(params, c.Imports)
	if err != nil {
		return nil, err
	}
	return exe, nil
}
