package vulkan_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// variants runs the front end and dispatch formation on a program and
// returns its vulkan-spirv variants by executable name.
func variants(t *testing.T, file string, searchPaths []string) map[string]*ir.Operation {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, pipeline.Options{ObjectSearchPaths: searchPaths}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := backend.FormDispatches(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets}); err != nil {
		t.Fatal(err)
	}
	out := map[string]*ir.Operation{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "hal.executable.variant" && vulkan.Supports(op) {
			out[op.ParentOp().SymName()] = op
		}
		return true
	})
	return out
}

// TestGLSLGolden compares the generated shaders with testdata/*.glsl.golden
// (rewrite them with -update).
func TestGLSLGolden(t *testing.T) {
	vs := variants(t, "elementwise.mlir", nil)
	if len(vs) != 5 {
		t.Fatalf("%d generated variants, want 5", len(vs))
	}
	for exe, v := range vs {
		exps := 0
		var name string
		for _, op := range v.Body().Ops {
			if op.Name == "hal.executable.export" {
				exps++
				name = op.SymName()
			}
		}
		src, err := vulkan.GenerateGLSL(hal.InnerModule(v), name)
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		checkGolden(t, exe, filepath.Join("testdata", exe+".glsl.golden"), src)
	}
}

// TestBuildErrors covers the target's own diagnostics.
func TestBuildErrors(t *testing.T) {
	dir := t.TempDir()
	buildShaders(t, dir)
	vs := variants(t, "vulkan.mlir", []string{dir})
	ext := vs["simple_mul"]
	if ext == nil {
		t.Fatalf("no simple_mul variant in %v", vs)
	}
	gen := variants(t, "elementwise.mlir", nil)
	var genVariant *ir.Operation
	for _, v := range gen {
		genVariant = v
	}
	bad := filepath.Join(dir, "bad.spv")
	os.WriteFile(bad, []byte{1, 2, 3, 4, 5, 6}, 0o644)
	for _, tc := range []struct {
		name    string
		variant *ir.Operation
		opts    vulkan.Options
		edit    func(v *ir.Operation)
		want    string
	}{
		{"glslc missing", genVariant, vulkan.Options{GlslcPath: filepath.Join(dir, "no-glslc")}, nil, "not found or not executable (set --iree-vulkan-glslc-path=<path>)"},
		{"object size", ext, vulkan.Options{}, func(v *ir.Operation) {
			v.SetAttr("objects", &ir.ArrayAttr{Elems: []ir.Attribute{&hal.ExecutableObjectAttr{Path: bad, HasPath: true}}})
		}, "size 6 is not a multiple of 4"},
		{"two objects", ext, vulkan.Options{}, func(v *ir.Operation) {
			o := &hal.ExecutableObjectAttr{Path: bad, HasPath: true}
			v.SetAttr("objects", &ir.ArrayAttr{Elems: []ir.Attribute{o, o}})
		}, "only one object reference is supported for external variants"},
		{"no objects", ext, vulkan.Options{}, func(v *ir.Operation) { v.RemoveAttr("objects") }, "no objects defined for external variant"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.edit != nil {
				tc.edit(tc.variant)
			}
			_, err := vulkan.Build(tc.variant, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzRenameEntryPoint: renaming never panics, and a successful rename
// leaves a well-framed module whose entry point has the new name.
func FuzzRenameEntryPoint(f *testing.F) {
	f.Add([]byte{0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0x0f, 0, 5, 0, 5, 0, 0, 0, 1, 0, 0, 0, 'm', 'a', 'i', 'n', 0, 0, 0, 0}, "simple_mul")
	f.Fuzz(func(t *testing.T, data []byte, to string) {
		if strings.IndexByte(to, 0) >= 0 {
			return
		}
		code := make([]uint32, len(data)/4)
		for i := range code {
			code[i] = uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
		}
		out, err := vulkan.RenameEntryPoint(code, "main", to)
		if err != nil {
			return
		}
		if _, err := vulkan.RenameEntryPoint(out, to, "main"); err != nil {
			t.Fatalf("renamed module lost entry point %q: %v", to, err)
		}
	})
}
