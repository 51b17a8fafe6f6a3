package elf_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local/elf"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
)

var update = flag.Bool("update", false, "rewrite testdata/fuzz/FuzzLoadELF seeds from freshly built kernels")

// FuzzLoadELF feeds arbitrary bytes to the loader: parsing, mapping,
// relocation and protection must reject bad input with an error and never
// crash. Nothing loaded here is ever executed.
func FuzzLoadELF(f *testing.F) {
	f.Add([]byte("\x7fELF\x02\x01\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		im, err := elf.Load(data)
		if err != nil {
			return
		}
		defer im.Close()
		for _, s := range im.Symbols() {
			im.Read(s.Addr, min(s.Size, 64))
			im.ReadCString(s.Addr, 64)
			im.IsExecutable(s.Addr)
		}
		for _, s := range im.Segments() {
			im.Read(im.Base()+uintptr(s.Vaddr), min(s.MemSize, 16))
		}
		im.Lookup("iree_hal_executable_library_query")
	})
}

// TestUpdateFuzzCorpus regenerates the committed seed corpus with -update.
func TestUpdateFuzzCorpus(t *testing.T) {
	if !*update {
		t.Skip("run with -update to rewrite the FuzzLoadELF seed corpus")
	}
	seeds := map[string][]byte{
		"relocs_sysv": kerneltest.RelocsLibrary(t, "--hash-style=sysv"),
		"relocs_gnu":  kerneltest.RelocsLibrary(t, "--hash-style=gnu"),
		"mul_library": kerneltest.MulLibrary(t),
		"old_version": kerneltest.BuildKernel(t, "old_version.c"),
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzLoadELF")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range seeds {
		text := "go test fuzz v1\n[]byte(" + strconv.Quote(string(data)) + ")\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSeedCorpusLoads checks that the committed real-kernel seeds load, so
// the fuzzer starts from valid objects.
func TestSeedCorpusLoads(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "fuzz", "FuzzLoadELF"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) < 3 {
		t.Fatalf("only %d seeds", len(entries))
	}
	for _, e := range entries {
		text, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzLoadELF", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		const prefix = "go test fuzz v1\n[]byte("
		s := string(text)
		if len(s) < len(prefix)+2 || s[:len(prefix)] != prefix {
			t.Fatalf("%s: not a fuzz corpus file", e.Name())
		}
		q := s[len(prefix) : len(s)-2]
		data, err := strconv.Unquote(q)
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		im, err := elf.Load([]byte(data))
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		im.Close()
	}
}
