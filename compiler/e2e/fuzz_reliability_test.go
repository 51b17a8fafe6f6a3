package e2e_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/tooling/exeinfo"
	"github.com/goiree/goiree/runtime/vm"
)

var update = flag.Bool("update", false, "rewrite testdata/fuzz/FuzzLoadCompiledModule (modules compiled from testdata programs) from a fresh compile")

// compiledSeeds are the programs whose compiled modules seed
// FuzzLoadCompiledModule, each with the search path its objects need.
var compiledSeeds = []struct {
	name, file string
	objects    bool
}{
	{"cpu_hal", "cpu_hal.mlir", true},
	{"cpu_stream", "cpu_stream.mlir", true},
	{"elementwise", "elementwise.mlir", false},
	{"scalars", "scalars.mlir", false},
	{"mixed", "mixed.mlir", false},
}

const seedDir = "testdata/fuzz/FuzzLoadCompiledModule"

// TestUpdateCompiledSeeds writes the FuzzLoadCompiledModule seed corpus
// (real modules from the compiler, CPU executables embedded) with -update.
func TestUpdateCompiledSeeds(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite the FuzzLoadCompiledModule seed corpus")
	}
	clang := tools(t)
	dir := t.TempDir()
	buildKernels(t, clang, dir)
	if err := os.MkdirAll(seedDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, s := range compiledSeeds {
		var paths []string
		if s.objects {
			paths = []string{dir}
		}
		data, err := compile(s.file, paths)
		if err != nil {
			t.Fatalf("compiling %s: %v", s.file, err)
		}
		text := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		if err := os.WriteFile(filepath.Join(seedDir, s.name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readSeed returns the module bytes of one committed corpus entry.
func readSeed(t *testing.T, name string) []byte {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(seedDir, name))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(text), "\n", 3)
	if len(lines) < 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		t.Fatalf("%s is not a go test fuzz v1 []byte entry", name)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return []byte(s)
}

// TestCompiledSeedsLoad keeps the committed seeds meaningful: every one is
// a module that verifies and embeds at least one executable (the ones with
// objects or generated dispatches), so the fuzzer starts from real input.
func TestCompiledSeedsLoad(t *testing.T) {
	for _, s := range compiledSeeds {
		m, err := vm.LoadBytecodeModule(readSeed(t, s.name))
		if err != nil {
			t.Errorf("seed %s does not load (rerun with -update?): %v", s.name, err)
			continue
		}
		exes := 0
		for _, r := range m.RodataSegments() {
			if exeinfo.IsExecutable(r.Data) {
				exes++
			}
		}
		if exes == 0 && s.name != "scalars" {
			t.Errorf("seed %s embeds no executable", s.name)
		}
	}
}

// FuzzLoadCompiledModule mutates real compiled modules (FlatBuffer, VM
// bytecode, rodata with embedded ELF executables). The loader must verify
// or reject every input with a status-coded error and never panic; a
// module that verifies must disassemble and its executables must be
// describable. Nothing here creates an executable or runs any code from
// the input: no context is created and no export is called.
func FuzzLoadCompiledModule(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := vm.LoadBytecodeModule(data)
		if err != nil {
			if status.CodeOf(err) == status.Unknown {
				t.Fatalf("error without a status code: %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			return
		}
		if err := m.Disassemble(io.Discard); err != nil {
			t.Fatalf("verified module does not disassemble: %v", err)
		}
		var asm bytes.Buffer
		if err := m.WriteAssembly(&asm); err != nil {
			t.Fatalf("verified module has no assembly form: %v", err)
		}
		_ = m.Imports()
		_ = m.Dependencies()
		for _, e := range m.Exports() {
			_ = e.Name
		}
		for i := range m.Functions() {
			_ = m.SourceLocation(i, 0)
		}
		for _, r := range m.RodataSegments() {
			if exeinfo.IsExecutable(r.Data) {
				// Describe parses without loading or running anything.
				_, _ = exeinfo.Describe(r.Data)
			}
		}
	})
}

// TestMutatedCompiledModules is a deterministic sweep over a real compiled
// module: every truncation at a stride of 37 bytes and every byte flipped
// at a stride of 29 must load or fail with a status-coded one-line error,
// never panic; truncations must always fail.
func TestMutatedCompiledModules(t *testing.T) {
	for _, name := range []string{"cpu_hal", "scalars"} {
		data := readSeed(t, name)
		for n := 0; n < len(data); n += 37 {
			_, err := vm.LoadBytecodeModule(data[:n])
			if err == nil {
				t.Fatalf("%s truncated to %d of %d bytes loaded", name, n, len(data))
			}
			if status.CodeOf(err) == status.Unknown || strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s truncated to %d bytes: %q", name, n, err)
			}
		}
		loaded := 0
		for i := 0; i < len(data); i += 29 {
			mutated := bytes.Clone(data)
			mutated[i] ^= 0xa5
			m, err := vm.LoadBytecodeModule(mutated)
			if err != nil {
				if status.CodeOf(err) == status.Unknown || strings.Contains(err.Error(), "\n") {
					t.Fatalf("%s byte %d flipped: %q", name, i, err)
				}
				continue
			}
			loaded++
			if err := m.Disassemble(io.Discard); err != nil {
				t.Fatalf("%s byte %d flipped: verified module does not disassemble: %v", name, i, err)
			}
		}
		t.Logf("%s: %d bytes, %d of %d single-byte corruptions still verify (rodata or padding)", name, len(data), loaded, (len(data)+28)/29)
	}
}
