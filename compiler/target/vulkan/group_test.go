package vulkan_test

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/target/vulkan"
)

// TestGroupGLSL compares the shaders of testdata/groups.mlir's row groups
// with testdata/group_*.glsl.golden (rewrite them with -update) and checks
// that glslc compiles them, with and without subgroup operations and with
// two rows a workgroup, to valid SPIR-V of the loop nests' local size.
func TestGroupGLSL(t *testing.T) {
	tool := glslc(t)
	vs := loopNestVariants(t, "groups.mlir")
	var names []string
	for n := range vs {
		names = append(names, n)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "decay_linalg_0 softmax_f16_linalg_0 softmax_linalg_0" {
		t.Fatalf("executables %v: want one per function", names)
	}
	for _, exe := range names {
		mod := hal.InnerModule(vs[exe])
		fn := entryFunc(t, mod, exe)
		if _, ok := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr); !ok {
			t.Fatalf("%s is not a row group", exe)
		}
		src, err := vulkan.GenerateGLSL(mod, exe)
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		checkGolden(t, exe, filepath.Join("testdata", "group_"+exe+".glsl.golden"), src)
		shared, err := vulkan.GenerateGLSLWith(mod, exe, vulkan.GLSLOptions{NoSubgroups: true})
		if err != nil {
			t.Fatalf("%s without subgroups: %v", exe, err)
		}
		if strings.Contains(shared, "subgroup") {
			t.Errorf("%s without subgroups uses subgroup operations", exe)
		}
		d := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr)
		fn.SetAttr(loopnest.GroupAttr, withEntry(d, "tile", ir.IndexAttr(2)))
		tile2, err := vulkan.GenerateGLSL(mod, exe)
		fn.SetAttr(loopnest.GroupAttr, d)
		if err != nil {
			t.Fatalf("%s with two rows a workgroup: %v", exe, err)
		}
		if !strings.Contains(tile2, "rowLo + 2u") {
			t.Errorf("%s with two rows a workgroup does not walk two rows", exe)
		}
		for _, s := range []string{src, shared, tile2} {
			code, err := vulkan.CompileGLSL(tool, s)
			if err != nil {
				t.Fatalf("%s: %v", exe, err)
			}
			spirvVal(t, code)
			if ws := localSize(code); ws != [3]uint32{vulkan.LoopNestWorkgroupSize, 1, 1} {
				t.Errorf("%s: LocalSize %v, want %d x 1 x 1", exe, ws, vulkan.LoopNestWorkgroupSize)
			}
		}
		// On a device with room (lavapipe's limits: 1024 invocations), a
		// workgroup of 256 shares each row.
		dev, err := vulkan.LookupTarget("llvmpipe")
		if err != nil {
			t.Fatal(err)
		}
		big, err := vulkan.GenerateGLSLWith(mod, exe, vulkan.GLSLOptions{Device: dev})
		if err != nil {
			t.Fatalf("%s for llvmpipe: %v", exe, err)
		}
		code, err := vulkan.CompileGLSL(tool, big)
		if err != nil {
			t.Fatalf("%s for llvmpipe: %v", exe, err)
		}
		spirvVal(t, code)
		if ws := localSize(code); ws != [3]uint32{vulkan.GroupWorkgroupSize, 1, 1} {
			t.Errorf("%s for llvmpipe: LocalSize %v, want %d x 1 x 1", exe, ws, vulkan.GroupWorkgroupSize)
		}
	}
}

// entryFunc is the function named name in module.
func entryFunc(t *testing.T, module *ir.Operation, name string) *ir.Operation {
	t.Helper()
	for _, op := range module.Body().Ops {
		if op.Name == "func.func" && op.SymName() == name {
			return op
		}
	}
	t.Fatalf("no function @%s", name)
	return nil
}

// withEntry is a copy of d with entry name set to v (added if missing,
// removed if v is nil).
func withEntry(d *ir.DictAttr, name string, v ir.Attribute) *ir.DictAttr {
	out := &ir.DictAttr{}
	found := false
	for _, e := range d.Entries {
		if e.Name == name {
			found = true
			if v == nil {
				continue
			}
			e.Value = v
		}
		out.Entries = append(out.Entries, e)
	}
	if !found && v != nil {
		out.Entries = append(out.Entries, ir.NamedAttr{Name: name, Value: v})
	}
	return out
}

// TestGroupRefusals: malformed row groups are refused with an error that
// names the problem and the function.
func TestGroupRefusals(t *testing.T) {
	vs := loopNestVariants(t, "groups.mlir")
	const exe = "softmax_linalg_0"
	mod := hal.InnerModule(vs[exe])
	fn := entryFunc(t, mod, exe)
	d := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr)
	stages := d.Get("stages").(*ir.ArrayAttr)
	links := d.Get("links").(*ir.ArrayAttr)
	// stage replaces stage s of the group.
	stage := func(s int, st *ir.DictAttr) *ir.DictAttr {
		elems := append([]ir.Attribute(nil), stages.Elems...)
		elems[s] = st
		return withEntry(d, "stages", &ir.ArrayAttr{Elems: elems})
	}
	link := func(s int, l ...int64) *ir.DictAttr {
		elems := append([]ir.Attribute(nil), links.Elems...)
		var ls []ir.Attribute
		for _, v := range l {
			ls = append(ls, ir.IntegerAttr{Value: v, Type: ir.I64})
		}
		elems[s] = &ir.ArrayAttr{Elems: ls}
		return withEntry(d, "links", &ir.ArrayAttr{Elems: elems})
	}
	st1 := stages.Elems[1].(*ir.DictAttr)
	for _, tc := range []struct {
		name string
		attr *ir.DictAttr
		want string
	}{
		{"no links", withEntry(d, "links", nil), "goiree.loop_group needs one list of links per stage"},
		{"no rows", withEntry(d, "rows", nil), "goiree.loop_group needs rows, a positive count of row loops"},
		{"missing body", stage(1, withEntry(st1, "body", ir.SymbolRefAttr{Root: "nowhere"})), "stage 1: body @nowhere is not defined in the module"},
		{"later result", link(1, 0, -3, -2), "stage 1: binding 1 links to stage 2's result, which it cannot"},
		{"links per binding", link(1, 0, -1), "stage 1 has 3 bindings and 2 links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fn.SetAttr(loopnest.GroupAttr, tc.attr)
			defer fn.SetAttr(loopnest.GroupAttr, d)
			_, err := vulkan.GenerateGLSL(mod, exe)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "func.func") {
				t.Fatalf("got %v\nwant an error on the function with %q", err, tc.want)
			}
		})
	}
}
