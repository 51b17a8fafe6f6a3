package flow_test

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/internal/dialecttest"
)

// flow.executable as IREE's flow phase prints it (and iree-link copies it).
func TestExecutableRoundTrip(t *testing.T) {
	src := `flow.executable private @ex {
  flow.executable.export public @entry workgroups(%a: index, %b: index) -> (index, index, index) {
    %c1 = arith.constant 1 : index
    flow.return %a, %b, %c1 : index, index, index
  }
  flow.executable.export public @bare as(@entry)
  builtin.module {
    func.func @entry() {
      return
    }
  }
}
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c1 = arith.constant 1 : index
  %0 = flow.dispatch @ex::@entry[%c1, %c1](%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`
	custom, generic := dialecttest.RoundTrip(t, "ex.mlir", src)
	dialecttest.ContainsAll(t, "custom form", custom,
		"flow.executable private @ex {",
		"flow.executable.export public @entry workgroups(%a: index, %b: index) -> (index, index, index) {",
		"flow.executable.export public @bare as(@entry)")
	dialecttest.ContainsAll(t, "generic form", generic, `"flow.executable.export"() ({`)
}

func TestExecutableErrors(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"stray op", "flow.executable private @ex {\n  func.func @f() {\n    return\n  }\n}",
			"t.mlir:1:1: error: 'flow.executable' op may only contain flow.executable.export ops and one builtin.module, found 'func.func'"},
		{"count arity", "flow.executable private @ex {\n  flow.executable.export public @e workgroups(%a: index) -> (index, index) {\n    flow.return %a, %a : index, index\n  }\n}",
			"t.mlir:2:61: error: workgroup count region must return 3 values (x, y, z), found 2"},
		{"wrong terminator", "flow.executable private @ex {\n  flow.executable.export public @e workgroups(%a: index) -> (index, index, index) {\n    stream.return %a, %a, %a : index, index, index\n  }\n}",
			"t.mlir:2:3: error: 'flow.executable.export' op workgroup count region must end with 'flow.return'"},
	} {
		t.Run(c.name, func(t *testing.T) { dialecttest.ExpectError(t, c.src, c.want) })
	}
}
