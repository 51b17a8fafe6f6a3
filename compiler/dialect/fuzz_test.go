package dialect

import (
	"fmt"
	"testing"
	"time"

	"github.com/goiree/goiree/compiler/ir"
)

// FuzzParse feeds arbitrary text to the parser. Parsing and verification
// must not panic or hang, and any program that verifies must print to text
// that parses and verifies again and prints identically.
func FuzzParse(f *testing.F) {
	f.Add("func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  return %0 : i32\n}\n")
	f.Add(`"test.op"(%x) : (i32) -> ()`)
	f.Add(`#a = affine_map<(d0)[s0] -> (d0 ceildiv s0)>`)
	f.Add("func.func private @k(\n  %a: memref<f32> {llvm.noalias}, // c\n  %n : index) -> (i32 {x}) attributes {\n  hal.import.static,\n  llvm.bareptr = true\n}\n")
	f.Add(ukernelProgram)
	reg := NewRegistry()
	f.Fuzz(func(t *testing.T, src string) {
		timer := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("hang on input %q", src)) })
		defer timer.Stop()
		m, err := ir.Parse("fuzz.mlir", []byte(src), reg)
		if err != nil {
			return
		}
		if err := Verify(reg, m.Op); err != nil {
			return
		}
		printed := ir.PrintModule(m, reg, ir.PrintOptions{})
		m2, err := ir.Parse("printed.mlir", []byte(printed), reg)
		if err != nil {
			t.Fatalf("printed IR does not parse: %v\ninput:\n%s\nprinted:\n%s", err, src, printed)
		}
		if err := Verify(reg, m2.Op); err != nil {
			t.Fatalf("printed IR does not verify: %v\ninput:\n%s\nprinted:\n%s", err, src, printed)
		}
		if again := ir.PrintModule(m2, reg, ir.PrintOptions{}); again != printed {
			t.Fatalf("printing is not stable:\n%s\n---\n%s", printed, again)
		}
	})
}
