// Package vulkan is the compiler's "vulkan-spirv" target: it builds the
// "vulkan-spirv-fb" executable (runtime/schemas/spirv) of every dispatched
// hal.executable.variant whose target backend is vulkan-spirv (or the seed
// spelling vulkan).
//
// External variants carry exactly one SPIR-V object (a .spv file, usually
// built by glslc), already checked against the export layouts by package
// kernelabi. Its words become the executable's code, the export names its
// entry points, and each export's layout gives its push-constant and
// binding counts.
//
// Generated variants are the elementwise dispatches that package
// elementwise fuses (functions marked with the goiree.elementwise
// attribute). Each becomes a GLSL 4.50 compute shader, compiled to SPIR-V
// by glslc (--iree-vulkan-glslc-path=, default glslc on PATH), whose entry
// point is renamed to the export name. The shader follows the dispatch ABI
// of the generated CPU code: push constant 0 is the element count, the
// inputs and then the results are storage buffers 0, 1, ... of set 0, and
// workgroup x covers elements [x*tile, (x+1)*tile).
//
// Linalg loop nests (functions marked with loopnest.Attr) become shaders of
// LoopNestWorkgroupSize invocations (loopnest.go): the workgroup owns one
// tile of the first parallel loop, its invocations share the tile's
// parallel iterations with the last parallel loop fastest, and each runs
// the reduction loops of its output elements in order; without reduction
// loops each invocation runs four iterations per step, loads first. A
// reduction whose body computes a value from the inputs and folds it into
// the accumulator with one associative and commutative op
// (gpuloops.ReductionOf: dynamic or at least 64 long, the reduced inputs
// indexed by it last) is instead shared by the workgroup's invocations,
// or by a subgroup's when the workgroup owns several output elements:
// each loads four elements of its strided part at a time, subgroups
// combine with subgroupShuffleXor (GL_KHR_shader_subgroup_shuffle, the
// GroupNonUniformShuffle capability that the runtime checks against the
// device) and their totals meet in shared memory; with
// --iree-vulkan-subgroups=false the parts meet in shared memory alone.
// This reassociates the reduction, which is exact for integers, min and
// max, while float sums round in that order, as in IREE's GPU reductions
// (the loop-nest contract allows it for such bodies). A matmul-shaped
// kernel (inputs indexed (batch..., i, r) and (batch..., r, j), output
// (batch..., i, j), 32-bit elements, any body) is tiled: the workgroup
// walks its rows in blocks of up to 128 x 64 outputs (128 invocations),
// or 128 x 128 (256 invocations) on a device that runs them, stages
// 8-long steps of A and B in shared memory, and each invocation keeps up
// to 8 x 8 accumulators in registers, each output still reducing in order
// (matmul.go). The device is the one the executable target describes
// (targetinfo.go): as in IREE, --iree-vulkan-target=<architecture or
// product> (ampere, sm_90, h200, rdna3, valhall, adreno, llvmpipe, ...)
// records a known device's limits in the executable targets that flags
// choose (iree_codegen.target_info = #iree_gpu.target<...>), and without
// it the target has Vulkan's least limits (128 invocations, 16 KiB of
// shared memory), which every device meets; a device short of a module's
// workgroup size or shared memory refuses it when it is prepared. Bindings and push
// constants follow the loop-nest contract. Element types narrower than 32
// bits are packed into words (read with bitfieldExtract, written with
// atomics); f64, f16 and i64 would need device features (shaderFloat64,
// shaderFloat16 with storageBuffer16BitAccess, shaderInt64) that not
// every device has, and generated code refuses them at compile time with
// the feature named (the runtime enables the features a device has and
// refuses user SPIR-V that needs a missing one). Vulkan has no status for a dispatch, so a kernel whose
// bindings are shorter than their shapes, or whose dynamic sizes disagree,
// returns without writing anything: the contract's failure touches no
// memory, but the caller sees stale outputs rather than an error. Sizes
// and indices are 32-bit.
package vulkan
