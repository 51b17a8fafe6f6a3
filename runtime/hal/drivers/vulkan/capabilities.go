package vulkan

import (
	"fmt"
	"sort"
	"strings"
)

// What a shader module asks of the device, read from its SPIR-V (the
// OpCapability instructions and the entry points' workgroup sizes), and
// whether a device offers it: a module that needs an optional feature the
// device lacks, or a workgroup larger than the device runs, is refused
// when the executable is prepared, with the feature or limit named,
// rather than failing (or misbehaving) inside the driver.

// Feature bits, as gvk.h's GVK_FEATURE_* (the C side fills them).
const (
	featFloat64 uint32 = 1 << iota
	featInt64
	featInt16
	featFloat16
	featInt8
	featStorage16
	featUniform16
	featPush16
	featStorage8
	featUniform8
	featPush8
	featInt64Atomics
)

// Subgroup operation bits (VkSubgroupFeatureFlagBits).
const (
	subgroupBasic uint32 = 1 << iota
	subgroupVote
	subgroupArithmetic
	subgroupBallot
	subgroupShuffle
	subgroupShuffleRelative
	subgroupClustered
	subgroupQuad
)

// capabilityNeed is what one SPIR-V capability needs of the device: a
// feature bit and its name in VkPhysicalDevice*Features, or subgroup
// operations in compute shaders.
type capabilityNeed struct {
	name     string // the capability's SPIR-V name
	feature  uint32
	featName string
	subgroup uint32
}

// capabilityNeeds maps SPIR-V capability numbers (the SPIR-V
// specification's Capability table) to what they need; capabilities not
// listed need nothing optional (Shader, Matrix, ...) or are left to the
// driver to judge.
var capabilityNeeds = map[uint32]capabilityNeed{
	9:    {name: "Float16", feature: featFloat16, featName: "shaderFloat16"},
	10:   {name: "Float64", feature: featFloat64, featName: "shaderFloat64"},
	11:   {name: "Int64", feature: featInt64, featName: "shaderInt64"},
	12:   {name: "Int64Atomics", feature: featInt64Atomics, featName: "shaderBufferInt64Atomics"},
	22:   {name: "Int16", feature: featInt16, featName: "shaderInt16"},
	39:   {name: "Int8", feature: featInt8, featName: "shaderInt8"},
	4433: {name: "StorageBuffer16BitAccess", feature: featStorage16, featName: "storageBuffer16BitAccess"},
	4434: {name: "UniformAndStorageBuffer16BitAccess", feature: featUniform16, featName: "uniformAndStorageBuffer16BitAccess"},
	4435: {name: "StoragePushConstant16", feature: featPush16, featName: "storagePushConstant16"},
	4448: {name: "StorageBuffer8BitAccess", feature: featStorage8, featName: "storageBuffer8BitAccess"},
	4449: {name: "UniformAndStorageBuffer8BitAccess", feature: featUniform8, featName: "uniformAndStorageBuffer8BitAccess"},
	4450: {name: "StoragePushConstant8", feature: featPush8, featName: "storagePushConstant8"},
	61:   {name: "GroupNonUniform", subgroup: subgroupBasic},
	62:   {name: "GroupNonUniformVote", subgroup: subgroupVote},
	63:   {name: "GroupNonUniformArithmetic", subgroup: subgroupArithmetic},
	64:   {name: "GroupNonUniformBallot", subgroup: subgroupBallot},
	65:   {name: "GroupNonUniformShuffle", subgroup: subgroupShuffle},
	66:   {name: "GroupNonUniformShuffleRelative", subgroup: subgroupShuffleRelative},
	67:   {name: "GroupNonUniformClustered", subgroup: subgroupClustered},
	68:   {name: "GroupNonUniformQuad", subgroup: subgroupQuad},
}

// sortedCapabilities lists capabilityNeeds' keys in order.
func sortedCapabilities() []uint32 {
	out := make([]uint32, 0, len(capabilityNeeds))
	for c := range capabilityNeeds {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

var subgroupNames = []string{"basic", "vote", "arithmetic", "ballot", "shuffle", "shuffle_relative", "clustered", "quad"}

// deviceCaps is what a device offers shaders.
type deviceCaps struct {
	name     string
	features uint32 // feat* bits
	// subgroupOps are the subgroup operations usable in compute shaders.
	subgroupOps    uint32
	maxSize        [3]uint32
	maxInvocations uint32
}

// SPIR-V opcodes, execution modes and decorations the scan reads.
const (
	spvOpExecutionMode            = 16
	spvOpCapability               = 17
	spvOpConstant                 = 43
	spvOpConstantComposite        = 44
	spvOpSpecConstant             = 50
	spvOpSpecConstantComposite    = 51
	spvOpDecorate                 = 71
	spvOpTypeCooperativeMatrixKHR = 4456
	spvScopeWorkgroup             = 2
	spvModeLocalSize              = 17
	spvModeLocalSizeID            = 38
	spvDecorationBuiltIn          = 11
	spvBuiltInWorkgroupSize       = 25
)

// moduleNeeds is what a SPIR-V module asks of the device.
type moduleNeeds struct {
	capabilities []uint32
	// workgroupMatrices is set when the module has cooperative matrix
	// types of workgroup scope (VK_NV_cooperative_matrix2).
	workgroupMatrices bool
	// denormModes are the DenormPreserve execution modes, by word offset
	// and float width (floatcontrols.go).
	denormModes []denormMode
	// sizes are the workgroup sizes of the GLCompute entry points by
	// name, where the module states them with literals or constants.
	sizes map[string][3]uint32
}

// scanModule reads a module's capabilities and its entry points'
// workgroup sizes (LocalSize, LocalSizeId, or a constant decorated
// WorkgroupSize, which overrides both for every entry point).
func scanModule(code []uint32) (moduleNeeds, error) {
	if len(code) < spvHeaderWords {
		return moduleNeeds{}, fmt.Errorf("not a SPIR-V module")
	}
	var needs moduleNeeds
	entries := map[uint32]string{} // GLCompute entry point id -> name
	modes := map[uint32][3]uint32{}
	modeIDs := map[uint32][3]uint32{}
	consts := map[uint32]uint32{}
	composites := map[uint32][]uint32{}
	var wgSizeID uint32
	for i := spvHeaderWords; i < len(code); {
		n := int(code[i] >> 16)
		op := code[i] & 0xffff
		if n == 0 || i+n > len(code) {
			return moduleNeeds{}, fmt.Errorf("SPIR-V instruction at word %d has bad length %d", i, n)
		}
		w := code[i+1 : i+n]
		switch {
		case op == spvOpCapability && n == 2:
			needs.capabilities = append(needs.capabilities, w[0])
		case op == spvOpEntryPoint && n >= 4 && w[0] == spvGLCompute:
			entries[w[1]] = literalString(w[2:])
		case op == spvOpExecutionMode && n == 6 && w[1] == spvModeLocalSize:
			modes[w[0]] = [3]uint32{w[2], w[3], w[4]}
		case op == spvOpExecutionMode && n == 6 && w[1] == spvModeLocalSizeID:
			modeIDs[w[0]] = [3]uint32{w[2], w[3], w[4]}
		case op == spvOpExecutionMode && n == 4 && w[1] == spvModeDenormPreserve:
			needs.denormModes = append(needs.denormModes, denormMode{at: i, width: w[2]})
		case (op == spvOpConstant || op == spvOpSpecConstant) && n == 4:
			consts[w[1]] = w[2]
		case (op == spvOpConstantComposite || op == spvOpSpecConstantComposite) && n == 6:
			composites[w[1]] = w[2:5]
		case op == spvOpTypeCooperativeMatrixKHR && n == 7:
			// result, component type, scope, rows, columns, use; the
			// scope constant comes before the type.
			if s, ok := consts[w[2]]; ok && s == spvScopeWorkgroup {
				needs.workgroupMatrices = true
			}
		case op == spvOpDecorate && n == 4 && w[1] == spvDecorationBuiltIn && w[2] == spvBuiltInWorkgroupSize:
			wgSizeID = w[0]
		}
		i += n
	}
	// fromIDs resolves three constant ids; ok is false when one is not a
	// plain 32-bit constant (then the driver judges the size).
	fromIDs := func(ids []uint32) ([3]uint32, bool) {
		var s [3]uint32
		for d, id := range ids {
			v, ok := consts[id]
			if !ok {
				return s, false
			}
			s[d] = v
		}
		return s, true
	}
	needs.sizes = map[string][3]uint32{}
	for id, name := range entries {
		size, ok := modes[id]
		if ids, isID := modeIDs[id]; isID {
			size, ok = fromIDs(ids[:])
		}
		if c, isBuiltIn := composites[wgSizeID]; wgSizeID != 0 && isBuiltIn {
			size, ok = fromIDs(c)
		}
		if ok {
			needs.sizes[name] = size
		}
	}
	return needs, nil
}

func literalString(w []uint32) string {
	var b []byte
	for _, v := range w {
		for k := 0; k < 4; k++ {
			c := byte(v >> (8 * k))
			if c == 0 {
				return string(b)
			}
			b = append(b, c)
		}
	}
	return string(b)
}

// checkFeatures returns an error naming the first optional feature or
// subgroup operation (in capability order) that the module needs and the
// device does not offer.
func (c deviceCaps) checkFeatures(needs moduleNeeds) error {
	for _, cp := range needs.capabilities {
		need, ok := capabilityNeeds[cp]
		if !ok {
			continue
		}
		if need.feature != 0 && c.features&need.feature == 0 {
			return fmt.Errorf("its SPIR-V declares capability %s, which needs the device feature %s; device %q does not support it", need.name, need.featName, c.name)
		}
		if need.subgroup != 0 && c.subgroupOps&need.subgroup == 0 {
			hint := ""
			if need.subgroup == subgroupBasic || need.subgroup == subgroupShuffle {
				// What goiree's generated reductions use.
				hint = " (for shaders generated by iree-compile: compile with --iree-vulkan-subgroups=false)"
			}
			return fmt.Errorf("its SPIR-V declares capability %s, which needs %s subgroup operations in compute shaders; device %q supports %s%s", need.name, subgroupNames[log2(need.subgroup)], c.name, c.subgroupList(), hint)
		}
	}
	return nil
}

// checkSizes returns an error naming the first entry point (by name)
// whose workgroup is beyond the device's limits.
func (c deviceCaps) checkSizes(needs moduleNeeds) error {
	names := make([]string, 0, len(needs.sizes))
	for n := range needs.sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		s := needs.sizes[n]
		inv := uint64(s[0]) * uint64(s[1]) * uint64(s[2])
		if s[0] > c.maxSize[0] || s[1] > c.maxSize[1] || s[2] > c.maxSize[2] || inv > uint64(c.maxInvocations) {
			return fmt.Errorf("entry point %q has workgroup size %v (%d invocations), beyond device %q's maxComputeWorkGroupSize %v and maxComputeWorkGroupInvocations %d", n, s, inv, c.name, c.maxSize, c.maxInvocations)
		}
	}
	return nil
}

func (c deviceCaps) subgroupList() string {
	var ops []string
	for b, n := range subgroupNames {
		if c.subgroupOps&(1<<b) != 0 {
			ops = append(ops, n)
		}
	}
	if len(ops) == 0 {
		return "none"
	}
	return strings.Join(ops, ", ")
}

func log2(v uint32) int {
	n := 0
	for v > 1 {
		v >>= 1
		n++
	}
	return n
}
