// Package kerneltest builds the CPU kernels that the runtime's tests and
// benchmarks load: freestanding C compiled by clang and linked into a shared
// object by ld.lld, entirely inside the calling test's temporary directory.
// When clang or ld.lld is missing, the calling test is skipped with a
// message naming the tool.
package kerneltest

import (
	"embed"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local"
)

//go:embed kernels/*.c
var kernels embed.FS

// CompileFlags are the clang flags used for every kernel.
var CompileFlags = []string{
	"-target", "x86_64-unknown-unknown-eabi-elf", "-ffreestanding", "-fPIC", "-nostdlib",
	"-O2", "-fvisibility=hidden", "-fno-stack-protector", "-c",
}

// LinkFlags are the ld.lld flags used to link a kernel library.
var LinkFlags = []string{"-shared", "--no-undefined", "-nostdlib", "-static", "-z", "now", "-z", "relro"}

// lookTool finds the versioned tool name first, then the plain one.
func lookTool(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Tools returns the paths of clang and ld.lld, skipping t when either is
// missing.
func Tools(t testing.TB) (clang, lld string) {
	t.Helper()
	clang = lookTool("clang-16", "clang")
	if clang == "" {
		t.Skip("skipping: clang-16 (or clang) not found on PATH; it is needed to build test kernels")
	}
	lld = lookTool("ld.lld-16", "ld.lld")
	if lld == "" {
		t.Skip("skipping: ld.lld-16 (or ld.lld) not found on PATH; it is needed to link test kernels")
	}
	return clang, lld
}

// Source returns the text of an embedded kernel (e.g. "mul_library.c").
func Source(t testing.TB, name string) string {
	t.Helper()
	b, err := kernels.ReadFile("kernels/" + name)
	if err != nil {
		t.Fatalf("kernel source %s: %v", name, err)
	}
	return string(b)
}

// Build compiles the given C sources (name -> text; executable_library.h is
// provided) and links them into a shared object, returning its bytes.
// extraLink flags are appended to LinkFlags.
func Build(t testing.TB, sources map[string]string, extraLink ...string) []byte {
	t.Helper()
	return BuildWithFlags(t, CompileFlags, sources, extraLink...)
}

// BuildWithFlags is Build with the given clang flags instead of
// CompileFlags (for example another target triple).
func BuildWithFlags(t testing.TB, compileFlags []string, sources map[string]string, extraLink ...string) []byte {
	t.Helper()
	clang, lld := Tools(t)
	key := buildKey(compileFlags, sources, extraLink)
	cache.Lock()
	so, ok := cache.built[key]
	cache.Unlock()
	if ok {
		return append([]byte(nil), so...)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("executable_library.h", local.ABIHeader)
	var objs []string
	for name, text := range sources {
		write(name, text)
		obj := filepath.Join(dir, strings.TrimSuffix(name, ".c")+".o")
		args := append(append([]string{}, compileFlags...), "-I", dir, "-o", obj, filepath.Join(dir, name))
		if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			t.Fatalf("compiling %s: %v\n%s", name, err, out)
		}
		objs = append(objs, obj)
	}
	out := filepath.Join(dir, "out.so")
	args := append(append(append([]string{}, LinkFlags...), extraLink...), "-o", out)
	args = append(args, objs...)
	if msg, err := exec.Command(lld, args...).CombinedOutput(); err != nil {
		t.Fatalf("linking: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	cache.Lock()
	cache.built[key] = b
	cache.Unlock()
	return append([]byte(nil), b...)
}

// cache keeps the objects built in this test process, so that tests that
// need the same kernel build it once.
var cache = struct {
	sync.Mutex
	built map[string][]byte
}{built: map[string][]byte{}}

func buildKey(flags []string, sources map[string]string, link []string) string {
	names := make([]string, 0, len(sources))
	for n := range sources {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(strings.Join(flags, "\x00") + "\x01" + strings.Join(link, "\x00"))
	for _, n := range names {
		b.WriteString("\x01" + n + "\x02" + sources[n])
	}
	return b.String()
}

// BuildKernel builds one embedded kernel source into a shared object.
func BuildKernel(t testing.TB, name string, extraLink ...string) []byte {
	t.Helper()
	return Build(t, map[string]string{name: Source(t, name)}, extraLink...)
}

// RelocsLibrary builds kernels/relocs.c and kernels/relocs_extern.c, which
// exercise the RELATIVE, 64, GLOB_DAT and JUMP_SLOT relocations.
func RelocsLibrary(t testing.TB, extraLink ...string) []byte {
	t.Helper()
	return Build(t, map[string]string{
		"relocs.c":        Source(t, "relocs.c"),
		"relocs_extern.c": Source(t, "relocs_extern.c"),
	}, extraLink...)
}

// Export ordinals of MulLibrary.
const (
	SimpleMul = 0
	FailAt    = 1
	GridIDs   = 2
)

// MulLibrary builds kernels/mul_library.c: exports simple_mul, fail_at and
// grid_ids (see the source for their contracts).
func MulLibrary(t testing.TB) []byte {
	t.Helper()
	return BuildKernel(t, "mul_library.c")
}

// GatherBindings lists the binding counts of GatherLibrary's exports, in
// export order.
var GatherBindings = []int{2, 4, 5, 8, 9, 12}

// GatherLibrary builds kernels/gather_library.c: export k takes
// GatherBindings[k] bindings and writes the element-wise uint32 sum of all
// but the last into the last (see the source).
func GatherLibrary(t testing.TB) []byte {
	t.Helper()
	return BuildKernel(t, "gather_library.c")
}

// Export ordinals of FaultLibrary.
const (
	FaultNullStore = 0
	FaultDivZero   = 1
	FaultIllegal   = 2
	FaultOverflow  = 3
)

// FaultLibrary builds kernels/fault_library.c: exports null_store,
// div_zero, illegal and overflow, each faulting in workgroup k (constant 0)
// with a value taken from binding 1 (see the source).
func FaultLibrary(t testing.TB) []byte {
	t.Helper()
	return BuildKernel(t, "fault_library.c")
}
