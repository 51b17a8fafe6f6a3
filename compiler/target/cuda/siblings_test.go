package cuda_test

import (
	"reflect"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target/cuda"
)

// TestSiblings: the cuda variants of one executable share a payload,
// except those with a hal.executable.condition (host code chooses them)
// and those of other backends or formats.
func TestSiblings(t *testing.T) {
	exe := ir.NewOp("hal.executable", nil, nil, []ir.NamedAttr{{Name: "sym_name", Value: ir.StringAttr{Value: "exe"}}})
	body := exe.AddRegion().AddBlock()
	variant := func(name, backend, format string, condition bool) *ir.Operation {
		v := ir.NewOp("hal.executable.variant", nil, nil, []ir.NamedAttr{
			{Name: "sym_name", Value: ir.StringAttr{Value: name}},
			{Name: "target", Value: &hal.ExecutableTargetAttr{Backend: backend, Format: format}},
		})
		b := v.AddRegion().AddBlock()
		if condition {
			b.Append(ir.NewOp("hal.executable.condition", nil, nil, nil))
		}
		body.Append(v)
		return v
	}
	a := variant("a", "cuda", cuda.Format, false)
	vk := variant("vk", "vulkan-spirv", "vulkan-spirv-fb", false)
	c := variant("c", "cuda", cuda.Format, true)
	b := variant("b", "cuda", cuda.Format, false)
	other := variant("other", "cuda", "cuda-other", false)
	names := func(ops []*ir.Operation) []string {
		var out []string
		for _, o := range ops {
			out = append(out, o.SymName())
		}
		return out
	}
	for _, tc := range []struct {
		of   *ir.Operation
		want []string
	}{
		{a, []string{"a", "b"}},
		{b, []string{"a", "b"}},
		{c, []string{"c"}},
		{other, []string{"a", "b", "other"}},
		{vk, []string{"a", "vk", "b"}}, // Build refuses non-cuda variants before asking
	} {
		if got := names(cuda.Siblings(tc.of)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Siblings(@%s) = %v, want %v", tc.of.SymName(), got, tc.want)
		}
	}
	lone := ir.NewOp("hal.executable.variant", nil, nil, []ir.NamedAttr{{Name: "sym_name", Value: ir.StringAttr{Value: "lone"}}})
	if got := names(cuda.Siblings(lone)); !reflect.DeepEqual(got, []string{"lone"}) {
		t.Errorf("Siblings of a variant outside an executable = %v", got)
	}
}
