package vmgen_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/vmgen"
)

// generatedSource stands in for clang and lld inside the fuzz target: the
// "binary" of a variant is its generated C, so code generation runs in
// full without external tools.
type generatedSource struct{}

func (generatedSource) Build(variant *ir.Operation) ([]byte, error) {
	lib, err := llvmcpu.GenerateC(variant)
	if err != nil {
		return nil, err
	}
	return []byte(lib.Source), nil
}

// FuzzLower feeds programs through dispatch formation, CPU C generation
// and VM emission: any input must give a module or an error, never a
// panic.
func FuzzLower(f *testing.F) {
	f.Add([]byte("func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %b = arith.mulf %a, %a : tensor<4xf32>\n  return %b : tensor<4xf32>\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		reg := dialect.NewRegistry()
		m, err := dialect.Parse("fuzz.mlir", src, reg)
		if err != nil {
			return
		}
		if _, err := elementwise.Outline(m.Op, elementwise.Options{}); err != nil {
			return
		}
		if err := dialect.Verify(reg, m.Op); err != nil {
			return
		}
		ir.Walk(m.Op, func(o *ir.Operation) bool {
			if o.Name == "hal.executable.variant" {
				llvmcpu.GenerateC(o)
			}
			return true
		})
		if out, err := vmgen.Emit(m.Op, vmgen.Options{Registry: reg, Executables: generatedSource{}}); err == nil {
			if _, err := vmgen.Text(out); err != nil {
				t.Fatalf("emitted module does not load: %v", err)
			}
		}
	})
}
