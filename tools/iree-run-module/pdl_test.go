package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/dialect/pdl"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/hal/local/plugin/plugintest"
)

// TestPDLSplicedKernel compiles a program whose first add a PDL spec sends
// to an external kernel through rewriteAsFlowDispatch (an i32 count and an
// i1 flag among its operands), runs it with the system plugin providing the
// kernel, and checks both results against a Go loop: the spliced add
// doubles (the flag is true), the other is the compiler's.
func TestPDLSplicedKernel(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v (clang-16 compiles CPU executables)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links CPU executables)", err)
	}
	src, err := os.ReadFile("testdata/plugin/pdl_add.mlir")
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Parse("pdl_add.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := pdl.ApplyFile("testdata/plugin/pdl_add.pdl.mlir", s.Module.Op, s.Registry); err != nil {
		t.Fatal(err)
	}
	if err := pipeline.Run(s, pipeline.RunOptions{To: "executable-sources"}); err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Join(t.TempDir(), "pdl_add.vmfb")
	if err := os.WriteFile(module, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	plugin := plugintest.BuildSystem(t, "add_flag_system.c")
	const n = 37
	a, b := make([]float32, n), make([]float32, n)
	var as, bs, spliced, plain []string
	for i := range a {
		a[i], b[i] = float32(i)*0.5-4, float32(3-i)
		as, bs = append(as, fmt.Sprint(a[i])), append(bs, fmt.Sprint(b[i]))
		spliced = append(spliced, fmt.Sprint((a[i]+b[i])*2))
		plain = append(plain, fmt.Sprint(a[i]+b[i]))
	}
	for _, device := range []string{"local-sync", "local-task"} {
		code, stdout, stderr := runTool(t, "", "--device="+device, "--module="+module, "--function=adds",
			"--executable_plugin="+plugin,
			fmt.Sprintf("--input=%dxf32=%s", n, strings.Join(as, " ")),
			fmt.Sprintf("--input=%dxf32=%s", n, strings.Join(bs, " ")))
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", device, code, stderr)
		}
		for _, want := range []string{
			fmt.Sprintf("%dxf32=%s\n", n, strings.Join(spliced, " ")),
			fmt.Sprintf("%dxf32=%s\n", n, strings.Join(plain, " ")),
		} {
			if !strings.Contains(stdout, want) {
				t.Errorf("%s: output lacks %q:\n%s", device, want, stdout)
			}
		}
	}
}
