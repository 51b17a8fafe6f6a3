package vulkan

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// glslcFlag is GlslcPathFlag without its dashes and '='.
var glslcFlag = strings.TrimSuffix(strings.TrimPrefix(GlslcPathFlag, "--"), "=")

// subgroupsFlag turns the subgroup operations of generated shaders off
// (Options.NoSubgroups).
const subgroupsFlag = "iree-vulkan-subgroups"

// coopFlag picks the cooperative matrix extension of generated tensor-core
// matmuls (Options.CoopMatrixNV).
const coopFlag = "iree-vulkan-cooperative-matrix"

// DefaultExecutableTarget is the executable target a program gets for
// --iree-hal-target-backends=vulkan-spirv or the vulkan device.
func DefaultExecutableTarget() *hal.ExecutableTargetAttr {
	return &hal.ExecutableTargetAttr{Backend: Backends[0], Format: Format}
}

func init() {
	target.Register(target.Target{
		Name:    Backends[0],
		Aliases: Backends[1:],
		Device:  "vulkan",
		// Loop-nest kernels become GLSL compute shaders (loopnest.go).
		LoopNests: true,
		// Many workgroups, a grid split into rows past 65,535 (the
		// kernels linearize it) and matmuls in blocks of 128 rows whose
		// column blocks (as wide as the device allows) have a workgroup
		// each (z).
		LoopNestWorkgroups: gpuloops.Workgroups,
		LoopNestGridLimit:  gpuloops.GridLimit,
		LoopNestMinTile:    func(_ *hal.ExecutableTargetAttr, d *ir.DictAttr) int64 { return gpuloops.MinTile(d) },
		LoopNestSplit:      splitOf,
		// Row groups become one shader whose workgroups own rows (group.go).
		LoopNestGroups: true,
		Flags: []target.Flag{
			{Name: glslcFlag, Value: "<path>", Help: "glslc used for generated Vulkan dispatches (default: glslc on PATH)"},
			{Name: targetFlag, Value: "<arch or product>", Help: "the Vulkan device generated code is tuned for (ampere, sm_90, h200, rtx4090, rdna3, valhall, adreno, llvmpipe, ...): its limits go into the executable target (iree_codegen.target_info) and size the tiled matmuls; a device that does not meet them refuses the module. Default: the limits every Vulkan device has"},
			{Name: coopFlag, Value: "khr|nv|nv2", Help: "the extension of cooperative-matrix matmuls (on targets with them, e.g. --iree-vulkan-target=h200): khr, VK_KHR_cooperative_matrix (default, as IREE); nv, VK_NV_cooperative_matrix for drivers without the KHR one; or nv2, VK_KHR_cooperative_matrix with VK_NV_cooperative_matrix2's workgroup-scope matrices for the blocks inside the matrices (NVIDIA drivers that offer it; others refuse the module)"},
			{Name: subgroupsFlag, Value: "true|false", Help: "generated reductions combine across subgroup lanes with shuffles (default true); false: through shared memory only, for devices without subgroup shuffles"},
		},
		DefaultExecutableTarget: DefaultExecutableTarget,
		// --iree-vulkan-target records the device's limits in the
		// executable targets that flags choose (targetinfo.go).
		ConfigureExecutableTarget: configureTarget,
		NewBuilder: func(env target.Env) target.Builder {
			o := Options{GlslcPath: env.Flags[glslcFlag], DumpSourcesTo: env.DumpSourcesTo, DumpBinariesTo: env.DumpBinariesTo}
			switch v := env.Flags[subgroupsFlag]; v {
			case "", "true":
			case "false":
				o.NoSubgroups = true
			default:
				o.flagErr = fmt.Errorf("--%s=%s: the value must be true or false", subgroupsFlag, v)
			}
			switch v := env.Flags[coopFlag]; v {
			case "", "khr":
			case "nv":
				o.CoopMatrixNV = true
			case "nv2":
				o.WorkgroupMatrices = true
			default:
				o.flagErr = fmt.Errorf("--%s=%s: the value must be khr, nv or nv2", coopFlag, v)
			}
			if env.Objects != nil {
				o.Objects = env.Objects
			}
			return Builder{Options: o}
		},
	})
}
