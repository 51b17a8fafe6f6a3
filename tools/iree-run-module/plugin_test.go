package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/hal/local/plugin/plugintest"
)

// compilePluginProgram compiles testdata/plugin/scale_add.mlir, whose
// dispatches call imports resolved at run time, for llvm-cpu into a
// module file and returns its path.
func compilePluginProgram(t *testing.T) string {
	t.Helper()
	return compilePluginFile(t, "scale_add.mlir")
}

// compilePluginFile compiles testdata/plugin/<file> for llvm-cpu into a
// module file and returns its path.
func compilePluginFile(t *testing.T, file string) string {
	t.Helper()
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v (clang-16 compiles CPU executables)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links CPU executables)", err)
	}
	prog, err := os.ReadFile(filepath.Join("testdata", "plugin", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, prog, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), strings.TrimSuffix(file, ".mlir")+".vmfb")
	if err := os.WriteFile(path, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestExecutablePlugins runs a program whose kernels come from plugins,
// with a standalone plugin, a system plugin and both (the one given last
// is searched first), on both local devices, and checks every element
// against a plain Go loop: out = a*k + b, plus 1000 when the system
// plugin's implementation ran. The system plugin logs each call.
func TestExecutablePlugins(t *testing.T) {
	module := compilePluginProgram(t)
	standalone := plugintest.BuildStandalone(t, "scale_add_standalone.c")
	system := plugintest.BuildSystem(t, "scale_add_system.c")
	log := filepath.Join(t.TempDir(), "plugin.log")
	t.Setenv("GOIREE_TEST_PLUGIN_LOG", log)

	const n, k = 130, float32(1.5) // three workgroups, the last partial
	a, b := make([]string, n), make([]string, n)
	for i := 0; i < n; i++ {
		a[i], b[i] = fmt.Sprint(float32(i)/4), fmt.Sprint(float32(3*i))
	}
	tests := []struct {
		name    string
		plugins []string
		bias    float32
		logged  bool
	}{
		{"standalone", []string{standalone}, 0, false},
		{"system", []string{system}, 1000, true},
		{"system then standalone", []string{system, standalone}, 0, false},
		{"standalone then system", []string{standalone, system}, 1000, true},
		{"embedded prefix", []string{"embedded:" + standalone}, 0, false},
	}
	for _, device := range []string{"local-sync", "local-task"} {
		for _, tc := range tests {
			t.Run(device+"/"+tc.name, func(t *testing.T) {
				os.Remove(log)
				out := filepath.Join(t.TempDir(), "out.bin")
				args := []string{"--device=" + device, "--module=" + module, "--function=scale_add",
					fmt.Sprintf("--input=%dxf32=%s", n, strings.Join(a, " ")),
					fmt.Sprintf("--input=%dxf32=%s", n, strings.Join(b, " ")),
					fmt.Sprintf("--input=f32=%v", k), "--output=@" + out}
				for _, p := range tc.plugins {
					args = append(args, "--executable_plugin="+p)
				}
				code, stdout, stderr := runTool(t, "", args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				if stdout != "EXEC @scale_add\n" {
					t.Errorf("stdout %q", stdout)
				}
				raw, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if len(raw) != 4*n {
					t.Fatalf("result has %d bytes, want %d", len(raw), 4*n)
				}
				for i := 0; i < n; i++ {
					got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
					if want := float32(i)/4*k + float32(3*i) + tc.bias; got != want {
						t.Fatalf("out[%d] = %v, want %v", i, got, want)
					}
				}
				logged, _ := os.ReadFile(log)
				if tc.logged != (len(logged) > 0) {
					t.Errorf("system plugin log %q; want a log: %v", logged, tc.logged)
				}
				if tc.logged && !strings.Contains(string(logged), "scale_add offset=128 n=2 k=1.5\n") {
					t.Errorf("system plugin log lacks the last, partial workgroup's call:\n%s", logged)
				}
			})
		}
	}
}

// TestExecutablePluginErrors checks the one-line errors (exit 1) for a
// plugin file that is not an ELF, a missing plugin file, an import that no
// loaded plugin provides (with and without plugins) and an import that
// fails.
func TestExecutablePluginErrors(t *testing.T) {
	module := compilePluginProgram(t)
	standalone := plugintest.BuildStandalone(t, "scale_add_standalone.c")
	system := plugintest.BuildSystem(t, "scale_add_system.c")
	notELF := filepath.Join(t.TempDir(), "plugin.so")
	if err := os.WriteFile(notELF, []byte("int main() { return 0; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		function string
		plugins  []string
		want     string
		exec     bool // the call started: stdout has "EXEC @..."
	}{
		{"not an ELF", "scale_add", []string{notELF},
			"[ERROR] INVALID_ARGUMENT; executable plugin " + notELF + ": not an ELF file (it starts with 69 6e 74 20, not the ELF magic 7f 45 4c 46)", false},
		{"missing file", "scale_add", []string{notELF + ".nope"},
			"[ERROR] NOT_FOUND; executable plugin " + notELF + ".nope: no such file or directory", false},
		{"missing import", "missing", []string{standalone, system},
			`executable missing_exe_embedded_elf_x86_64: import "not_in_any_plugin" not found in the loaded executable plugins (searched: test_system (` + system + `), test_standalone (` + standalone + `))`, true},
		{"no plugins", "missing", nil,
			`executable missing_exe_embedded_elf_x86_64: import "not_in_any_plugin" not found: no executable plugin is loaded (load one with --executable_plugin=<path>)`, true},
		{"failing import", "failing", []string{standalone},
			`dispatch of export 0 ("call_failing") failed with status 17 at workgroup (0, 0, 0)`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"--device=local-sync", "--module=" + module, "--function=" + tc.function}
			for _, p := range tc.plugins {
				args = append(args, "--executable_plugin="+p)
			}
			args = append(args, "--input=4xf32=1", "--input=4xf32=2", "--input=f32=1")
			if tc.function != "scale_add" {
				args = args[:len(args)-3]
			}
			code, stdout, stderr := runTool(t, "", args...)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
				t.Errorf("stderr %q, want one line containing %q", stderr, tc.want)
			}
			if wantOut := map[bool]string{true: "EXEC @" + tc.function + "\n", false: ""}[tc.exec]; stdout != wantOut {
				t.Errorf("stdout %q, want %q", stdout, wantOut)
			}
		})
	}
}

// TestUKernelDispatchRegion runs testdata/plugin/ukernel.mlir, an inline
// flow.dispatch.region whose tiles call a plugin microkernel through
// iree_codegen.ukernel.generic with strided operands, on both local
// devices for lengths that split evenly and unevenly into the three
// tiles, against a plain Go loop: out[i] = k*x[2i] + y[i].
func TestUKernelDispatchRegion(t *testing.T) {
	module := compilePluginFile(t, "ukernel.mlir")
	standalone := plugintest.BuildStandalone(t, "scale_add_standalone.c")
	const k = float32(-0.5)
	for _, device := range []string{"local-sync", "local-task"} {
		for _, n := range []int{1, 9, 10, 101} {
			t.Run(fmt.Sprintf("%s/n=%d", device, n), func(t *testing.T) {
				x, y := make([]string, 2*n), make([]string, n)
				for i := range x {
					x[i] = fmt.Sprint(i + 1)
				}
				for i := range y {
					y[i] = fmt.Sprint(1000 * i)
				}
				out := filepath.Join(t.TempDir(), "out.bin")
				code, stdout, stderr := runTool(t, "", "--device="+device, "--module="+module, "--function=axpy",
					fmt.Sprintf("--input=%dxf32=%s", 2*n, strings.Join(x, " ")),
					fmt.Sprintf("--input=%dxf32=%s", n, strings.Join(y, " ")),
					fmt.Sprintf("--input=f32=%v", k), "--executable_plugin="+standalone, "--output=@"+out)
				if code != 0 || stdout != "EXEC @axpy\n" {
					t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
				}
				raw, err := os.ReadFile(out)
				if err != nil {
					t.Fatal(err)
				}
				if len(raw) != 4*n {
					t.Fatalf("result has %d bytes, want %d", len(raw), 4*n)
				}
				for i := 0; i < n; i++ {
					got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
					if want := k*float32(2*i+1) + float32(1000*i); got != want {
						t.Fatalf("out[%d] = %v, want %v", i, got, want)
					}
				}
			})
		}
	}
}
