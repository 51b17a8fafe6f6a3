package kernelsrc

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

func TestLanguageOf(t *testing.T) {
	for _, tc := range []struct {
		path string
		lang Language
		ok   bool
	}{
		{"k.c", C, true},
		{"dir/K.C", C, true},
		{"k.cu", CUDA, true},
		{"k.glsl", GLSL, true},
		{"k.comp", GLSL, true},
		{"k.o", 0, false},
		{"k.ptx", 0, false},
		{"k.spv", 0, false},
		{"k.cc", 0, false},
		{"c", 0, false},
	} {
		lang, ok := LanguageOf(tc.path)
		if lang != tc.lang || ok != tc.ok {
			t.Errorf("LanguageOf(%q) = %v, %v; want %v, %v", tc.path, lang, ok, tc.lang, tc.ok)
		}
	}
}

func TestSplitEscaped(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"a.c b.h", []string{"a.c", "b.h"}},
		{"  a.c\t\tb.h  ", []string{"a.c", "b.h"}},
		{`my\ dir/a.h b.h`, []string{"my dir/a.h", "b.h"}},
		{`cost$$.h`, []string{"cost$.h"}},
		{"", nil},
	} {
		if got := splitEscaped(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("splitEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestReadDepFile(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "x.d")
	src := filepath.Join(dir, "k.c")
	text := "out.o: " + src + " \\\n  " + filepath.Join(dir, "a.h") + " \\\n  /usr/include/b.h " + src + "\n"
	if err := os.WriteFile(d, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := readDepFile(d, src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "a.h"), "/usr/include/b.h"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("deps = %q, want %q", got, want)
	}
	if got, err := readDepFile(filepath.Join(dir, "missing.d"), src); err != nil || got != nil {
		t.Errorf("missing dependency file: %q, %v; want none and no error", got, err)
	}
}

func TestValidArch(t *testing.T) {
	for arch, want := range map[string]bool{"sm_80": true, "sm_52": true, "sm_90": true, "sm_": false, "sm_8a": false, "compute_80": false, "": false} {
		if got := validArch(arch); got != want {
			t.Errorf("validArch(%q) = %v, want %v", arch, got, want)
		}
	}
}

// needTool skips a test when a compiler is missing.
func needTool(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return
		}
	}
	t.Skipf("skipping: none of %v on PATH", names)
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

const cKernel = `#include "scale.h"
void scale(float* x, unsigned n) {
  for (unsigned i = 0; i < n; ++i) x[i] *= FACTOR;
}
`

func TestCompileCCachesAndTracksHeaders(t *testing.T) {
	needTool(t, "clang-16", "clang")
	dir, cache := t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "k.c")
	write(t, src, cKernel)
	write(t, filepath.Join(dir, "scale.h"), "#define FACTOR 2.0f\n")
	c := New(Options{CacheDir: cache})
	target := Target{Triple: "x86_64-unknown-unknown-eabi-elf"}

	first, err := c.Compile(src, C, target)
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached || first.Path == "" || !strings.HasPrefix(first.Path, cache) || filepath.Ext(first.Path) != ".o" {
		t.Fatalf("first compile = %+v; want a fresh .o under %s", first, cache)
	}
	f, err := elf.Open(first.Path)
	if err != nil {
		t.Fatalf("output is not ELF: %v", err)
	}
	if f.Machine != elf.EM_X86_64 || f.Type != elf.ET_REL {
		t.Errorf("output is %v %v, want a relocatable x86-64 object", f.Machine, f.Type)
	}
	f.Close()

	// A fresh compiler (a new process) finds the entry.
	again, err := New(Options{CacheDir: cache}).Compile(src, C, target)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Cached || again.Path != first.Path {
		t.Errorf("second compile = %+v; want the cached %s", again, first.Path)
	}

	// Another triple is another key.
	arm, err := c.Compile(src, C, Target{Triple: "aarch64-unknown-unknown-eabi-elf"})
	if err != nil {
		t.Fatal(err)
	}
	if arm.Path == first.Path {
		t.Fatal("aarch64 and x86_64 outputs share a cache entry")
	}
	if f, err := elf.Open(arm.Path); err != nil || f.Machine != elf.EM_AARCH64 {
		t.Errorf("aarch64 output: %v, %v", f, err)
	}

	// Editing the included header recompiles although the source's bytes
	// are unchanged.
	before, _ := os.ReadFile(first.Path)
	write(t, filepath.Join(dir, "scale.h"), "#define FACTOR 3.0f\n")
	edited, err := c.Compile(src, C, target)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(edited.Path)
	if edited.Cached || bytes.Equal(before, after) {
		t.Errorf("after a header edit: cached=%v, output changed=%v; want a recompile with a new output", edited.Cached, !bytes.Equal(before, after))
	}

	// Editing the source is a new key.
	write(t, src, cKernel+"\nvoid other(void) {}\n")
	changed, err := c.Compile(src, C, target)
	if err != nil {
		t.Fatal(err)
	}
	if changed.Cached || changed.Path == edited.Path {
		t.Errorf("after a source edit: %+v; want a new entry", changed)
	}
	leftovers, _ := filepath.Glob(filepath.Join(cache, "*", ".tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left in the cache: %v", leftovers)
	}
}

func TestCompileConcurrent(t *testing.T) {
	needTool(t, "clang-16", "clang")
	dir, cache := t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "k.c")
	write(t, src, "int twice(int x) { return 2 * x; }\n")
	var wg sync.WaitGroup
	paths := make([]string, 6)
	errs := make([]error, 6)
	for i := range paths {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			// Separate compilers, as separate processes would be.
			r, err := New(Options{CacheDir: cache}).Compile(src, C, Target{Triple: "x86_64-unknown-unknown-eabi-elf"})
			errs[i] = err
			if err == nil {
				paths[i] = r.Path
			}
		}(i)
	}
	wg.Wait()
	for i := range paths {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if paths[i] != paths[0] {
			t.Fatalf("compiles disagree on the entry: %q vs %q", paths[i], paths[0])
		}
	}
	if _, err := elf.Open(paths[0]); err != nil {
		t.Errorf("entry is not a whole ELF object: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(cache, "*", ".tmp-*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left in the cache: %v", leftovers)
	}
}

func TestCompileWithoutUsableCache(t *testing.T) {
	needTool(t, "clang-16", "clang")
	dir := t.TempDir()
	src := filepath.Join(dir, "k.c")
	write(t, src, "int one(void) { return 1; }\n")
	// A regular file where the cache directory should be.
	blocker := filepath.Join(dir, "not-a-dir")
	write(t, blocker, "")
	r, err := New(Options{CacheDir: blocker}).Compile(src, C, Target{Triple: "x86_64-unknown-unknown-eabi-elf"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != "" || len(r.Data) == 0 {
		t.Fatalf("result = path %q, %d bytes; want the output as data", r.Path, len(r.Data))
	}
	if _, err := elf.NewFile(bytes.NewReader(r.Data)); err != nil {
		t.Errorf("data is not ELF: %v", err)
	}
}

const cudaKernel = `extern "C" __global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
  __syncthreads();
}
`

func TestCompileCUDAToPTX(t *testing.T) {
	needTool(t, "clang-16", "clang")
	dir, cache := t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "k.cu")
	write(t, src, cudaKernel)
	c := New(Options{CacheDir: cache})
	for _, arch := range []string{"sm_52", "sm_80", "sm_90"} {
		r, err := c.Compile(src, CUDA, Target{Arch: arch})
		if err != nil {
			t.Fatal(err)
		}
		ptx, err := os.ReadFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(ptx), "\n.target "+arch+"\n") {
			t.Errorf("%s: PTX has no '.target %s' line:\n%.400s", arch, arch, ptx)
		}
		if !strings.Contains(string(ptx), ".entry scale(") {
			t.Errorf("%s: PTX has no .entry scale", arch)
		}
		if filepath.Ext(r.Path) != ".ptx" {
			t.Errorf("%s: output %s is not .ptx", arch, r.Path)
		}
	}
	if _, err := c.Compile(src, CUDA, Target{Arch: "gfx90a"}); err == nil || !strings.Contains(err.Error(), "sm_XX") {
		t.Errorf("a non-sm_XX architecture: %v", err)
	}
}

func TestCompileGLSLToSPIRV(t *testing.T) {
	needTool(t, "glslc")
	dir, cache := t.TempDir(), t.TempDir()
	src := filepath.Join(dir, "k.glsl")
	write(t, src, `#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer B { float x[]; };
void main() { x[gl_GlobalInvocationID.x] *= 2.0; }
`)
	r, err := New(Options{CacheDir: cache}).Compile(src, GLSL, Target{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(r.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 20 || len(b)%4 != 0 || binary.LittleEndian.Uint32(b) != 0x07230203 {
		t.Errorf("output (%d bytes) is not SPIR-V", len(b))
	}
}

func TestCompileErrorNamesSourceLine(t *testing.T) {
	needTool(t, "clang-16", "clang")
	dir := t.TempDir()
	src := filepath.Join(dir, "bad.cu")
	// Line 3 lacks a semicolon.
	write(t, src, "extern \"C\" __global__ void k(float* x) {\n  int i = threadIdx.x;\n  x[i] = 1.0f\n}\n")
	_, err := New(Options{CacheDir: t.TempDir()}).Compile(src, CUDA, Target{Arch: "sm_80"})
	var ce *CompileError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v is not a *CompileError", err)
	}
	if !strings.Contains(err.Error(), src+":3:") || !strings.Contains(err.Error(), "error:") {
		t.Errorf("error does not name %s:3 with the tool's diagnostic:\n%v", src, err)
	}
	if first := strings.SplitN(err.Error(), "\n", 2)[0]; !strings.Contains(first, "compiling kernel source "+src+" for sm_80") {
		t.Errorf("first line %q does not say what failed", first)
	}
}

func TestMissingTool(t *testing.T) {
	notFound := func(string) (string, error) { return "", exec.ErrNotFound }
	dir := t.TempDir()
	for _, tc := range []struct {
		file string
		lang Language
		opts Options
		want []string
	}{
		{"k.c", C, Options{}, []string{"needs clang", "clang-16 on PATH", "clang on PATH", ClangFlag + "=<path>"}},
		{"k.cu", CUDA, Options{ClangPath: "/opt/none/clang"}, []string{"needs clang", "tried /opt/none/clang", ClangFlag}},
		{"k.glsl", GLSL, Options{}, []string{"needs glslc", "glslc on PATH", GlslcFlag}},
	} {
		src := filepath.Join(dir, tc.file)
		write(t, src, "x\n")
		tc.opts.LookPath = notFound
		tc.opts.CacheDir = t.TempDir()
		_, err := New(tc.opts).Compile(src, tc.lang, Target{Triple: "x86_64-unknown-unknown-eabi-elf", Arch: "sm_80"})
		var tn *ToolNotFoundError
		if !errors.As(err, &tn) {
			t.Fatalf("%s: error %v is not a *ToolNotFoundError", tc.file, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: message is not one line: %q", tc.file, msg)
		}
		for _, w := range append(tc.want, src) {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: message %q does not contain %q", tc.file, msg, w)
			}
		}
	}
}
