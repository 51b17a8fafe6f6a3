package backend_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

const chain = `func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %s = arith.addf %a, %b : tensor<?xf32>
  %r = arith.mulf %s, %b : tensor<?xf32>
  return %r : tensor<?xf32>
}
`

// TestFormDispatches checks the dispatch phase on its own.
func TestFormDispatches(t *testing.T) {
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("chain.mlir", []byte(chain), reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.FormDispatches(m.Op, backend.Options{Registry: reg}); err != nil {
		t.Fatal(err)
	}
	out := ir.PrintModule(m, reg, ir.PrintOptions{})
	if strings.Count(out, "flow.dispatch @chain_dispatch_0::@chain_dispatch_0_elementwise") != 1 || strings.Contains(out, "tensor<?xf32>\n  %r = arith") {
		t.Errorf("unexpected IR after dispatch formation:\n%s", out)
	}
}

// TestCompileToolErrors checks that a missing clang names its flag.
func TestCompileToolErrors(t *testing.T) {
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("chain.mlir", []byte(chain), reg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = backend.Compile(m.Op, backend.Options{Registry: reg, LLVMCPU: llvmcpu.Options{ClangPath: "/nonexistent/clang-16"}})
	if err == nil || !strings.Contains(err.Error(), "--iree-llvmcpu-clang-path=") {
		t.Errorf("error %v, want it to name --iree-llvmcpu-clang-path=", err)
	}
}
