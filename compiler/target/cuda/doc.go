// Package cuda is the compiler's "cuda" target: it serializes cuda
// hal.executable.variant ops into "cuda-nvptx-fb" payloads
// (runtime/schemas/cuda) for the runtime's cuda driver.
//
// Variants for any sm_XX are accepted, and all cuda variants of one
// executable go into one payload: one PTX image per variant keyed by its
// target_arch, and the entry points, which those variants must declare
// alike. Every variant of the executable builds to the same bytes, which
// vmgen embeds once; at load time the driver picks the image of the newest
// architecture the device can run (runtime/hal/drivers/cuda.SelectImage).
// One payload rather than one executable per arch chosen by host code,
// because only the driver knows the device's compute capability and can
// rank the images, log its choice and name them all when none runs.
//
// External variants (no builtin.module) carry exactly one .ptx object,
// chosen per sm_XX by the front end from the executable's objects map; the
// image is that PTX verbatim (refused when its .target is newer than the
// variant's arch). Each entry point has its name, its block size from
// workgroup_size, its dynamic shared memory from workgroup_local_memory,
// and its layout's constant and binding counts. The PTX is checked against
// the exports (kernelabi.CheckPTX).
//
// Variants whose builtin.module holds compiler-generated elementwise
// kernels (the goiree.elementwise entries of package elementwise) are
// compiled directly to PTX text: one .entry per export taking the binding
// pointers and then the 32-bit constants (constant 0 is the element
// count), where block b of ElementwiseBlockSize threads handles tile b of
// the dispatch. The .version is the oldest PTX ISA that has the variant's
// arch and every instruction used; ops whose instruction is newer than the
// arch (maximumf and minimumf use max.NaN/min.NaN from sm_80) become
// sequences of older instructions there
// (as f64 maximumf and minimumf always do: PTX has no NaN-propagating f64
// min and max). No
// CUDA toolkit is needed; the driver JIT-compiles the PTX. Elementwise and
// loop-nest bodies take the same scalar types (i8 and i16 sign-extended in
// 32-bit registers, f16 and bf16 as below) and ops. Of the math dialect,
// floor, ceil, trunc, roundeven, round, copysign, sqrt, absf, fma and
// isfinite are exact in f32 and f64 (and, through f32, in f16 and bf16),
// and rsqrt is sqrt.rn then div.rn (below one ulp). exp, exp2, expm1, log,
// log2, log10, log1p, sin, cos, tan, tanh, erf, atan, atan2, powf and fpowi
// (through powf, an i64 exponent's parity kept) come from the math library
// of mathlib.go, accurate over their whole domain (infinities, NaN, signed
// zeros, subnormals, huge arguments of sin, cos and tan, C's special cases
// of pow and atan2) and without .approx instructions: f32 exp and exp2 in
// f32 without branches (range reduction, a degree-7 polynomial, two exact
// scalings), within 1 ulp; every other f32 function computed in f64 and
// rounded once, within 1 ulp (erf without the f64 routine's loop: a
// Chebyshev series of e^(x^2) erfc(x) on [1, 4]); f64 within 1 to 4 ulp
// (TestMathLibPTX holds each to its bound against exact values); f16 and
// bf16 through f32, rounded once more. The f64 routines take tens of f64
// instructions (more on branches: f64 erf's continued fraction, up to about
// 200 divisions between 1 and 2; the Payne-Hanek reduction of sin, cos and
// tan from |x| = 2^20), so f32 functions other than exp and exp2 run at the
// GPU's f64 rate.
// Other math ops are refused at the op; ctpop and ctlz take i32 and
// i64. arith.remf is C's fmod, exact: on f32 (and f16 and bf16) a loop
// in f64 subtracting |b| scaled to |a|'s binade, on f64 binary long
// division of the significands as 64-bit integers (mathlib.go).
//
// Linalg loop nests (functions marked with loopnest.Attr) become entries of
// LoopNestBlockSize threads (loopnest.go) taking the binding pointers and
// the contract's constants: block b, counted over a grid that may be split
// into rows, owns tile b of the first parallel loop, its threads share the
// tile's parallel iterations with the last parallel loop fastest, and each
// runs the reduction loops of its output elements in order; without
// reduction loops (elementwise and broadcast nests) each thread runs four
// iterations per step, loads first, stepping their indices by carries
// rather than divisions. Index values
// are 64-bit; i8 and i16 live sign-extended in 32-bit registers. Kernel
// parameters carry no buffer lengths, so of the contract's failures only
// those the constants decide (dynamic sizes that disagree, a constant index
// outside a dynamic dimension) are detected, and there the kernel returns
// without writing, since a dispatch has no status to report. Two shapes
// share work through shared memory (shared.go and matmul.go, the choices
// of package gpuloops): a reduction whose body computes a value from the
// inputs and folds it into the accumulator with one associative op
// (gpuloops.ReductionOf: a row sum, softmax's sum of exp(x - max)) is
// split across the block's threads, or across a warp when the block owns
// several output elements, each thread loading four elements of its
// strided part at a time, warps combining with shfl.sync.bfly and warp
// totals through shared memory (reassociating it, which changes only the
// rounding of float sums and products; f16 and bf16 sums and products
// are accumulated in f32, see below), and a matmul-shaped nest is
// computed in blocks of up to
// 128 x 128 outputs, A and B staged 8 steps of the reduction at a time
// (16-byte vector loads where aligned), 8 x 8 accumulators per thread in
// registers, each output element still reducing in order (a multiply-add
// body becomes fma). The reductions take 16-, 32- and 64-bit elements, the
// matmul blocks 16-, 32- and 64-bit ones.
//
// Row groups (functions marked with loopnest.GroupAttr: a softmax's max,
// sum and division, a layer norm's statistics and normalization, formed
// as one dispatch) become entries of the same block size in which a block
// owns its tile of rows and runs the stages on each row in turn
// (group.go): per-row values stay in registers, a row reduction of
// gpuloops.ReductionOf's shape is shared as above and its total handed to
// every thread through shared memory, and the last stage writes the row
// with unrolled, coalesced accesses. The input is then read from memory
// once per row (later stages find it in the caches) instead of once per
// op.
//
// From sm_80, a matmul of f16 or bf16 operands whose body is a plain
// multiply-add, into f32 or into the operands' type, runs on tensor cores
// (mma.go): 128 x 128 blocks of eight warps, each computing 64 x 32 with
// mma.sync.m16n8k16 into f32 accumulators, A and B copied 32 steps at a
// time with cp.async into a three-stage ring of XOR-swizzled shared tiles
// and read with ldmatrix (.trans for B), with zero-filled copies at the
// edges; where the rows of A or B are not 16-byte aligned (K or N not a
// multiple of 8, a misaligned binding) the same kernel fills the stages
// element by element. A matmul accumulating in f16 or bf16 (a 16-bit
// output) takes it only where its executable target says
// accumulate_16bit_in_f32 = true (--iree-cuda-accumulate-16bit-in-f32):
// it is then summed in f32 and rounded once at the store, as cuBLAS
// does; otherwise it rounds at every step as the body says, in the tiled
// kernel, which is what the CPU targets compute and IREE's tests expect.
// An f32 multiply-add matmul takes the same kernel in TF32 (m16n8k8,
// operands rounded with cvt.rna.tf32.f32, 16 steps at a time) only where
// its executable target says allow_tf32 = true, which
// --iree-cuda-allow-tf32=true records in the targets flags choose;
// otherwise f32 matmuls keep their exact fma chains.
//
// f16 and bf16 (half.go) live in .b16 registers and 16 bits of memory, and
// every op rounds to its type as IEEE arithmetic in that type does. The
// arch's own instructions are used where it has them (f16 add, sub, mul,
// fma and setp from sm_53; f16 and bf16 min/max, bf16 fma and
// cvt.rn.bf16.f32 from sm_80; bf16 add, sub, mul, setp and conversions
// from f64 and integers from sm_90), and the .version rises to the ISA
// that introduced them. Elsewhere an op widens its operands to f32
// (exactly), computes there and rounds once, which is the correctly
// rounded result for + - * / and sqrt (f32 has more than twice their
// precision plus two bits) and exact for comparisons, min/max, floor-like
// ops and conversions to integers; fma, and conversions whose first
// rounding could land on a tie (f64 to bf16, integers to bf16), round to
// odd in a wider type first, and bf16 rounding before sm_80 is integer
// arithmetic on the f32's bits. Negation and absolute value flip or clear
// the sign bit. The math library's functions are computed in f32 (see
// above) and rounded to the 16-bit type. A reduction of a 16-bit output run by one thread per
// output combines in its type, rounding every step in order; one shared
// by a block or a warp (shared.go) that sums or multiplies keeps its
// parts in f32 (gpuloops.Reduction.WideParts): each thread computes the
// body's value in the 16-bit type and folds it into an f32 part, the
// parts cross shuffles and shared memory as f32, and the initial value
// plus the total is rounded once when stored, as IREE's GPU reductions
// do; 16-bit minima and maxima stay in their type, exact either way. A
// body that extends its inputs (extf) to an f32 output sums in f32.
//
// Every generated kernel records in its PTX image the configuration it
// was generated with for that arch (config.go; PTXImage.configs): the
// pipeline (CUDAElementwise, CUDADistribute, CUDAVectorize,
// CUDAWarpReduction, CUDAMatmulSimt, CUDAMatmulTensorCore), the block
// size, which must be the one the driver launches, the subgroup size
// where warp shuffles or mma.sync depend on it, and the tile sizes per
// level and loop; iree-dump-module prints them in IREE's translation_info
// and lowering_config spelling, and the executable-configurations phase
// shows them on the exports (Builder.ExportConfigs).
package cuda
