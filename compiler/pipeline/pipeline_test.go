package pipeline

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	_ "github.com/goiree/goiree/compiler/target/all" // the targets the programs name
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

func lookTool(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// objectDir builds the kernel objects the programs reference into
// dir/objs: CPU objects with clang (when present), and copies of the
// committed PTX and SPIR-V files. It reports whether CPU objects exist.
func objectDir(t *testing.T, dir string) bool {
	t.Helper()
	objs := filepath.Join(dir, "objs")
	if err := os.MkdirAll(objs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"kernels_sm_80.ptx", "kernels_sm_90.ptx", "simple_mul.spv", "simple_mul_inplace.spv"} {
		b, err := os.ReadFile(filepath.Join("testdata", "kernels", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(objs, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	clang := lookTool("clang-16", "clang")
	if clang == "" {
		return false
	}
	src, err := filepath.Abs(filepath.Join("testdata", "kernels", "functions.c"))
	if err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"functions_x86_64.o":  "x86_64-unknown-unknown-eabi-elf",
		"functions_aarch64.o": "aarch64-unknown-unknown-eabi-elf",
		"functions_arm_64.o":  "aarch64-unknown-unknown-eabi-elf",
	} {
		cmd := exec.Command(clang, "-target", target, "-std=c17", "-ffreestanding", "-fvisibility=hidden", "-fno-plt",
			"-fdata-sections", "-ffunction-sections", "-O2", "-c", src, "-o", filepath.Join(objs, name))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("clang: %v\n%s", err, msg)
		}
	}
	return true
}

func readPrograms(t *testing.T) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob("testdata/programs/*.mlir")
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs: %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".mlir")] = b
	}
	return out
}

func readGoldens(t *testing.T) (map[string]string, string) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "golden"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.mlir"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = string(b)
	}
	return out, dir
}

// TestCompileToHAL compiles every sample program to the hal phase with the
// objects on a search path and compares the IR with golden files. The
// output must parse and verify again.
func TestCompileToHAL(t *testing.T) {
	programs := readPrograms(t)
	goldens, goldenDir := readGoldens(t)
	dir := t.TempDir()
	haveCPU := objectDir(t, dir)
	t.Chdir(dir)
	for name, src := range programs {
		t.Run(name, func(t *testing.T) {
			if strings.HasPrefix(name, "cpu_") && !haveCPU {
				t.Skip("clang-16 not found on PATH; CPU objects cannot be built")
			}
			s, err := Compile(name+".mlir", src, Options{ObjectSearchPaths: []string{"objs"}}, "executable-sources")
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			out := s.Print()
			reg := dialect.NewRegistry()
			if _, err := dialect.Parse("hal-output", []byte(out), reg); err != nil {
				t.Fatalf("hal output does not parse and verify: %v\n%s", err, out)
			}
			gname := name + ".hal.mlir"
			if *update {
				if err := os.WriteFile(filepath.Join(goldenDir, gname), []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if goldens[gname] != out {
				t.Errorf("testdata/golden/%s differs (run with -update):\n%s", gname, out)
			}
		})
	}
}

// TestStreamTwoTargets checks the materialisation of the stream-form CPU
// program: one variant per target, each with the object its target selects.
func TestStreamTwoTargets(t *testing.T) {
	src, err := os.ReadFile("testdata/programs/cpu_stream_seed.mlir")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if !objectDir(t, dir) {
		t.Skip("clang-16 not found on PATH; CPU objects cannot be built")
	}
	t.Chdir(dir)
	s, err := Compile("cpu_stream_seed.mlir", src, Options{ObjectSearchPaths: []string{"objs"}}, "executable-sources")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ir.Walk(s.Module.Op, func(o *ir.Operation) bool {
		if o.Name == "hal.executable.variant" && o.Attr("objects") != nil {
			got = append(got, o.SymName()+" "+ir.AttrString(o.Attr("objects")))
		}
		return true
	})
	want := []string{
		`embedded_elf_arm_64 [#hal.executable.object<{path = "objs/functions_aarch64.o"}>]`,
		`embedded_elf_x86_64 [#hal.executable.object<{path = "objs/functions_x86_64.o"}>]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("variants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestPhases(t *testing.T) {
	for _, c := range []struct {
		ro   RunOptions
		want string
	}{
		{RunOptions{To: "lowered"}, "unknown phase 'lowered' (phases: start, input, abi, preprocessing, global-optimization, dispatch-creation, flow, stream, executable-sources, executable-configurations, executable-targets, hal, vm, end)"},
		{RunOptions{From: "vm"}, "cannot resume after phase 'vm': its output is a bytecode module, not IR (resume from hal or an earlier phase)"},
		{RunOptions{From: "flow", To: "input"}, "the phase to stop after (input) comes before the phase to resume from (flow)"},
	} {
		if err := Run(&State{}, c.ro); err == nil || err.Error() != c.want {
			t.Errorf("Run(%+v) = %v, want %s", c.ro, err, c.want)
		}
	}
	seen := map[string]bool{}
	last := -1
	for _, p := range Passes {
		i, ok := PhaseIndex(p.Phase)
		if !ok || p.Phase == "start" {
			t.Errorf("pass %s has unknown phase %s", p.Name, p.Phase)
		}
		if i < last {
			t.Errorf("pass %s (phase %s) comes after a pass of a later phase", p.Name, p.Phase)
		}
		last = i
		if seen[p.Name] {
			t.Errorf("duplicate pass name %s", p.Name)
		}
		seen[p.Name] = true
	}
	for _, p := range []string{"start", "input", "hal"} {
		if !Resumable(p) {
			t.Errorf("Resumable(%s) = false", p)
		}
	}
	for _, p := range []string{"vm", "end", "bogus"} {
		if Resumable(p) {
			t.Errorf("Resumable(%s) = true", p)
		}
	}
}

// TestFlowExecutableRefused: a program holding IREE's flow-phase
// executables parses and verifies (iree-link moves them), but compiling it
// stops at the flow phase with a message naming the executable.
func TestFlowExecutableRefused(t *testing.T) {
	src := `flow.executable private @ex {
  flow.executable.export public @entry workgroups(%a: index) -> (index, index, index) {
    flow.return %a, %a, %a : index, index, index
  }
  builtin.module {
    func.func @entry() {
      return
    }
  }
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %0 = flow.dispatch @ex::@entry[%c1](%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
`
	if _, err := Compile("flow.mlir", []byte(src), Options{}, "dispatch-creation"); err != nil {
		t.Fatalf("up to dispatch-creation: %v", err)
	}
	_, err := Compile("flow.mlir", []byte(src), Options{}, "flow")
	const want = "flow.mlir:1:1: error: 'flow.executable' op flow executables (IREE's flow-phase output) cannot be compiled here"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %s...", err, want)
	}
}
