package vulkan

import (
	"encoding/binary"
	"strings"
	"testing"
)

// spv builds a SPIR-V module: the header, then each instruction given as
// its opcode and operand words.
func spv(insts ...[]uint32) []uint32 {
	code := []uint32{0x07230203, 0x00010300, 0, 100, 0}
	for _, in := range insts {
		code = append(code, uint32(len(in))<<16|in[0])
		code = append(code, in[1:]...)
	}
	return code
}

func capability(c uint32) []uint32 { return []uint32{spvOpCapability, c} }

// entry declares GLCompute entry point id with a name.
func entry(id uint32, name string) []uint32 {
	b := append([]byte(name), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	in := []uint32{spvOpEntryPoint, spvGLCompute, id}
	for i := 0; i < len(b); i += 4 {
		in = append(in, binary.LittleEndian.Uint32(b[i:]))
	}
	return in
}

func localSize(id, x, y, z uint32) []uint32 {
	return []uint32{spvOpExecutionMode, id, spvModeLocalSize, x, y, z}
}

// lavapipeLike offers every feature, every subgroup operation and
// workgroups of up to 1024 x 1024 x 64 with 1024 invocations.
var lavapipeLike = deviceCaps{name: "test device", features: 1<<12 - 1, subgroupOps: 0xff, maxSize: [3]uint32{1024, 1024, 64}, maxInvocations: 1024}

func without(features, subgroupOps uint32) deviceCaps {
	c := lavapipeLike
	c.features &^= features
	c.subgroupOps &^= subgroupOps
	return c
}

func TestCapabilityChecks(t *testing.T) {
	for _, tc := range []struct {
		name string
		code []uint32
		dev  deviceCaps
		want string // "" for no error
	}{
		{"shader only", spv(capability(1), entry(4, "main"), localSize(4, 128, 1, 1)), without(1<<12-1, 0xff), ""},
		{"f64 offered", spv(capability(1), capability(10)), lavapipeLike, ""},
		{"f64 missing", spv(capability(1), capability(10)), without(featFloat64, 0), "capability Float64, which needs the device feature shaderFloat64; device \"test device\" does not support it"},
		{"i64 missing", spv(capability(11)), without(featInt64, 0), "Int64, which needs the device feature shaderInt64"},
		{"i16 missing", spv(capability(22)), without(featInt16, 0), "Int16, which needs the device feature shaderInt16"},
		{"f16 missing", spv(capability(9)), without(featFloat16, 0), "Float16, which needs the device feature shaderFloat16"},
		{"i8 missing", spv(capability(39)), without(featInt8, 0), "Int8, which needs the device feature shaderInt8"},
		{"16-bit storage missing", spv(capability(4433)), without(featStorage16, 0), "StorageBuffer16BitAccess, which needs the device feature storageBuffer16BitAccess"},
		{"8-bit storage missing", spv(capability(4448)), without(featStorage8, 0), "StorageBuffer8BitAccess, which needs the device feature storageBuffer8BitAccess"},
		{"8-bit push constants missing", spv(capability(4450)), without(featPush8, 0), "StoragePushConstant8, which needs the device feature storagePushConstant8"},
		{"the first missing one", spv(capability(11), capability(10)), without(featFloat64|featInt64, 0), "capability Int64"},
		{"subgroups offered", spv(capability(61), capability(65)), without(0, subgroupArithmetic), ""},
		{"subgroup shuffle missing", spv(capability(61), capability(65)), without(0, subgroupShuffle|subgroupQuad), "GroupNonUniformShuffle, which needs shuffle subgroup operations in compute shaders; device \"test device\" supports basic, vote, arithmetic, ballot, shuffle_relative, clustered"},
		{"no subgroups", spv(capability(61)), without(0, 0xff), "supports none"},
		{"workgroup at the limit", spv(entry(4, "main"), localSize(4, 1024, 1, 1)), lavapipeLike, ""},
		{"workgroup too wide", spv(entry(4, "main"), localSize(4, 2048, 1, 1)), lavapipeLike, "entry point \"main\" has workgroup size [2048 1 1] (2048 invocations), beyond device \"test device\"'s maxComputeWorkGroupSize [1024 1024 64] and maxComputeWorkGroupInvocations 1024"},
		{"too many invocations", spv(entry(4, "main"), localSize(4, 32, 32, 2)), lavapipeLike, "(2048 invocations)"},
		{"z beyond its limit", spv(entry(4, "main"), localSize(4, 1, 1, 65)), lavapipeLike, "[1 1 65]"},
		{"second entry point", spv(entry(4, "a"), entry(5, "b"), localSize(4, 64, 1, 1), localSize(5, 4096, 1, 1)), lavapipeLike, "entry point \"b\""},
		{"LocalSizeId", spv(entry(4, "main"), []uint32{spvOpConstant, 2, 10, 512}, []uint32{spvOpConstant, 2, 11, 4}, []uint32{spvOpExecutionMode, 4, spvModeLocalSizeID, 10, 11, 11}), lavapipeLike, "[512 4 4] (8192 invocations)"},
		// A WorkgroupSize constant overrides LocalSize.
		{"WorkgroupSize built-in", spv(entry(4, "main"), localSize(4, 64, 1, 1), []uint32{spvOpDecorate, 20, spvDecorationBuiltIn, spvBuiltInWorkgroupSize},
			[]uint32{spvOpConstant, 2, 10, 2000}, []uint32{spvOpConstant, 2, 11, 1}, []uint32{spvOpConstantComposite, 3, 20, 10, 11, 11}), lavapipeLike, "[2000 1 1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needs, err := scanModule(tc.code)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.dev.checkFeatures(needs)
			if err == nil {
				err = tc.dev.checkSizes(needs)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestScanModuleBad(t *testing.T) {
	for _, code := range [][]uint32{nil, {0x07230203}, append(spv(), 0x00050011, 1)} {
		if _, err := scanModule(code); err == nil {
			t.Errorf("scanModule(%x) succeeded", code)
		}
	}
}
