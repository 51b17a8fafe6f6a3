package llvmcpu_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// TestBarePtrSpellings checks every spelling of llvm.bareptr: a memref
// argument of an import is one pointer with true, unit or [true] (IREE's
// rewriteAsFlowDispatch writes the array) and its descriptor's fields
// otherwise.
func TestBarePtrSpellings(t *testing.T) {
	for _, tc := range []struct {
		attr string
		want string
	}{
		{"llvm.bareptr = true", "struct { float* a0; } gi_params"},
		{"llvm.bareptr", "struct { float* a0; } gi_params"},
		{"llvm.bareptr = [true]", "struct { float* a0; } gi_params"},
		{"llvm.bareptr = [false]", "struct { float* a0; float* a1; int64_t a2; } gi_params"},
		{"llvm.bareptr = false", "struct { float* a0; float* a1; int64_t a2; } gi_params"},
	} {
		src := `#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {}>
#l = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable private @e {
  hal.executable.variant public @v target(#t) {
    hal.executable.export public @f ordinal(0) layout(#l)
    builtin.module {
      func.func private @g(memref<f32>) attributes {` + tc.attr + `}
      func.func @f() {
        %c0 = arith.constant 0 : index
        %b = hal.interface.binding.subspan layout(#l) binding(0) alignment(64) offset(%c0) : memref<f32>
        func.call @g(%b) : (memref<f32>) -> ()
        return
      }
    }
  }
}
`
		m, err := dialect.Parse("bareptr.mlir", []byte(src), dialect.NewRegistry())
		if err != nil {
			t.Fatalf("%s: %v", tc.attr, err)
		}
		var variant *ir.Operation
		ir.Walk(m.Op, func(o *ir.Operation) bool {
			if o.Name == "hal.executable.variant" {
				variant = o
			}
			return variant == nil
		})
		lib, err := llvmcpu.GenerateC(variant)
		if err != nil {
			t.Fatalf("%s: %v", tc.attr, err)
		}
		if !strings.Contains(lib.Source, tc.want) {
			t.Errorf("%s: generated C lacks %q:\n%s", tc.attr, tc.want, lib.Source)
		}
	}
}
