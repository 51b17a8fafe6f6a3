package vulkan

import "fmt"

// Device features beyond the shader types and subgroup operations of
// capabilities.go: cooperative matrices (VK_KHR_cooperative_matrix, which
// the compiler's tensor-core matmuls use, or VK_NV_cooperative_matrix,
// which they use with --iree-vulkan-cooperative-matrix=nv) and the Vulkan
// memory model their shaders declare. gvk_device_create enables them
// where the device has them, and preparing a module that declares their
// SPIR-V capabilities on a device without is refused, naming them.

// Feature bits, as gvk.h's high GVK_FEATURE_* bits.
const (
	featVulkanMemoryModel    uint32 = 1 << 24
	featCooperativeMatrixNV  uint32 = 1 << 25
	featCooperativeMatrixKHR uint32 = 1 << 26
	featWorkgroupMatrices    uint32 = 1 << 27
)

// workgroupMatricesName names featWorkgroupMatrices.
const workgroupMatricesName = "cooperativeMatrixWorkgroupScope and cooperativeMatrixFlexibleDimensions (VK_NV_cooperative_matrix2)"

// matrixNeeds maps SPIR-V capability numbers to the features above.
var matrixNeeds = map[uint32]capabilityNeed{
	5345: {name: "VulkanMemoryModel", feature: featVulkanMemoryModel, featName: "vulkanMemoryModel"},
	5357: {name: "CooperativeMatrixNV", feature: featCooperativeMatrixNV, featName: "cooperativeMatrix (VK_NV_cooperative_matrix)"},
	6022: {name: "CooperativeMatrixKHR", feature: featCooperativeMatrixKHR, featName: "cooperativeMatrix (VK_KHR_cooperative_matrix)"},
}

// matrixFeatureOrder lists matrixNeeds' capabilities in order.
var matrixFeatureOrder = []uint32{5345, 5357, 6022}

// checkMatrixFeatures returns an error naming the first capability of
// matrixNeeds that a module declares and the device (features, its
// GVK_FEATURE_* bits) lacks, or the workgroup-scope matrices' features
// where it has such matrices and the device lacks them (no SPIR-V
// capability says so: the scope operand of the matrix types does).
func checkMatrixFeatures(needs moduleNeeds, device string, features uint32) error {
	for _, cp := range needs.capabilities {
		need, ok := matrixNeeds[cp]
		if ok && features&need.feature == 0 {
			return fmt.Errorf("its SPIR-V declares capability %s, which needs the device feature %s; device %q does not support it", need.name, need.featName, device)
		}
	}
	if needs.workgroupMatrices && features&featWorkgroupMatrices == 0 {
		return fmt.Errorf("its SPIR-V has cooperative matrices of workgroup scope, which need the device features %s; device %q does not support them", workgroupMatricesName, device)
	}
	return nil
}

// matrixFeatureNames lists the features of matrixNeeds a device has.
func matrixFeatureNames(features uint32) []string {
	var out []string
	for _, cp := range matrixFeatureOrder {
		if n := matrixNeeds[cp]; features&n.feature != 0 {
			out = append(out, n.featName)
		}
	}
	if features&featWorkgroupMatrices != 0 {
		out = append(out, workgroupMatricesName)
	}
	return out
}
