// Package cuda is the compiler's "cuda" target: it serializes cuda
// hal.executable.variant ops into "cuda-nvptx-fb" payloads
// (runtime/schemas/cuda) for the runtime's cuda driver.
//
// External variants (no builtin.module) carry exactly one .ptx object,
// chosen per sm_XX by the front end from the executable's objects map; the
// payload embeds that PTX with one entry point per export: its name, its
// block size from workgroup_size, its dynamic shared memory from
// workgroup_local_memory, and its layout's constant and binding counts.
// The PTX is checked against the exports (kernelabi.CheckPTX).
//
// Variants whose builtin.module holds compiler-generated elementwise
// kernels (the goiree.elementwise entries of package elementwise) are
// compiled directly to PTX text: one .entry per export taking the binding
// pointers and then the 32-bit constants (constant 0 is the element
// count), where block b of ElementwiseBlockSize threads handles tile b of
// the dispatch. No CUDA toolkit is needed; the driver JIT-compiles the PTX.
package cuda
