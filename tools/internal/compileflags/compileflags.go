// Package compileflags parses the iree-compile flags that decide what the
// compiler makes of a program -- its targets, object search paths, the
// tools that build kernel sources, dumps, optimization levels and the
// registered targets' own flags -- into pipeline.Options. iree-compile and
// iree-run-mlir (which compiles before it runs) share it, so that both
// accept the same spellings with the same messages.
package compileflags

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goiree/goiree/compiler/kernelsrc"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target"
	"github.com/goiree/goiree/compiler/transforms"
)

// Flags holds the parsed flags.
type Flags struct {
	Targets     transforms.TargetOptions
	SearchPaths []string
	// TargetFlags are the registered targets' flags, by canonical name.
	TargetFlags               map[string]string
	KernelClang, KernelGlslc  string
	KernelCache               string
	DumpSources, DumpBinaries string
	// Optimization levels (O0..O3; "" when not given) and an explicit
	// --iree-opt-strip-assertions (nil when not given).
	OptLevel, GlobalOptLevel string
	StripAssertions          *bool
	// PDLSpec is --iree-preprocessing-pdl-spec-filename: PDL patterns
	// applied to the program after parsing.
	PDLSpec string
	// TransformSpec is --iree-preprocessing-transform-spec-filename: a
	// transform-dialect spec applied to the program after parsing.
	TransformSpec string
}

// New returns empty flags.
func New() *Flags { return &Flags{TargetFlags: map[string]string{}} }

// Names are the flags Set handles besides the registered targets', for
// suggestions and help.
var Names = []string{
	"iree-hal-target-backends", "iree-hal-target-device", "iree-hal-local-target-device-backends",
	"iree-hal-executable-object-search-path", "iree-input-type",
	"iree-hal-dump-executable-sources-to", "iree-hal-dump-executable-binaries-to",
	"iree-hal-clang-path", "iree-hal-glslc-path", "iree-hal-kernel-cache-dir",
	"iree-preprocessing-transform-spec-filename", "iree-preprocessing-pdl-spec-filename",
	"iree-opt-level", "iree-global-optimization-opt-level", "iree-opt-strip-assertions",
}

// InputTypes are the --iree-input-type values accepted: IREE's names of
// the input dialects this compiler converts (every one present is
// converted at the input phase, so the value only has to be one of them).
var InputTypes = []string{"none", "auto", "tosa", "stablehlo", "stablehlo_xla", "mhlo", "xla"}

// Set applies flag arg (name and value split off it, hasValue when it had
// '=') and reports whether it is one of these flags.
func (f *Flags) Set(arg, name, value string, hasValue bool) (bool, error) {
	needValue := func() error {
		if !hasValue {
			return fmt.Errorf("option '%s' requires a value (write --%s=<value>)", arg, name)
		}
		return nil
	}
	switch name {
	case "iree-hal-target-backends", "iree-hal-target-device", "iree-hal-local-target-device-backends",
		"iree-preprocessing-transform-spec-filename", "iree-preprocessing-pdl-spec-filename",
		"iree-hal-executable-object-search-path", "iree-input-type",
		"iree-hal-clang-path", "iree-hal-glslc-path", "iree-hal-kernel-cache-dir",
		"iree-hal-dump-executable-sources-to", "iree-hal-dump-executable-binaries-to",
		"iree-opt-level", "iree-global-optimization-opt-level":
		if err := needValue(); err != nil {
			return true, err
		}
	}
	switch name {
	case "iree-hal-target-backends":
		f.Targets.Backends = appendList(f.Targets.Backends, value)
	case "iree-hal-target-device":
		f.Targets.Devices = append(f.Targets.Devices, value)
	case "iree-hal-local-target-device-backends":
		f.Targets.LocalBackends = appendList(f.Targets.LocalBackends, value)
	case "iree-preprocessing-transform-spec-filename":
		f.TransformSpec = value
	case "iree-preprocessing-pdl-spec-filename":
		f.PDLSpec = value
	case "iree-hal-executable-object-search-path":
		if value != "" {
			f.SearchPaths = append(f.SearchPaths, value)
		}
	case "iree-input-type":
		if !slices.Contains(InputTypes, value) {
			return true, fmt.Errorf("unsupported --iree-input-type=%s (supported: %s)", value, strings.Join(InputTypes, ", "))
		}
	case "iree-hal-clang-path":
		f.KernelClang = value
	case "iree-hal-glslc-path":
		f.KernelGlslc = value
	case "iree-hal-kernel-cache-dir":
		f.KernelCache = value
	case "iree-hal-dump-executable-sources-to":
		f.DumpSources = value
	case "iree-hal-dump-executable-binaries-to":
		f.DumpBinaries = value
	case "iree-opt-level", "iree-global-optimization-opt-level":
		if !slices.Contains([]string{"O0", "O1", "O2", "O3"}, value) {
			return true, fmt.Errorf("unsupported --%s=%s (supported: O0, O1, O2, O3)", name, value)
		}
		if name == "iree-opt-level" {
			f.OptLevel = value
		} else {
			f.GlobalOptLevel = value
		}
	case "iree-opt-strip-assertions":
		on := !hasValue || value == "true" || value == "1"
		if hasValue && !on && value != "false" && value != "0" {
			return true, fmt.Errorf("option '--%s' takes true or false, not %q", name, value)
		}
		f.StripAssertions = &on
	default:
		_, tf := target.FindFlag(name)
		if tf == nil {
			return false, nil
		}
		if err := needValue(); err != nil {
			return true, err
		}
		f.TargetFlags[tf.Name] = value
	}
	return true, nil
}

// appendList appends the comma-separated, non-empty items of value.
func appendList(list []string, value string) []string {
	for _, b := range strings.Split(value, ",") {
		if b = strings.TrimSpace(b); b != "" {
			list = append(list, b)
		}
	}
	return list
}

// StripsAssertions applies IREE's defaulting: an explicit
// --iree-opt-strip-assertions wins; otherwise assertions are stripped from
// O1 up, the global-optimization level overriding --iree-opt-level.
func (f *Flags) StripsAssertions() bool {
	if f.StripAssertions != nil {
		return *f.StripAssertions
	}
	level := f.OptLevel
	if f.GlobalOptLevel != "" {
		level = f.GlobalOptLevel
	}
	return level != "" && level != "O0"
}

// KernelSources picks the tools that compile kernel sources: the
// --iree-hal-*-path flags, else the tools given to the targets (so one
// --iree-llvmcpu-clang-path serves both), else a PATH lookup.
func (f *Flags) KernelSources() kernelsrc.Options {
	k := kernelsrc.Options{ClangPath: f.KernelClang, GlslcPath: f.KernelGlslc, CacheDir: f.KernelCache}
	if k.ClangPath == "" {
		k.ClangPath = f.TargetFlags["iree-llvmcpu-clang-path"]
	}
	if k.GlslcPath == "" {
		k.GlslcPath = f.TargetFlags["iree-vulkan-glslc-path"]
	}
	return k
}

// PipelineOptions returns the compiler options the flags select.
func (f *Flags) PipelineOptions() pipeline.Options {
	return pipeline.Options{
		Targets:           f.Targets,
		ObjectSearchPaths: f.SearchPaths,
		KernelSources:     f.KernelSources(),
		TargetFlags:       f.TargetFlags,
		DumpSourcesTo:     f.DumpSources,
		DumpBinariesTo:    f.DumpBinaries,
		StripAssertions:   f.StripsAssertions(),
	}
}
