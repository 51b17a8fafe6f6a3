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
// loops each invocation runs four iterations per step, loads first. An
// indexed input (a table the body reads at offsets it computes) is not
// passed to the body function: the body reads its storage buffer, a
// global, directly, and a dispatch whose indexed input is empty writes
// nothing. A reduction whose body computes a value from the inputs and folds it into
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
// (the loop-nest contract allows it for such bodies). Sums and products
// of f16 and bf16 then keep their parts in f32 (gpuloops.Reduction.
// WideParts), as IREE's GPU pipelines do: each element's value is
// computed and rounded in the 16-bit type as the body says, but the
// parts, the shuffles and shared memory hold f32 sums (products), and
// the initial value plus the total is rounded once to the type when
// stored; the in-order loop of one invocation per output rounds every
// step. A matmul-shaped
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
// workgroup size or shared memory refuses it when it is prepared. On a
// target with cooperative matrices and 32-wide subgroups (NVIDIA's), a
// matmul of f16 operands into f32 with linalg.matmul's multiply-add runs
// on them instead (16 x 16 x 16 multiply-adds, the reduction summed in
// steps of 16 in the hardware's order; coopmatmul.go), written with
// GL_NV_cooperative_matrix and, unless
// --iree-vulkan-cooperative-matrix=nv, rewritten to
// VK_KHR_cooperative_matrix (coopkhr.go); a device without the extension
// refuses the module, naming it. With =nv2, a matmul whose static shapes
// make every block whole multiplies each block as one workgroup-scope
// matrix product (VK_NV_cooperative_matrix2, which the device must offer).
// Bindings and push
// constants follow the loop-nest contract.
//
// Row groups (functions marked with loopnest.GroupAttr: a chain of row
// reductions and their consumer, such as a softmax or a layer norm,
// which dispatch formation makes one dispatch because the target sets
// target.Target.LoopNestGroups) become one shader of GroupWorkgroupSize
// invocations where the device allows it, else LoopNestWorkgroupSize
// (group.go): workgroup w owns rows
// w*T to w*T+T-1 (T the group's tile; the grid linearized as for loop
// nests) and runs the stages on each row in order, the stage bodies
// written as for loop nests. Each stage's per-row result stays in a
// variable of every invocation: a per-row stage is computed by every
// invocation alike; a row reduction of gpuloops.ReductionOf's shape is
// shared by the workgroup as a loop nest's shared reduction is, its
// total written by one invocation to a shared variable that all read
// after a barrier; any other reduction every invocation runs in order.
// The last stage spreads the row's remaining iterations over the
// invocations, four per step with the loads first. The push constants
// are the stages' scalar inputs in stage order, the bindings the
// group's. Unlike cuda's blocks, a workgroup does not keep the rows that
// several stages read in shared memory: on the H200 a softmax 8192²
// doing so took 0.54-0.63 ms against 0.39-0.40 ms reading the row again
// (the 32 KiB a workgroup then takes leave NVIDIA's Vulkan driver few
// workgroups a multiprocessor).
//
// Element types, in loop nests and elementwise dispatches alike: f32, i32
// and index are 32-bit words. f64 and i64 are GLSL doubles and int64_t
// (the Float64 and Int64 capabilities, device features shaderFloat64 and
// shaderInt64). Math ops do not use GLSL's transcendental builtins, whose
// precision Vulkan leaves to the driver (and which do not exist for
// doubles): exp, log, pow, sin, tanh, erf and the rest are helper
// functions written into the shader (mathf32.go, mathf64.go) in plain
// arithmetic, within 1 ulp for f32 and 1 or 2 for f64 on the whole
// domain (huge arguments of sin, cos and tan reduced exactly), f32
// division and sqrt are correctly rounded, and math.fma does not rely on
// GLSL's fma being fused (mathglsl.go). f16 and bf16 are kept in 16-bit
// storage (uint16_t elements,
// GL_EXT_shader_16bit_storage: the StorageBuffer16BitAccess capability,
// storageBuffer16BitAccess) and computed in f32: loads widen exactly,
// every op's result is rounded to its type to nearest even in integer
// code (NaN stays NaN, overflow goes to infinity, subnormals are kept),
// which equals the type's IEEE +, -, *, / and sqrt since f32 has more
// than twice their precision, and conversions that could round twice (f64
// and integers wider than 24 bits to f16 or bf16) first round to f32 to
// odd. They need no Float16 capability (shaderFloat16). bf16 subnormals
// are f32 subnormals in the shader, which Vulkan lets a device flush to
// zero (lavapipe does in some ops). Integers narrower than 32 bits (i8,
// i16 and i1, one byte each) stay packed into words, read with
// bitfieldExtract and written with atomics, so that they run on devices
// without 8- and 16-bit storage. A shader declares only the extensions,
// and so its SPIR-V only the capabilities, that its types use: an f32
// kernel runs on every device. When the executable target describes its
// device (--iree-vulkan-target), a type whose feature the description
// lacks (compute fp64 or int64, storage b16) is refused at compile time
// with the feature named; otherwise the runtime refuses the executable
// on a device without the feature when it is prepared, naming the
// feature. Shared reductions work on every one-word-per-element output
// (f16 and bf16 included); 64-bit values cross subgroup lanes as two
// words. Tiled matmuls take 32-bit and 16-bit float operands; 64-bit ones
// run untiled. Vulkan has no status for a dispatch, so a kernel whose
// bindings are shorter than their shapes, or whose dynamic sizes disagree,
// returns without writing anything: the contract's failure touches no
// memory, but the caller sees stale outputs rather than an error. Sizes
// and indices are 32-bit.
//
// Every generated entry point records in the payload the configuration
// it was generated with (config.go; SpirVExecutableDef.configs): the
// pipeline (SPIRVElementwise, SPIRVBaseDistribute, SPIRVBaseVectorize,
// SPIRVSubgroupReduce or SPIRVSharedReduce,
// SPIRVMatmulPromoteVectorize, SPIRVCooperativeMatrixVectorize,
// SPIRVRowGroup), the
// workgroup size, which Build checks against the shader's LocalSize, the
// subgroup size where the kernel requires one, and the tile sizes per
// level and loop; iree-dump-module prints them in IREE's
// translation_info and lowering_config spelling, and the
// executable-configurations phase shows them on the exports
// (Builder.ExportConfigs).
package vulkan
