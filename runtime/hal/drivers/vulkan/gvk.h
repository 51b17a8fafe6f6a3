// gvk: the C half of the Vulkan HAL driver. The Vulkan loader is opened at
// run time with dlopen, so programs built with this package start on
// machines without Vulkan; every entry point is fetched through
// vkGetInstanceProcAddr into one process-wide table.
#ifndef GOIREE_GVK_H_
#define GOIREE_GVK_H_

#define VK_NO_PROTOTYPES 1
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

// gvk_open loads the loader library lib (libvulkan.so.1) and creates the process-wide instance. It
// returns VK_SUCCESS, a VkResult from instance creation, or
// VK_ERROR_INITIALIZATION_FAILED with a message in err (dlopen failures).
// Calling it again after success is a no-op.
VkResult gvk_open(const char* lib, char* err, size_t err_len);

// gvk_try_load dlopens lib and looks up vkGetInstanceProcAddr, writing why
// it failed into err; it returns a handle to dlclose or NULL. gvk_open uses
// it for libvulkan.so.1.
void* gvk_try_load(const char* lib, char* err, size_t err_len);
void gvk_unload(void* lib);

// gvk_physical_devices lists up to *count physical devices into out and sets
// *count to the number found.
VkResult gvk_physical_devices(uint32_t* count, VkPhysicalDevice* out);

// gvk_describe fills a device's name (256 bytes), type and API version.
void gvk_describe(VkPhysicalDevice pd, char* name, uint32_t* type,
                  uint32_t* api_version);

// gvk_device is one logical device with its compute queue.
typedef struct gvk_device {
  VkPhysicalDevice physical;
  VkDevice device;
  VkQueue queue;
  uint32_t queue_family;
  VkCommandPool pool;
  VkFence fence;
  VkPhysicalDeviceMemoryProperties memory;
  uint64_t min_storage_offset_alignment;
  uint32_t max_workgroup_count[3];
  uint32_t max_workgroup_size[3];
  uint32_t max_workgroup_invocations;
  uint32_t max_shared_memory;  // maxComputeSharedMemorySize, in bytes
  uint32_t max_storage_buffers;  // maxPerStageDescriptorStorageBuffers
  uint32_t features;         // GVK_FEATURE_* bits supported and enabled
  uint32_t subgroup_ops;     // VkSubgroupFeatureFlags in compute shaders (0: none)
  uint32_t subgroup_size;    // 0 when the device does not report it
  // Float widths whose denormals a shader may ask to preserve
  // (shaderDenormPreserveFloat16/32/64, Vulkan 1.2),
  // as bits 0, 1 and 2 for widths 16, 32 and 64.
  uint32_t denorm_preserve;
  uint32_t max_push_constants_size;
  uint32_t queue_flags;      // VkQueueFlags of the queue's family
  uint32_t queue_count;      // queues in that family
  VkQueryPool timestamps;    // two timestamps per timed submission, or null
  double timestamp_period;   // nanoseconds per timestamp tick
  uint32_t timestamp_bits;   // valid bits of the queue's timestamps
  int dedicated;             // give each buffer a dedicated allocation
  VkDescriptorPool dpool;    // reset per submission, grown on demand
  uint32_t dpool_sets, dpool_descriptors;
  long long spin_ns;         // how long a submission's fence is polled before blocking
} gvk_device;

// Optional device features a shader may need (its SPIR-V capabilities).
// gvk_device_create enables those the device supports and records them in
// gvk_device.features.
enum {
  GVK_FEATURE_FLOAT64 = 1 << 0,          // shaderFloat64
  GVK_FEATURE_INT64 = 1 << 1,            // shaderInt64
  GVK_FEATURE_INT16 = 1 << 2,            // shaderInt16
  GVK_FEATURE_FLOAT16 = 1 << 3,          // shaderFloat16 (Vulkan 1.2)
  GVK_FEATURE_INT8 = 1 << 4,             // shaderInt8 (Vulkan 1.2)
  GVK_FEATURE_STORAGE16 = 1 << 5,        // storageBuffer16BitAccess
  GVK_FEATURE_UNIFORM16 = 1 << 6,        // uniformAndStorageBuffer16BitAccess
  GVK_FEATURE_PUSH16 = 1 << 7,           // storagePushConstant16
  GVK_FEATURE_STORAGE8 = 1 << 8,         // storageBuffer8BitAccess (Vulkan 1.2)
  GVK_FEATURE_UNIFORM8 = 1 << 9,         // uniformAndStorageBuffer8BitAccess (Vulkan 1.2)
  GVK_FEATURE_PUSH8 = 1 << 10,           // storagePushConstant8 (Vulkan 1.2)
  GVK_FEATURE_INT64_ATOMICS = 1 << 11,   // shaderBufferInt64Atomics (Vulkan 1.2)
  // High bits, apart from the shader-type features above.
  GVK_FEATURE_VULKAN_MEMORY_MODEL = 1 << 24,     // vulkanMemoryModel (Vulkan 1.2)
  GVK_FEATURE_COOPERATIVE_MATRIX_NV = 1 << 25,   // VK_NV_cooperative_matrix's cooperativeMatrix
  GVK_FEATURE_COOPERATIVE_MATRIX_KHR = 1 << 26,  // VK_KHR_cooperative_matrix's cooperativeMatrix
  // VK_NV_cooperative_matrix2's cooperativeMatrixWorkgroupScope and
  // cooperativeMatrixFlexibleDimensions, both (with the KHR matrices).
  GVK_FEATURE_COOPERATIVE_MATRIX_WORKGROUP_NV = 1 << 27,
};

// Queue family choices of gvk_device_create.
enum {
  GVK_QUEUE_COMPUTE = 0,    // a compute family without graphics, else any compute family
  GVK_QUEUE_UNIVERSAL = 1,  // a graphics+compute family, else any compute family
};

// gvk_device_create creates a device with one compute queue from the
// family that queue (GVK_QUEUE_*) prefers, and a timestamp query pool when
// that family has timestamps. The optional features of GVK_FEATURE_* that
// the device supports are enabled.
VkResult gvk_device_create(VkPhysicalDevice pd, int queue, gvk_device* out,
                           char* err, size_t err_len);
void gvk_device_destroy(gvk_device* d);

// gvk_buffer is a VkBuffer with its own memory, persistently mapped when
// the memory is host-visible (mapped != NULL).
typedef struct gvk_buffer {
  VkBuffer buffer;
  VkDeviceMemory memory;
  void* mapped;
  uint32_t property_flags;
  uint32_t memory_type;   // index of the memory type the memory came from
  uint64_t size;
  uint64_t memory_size;   // bytes of the VkDeviceMemory (the requirement's size)
  uint64_t alignment;     // the buffer's required alignment
} gvk_buffer;

// gvk_buffer_create allocates size bytes from the first memory type whose
// property flags include one of prefs[0..npref) (tried in order; a type whose
// allocation fails falls through to the next preference).
VkResult gvk_buffer_create(gvk_device* d, uint64_t size, const uint32_t* prefs,
                           int npref, gvk_buffer* out);
void gvk_buffer_destroy(gvk_device* d, gvk_buffer* b);

// gvk_executable is one shader module with a pipeline per entry point.
typedef struct gvk_executable {
  VkShaderModule module;
  uint32_t count;
  VkDescriptorSetLayout* set_layouts;
  VkPipelineLayout* layouts;
  VkPipeline* pipelines;
  uint32_t* constant_counts;
  uint32_t* binding_counts;
} gvk_executable;

// gvk_executable_create builds the pipelines. names holds count
// NUL-terminated names back to back. On failure *failed is the index of the
// entry point whose pipeline failed (or -1).
VkResult gvk_executable_create(gvk_device* d, const uint32_t* code,
                               size_t words, uint32_t count, const char* names,
                               const uint32_t* constant_counts,
                               const uint32_t* binding_counts,
                               gvk_executable** out, int* failed);
void gvk_executable_destroy(gvk_device* d, gvk_executable* e);

// Command stream opcodes for gvk_submit. Each command is a sequence of
// 64-bit words:
//   FILL     buffer offset length pattern32
//   COPY     src src_offset dst dst_offset length
//   DISPATCH executable ordinal x y z nconst const... nbind (buffer offset length)...
//   BARRIER
enum {
  GVK_CMD_FILL = 1,
  GVK_CMD_COPY = 2,
  GVK_CMD_DISPATCH = 3,
  GVK_CMD_BARRIER = 4,
};

// gvk_submit records the stream into one command buffer, submits it and
// waits for it to finish. Descriptor sets come from a pool made for this
// submission. A full memory barrier separates consecutive commands. When
// device_ns is not NULL and the device has timestamps, the commands are
// bracketed by two timestamps and *device_ns is set to the nanoseconds
// between them (0 without timestamps).
VkResult gvk_submit(gvk_device* d, const uint64_t* stream, size_t n,
                    uint32_t ndispatch, uint32_t nbinding, uint64_t* device_ns,
                    char* err, size_t err_len);

// gvk_result_name returns the VkResult's enumerator name.
const char* gvk_result_name(VkResult r);

#endif  // GOIREE_GVK_H_
