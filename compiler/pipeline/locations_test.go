package pipeline

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
)

// TestLocationsRoundTrip prints a module with PrintDebug, parses the text
// under another file name and restores the locations: every op must get
// back its original position (generated ops without one stay unknown),
// and an op's own loc(...) is kept beside its position.
func TestLocationsRoundTrip(t *testing.T) {
	src := "func.func @f(%a: i32) -> i32 {\n  %0 = arith.addi %a, %a : i32\n  %1 = arith.muli %0, %a : i32 loc(\"callee\"(\"x.mlir\":1:1))\n  return %1 : i32\n}\n"
	s, err := Parse("dir/in \"q\".mlir", []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	// A pass-made op without a position, as passes create them.
	body := s.Module.Op.Body().Ops[0].Body()
	gen := ir.NewOp("arith.constant", nil, []ir.Type{ir.I32}, []ir.NamedAttr{{Name: "value", Value: ir.IntegerAttr{Value: 7, Type: ir.I32}}})
	body.InsertBefore(body.Ops[0], gen)
	positions := func(m *ir.Module) []string {
		var out []string
		ir.Walk(m.Op, func(o *ir.Operation) bool {
			if o != m.Op {
				out = append(out, o.Name+"@"+o.Pos.String())
			}
			return true
		})
		return out
	}
	want := positions(s.Module)
	text := s.PrintDebug()
	if !strings.Contains(text, `loc("dir/in \"q\".mlir":2:8)`) || !strings.Contains(text, "loc(unknown)") {
		t.Fatalf("printed IR lacks the locations:\n%s", text)
	}
	if !strings.Contains(text, `loc(fused<"goiree.pos">["dir/in \"q\".mlir":3:8, "callee"("x.mlir":1:1)])`) {
		t.Errorf("an op's own location is not printed beside its position:\n%s", text)
	}
	if strings.Count(s.Print(), "loc(") != 1 {
		t.Errorf("PrintDebug left locations on the module:\n%s", s.Print())
	}
	r, err := Parse("printed.mlir", []byte(text), Options{})
	if err != nil {
		t.Fatalf("printed IR does not parse: %v\n%s", err, text)
	}
	RestoreLocations(r.Module)
	got := positions(r.Module)
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("op %d: position %v, want %s", i, got, want[i])
			break
		}
	}
	if out := r.Print(); !strings.Contains(out, `loc("callee"("x.mlir":1:1))`) {
		t.Errorf("a call-site location was not kept:\n%s", out)
	}
}
