package demomodule

import (
	"bytes"
	"debug/elf"
	"testing"

	"github.com/goiree/goiree/runtime/vm"
)

func TestBuildVerifies(t *testing.T) {
	payload := []byte("\x7fELF placeholder: the loader does not look inside rodata")
	data, err := Build(payload)
	if err != nil {
		t.Fatal(err)
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatalf("the demo module does not verify: %v", err)
	}
	exports := m.Exports()
	if len(exports) != 1 || exports[0].Name != Function || exports[0].CallingConvention != "0rr_r" {
		t.Errorf("exports = %+v", exports)
	}
	for _, imp := range m.Imports() {
		if len(imp.Name) < 4 || imp.Name[:4] != "hal." {
			t.Errorf("unexpected import %s", imp.Name)
		}
	}
	found := false
	for _, s := range m.RodataSegments() {
		if bytes.Equal(s.Data, payload) && s.MimeType == "application/x-elf" {
			found = true
		}
	}
	if !found {
		t.Error("the kernel is not embedded as an application/x-elf rodata segment")
	}
	again, err := Build(payload)
	if err != nil || !bytes.Equal(again, data) {
		t.Error("Build is not deterministic")
	}
}

func TestBuildKernel(t *testing.T) {
	clang, lld, err := FindTools()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	so, err := BuildKernel(clang, lld, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f, err := elf.NewFile(bytes.NewReader(so))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	for _, s := range syms {
		if s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) == elf.STB_GLOBAL {
			exported = append(exported, s.Name)
		}
	}
	if f.Type != elf.ET_DYN || f.Machine != elf.EM_X86_64 || len(exported) != 1 || exported[0] != "iree_hal_executable_library_query" {
		t.Errorf("kernel: type %v machine %v exports %v", f.Type, f.Machine, exported)
	}
}
