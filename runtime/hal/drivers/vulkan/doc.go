// Package vulkan is the "vulkan" HAL driver: it runs SPIR-V executables
// ("vulkan-spirv-fb") on a Vulkan compute queue.
//
// The Vulkan loader (libvulkan.so.1) is opened at run time with dlopen and
// every entry point is fetched through vkGetInstanceProcAddr, so programs
// linked with this package start on machines without Vulkan; there the
// driver lists one entry, "vulkan://0: unavailable: <why>", and creating it
// fails with UNAVAILABLE and the same reason. GOIREE_VULKAN_LOADER names
// another loader library.
//
// Devices are named "vulkan" (the first physical device) or "vulkan://N".
// Each device has one compute queue. Buffers are VkBuffers with their own
// memory: requests that need host access (the default, HOST_VISIBLE, or a
// mapping usage) get host-visible, host-coherent memory, preferring memory
// that is also device-local where the device has it (lavapipe's only kind,
// NVIDIA's BAR heap); requests for DEVICE_LOCAL memory without HOST_VISIBLE
// get device-only memory that programs fill and read through transfer
// commands from host-visible staging buffers. DeviceOptions.Host =
// HostStaged backs host-accessible buffers with device-only memory and a
// host mirror instead, moved by the driver: uploaded before a submission
// that uses the buffer after host access, downloaded on host access after
// a submission wrote it. BufferInfo describes the memory behind a buffer.
//
// A device is created with the optional shader features it supports
// enabled (shaderFloat64, shaderInt64, shaderInt16, shaderFloat16,
// shaderInt8, 16- and 8-bit storage, vulkanMemoryModel, and the
// cooperativeMatrix of VK_KHR_cooperative_matrix and of
// VK_NV_cooperative_matrix, and VK_NV_cooperative_matrix2's workgroup-scope
// matrices with flexible dimensions, where the device has the extension;
// Device.Features lists them with the subgroup operations of compute
// shaders). Preparing an executable reads
// its SPIR-V's capabilities and its entry points' workgroup sizes and
// refuses, naming what is missing and the executable, a module that needs
// a feature or subgroup operation the device lacks (UNIMPLEMENTED;
// cooperative matrices in coopmatrix.go), a
// workgroup beyond maxComputeWorkGroupSize or
// maxComputeWorkGroupInvocations (capabilities.go), or shared (Workgroup)
// variables beyond maxComputeSharedMemorySize (sharedmem.go), or more
// bindings than maxPerStageDescriptorStorageBuffers (bindings.go) (all
// OUT_OF_RANGE): a module compiled for a larger device than this one
// (iree-compile's --iree-vulkan-target) fails there, not in the driver.
// The DenormPreserve execution modes of float widths whose denormals the
// device does not preserve are dropped from the module before it reaches
// the driver, as Vulkan requires (floatcontrols.go).
//
// Each export of an executable is one compute pipeline whose layout is
// descriptor set 0 with one storage buffer per binding and one
// push-constant range at offset 0 of 4*count bytes. A command buffer is
// recorded into one VkCommandBuffer at submission, with a full memory
// barrier between consecutive commands; inline updates and the unaligned
// edges of fills (vkCmdFillBuffer needs 4-byte alignment) go through a staging
// buffer. Submissions wait on a VkFence (polled for up to 20 ms on a GPU, as
// CUDA's default synchronisation spins, then waited for) and then signal
// the runtime's host timeline semaphores. Released buffers are kept per
// size class for reuse, the descriptor pool is reset per submission, and
// SetTiming brackets submissions with timestamps (LastDeviceTime).
package vulkan
