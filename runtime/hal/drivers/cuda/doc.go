// Package cuda is the "cuda" HAL driver: NVIDIA GPUs through the CUDA
// driver API, with libcuda.so.1 opened at run time (dlopen), so that
// binaries build without a CUDA SDK and start where CUDA is absent; there
// the driver lists one placeholder device whose name, and the error from
// creating it, say why CUDA is unavailable.
//
// Each device ("cuda", "cuda://N") uses the primary context of CUDA device
// N and one non-blocking stream. Executables are "cuda-nvptx-fb" payloads
// (runtime/schemas/cuda) holding one PTX image per architecture: the
// driver loads the newest one the device's compute capability runs
// (SelectImage; PTX for a newer arch is never chosen, and when none runs
// the error names the executable, the images' archs and the device's),
// logs its choice at -v=1, JIT-compiles it with cuModuleLoadDataEx, whose
// error log becomes part of the error, and looks every entry point up by
// name (a missing one is "exported module function <name> not found").
// Each function's own limits, which the JIT decides, are checked then
// against the entry point's declaration: a block size over its
// CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (its register use or .maxntid),
// or its static plus the declared dynamic shared memory over what a block
// of the device may have (the opt-in maximum), refuses the executable
// with OUT_OF_RANGE naming the entry point, what it asks for and the
// limit, rather than failing its first launch. Dispatches launch with the entry point's block size and a grid
// of the workgroup count; the kernel parameters are the bindings' device
// pointers (base + offset), then the 32-bit constants.
//
// Memory: device memory comes from a stream-ordered memory pool
// (cuMemAllocFromPoolAsync and cuMemFreeAsync on the device's stream,
// freed memory kept reserved up to DefaultCacheBytes), or from cuMemAlloc
// where the driver or device has no pools (Allocator.PoolInfo). Buffers
// whose memory type asks only for DEVICE_LOCAL are plain device
// allocations that the host reaches through transfer commands; HOST_LOCAL buffers are pinned host memory mapped into the
// device's address space (kernels access it over the bus); all others, the
// default, are staged: device memory with a pinned host copy made when the
// host first maps the buffer. Mapping downloads the device bytes when
// device work may have changed them, and the next submission that uses
// the buffer uploads the host copy first, so kernels run at device memory
// speed while the host sees ordinary host-visible memory between
// submissions. Released memory is kept per size class for reuse, up to
// DefaultCacheBytes, in front of the pool (a call's transient serves the
// next call's without a driver call); beyond that, and at Trim, device
// memory goes back to the pool in stream order.
// Command buffers are recorded by the runtime's hal.CommandBuffer and
// replayed on the device's stream at submission; an event recorded after
// the replay marks completion (the timing end event when timing is on).
package cuda
