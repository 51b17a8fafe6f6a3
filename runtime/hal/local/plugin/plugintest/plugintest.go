// Package plugintest builds the executable plugins and the importing
// executable library that the runtime's and the tools' plugin tests load:
// C sources compiled by clang (and linked by ld.lld for standalone
// plugins) inside the calling test's temporary directory. When a tool is
// missing, the calling test is skipped with a message naming it.
package plugintest

import (
	"embed"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
	"github.com/goiree/goiree/runtime/hal/local/plugin"
)

//go:embed plugins/*.c
var sources embed.FS

// Source returns the text of plugins/<name>.
func Source(t testing.TB, name string) string {
	t.Helper()
	b, err := sources.ReadFile("plugins/" + name)
	if err != nil {
		t.Fatalf("plugin source %s: %v", name, err)
	}
	return string(b)
}

// StandaloneCompileFlags are the clang flags of standalone plugins, as
// IREE's samples build them (freestanding, position-independent).
var StandaloneCompileFlags = []string{
	"-target", "x86_64-none-elf", "-std=c17", "-ffreestanding", "-fPIC", "-O2",
	"-fvisibility=hidden", "-fno-plt", "-fno-stack-protector", "-c",
}

// StandaloneLinkFlags are the ld.lld flags of standalone plugins.
var StandaloneLinkFlags = []string{"-shared", "-nostdlib", "-static", "--no-undefined", "-z", "now", "-z", "relro", "--hash-style=sysv"}

// writeSources puts plugins/<name> and executable_plugin.h into a new
// temporary directory and returns it.
func writeSources(t testing.TB, name string) string {
	t.Helper()
	dir := t.TempDir()
	for file, text := range map[string]string{name: Source(t, name), "executable_plugin.h": plugin.Header} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func run(t testing.TB, tool string, args ...string) {
	t.Helper()
	if out, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", filepath.Base(tool), args, err, out)
	}
}

// BuildStandalone builds plugins/<name> into a freestanding ELF plugin
// (out.so in a temporary directory) and returns its path.
func BuildStandalone(t testing.TB, name string) string {
	t.Helper()
	return BuildStandaloneWithFlags(t, name)
}

// BuildStandaloneWithFlags is BuildStandalone with extra clang flags (for
// example -D definitions selecting a variant of the source).
func BuildStandaloneWithFlags(t testing.TB, name string, cflags ...string) string {
	t.Helper()
	clang, lld := kerneltest.Tools(t)
	dir := writeSources(t, name)
	obj, so := filepath.Join(dir, "out.o"), filepath.Join(dir, "out.so")
	args := append(append([]string{}, StandaloneCompileFlags...), cflags...)
	run(t, clang, append(args, "-I", dir, "-o", obj, filepath.Join(dir, name))...)
	run(t, lld, append(append([]string{}, StandaloneLinkFlags...), "-o", so, obj)...)
	return so
}

// BuildSystem builds plugins/<name> into a shared library with the host's
// C library (clang -shared -fPIC) and returns its path.
func BuildSystem(t testing.TB, name string) string {
	t.Helper()
	clang, _ := kerneltest.Tools(t)
	dir := writeSources(t, name)
	so := filepath.Join(dir, "out.so")
	run(t, clang, "-shared", "-fPIC", "-O2", "-I", dir, "-o", so, filepath.Join(dir, name))
	return so
}

// ImportLibrary builds plugins/import_library.c, an executable library
// that imports "?optional_missing" and "scale_add" (see the source).
func ImportLibrary(t testing.TB) []byte {
	t.Helper()
	return kerneltest.Build(t, map[string]string{"import_library.c": Source(t, "import_library.c")})
}
