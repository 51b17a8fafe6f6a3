package loopnest_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// TestEpilogueContract checks the epilogue's part of the kernel
// dictionary: an encoded kernel decodes to the same kernel, its bindings
// come in contract order with the init typed by its accumulator, and
// malformed epilogues are refused.
func TestEpilogueContract(t *testing.T) {
	reg := dialect.NewRegistry()
	src := `{body = @b, ranges = [4 : index, -1 : index, 3 : index], iterator_types = ["parallel", "parallel", "reduction"], inputs = [{type = tensor<4x3xf32>, map = affine_map<(d0, d1, d2) -> (d0, d2)>}, {scalar = i32}], outputs = [{type = tensor<4x?xf16>, map = affine_map<(d0, d1, d2) -> (d0, d1)>, init, acc = f32}], tile = 2 : index, epilogue = @e, epilogue_inputs = [{type = tensor<?xf32>, map = affine_map<(d0, d1, d2) -> (d1)>}, {type = tensor<2x4xi8>, map = affine_map<(d0, d1, d2) -> (1, d0)>}]}`
	a, err := ir.ParseAttribute(src, reg)
	if err != nil {
		t.Fatal(err)
	}
	k, err := loopnest.Decode(a.(*ir.DictAttr))
	if err != nil {
		t.Fatal(err)
	}
	if got := ir.AttrString(k.Dict()); got != src {
		t.Errorf("round trip:\n got %s\nwant %s", got, src)
	}
	if k.Epilogue != "e" || len(k.EpilogueInputs) != 2 || ir.TypeString(k.Outputs[0].AccElem()) != "f32" {
		t.Errorf("decoded %+v", k)
	}
	var roles []string
	for _, b := range k.Bindings() {
		roles = append(roles, b.Role+":"+ir.TypeString(b.Type))
	}
	if got, want := strings.Join(roles, " "), "in:tensor<4x3xf32> epilogue:tensor<?xf32> epilogue:tensor<2x4xi8> init:tensor<4x?xf32> out:tensor<4x?xf16>"; got != want {
		t.Errorf("bindings %s, want %s", got, want)
	}
	// A scalar, then the dynamic sizes of the second epilogue input,
	// init and output.
	if n := k.NumConstants(); n != 4 {
		t.Errorf("%d push constants, want 4", n)
	}
	if p := k.Parallel(); len(p) != 2 || p[0] != 0 || p[1] != 1 {
		t.Errorf("parallel loops %v", p)
	}

	for _, tc := range []struct{ dict, want string }{
		{`{body = @b, ranges = [8 : index], iterator_types = ["parallel"], inputs = [], outputs = [{type = tensor<8xf32>, map = affine_map<(d0) -> (d0)>}], tile = 1 : index, epilogue = @e, epilogue_inputs = []}`,
			"epilogue needs a kernel with reduction loops"},
		{`{body = @b, ranges = [8 : index, 4 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1) -> (d0)>}], tile = 1 : index, epilogue = @e, epilogue_inputs = [{type = tensor<4xf32>, map = affine_map<(d0, d1) -> (d1)>}]}`,
			"epilogue input #0: index 0 (d1) must be a parallel loop or a constant"},
		{`{body = @b, ranges = [8 : index, 4 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1) -> (d0)>}], tile = 1 : index, epilogue = @e, epilogue_inputs = [{type = tensor<4xf32>, map = affine_map<(d0, d1) -> (d0)>}]}`,
			"epilogue input #0: loop d0's range 8 exceeds dimension 0 (size 4)"},
		{`{body = @b, ranges = [8 : index, 4 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1) -> (d0)>}], tile = 1 : index, epilogue = @e, epilogue_inputs = [{type = tensor<4xf32>, map = affine_map<(d0, d1) -> (4)>}]}`,
			"epilogue input #0: index 0 (4) is outside dimension 0 (size 4)"},
		{`{body = @b, ranges = [8 : index, 4 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1) -> (d0)>}], tile = 1 : index, epilogue = @e, epilogue_inputs = [{type = tensor<4xf32>, map = affine_map<(d0) -> (d0)>}]}`,
			"epilogue input #0 needs an affine map from the 2 loops to its 1 indices"},
		{`{body = @b, ranges = [8 : index, 4 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<8xf16>, map = affine_map<(d0, d1) -> (d0)>, acc = f32}], tile = 1 : index}`,
			"output #0: an acc type needs an epilogue to convert it"},
		{`{body = @b, ranges = [8 : index, 4 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<8xf32>, map = affine_map<(d0, d1) -> (d0)>}], tile = 1 : index, epilogue_inputs = []}`,
			"epilogue_inputs need an epilogue"},
		{`{body = @b, ranges = [8 : index, 4 : index], iterator_types = ["parallel", "reduction"], inputs = [], outputs = [{type = tensor<8xf16>, map = affine_map<(d0, d1) -> (d0)>, acc = tensor<2xf32>}], tile = 1 : index, epilogue = @e}`,
			"output #0: acc must be an integer, float or index type"},
	} {
		a, err := ir.ParseAttribute(tc.dict, reg)
		if err != nil {
			t.Fatal(err)
		}
		_, err = loopnest.Decode(a.(*ir.DictAttr))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %q", tc.dict, err, tc.want)
		}
	}
}
