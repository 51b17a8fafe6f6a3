package llvmcpu

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local"
)

// TestABIMatchesRuntimeHeader compiles the generated-code prelude together
// with the runtime's executable_library.h and asserts, field by field, that
// sizes and offsets agree, and that the versions are equal.
func TestABIMatchesRuntimeHeader(t *testing.T) {
	clang, err := Options{}.FindClang()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	if abiVersion != local.LibraryVersion {
		t.Fatalf("abiVersion = %#x, runtime LibraryVersion = %#x", abiVersion, local.LibraryVersion)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "executable_library.h"), []byte(local.ABIHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("#include \"executable_library.h\"\n")
	b.WriteString(abiPrelude)
	fmt.Fprintf(&b, "_Static_assert(IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST == %#xu, \"version\");\n", abiVersion)
	for _, p := range abiPairs {
		fmt.Fprintf(&b, "_Static_assert(sizeof(%s) == sizeof(%s), \"size of %s\");\n", p.ours, p.theirs, p.theirs)
		for _, f := range p.fields {
			fmt.Fprintf(&b, "_Static_assert(__builtin_offsetof(%s, %s) == __builtin_offsetof(%s, %s), \"%s.%s\");\n", p.ours, f, p.theirs, f, p.theirs, f)
			fmt.Fprintf(&b, "_Static_assert(sizeof(((%s*)0)->%s) == sizeof(((%s*)0)->%s), \"size of %s.%s\");\n", p.ours, f, p.theirs, f, p.theirs, f)
		}
	}
	src := filepath.Join(dir, "check.c")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, triple := range []string{Triples["embedded-elf-x86_64"], Triples["embedded-elf-arm_64"]} {
		args := append(append([]string{"-target", triple}, CFlags...), "-I", dir, "-o", filepath.Join(dir, "check.o"), src)
		if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
			t.Fatalf("%s: generated ABI prelude disagrees with the runtime header: %v\n%s", triple, err, out)
		}
	}
}
