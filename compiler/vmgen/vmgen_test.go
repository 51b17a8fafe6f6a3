package vmgen_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/vmgen"
	"github.com/goiree/goiree/runtime/vm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

func needTools(t *testing.T) {
	t.Helper()
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v (clang-16 builds the executables embedded in the module)", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v (ld.lld-16 links the executables embedded in the module)", err)
	}
}

func parse(t *testing.T, name string, src []byte) (*ir.Module, *ir.Registry) {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := dialect.Parse(name, src, reg)
	if err != nil {
		t.Fatal(err)
	}
	return m, reg
}

func emit(t *testing.T, file string) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	m, reg := parse(t, file, src)
	if _, err := elementwise.Outline(m.Op, elementwise.Options{}); err != nil {
		t.Fatal(err)
	}
	out, err := vmgen.Emit(m.Op, vmgen.Options{Registry: reg, Executables: vmgen.Backends{"llvm-cpu": llvmcpu.Builder{}}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGoldenAsm pins the VM assembly emitted for small programs. Run with
// -update to rewrite the goldens.
func TestGoldenAsm(t *testing.T) {
	needTools(t)
	for _, file := range []string{"chain.mlir", "reuse.mlir"} {
		t.Run(file, func(t *testing.T) {
			a := emit(t, file)
			b := emit(t, file)
			if string(a) != string(b) {
				t.Fatalf("two emissions of %s differ", file)
			}
			text, err := vmgen.Text(a)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(file, ".mlir")+".vmasm")
			if *update {
				if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(want) != text {
				t.Errorf("VM assembly differs from %s (run with -update to accept):\n%s", golden, text)
			}
		})
	}
}

// TestSignatures checks the exported calling conventions and reflection.
func TestSignatures(t *testing.T) {
	needTools(t)
	m, err := vm.LoadBytecodeModule(emit(t, "chain.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := vm.NewInstance().NewContext(m)
	if err == nil {
		fn, err := ctx.LookupFunction("chain")
		if err != nil {
			t.Fatal(err)
		}
		if cc := fn.CallingConvention(); cc != "0rr_rI" {
			t.Errorf("calling convention %s, want 0rr_rI", cc)
		}
		return
	}
	// Without the hal module the context cannot bind imports; the error
	// must name them.
	if !strings.Contains(err.Error(), "hal.") {
		t.Errorf("context error %v does not name the hal imports", err)
	}
}

// TestTransientReuse checks that the third result of a chain reuses the
// dead first intermediate: two allocations for three dispatches.
func TestTransientReuse(t *testing.T) {
	needTools(t)
	text, err := vmgen.Text(emit(t, "reuse.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text, "hal.allocator.allocate"); n != 2 {
		t.Errorf("%d allocations, want 2:\n%s", n, text)
	}
	if n := strings.Count(text, "hal.command_buffer.dispatch.inline"); n != 3 {
		t.Errorf("%d dispatches, want 3", n)
	}
}

// TestErrors checks the diagnostics for programs the host lowering cannot
// handle.
func TestErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"unsupported host op", `func.func @f(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}`, "'math.exp' is not supported in host code"},
		{"elementwise not formed", `func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %a, %a : tensor<4xf32>
  return %y : tensor<4xf32>
}`, "run elementwise dispatch formation first"},
		{"no public function", `func.func private @f() {
  return
}`, "no public function"},
		{"stream executable not materialised", `stream.executable private @e {
  stream.executable.export public @k workgroups(%n: index) -> (index, index, index) {
    stream.return %n, %n, %n : index, index, index
  }
  builtin.module {
    func.func @k(%b: !stream.binding, %n: index) {
      return
    }
  }
}
func.func @f(%a: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %r = flow.dispatch @e::@k[%n](%a, %n) : (tensor<?xf32>{%n}, index) -> %a{%n}
  return %r : tensor<?xf32>
}`, "materialize it into a hal.executable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, reg := parse(t, "t.mlir", []byte(c.src))
			_, err := vmgen.Emit(m.Op, vmgen.Options{Registry: reg, Executables: vmgen.Backends{"llvm-cpu": llvmcpu.Builder{}}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}
