package compileflags

import (
	"strings"
	"testing"

	_ "github.com/goiree/goiree/compiler/target/all" // the targets' own flags
)

func TestSet(t *testing.T) {
	f := New()
	for _, a := range []string{
		"--iree-hal-target-backends=llvm-cpu,vulkan-spirv", "--iree-hal-target-device=local",
		"--iree-hal-local-target-device-backends=llvm-cpu", "--iree-hal-executable-object-search-path=/objs",
		"--iree-hal-executable-object-search-path=", "--iree-input-type=stablehlo", "--iree-hal-clang-path=/c",
		"--iree-hal-kernel-cache-dir=/cache", "--iree-hal-dump-executable-sources-to=/src", "--iree-opt-level=O2",
		"--iree-vulkan-glslc-path=/g", "--iree-preprocessing-pdl-spec-filename=s.mlir",
	} {
		name, value, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if handled, err := f.Set(a, name, value, has); !handled || err != nil {
			t.Fatalf("%s: handled %v, %v", a, handled, err)
		}
	}
	if handled, err := f.Set("--function", "function", "", false); handled || err != nil {
		t.Errorf("--function: handled %v, %v (it is not a compiler flag)", handled, err)
	}
	o := f.PipelineOptions()
	if strings.Join(o.Targets.Backends, " ") != "llvm-cpu vulkan-spirv" || strings.Join(o.Targets.Devices, " ") != "local" ||
		strings.Join(o.Targets.LocalBackends, " ") != "llvm-cpu" || strings.Join(o.ObjectSearchPaths, " ") != "/objs" ||
		o.KernelSources.ClangPath != "/c" || o.KernelSources.GlslcPath != "/g" || o.KernelSources.CacheDir != "/cache" ||
		o.DumpSourcesTo != "/src" || !o.StripAssertions || f.PDLSpec != "s.mlir" {
		t.Errorf("options %+v, PDL spec %q", o, f.PDLSpec)
	}
}

func TestSetErrors(t *testing.T) {
	for _, c := range []struct{ arg, want string }{
		{"--iree-hal-target-backends", "option '--iree-hal-target-backends' requires a value (write --iree-hal-target-backends=<value>)"},
		{"--iree-input-type=torch", "unsupported --iree-input-type=torch (supported: none, auto, tosa, stablehlo, stablehlo_xla, mhlo, xla)"},
		{"--iree-opt-level=O9", "unsupported --iree-opt-level=O9 (supported: O0, O1, O2, O3)"},
		{"--iree-opt-strip-assertions=maybe", `option '--iree-opt-strip-assertions' takes true or false, not "maybe"`},
		{"-iree-llvmcpu-target-cpu", "option '-iree-llvmcpu-target-cpu' requires a value (write --iree-llvmcpu-target-cpu=<value>)"},
	} {
		name, value, has := strings.Cut(strings.TrimLeft(c.arg, "-"), "=")
		handled, err := New().Set(c.arg, name, value, has)
		if !handled || err == nil || err.Error() != c.want {
			t.Errorf("%s: handled %v, %v; want %s", c.arg, handled, err, c.want)
		}
	}
}
