package transforms

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// TestStreamNarrowScalars checks that a stream entry may take integers
// narrower than 32 bits (IREE's rewriteAsFlowDispatch passes an i1 flag):
// each is a 32-bit push constant, zero-extended by the host, truncated in
// the entry, and the dispatch site verifies against the layout.
func TestStreamNarrowScalars(t *testing.T) {
	const src = `stream.executable private @exe {
  stream.executable.export public @entry workgroups() -> (index, index, index) {
    %c1 = arith.constant 1 : index
    stream.return %c1, %c1, %c1 : index, index, index
  }
  builtin.module {
    func.func private @ext(memref<f32>, i1, i8, i32) attributes {llvm.bareptr = true}
    func.func @entry(%b: !stream.binding, %flag: i1, %small: i8, %n: i32) {
      %c0 = arith.constant 0 : index
      %m = stream.binding.subspan %b[%c0] : !stream.binding -> memref<f32>
      func.call @ext(%m, %flag, %small, %n) : (memref<f32>, i1, i8, i32) -> ()
      return
    }
  }
}
func.func @f(%x: tensor<f32>, %flag: i1, %small: i8, %n: i32) -> tensor<f32> {
  %r = flow.dispatch @exe::@entry(%x, %flag, %small, %n) : (tensor<f32>, i1, i8, i32) -> %x
  return %r : tensor<f32>
}
`
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("narrow.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	target := &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"}
	if err := MaterializeStreamExecutables(m.Op, []*hal.ExecutableTargetAttr{target}); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("the materialized module does not verify: %v\n%s", err, ir.PrintModule(m, reg, ir.PrintOptions{}))
	}
	got := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, want := range []string{
		"constants = 3",
		"ordinal(0) : i32",
		"arith.trunci %flag_i32 : i32 to i1",
		"arith.trunci %small_i32 : i32 to i8",
		") ordinal(2) : i32\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("materialized module lacks %q:\n%s", want, got)
		}
	}
}
