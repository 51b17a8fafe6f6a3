package exeinfo

import (
	"runtime"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
	"github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

func TestDescribeGPU(t *testing.T) {
	cu := (&cuda.Executable{
		EntryPoints: []cuda.EntryPoint{{Name: "simple_mul", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3}},
		Images:      []cuda.Image{{Arch: "sm_80", PTX: ".version 7.0\n.target sm_80\n"}},
	}).Marshal()
	sp := (&spirv.Executable{
		EntryPoints: []spirv.EntryPoint{{Name: "main", SubgroupSize: 32, ConstantCount: 1, BindingCount: 2}},
		Code:        []uint32{spirv.Magic, 0x10000, 0, 1, 0},
	}).Marshal()
	// OpEntryPoint GLCompute %4 "main", OpEntryPoint GLCompute %5 "other",
	// OpExecutionMode %4 LocalSize 128 1 1, OpExecutionMode %5 LocalSize 8 4 2.
	spSized := (&spirv.Executable{
		EntryPoints: []spirv.EntryPoint{{Name: "main", ConstantCount: 0, BindingCount: 1}},
		Code: []uint32{spirv.Magic, 0x10000, 0, 6, 0,
			5<<16 | 15, 5, 4, 0x6e69616d, 0,
			5<<16 | 15, 5, 5, 0x6568746f, 0x72,
			6<<16 | 16, 4, 17, 128, 1, 1,
			6<<16 | 16, 5, 17, 8, 4, 2},
	}).Marshal()
	tests := []struct {
		data   []byte
		format string
		entry  string
		note   string
	}{
		{cu, FormatCUDA, "simple_mul block=64x1x1 shared_memory=0B constants=1 bindings=3", "PTX (sm_80): 27 bytes"},
		{sp, FormatSPIRV, "main constants=1 bindings=2 subgroup_size=32", "SPIR-V: 5 words"},
		{spSized, FormatSPIRV, "main constants=0 bindings=1 workgroup_size=128x1x1", "SPIR-V: 27 words"},
	}
	for _, tc := range tests {
		if !IsExecutable(tc.data) {
			t.Errorf("%s not recognised", tc.format)
		}
		info, err := Describe(tc.data)
		if err != nil {
			t.Errorf("%s: %v", tc.format, err)
			continue
		}
		if info.Format != tc.format || info.Size != len(tc.data) || len(info.EntryPoints) != 1 ||
			info.EntryPoints[0].Name+" "+info.EntryPoints[0].Detail != tc.entry || info.Notes[0] != tc.note {
			t.Errorf("%s: %+v", tc.format, info)
		}
	}
	if _, err := Describe(cu[:len(cu)/2]); err == nil {
		t.Error("truncated CUDA payload accepted")
	}
	if _, err := Describe([]byte("plain text")); err == nil || IsExecutable([]byte("plain text")) {
		t.Error("text recognised as an executable")
	}
}

func TestDescribeELF(t *testing.T) {
	so := kerneltest.MulLibrary(t)
	info, err := Describe(so)
	if err != nil {
		t.Fatal(err)
	}
	if info.Format != "embedded-elf-x86_64" || len(info.EntryPoints) != 0 ||
		!strings.Contains(strings.Join(info.Notes, "\n"), "dynamic symbols: [iree_hal_executable_library_query]") {
		t.Errorf("Describe: %+v", info)
	}
	if runtime.GOARCH != "amd64" {
		t.Skip("skipping the loaded export table: not an x86-64 host")
	}
	info, err = DescribeLoaded(so)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range info.EntryPoints {
		names = append(names, e.Name+" "+e.Detail)
	}
	want := "simple_mul constants=1 bindings=3 workgroup_size=64x0x0|fail_at constants=1 bindings=1|grid_ids constants=0 bindings=1 local_memory=4096B"
	if got := strings.Join(names, "|"); got != want {
		t.Errorf("exports:\n%s\nwant:\n%s", got, want)
	}
	if _, err := Describe(so[:64]); err == nil {
		t.Error("truncated ELF accepted")
	}
}
