package objects

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelsrc"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	sp1, sp2 := filepath.Join(dir, "sp1"), filepath.Join(dir, "sp2")
	for _, d := range []string{sp1, sp2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(sp2, "a.o"))
	write(filepath.Join(sp1, "b.o"))
	write(filepath.Join(sp2, "b.o"))
	write(filepath.Join(dir, "abs.o"))
	write(filepath.Join(dir, "cwd.o"))
	write(filepath.Join(sp1, "cwd.o"))
	t.Chdir(dir)
	r := &Resolver{SearchPaths: []string{sp1, sp2}}
	cases := []struct {
		path, want, wantErr string
	}{
		{"a.o", filepath.Join(sp2, "a.o"), ""},
		{"b.o", filepath.Join(sp1, "b.o"), ""}, // first search path wins
		{filepath.Join(dir, "abs.o"), filepath.Join(dir, "abs.o"), ""},
		{"cwd.o", "cwd.o", ""}, // cwd-relative before search paths
		{"missing.o", "", `referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: #hal.executable.object<{path = "missing.o"}> (tried: missing.o, ` + filepath.Join(sp1, "missing.o") + ", " + filepath.Join(sp2, "missing.o") + ")"},
		// An absolute path is never looked up on the search paths.
		{"/nonexistent/a.o", "", `referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: #hal.executable.object<{path = "/nonexistent/a.o"}> (tried: /nonexistent/a.o)`},
	}
	for _, c := range cases {
		got, err := r.Find(&hal.ExecutableObjectAttr{Path: c.path, HasPath: true})
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("Find(%s) error = %v\nwant %s", c.path, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Find(%s) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}

func TestSourceTarget(t *testing.T) {
	cfg := func(k, v string) *ir.DictAttr {
		return &ir.DictAttr{Entries: []ir.NamedAttr{{Name: k, Value: ir.StringAttr{Value: v}}}}
	}
	cases := []struct {
		target  *hal.ExecutableTargetAttr
		file    string
		want    kernelsrc.Target
		wantErr string
	}{
		{&hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64", Config: cfg("target_triple", "x86_64-unknown-linux-gnu")}, "k.c", kernelsrc.Target{Triple: "x86_64-unknown-linux-gnu"}, ""},
		{&hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"}, "k.c", kernelsrc.Target{Triple: "x86_64-unknown-unknown-eabi-elf"}, ""},
		{&hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-arm_64"}, "k.c", kernelsrc.Target{Triple: "aarch64-unknown-unknown-eabi-elf"}, ""},
		{&hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-riscv_64"}, "k.c", kernelsrc.Target{}, "has no target_triple and its format names no known architecture"},
		{&hal.ExecutableTargetAttr{Backend: "cuda", Format: "cuda-nvptx-fb", Config: cfg("target_arch", "sm_52")}, "k.cu", kernelsrc.Target{Arch: "sm_52"}, ""},
		{&hal.ExecutableTargetAttr{Backend: "cuda", Format: "cuda-nvptx-fb"}, "k.cu", kernelsrc.Target{}, "has no target_arch"},
		{&hal.ExecutableTargetAttr{Backend: "vulkan-spirv", Format: "vulkan-spirv-fb"}, "k.glsl", kernelsrc.Target{}, ""},
		{&hal.ExecutableTargetAttr{Backend: "vulkan", Format: "vulkan-spirv-fb"}, "k.comp", kernelsrc.Target{}, ""},
		{&hal.ExecutableTargetAttr{Backend: "cuda", Format: "cuda-nvptx-fb", Config: cfg("target_arch", "sm_80")}, "k.c", kernelsrc.Target{}, "kernel source k.c is C, which cannot be compiled for a cuda target"},
		{&hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"}, "k.glsl", kernelsrc.Target{}, "kernel source k.glsl is GLSL, which cannot be compiled for a llvm-cpu target"},
		{&hal.ExecutableTargetAttr{Backend: "vulkan-spirv", Format: "vulkan-spirv-fb"}, "k.cu", kernelsrc.Target{}, "kernel source k.cu is CUDA, which cannot be compiled for a vulkan-spirv target"},
	}
	for _, c := range cases {
		lang, _ := kernelsrc.LanguageOf(c.file)
		got, err := SourceTarget(c.target, c.file, lang)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("SourceTarget(%s, %s) error = %v, want one containing %q", ir.AttrString(c.target), c.file, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("SourceTarget(%s, %s) = %+v, %v; want %+v", ir.AttrString(c.target), c.file, got, err, c.want)
		}
	}
}

// TestResolvePathsCompilesSources checks that a C source object of a CPU
// variant becomes the compiled object in the cache, and that a prebuilt
// object beside it is left as found.
func TestResolvePathsCompilesSources(t *testing.T) {
	if _, err := exec.LookPath("clang-16"); err != nil {
		t.Skip("skipping: clang-16 not on PATH")
	}
	dir, cache := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.c"), []byte("int k(int x) { return x + 1; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pre.o"), []byte("prebuilt"), 0o644); err != nil {
		t.Fatal(err)
	}
	v := &ir.Operation{Name: "hal.executable.variant", Pos: ir.Pos{File: "p.mlir", Line: 7, Col: 5}}
	v.AddRegion().AddBlock()
	v.SetAttr("target", &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"})
	v.SetAttr("objects", &ir.ArrayAttr{Elems: []ir.Attribute{
		&hal.ExecutableObjectAttr{Path: "k.c", HasPath: true},
		&hal.ExecutableObjectAttr{Path: "pre.o", HasPath: true},
	}})
	r := &Resolver{SearchPaths: []string{dir}, Sources: kernelsrc.New(kernelsrc.Options{CacheDir: cache})}
	if err := r.ResolvePaths(v); err != nil {
		t.Fatal(err)
	}
	objs := hal.VariantObjects(v)
	if len(objs) != 2 {
		t.Fatalf("%d objects after resolution, want 2", len(objs))
	}
	if !strings.HasPrefix(objs[0].Path, cache) || filepath.Ext(objs[0].Path) != ".o" {
		t.Errorf("source object resolved to %q, want a .o under %s", objs[0].Path, cache)
	}
	if f, err := elf.Open(objs[0].Path); err != nil || f.Machine != elf.EM_X86_64 {
		t.Errorf("compiled object: %v, %v", f, err)
	}
	if objs[1].Path != filepath.Join(dir, "pre.o") {
		t.Errorf("prebuilt object resolved to %q", objs[1].Path)
	}

	// The wrong language for the target is located at the variant.
	v.SetAttr("objects", &ir.ArrayAttr{Elems: []ir.Attribute{&hal.ExecutableObjectAttr{Path: "k.c", HasPath: true}}})
	v.SetAttr("target", &hal.ExecutableTargetAttr{Backend: "vulkan-spirv", Format: "vulkan-spirv-fb"})
	err := r.ResolvePaths(v)
	if err == nil || !strings.HasPrefix(err.Error(), "p.mlir:7:5: error: kernel source "+filepath.Join(dir, "k.c")+" is C") {
		t.Errorf("error = %v", err)
	}
}

// TestDefaultSourcesShared: a Resolver without Sources compiles with the
// default compiler (cache under the user cache directory) and may be used
// from several goroutines.
func TestDefaultSourcesShared(t *testing.T) {
	if _, err := exec.LookPath("clang-16"); err != nil {
		t.Skip("skipping: clang-16 not on PATH")
	}
	cacheHome := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cacheHome)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "k.c"), []byte("int k(int x) { return x * 3; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &Resolver{SearchPaths: []string{dir}}
	paths := make([]string, 4)
	errs := make(chan error, len(paths))
	for i := range paths {
		go func(i int) {
			v := &ir.Operation{Name: "hal.executable.variant"}
			v.AddRegion().AddBlock()
			v.SetAttr("target", &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"})
			v.SetAttr("objects", &ir.ArrayAttr{Elems: []ir.Attribute{&hal.ExecutableObjectAttr{Path: "k.c", HasPath: true}}})
			err := r.ResolvePaths(v)
			if err == nil {
				paths[i] = hal.VariantObjects(v)[0].Path
			}
			errs <- err
		}(i)
	}
	for range paths {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	want := filepath.Join(cacheHome, "goiree", "kernels")
	for _, p := range paths {
		if p != paths[0] || !strings.HasPrefix(p, want) {
			t.Errorf("compiled object at %q, want one entry under %s", p, want)
		}
	}
	if got := Name(&hal.ExecutableObjectAttr{Path: paths[0], HasPath: true}); got != filepath.Join(dir, "k.c") {
		t.Errorf("Name of the compiled object = %q, want its source", got)
	}
}
