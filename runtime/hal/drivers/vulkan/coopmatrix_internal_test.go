package vulkan

import (
	"strings"
	"testing"
)

// TestMatrixFeatureChecks: modules with cooperative matrices are refused,
// naming the features, by devices without them; workgroup-scope matrix
// types (found from their scope operand, which no capability announces)
// need VK_NV_cooperative_matrix2's features, subgroup-scope ones do not.
func TestMatrixFeatureChecks(t *testing.T) {
	// coopType declares u32 constants for a scope and 16, then a KHR
	// matrix type of f16 (id 2) with that scope.
	coopType := func(scope uint32) [][]uint32 {
		return [][]uint32{
			{spvOpConstant, 1, 10, scope}, {spvOpConstant, 1, 11, 16}, {spvOpConstant, 1, 12, 0},
			{spvOpTypeCooperativeMatrixKHR, 20, 2, 10, 11, 11, 12},
		}
	}
	module := func(scope uint32) []uint32 {
		return spv(append([][]uint32{capability(6022), capability(5345)}, coopType(scope)...)...)
	}
	all := featVulkanMemoryModel | featCooperativeMatrixKHR | featWorkgroupMatrices
	for _, tc := range []struct {
		name     string
		code     []uint32
		features uint32
		want     string // "" for no error
	}{
		{"subgroup scope", module(3), featVulkanMemoryModel | featCooperativeMatrixKHR, ""},
		{"workgroup scope offered", module(spvScopeWorkgroup), all, ""},
		{"workgroup scope missing", module(spvScopeWorkgroup), all &^ featWorkgroupMatrices,
			"its SPIR-V has cooperative matrices of workgroup scope, which need the device features cooperativeMatrixWorkgroupScope and cooperativeMatrixFlexibleDimensions (VK_NV_cooperative_matrix2); device \"d\" does not support them"},
		{"KHR matrices missing", module(spvScopeWorkgroup), featVulkanMemoryModel,
			"capability CooperativeMatrixKHR, which needs the device feature cooperativeMatrix (VK_KHR_cooperative_matrix)"},
		{"memory model missing", module(3), featCooperativeMatrixKHR, "capability VulkanMemoryModel, which needs the device feature vulkanMemoryModel"},
		{"NV matrices missing", spv(capability(5357)), all, "CooperativeMatrixNV, which needs the device feature cooperativeMatrix (VK_NV_cooperative_matrix)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needs, err := scanModule(tc.code)
			if err != nil {
				t.Fatal(err)
			}
			err = checkMatrixFeatures(needs, "d", tc.features)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	names := strings.Join(matrixFeatureNames(all), ", ")
	if want := "vulkanMemoryModel, cooperativeMatrix (VK_KHR_cooperative_matrix), cooperativeMatrixWorkgroupScope and cooperativeMatrixFlexibleDimensions (VK_NV_cooperative_matrix2)"; names != want {
		t.Errorf("feature names %q, want %q", names, want)
	}
}
