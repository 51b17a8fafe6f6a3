package vulkan

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// SPIR-V ids of the hand-built modules below.
const (
	idMain, idMain2 = 1, 2
	idFloat, idUint = 10, 11
	idVec4          = 12
	idC16, idC3     = 13, 14
	idArr, idArr2   = 15, 16
	idPtr, idPtr2   = 17, 18
	idVar, idVar2   = 19, 20
	idStruct        = 21
	idPtrS, idVarS  = 22, 23
)

// shared16x4 declares idVar, a Workgroup vec4[16] (256 bytes), and
// idVar2, a Workgroup float[3] whose length is a specialization constant
// (12 bytes by default).
var shared16x4 = [][]uint32{
	{spvOpTypeFloat, idFloat, 32},
	{spvOpTypeInt, idUint, 32, 0},
	{spvOpTypeVector, idVec4, idFloat, 4},
	{spvOpConstant, idUint, idC16, 16},
	{spvOpSpecConstant, idUint, idC3, 3},
	{spvOpTypeArray, idArr, idVec4, idC16},
	{spvOpTypeArray, idArr2, idFloat, idC3},
	{spvOpTypePointer, idPtr, spvStorageShared, idArr},
	{spvOpTypePointer, idPtr2, spvStorageShared, idArr2},
	{spvOpVariable, idPtr, idVar, spvStorageShared},
	{spvOpVariable, idPtr2, idVar2, spvStorageShared},
}

// version sets a module's SPIR-V version (major.minor).
func version(code []uint32, major, minor uint32) []uint32 {
	code[1] = major<<16 | minor<<8
	return code
}

// withInterface appends interface ids to an OpEntryPoint.
func withInterface(in []uint32, ids ...uint32) []uint32 {
	return append(append([]uint32(nil), in...), ids...)
}

func TestWorkgroupMemory(t *testing.T) {
	module := func(head ...[]uint32) []uint32 { return spv(append(head, shared16x4...)...) }
	for _, tc := range []struct {
		name string
		code []uint32
		want map[string]uint64
	}{
		{"one entry point, SPIR-V 1.3: every Workgroup variable", module(entry(idMain, "main")), map[string]uint64{"main": 268}},
		{"two entry points, SPIR-V 1.3: unattributed", module(entry(idMain, "a"), entry(idMain2, "b")), map[string]uint64{}},
		{"two entry points, SPIR-V 1.4: their interfaces", version(module(withInterface(entry(idMain, "a"), idVar), withInterface(entry(idMain2, "bb"), idVar, idVar2)), 1, 4),
			map[string]uint64{"a": 256, "bb": 268}},
		{"no shared memory", spv(entry(idMain, "main")), map[string]uint64{"main": 0}},
		{"explicitly laid out blocks may alias: unattributed", spv(append([][]uint32{entry(idMain, "main"), {spvOpDecorate, idStruct, spvDecorationBlock}}, append(shared16x4,
			[]uint32{spvOpTypeStruct, idStruct, idArr}, []uint32{spvOpTypePointer, idPtrS, spvStorageShared, idStruct}, []uint32{spvOpVariable, idPtrS, idVarS, spvStorageShared})...)...),
			map[string]uint64{}},
	} {
		got, err := workgroupMemory(tc.code)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if _, err := workgroupMemory([]uint32{0x07230203, 0x00010300, 0, 100, 0, 9 << 16}); err == nil {
		t.Error("a truncated instruction: no error")
	}
}

// TestWorkgroupMemoryOfGlslc checks the scan against glslc's SPIR-V for
// Vulkan 1.1 (SPIR-V 1.3) and 1.2 (SPIR-V 1.5, whose entry points list
// their variables).
func TestWorkgroupMemoryOfGlslc(t *testing.T) {
	tool, err := exec.LookPath("glslc")
	if err != nil {
		t.Skipf("skipping: glslc not found on PATH: %v", err)
	}
	const src = `#version 450
layout(local_size_x = 64) in;
shared vec4 t[16];
shared float u[3];
shared int unused[1000]; // declared, so counted: Vulkan's limit is on declarations
layout(set = 0, binding = 0) buffer B { float v[]; } b;
void main() {
  t[gl_LocalInvocationID.x & 15u] = vec4(1.0);
  u[gl_LocalInvocationID.x % 3u] = 2.0;
  barrier();
  b.v[gl_GlobalInvocationID.x] = t[3].x + u[1];
}
`
	dir := t.TempDir()
	in := filepath.Join(dir, "s.comp")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for env, want := range map[string]uint64{"vulkan1.1": 4268, "vulkan1.2": 4268} {
		out := filepath.Join(dir, env+".spv")
		if msg, err := exec.Command(tool, "-fshader-stage=compute", "--target-env="+env, "-o", out, in).CombinedOutput(); err != nil {
			t.Fatalf("glslc: %v\n%s", err, msg)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		code := make([]uint32, len(raw)/4)
		for i := range code {
			code[i] = uint32(raw[4*i]) | uint32(raw[4*i+1])<<8 | uint32(raw[4*i+2])<<16 | uint32(raw[4*i+3])<<24
		}
		got, err := workgroupMemory(code)
		if err != nil {
			t.Fatalf("%s: %v", env, err)
		}
		if got["main"] != want {
			t.Errorf("%s: main uses %d bytes, want %d (all: %v)", env, got["main"], want, got)
		}
	}
}
