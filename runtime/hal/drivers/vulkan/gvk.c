#include "gvk.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

// VK_KHR_cooperative_matrix (Vulkan 1.3.255) is newer than the headers
// some systems build with; its feature struct and structure type, where
// they lack them.
#ifndef VK_KHR_cooperative_matrix
#define VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME "VK_KHR_cooperative_matrix"
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR ((VkStructureType)1000506000)
typedef struct VkPhysicalDeviceCooperativeMatrixFeaturesKHR {
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrix;
  VkBool32 cooperativeMatrixRobustBufferAccess;
} VkPhysicalDeviceCooperativeMatrixFeaturesKHR;
#endif

// VK_NV_cooperative_matrix2 (Vulkan 1.3.300) likewise: its feature
// struct, as the registry lays it out.
#ifndef VK_NV_cooperative_matrix2
#define VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME "VK_NV_cooperative_matrix2"
#define VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV ((VkStructureType)1000593000)
typedef struct VkPhysicalDeviceCooperativeMatrix2FeaturesNV {
  VkStructureType sType;
  void* pNext;
  VkBool32 cooperativeMatrixWorkgroupScope;
  VkBool32 cooperativeMatrixFlexibleDimensions;
  VkBool32 cooperativeMatrixReductions;
  VkBool32 cooperativeMatrixConversions;
  VkBool32 cooperativeMatrixPerElementOperations;
  VkBool32 cooperativeMatrixTensorAddressing;
  VkBool32 cooperativeMatrixBlockLoads;
} VkPhysicalDeviceCooperativeMatrix2FeaturesNV;
#endif

// How long gvk_submit polls a submission's fence on a GPU before it blocks.
#define GVK_SPIN_NS 20000000LL

// The Vulkan entry points the driver uses.
#define GVK_FUNCS(X)                  \
  X(vkDestroyInstance)                \
  X(vkEnumeratePhysicalDevices)       \
  X(vkGetPhysicalDeviceProperties)    \
  X(vkGetPhysicalDeviceProperties2)   \
  X(vkGetPhysicalDeviceFeatures)      \
  X(vkGetPhysicalDeviceFeatures2)     \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties) \
  X(vkCreateDevice)                   \
  X(vkDestroyDevice)                  \
  X(vkGetDeviceQueue)                 \
  X(vkCreateCommandPool)              \
  X(vkDestroyCommandPool)             \
  X(vkResetCommandPool)               \
  X(vkAllocateCommandBuffers)         \
  X(vkFreeCommandBuffers)             \
  X(vkBeginCommandBuffer)             \
  X(vkEndCommandBuffer)               \
  X(vkCreateFence)                    \
  X(vkDestroyFence)                   \
  X(vkResetFences)                    \
  X(vkWaitForFences)                  \
  X(vkQueueSubmit)                    \
  X(vkCreateBuffer)                   \
  X(vkDestroyBuffer)                  \
  X(vkGetBufferMemoryRequirements)    \
  X(vkAllocateMemory)                 \
  X(vkFreeMemory)                     \
  X(vkBindBufferMemory)               \
  X(vkMapMemory)                      \
  X(vkUnmapMemory)                    \
  X(vkCreateShaderModule)             \
  X(vkDestroyShaderModule)            \
  X(vkCreateDescriptorSetLayout)      \
  X(vkDestroyDescriptorSetLayout)     \
  X(vkCreatePipelineLayout)           \
  X(vkDestroyPipelineLayout)          \
  X(vkCreateComputePipelines)         \
  X(vkDestroyPipeline)                \
  X(vkCreateDescriptorPool)           \
  X(vkDestroyDescriptorPool)          \
  X(vkAllocateDescriptorSets)         \
  X(vkUpdateDescriptorSets)           \
  X(vkCmdBindPipeline)                \
  X(vkCmdBindDescriptorSets)          \
  X(vkCmdPushConstants)               \
  X(vkCmdDispatch)                    \
  X(vkCmdFillBuffer)                  \
  X(vkCmdCopyBuffer)                  \
  X(vkCmdPipelineBarrier)             \
  X(vkCreateQueryPool)                \
  X(vkDestroyQueryPool)               \
  X(vkCmdResetQueryPool)              \
  X(vkCmdWriteTimestamp)              \
  X(vkGetQueryPoolResults)           \
  X(vkResetDescriptorPool)            \
  X(vkGetFenceStatus)                 \
  X(vkEnumerateDeviceExtensionProperties)

static struct {
  void* lib;
  VkInstance instance;
  PFN_vkGetInstanceProcAddr get_instance_proc_addr;
#define GVK_FIELD(name) PFN_##name name;
  GVK_FUNCS(GVK_FIELD)
#undef GVK_FIELD
} vk;

void* gvk_try_load(const char* lib, char* err, size_t err_len) {
  void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    snprintf(err, err_len, "cannot load the Vulkan loader: %s", e ? e : lib);
    return NULL;
  }
  if (!dlsym(h, "vkGetInstanceProcAddr")) {
    snprintf(err, err_len, "%s has no vkGetInstanceProcAddr", lib);
    dlclose(h);
    return NULL;
  }
  return h;
}

void gvk_unload(void* lib) {
  if (lib) dlclose(lib);
}

VkResult gvk_open(const char* lib, char* err, size_t err_len) {
  if (vk.instance) return VK_SUCCESS;
  if (!vk.lib) {
    vk.lib = gvk_try_load(lib, err, err_len);
    if (!vk.lib) return VK_ERROR_INITIALIZATION_FAILED;
  }
  vk.get_instance_proc_addr =
      (PFN_vkGetInstanceProcAddr)dlsym(vk.lib, "vkGetInstanceProcAddr");
  PFN_vkCreateInstance create = (PFN_vkCreateInstance)vk.get_instance_proc_addr(
      NULL, "vkCreateInstance");
  if (!create) {
    snprintf(err, err_len, "the Vulkan loader has no vkCreateInstance");
    return VK_ERROR_INITIALIZATION_FAILED;
  }
  VkApplicationInfo app = {
      .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
      .pApplicationName = "goiree",
      .pEngineName = "goiree",
      // 1.2, so that the 1.2 feature structs may be used to enable
      // shaderFloat16, shaderInt8 and 8-bit storage on devices that have
      // them; the driver itself needs only 1.1.
      .apiVersion = VK_API_VERSION_1_2,
  };
  VkInstanceCreateInfo ci = {
      .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
      .pApplicationInfo = &app,
  };
  VkInstance inst = VK_NULL_HANDLE;
  VkResult r = create(&ci, NULL, &inst);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkCreateInstance failed");
    return r;
  }
#define GVK_LOAD(name)                                                 \
  vk.name = (PFN_##name)vk.get_instance_proc_addr(inst, #name);        \
  if (!vk.name) {                                                      \
    snprintf(err, err_len, "the Vulkan loader has no %s", #name);      \
    return VK_ERROR_INITIALIZATION_FAILED;                             \
  }
  GVK_FUNCS(GVK_LOAD)
#undef GVK_LOAD
  vk.instance = inst;
  return VK_SUCCESS;
}

VkResult gvk_physical_devices(uint32_t* count, VkPhysicalDevice* out) {
  VkResult r = vk.vkEnumeratePhysicalDevices(vk.instance, count, out);
  return r == VK_INCOMPLETE ? VK_SUCCESS : r;
}

void gvk_describe(VkPhysicalDevice pd, char* name, uint32_t* type,
                  uint32_t* api_version) {
  VkPhysicalDeviceProperties p;
  vk.vkGetPhysicalDeviceProperties(pd, &p);
  memcpy(name, p.deviceName, VK_MAX_PHYSICAL_DEVICE_NAME_SIZE);
  name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE - 1] = 0;
  *type = (uint32_t)p.deviceType;
  *api_version = p.apiVersion;
}

VkResult gvk_device_create(VkPhysicalDevice pd, int queue, gvk_device* out,
                           char* err, size_t err_len) {
  memset(out, 0, sizeof(*out));
  out->physical = pd;
  uint32_t nfam = 0;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, NULL);
  VkQueueFamilyProperties fams[64];
  if (nfam > 64) nfam = 64;
  vk.vkGetPhysicalDeviceQueueFamilyProperties(pd, &nfam, fams);
  // GVK_QUEUE_COMPUTE prefers a compute family without graphics (a
  // dedicated compute family), GVK_QUEUE_UNIVERSAL one with graphics;
  // otherwise any family with compute.
  int fam = -1;
  VkQueueFlags graphics = queue == GVK_QUEUE_UNIVERSAL ? VK_QUEUE_GRAPHICS_BIT : 0;
  for (uint32_t i = 0; i < nfam; i++) {
    if ((fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
        (fams[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) == graphics) {
      fam = (int)i;
      break;
    }
  }
  for (uint32_t i = 0; fam < 0 && i < nfam; i++) {
    if (fams[i].queueFlags & VK_QUEUE_COMPUTE_BIT) fam = (int)i;
  }
  if (fam < 0) {
    snprintf(err, err_len, "the device has no compute queue family");
    return VK_ERROR_FEATURE_NOT_PRESENT;
  }
  out->queue_family = (uint32_t)fam;
  out->queue_flags = fams[fam].queueFlags;
  out->queue_count = fams[fam].queueCount;
  out->timestamp_bits = fams[fam].timestampValidBits;
  float prio = 1.0f;
  VkDeviceQueueCreateInfo qci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
      .queueFamilyIndex = out->queue_family,
      .queueCount = 1,
      .pQueuePriorities = &prio,
  };
  VkPhysicalDeviceProperties props;
  vk.vkGetPhysicalDeviceProperties(pd, &props);
  // The optional shader features: queried, then the supported ones enabled
  // (and nothing else), so that SPIR-V declaring their capabilities is
  // valid on this device. Vulkan 1.2 devices report them all in the
  // 1.1 and 1.2 feature structs; 1.1 devices only the 16-bit storage ones
  // beside the core 1.0 features.
  VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDevice16BitStorageFeatures s16 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  int v12 = props.apiVersion >= VK_API_VERSION_1_2, v11 = props.apiVersion >= VK_API_VERSION_1_1;
  if (v12) {
    f2.pNext = &f11;
    f11.pNext = &f12;
  } else if (v11) {
    f2.pNext = &s16;
  }
  if (v11) {
    vk.vkGetPhysicalDeviceFeatures2(pd, &f2);
  } else {
    vk.vkGetPhysicalDeviceFeatures(pd, &f2.features);
  }
  // Cooperative matrices (VK_NV_cooperative_matrix and
  // VK_KHR_cooperative_matrix, whose shaders also declare the Vulkan
  // memory model, core in 1.2): queried only where the device has the
  // extension.
  VkPhysicalDeviceCooperativeMatrixFeaturesNV coop = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR kcoop = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR};
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV coop2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV};
  int has_coop = 0, has_kcoop = 0, has_coop2 = 0;
  if (v11) {
    uint32_t next = 0;
    if (vk.vkEnumerateDeviceExtensionProperties(pd, NULL, &next, NULL) == VK_SUCCESS && next > 0) {
      VkExtensionProperties* exts = calloc(next, sizeof(VkExtensionProperties));
      if (exts && vk.vkEnumerateDeviceExtensionProperties(pd, NULL, &next, exts) == VK_SUCCESS) {
        for (uint32_t i = 0; i < next; i++) {
          if (strcmp(exts[i].extensionName, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) has_coop = 1;
          if (strcmp(exts[i].extensionName, VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME) == 0) has_kcoop = 1;
          if (strcmp(exts[i].extensionName, VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME) == 0) has_coop2 = 1;
        }
      }
      free(exts);
    }
    if (has_coop) {
      coop.pNext = f2.pNext;
      f2.pNext = &coop;
    }
    if (has_kcoop) {
      kcoop.pNext = f2.pNext;
      f2.pNext = &kcoop;
    }
    if (has_coop2) {
      coop2.pNext = f2.pNext;
      f2.pNext = &coop2;
    }
    if (has_coop || has_kcoop || has_coop2) vk.vkGetPhysicalDeviceFeatures2(pd, &f2);
  }
  if (!v12) {
    f11.storageBuffer16BitAccess = s16.storageBuffer16BitAccess;
    f11.uniformAndStorageBuffer16BitAccess = s16.uniformAndStorageBuffer16BitAccess;
    f11.storagePushConstant16 = s16.storagePushConstant16;
  }
  struct {
    VkBool32 supported;
    uint32_t bit;
  } feats[] = {
      {f2.features.shaderFloat64, GVK_FEATURE_FLOAT64},
      {f2.features.shaderInt64, GVK_FEATURE_INT64},
      {f2.features.shaderInt16, GVK_FEATURE_INT16},
      {v12 && f12.shaderFloat16, GVK_FEATURE_FLOAT16},
      {v12 && f12.shaderInt8, GVK_FEATURE_INT8},
      {f11.storageBuffer16BitAccess, GVK_FEATURE_STORAGE16},
      {f11.uniformAndStorageBuffer16BitAccess, GVK_FEATURE_UNIFORM16},
      {f11.storagePushConstant16, GVK_FEATURE_PUSH16},
      {v12 && f12.storageBuffer8BitAccess, GVK_FEATURE_STORAGE8},
      {v12 && f12.uniformAndStorageBuffer8BitAccess, GVK_FEATURE_UNIFORM8},
      {v12 && f12.storagePushConstant8, GVK_FEATURE_PUSH8},
      {v12 && f12.shaderBufferInt64Atomics, GVK_FEATURE_INT64_ATOMICS},
      {v12 && f12.vulkanMemoryModel, GVK_FEATURE_VULKAN_MEMORY_MODEL},
      {has_coop && coop.cooperativeMatrix, GVK_FEATURE_COOPERATIVE_MATRIX_NV},
      {has_kcoop && kcoop.cooperativeMatrix, GVK_FEATURE_COOPERATIVE_MATRIX_KHR},
      {has_kcoop && kcoop.cooperativeMatrix && has_coop2 && coop2.cooperativeMatrixWorkgroupScope &&
           coop2.cooperativeMatrixFlexibleDimensions,
       GVK_FEATURE_COOPERATIVE_MATRIX_WORKGROUP_NV},
  };
  for (size_t i = 0; i < sizeof(feats) / sizeof(feats[0]); i++) {
    if (feats[i].supported) out->features |= feats[i].bit;
  }
  uint32_t f = out->features;
  VkPhysicalDeviceVulkan12Features e12 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
      .shaderFloat16 = (f & GVK_FEATURE_FLOAT16) != 0,
      .shaderInt8 = (f & GVK_FEATURE_INT8) != 0,
      .storageBuffer8BitAccess = (f & GVK_FEATURE_STORAGE8) != 0,
      .uniformAndStorageBuffer8BitAccess = (f & GVK_FEATURE_UNIFORM8) != 0,
      .storagePushConstant8 = (f & GVK_FEATURE_PUSH8) != 0,
      .shaderBufferInt64Atomics = (f & GVK_FEATURE_INT64_ATOMICS) != 0,
      .vulkanMemoryModel = (f & GVK_FEATURE_VULKAN_MEMORY_MODEL) != 0,
  };
  VkPhysicalDeviceVulkan11Features e11 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
      .pNext = &e12,
      .storageBuffer16BitAccess = (f & GVK_FEATURE_STORAGE16) != 0,
      .uniformAndStorageBuffer16BitAccess = (f & GVK_FEATURE_UNIFORM16) != 0,
      .storagePushConstant16 = (f & GVK_FEATURE_PUSH16) != 0,
  };
  VkPhysicalDevice16BitStorageFeatures e16 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES,
      .storageBuffer16BitAccess = (f & GVK_FEATURE_STORAGE16) != 0,
      .uniformAndStorageBuffer16BitAccess = (f & GVK_FEATURE_UNIFORM16) != 0,
      .storagePushConstant16 = (f & GVK_FEATURE_PUSH16) != 0,
  };
  VkPhysicalDeviceFeatures2 e2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
      .pNext = v12 ? (void*)&e11 : (void*)&e16,
  };
  e2.features.shaderFloat64 = (f & GVK_FEATURE_FLOAT64) != 0;
  e2.features.shaderInt64 = (f & GVK_FEATURE_INT64) != 0;
  e2.features.shaderInt16 = (f & GVK_FEATURE_INT16) != 0;
  VkPhysicalDeviceCooperativeMatrixFeaturesNV ecoop = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
      .pNext = e2.pNext,
      .cooperativeMatrix = VK_TRUE,
  };
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR ekcoop = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR,
      .cooperativeMatrix = VK_TRUE,
  };
  VkPhysicalDeviceCooperativeMatrix2FeaturesNV ecoop2 = {
      .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV,
      .cooperativeMatrixWorkgroupScope = VK_TRUE,
      .cooperativeMatrixFlexibleDimensions = VK_TRUE,
  };
  const char* coop_exts[3];
  uint32_t ncoop_exts = 0;
  if (f & GVK_FEATURE_COOPERATIVE_MATRIX_NV) {
    e2.pNext = &ecoop;
    coop_exts[ncoop_exts++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
  }
  if (f & GVK_FEATURE_COOPERATIVE_MATRIX_KHR) {
    ekcoop.pNext = e2.pNext;
    e2.pNext = &ekcoop;
    coop_exts[ncoop_exts++] = VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME;
  }
  if (f & GVK_FEATURE_COOPERATIVE_MATRIX_WORKGROUP_NV) {
    ecoop2.pNext = e2.pNext;
    e2.pNext = &ecoop2;
    coop_exts[ncoop_exts++] = VK_NV_COOPERATIVE_MATRIX_2_EXTENSION_NAME;
  }
  VkDeviceCreateInfo dci = {
      .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
      .pNext = v11 ? &e2 : NULL,
      .queueCreateInfoCount = 1,
      .pQueueCreateInfos = &qci,
      .enabledExtensionCount = ncoop_exts,
      .ppEnabledExtensionNames = ncoop_exts ? coop_exts : NULL,
      .pEnabledFeatures = v11 ? NULL : &e2.features,
  };
  // Subgroup operations in compute shaders (core in Vulkan 1.1) and the
  // float controls (core in 1.2).
  if (v11) {
    VkPhysicalDeviceVulkan12Properties p12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties sp = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, .pNext = v12 ? &p12 : NULL};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sp};
    vk.vkGetPhysicalDeviceProperties2(pd, &p2);
    if (sp.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) out->subgroup_ops = sp.supportedOperations;
    out->subgroup_size = sp.subgroupSize;
    if (v12) {
      out->denorm_preserve = (p12.shaderDenormPreserveFloat16 ? 1u : 0u) | (p12.shaderDenormPreserveFloat32 ? 2u : 0u) |
                             (p12.shaderDenormPreserveFloat64 ? 4u : 0u);
    }
  }
  memcpy(out->max_workgroup_size, props.limits.maxComputeWorkGroupSize, sizeof(out->max_workgroup_size));
  out->max_workgroup_invocations = props.limits.maxComputeWorkGroupInvocations;
  out->max_shared_memory = props.limits.maxComputeSharedMemorySize;
  out->max_storage_buffers = props.limits.maxPerStageDescriptorStorageBuffers;
  VkResult r = vk.vkCreateDevice(pd, &dci, NULL, &out->device);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkCreateDevice failed");
    return r;
  }
  vk.vkGetDeviceQueue(out->device, out->queue_family, 0, &out->queue);
  VkCommandPoolCreateInfo pci = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
      .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
      .queueFamilyIndex = out->queue_family,
  };
  r = vk.vkCreateCommandPool(out->device, &pci, NULL, &out->pool);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkCreateCommandPool failed");
    gvk_device_destroy(out);
    return r;
  }
  VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  r = vk.vkCreateFence(out->device, &fci, NULL, &out->fence);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkCreateFence failed");
    gvk_device_destroy(out);
    return r;
  }
  vk.vkGetPhysicalDeviceMemoryProperties(pd, &out->memory);
  VkPhysicalDeviceProperties p;
  vk.vkGetPhysicalDeviceProperties(pd, &p);
  out->min_storage_offset_alignment = p.limits.minStorageBufferOffsetAlignment;
  memcpy(out->max_workgroup_count, p.limits.maxComputeWorkGroupCount,
         sizeof(out->max_workgroup_count));
  out->max_push_constants_size = p.limits.maxPushConstantsSize;
  out->timestamp_period = p.limits.timestampPeriod;
  // A CPU implementation (lavapipe) runs the work on host threads that a
  // spinning waiter would compete with.
  out->spin_ns = p.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? 0 : GVK_SPIN_NS;
  if (out->timestamp_bits > 0 && out->timestamp_period > 0) {
    VkQueryPoolCreateInfo qpci = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
        .queryType = VK_QUERY_TYPE_TIMESTAMP,
        .queryCount = 2,
    };
    if (vk.vkCreateQueryPool(out->device, &qpci, NULL, &out->timestamps) != VK_SUCCESS) {
      out->timestamps = VK_NULL_HANDLE;
    }
  }
  return VK_SUCCESS;
}

void gvk_device_destroy(gvk_device* d) {
  if (!d->device) return;
  if (d->dpool) vk.vkDestroyDescriptorPool(d->device, d->dpool, NULL);
  if (d->timestamps) vk.vkDestroyQueryPool(d->device, d->timestamps, NULL);
  if (d->fence) vk.vkDestroyFence(d->device, d->fence, NULL);
  if (d->pool) vk.vkDestroyCommandPool(d->device, d->pool, NULL);
  vk.vkDestroyDevice(d->device, NULL);
  d->device = VK_NULL_HANDLE;
}

VkResult gvk_buffer_create(gvk_device* d, uint64_t size, const uint32_t* prefs,
                           int npref, gvk_buffer* out) {
  memset(out, 0, sizeof(*out));
  out->size = size;
  VkBufferCreateInfo bci = {
      .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
      // Whole 32-bit words, so that shaders may access the last bytes of a
      // binding through a uint.
      .size = size ? (size + 3) & ~(uint64_t)3 : 4,
      .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      .sharingMode = VK_SHARING_MODE_EXCLUSIVE,
  };
  VkResult r = vk.vkCreateBuffer(d->device, &bci, NULL, &out->buffer);
  if (r != VK_SUCCESS) return r;
  VkMemoryRequirements req;
  vk.vkGetBufferMemoryRequirements(d->device, out->buffer, &req);
  r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
  for (int p = 0; p < npref; p++) {
    for (uint32_t i = 0; i < d->memory.memoryTypeCount; i++) {
      uint32_t flags = d->memory.memoryTypes[i].propertyFlags;
      if (!(req.memoryTypeBits & (1u << i)) || (flags & prefs[p]) != prefs[p]) {
        continue;
      }
      VkMemoryDedicatedAllocateInfo dai = {
          .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
          .buffer = out->buffer,
      };
      VkMemoryAllocateInfo ai = {
          .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
          .pNext = d->dedicated ? &dai : NULL,
          .allocationSize = req.size,
          .memoryTypeIndex = i,
      };
      r = vk.vkAllocateMemory(d->device, &ai, NULL, &out->memory);
      if (r != VK_SUCCESS) continue;
      out->property_flags = flags;
      out->memory_type = i;
      out->memory_size = req.size;
      out->alignment = req.alignment;
      goto allocated;
    }
  }
  vk.vkDestroyBuffer(d->device, out->buffer, NULL);
  out->buffer = VK_NULL_HANDLE;
  return r;
allocated:
  r = vk.vkBindBufferMemory(d->device, out->buffer, out->memory, 0);
  if (r == VK_SUCCESS && (out->property_flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) {
    r = vk.vkMapMemory(d->device, out->memory, 0, VK_WHOLE_SIZE, 0, &out->mapped);
  }
  if (r != VK_SUCCESS) gvk_buffer_destroy(d, out);
  return r;
}

void gvk_buffer_destroy(gvk_device* d, gvk_buffer* b) {
  if (b->mapped) vk.vkUnmapMemory(d->device, b->memory);
  if (b->buffer) vk.vkDestroyBuffer(d->device, b->buffer, NULL);
  if (b->memory) vk.vkFreeMemory(d->device, b->memory, NULL);
  memset(b, 0, sizeof(*b));
}

VkResult gvk_executable_create(gvk_device* d, const uint32_t* code,
                               size_t words, uint32_t count, const char* names,
                               const uint32_t* constant_counts,
                               const uint32_t* binding_counts,
                               gvk_executable** out, int* failed) {
  *failed = -1;
  gvk_executable* e = calloc(1, sizeof(*e));
  if (!e) return VK_ERROR_OUT_OF_HOST_MEMORY;
  e->set_layouts = calloc(count, sizeof(VkDescriptorSetLayout));
  e->layouts = calloc(count, sizeof(VkPipelineLayout));
  e->pipelines = calloc(count, sizeof(VkPipeline));
  e->constant_counts = calloc(count, sizeof(uint32_t));
  e->binding_counts = calloc(count, sizeof(uint32_t));
  if (!e->set_layouts || !e->layouts || !e->pipelines || !e->constant_counts ||
      !e->binding_counts) {
    gvk_executable_destroy(d, e);
    return VK_ERROR_OUT_OF_HOST_MEMORY;
  }
  e->count = count;
  VkShaderModuleCreateInfo smci = {
      .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
      .codeSize = words * 4,
      .pCode = code,
  };
  VkResult r = vk.vkCreateShaderModule(d->device, &smci, NULL, &e->module);
  if (r != VK_SUCCESS) {
    gvk_executable_destroy(d, e);
    return r;
  }
  const char* name = names;
  for (uint32_t i = 0; i < count; i++, name += strlen(name) + 1) {
    e->constant_counts[i] = constant_counts[i];
    e->binding_counts[i] = binding_counts[i];
    VkDescriptorSetLayoutBinding binds[64];
    uint32_t nb = binding_counts[i] > 64 ? 64 : binding_counts[i];
    for (uint32_t b = 0; b < nb; b++) {
      binds[b] = (VkDescriptorSetLayoutBinding){
          .binding = b,
          .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
          .descriptorCount = 1,
          .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
      };
    }
    VkDescriptorSetLayoutCreateInfo dsci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = nb,
        .pBindings = binds,
    };
    r = vk.vkCreateDescriptorSetLayout(d->device, &dsci, NULL, &e->set_layouts[i]);
    if (r != VK_SUCCESS) break;
    VkPushConstantRange range = {
        .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
        .offset = 0,
        .size = 4 * constant_counts[i],
    };
    VkPipelineLayoutCreateInfo plci = {
        .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
        .setLayoutCount = 1,
        .pSetLayouts = &e->set_layouts[i],
        .pushConstantRangeCount = constant_counts[i] ? 1 : 0,
        .pPushConstantRanges = &range,
    };
    r = vk.vkCreatePipelineLayout(d->device, &plci, NULL, &e->layouts[i]);
    if (r != VK_SUCCESS) break;
    VkComputePipelineCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage =
            {
                .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                .module = e->module,
                .pName = name,
            },
        .layout = e->layouts[i],
    };
    r = vk.vkCreateComputePipelines(d->device, VK_NULL_HANDLE, 1, &cpci, NULL,
                                    &e->pipelines[i]);
    if (r != VK_SUCCESS) break;
  }
  if (r != VK_SUCCESS) {
    for (uint32_t i = 0; i < count; i++) {
      if (!e->pipelines[i]) {
        *failed = (int)i;
        break;
      }
    }
    gvk_executable_destroy(d, e);
    return r;
  }
  *out = e;
  return VK_SUCCESS;
}

void gvk_executable_destroy(gvk_device* d, gvk_executable* e) {
  if (!e) return;
  for (uint32_t i = 0; i < e->count; i++) {
    if (e->pipelines && e->pipelines[i])
      vk.vkDestroyPipeline(d->device, e->pipelines[i], NULL);
    if (e->layouts && e->layouts[i])
      vk.vkDestroyPipelineLayout(d->device, e->layouts[i], NULL);
    if (e->set_layouts && e->set_layouts[i])
      vk.vkDestroyDescriptorSetLayout(d->device, e->set_layouts[i], NULL);
  }
  if (e->module) vk.vkDestroyShaderModule(d->device, e->module, NULL);
  free(e->set_layouts);
  free(e->layouts);
  free(e->pipelines);
  free(e->constant_counts);
  free(e->binding_counts);
  free(e);
}

static void full_barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                       VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
  };
  vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          0, 1, &mb, 0, NULL, 0, NULL);
}

// host_barrier makes device writes visible to host reads of mapped memory.
static void host_barrier(VkCommandBuffer cb) {
  VkMemoryBarrier mb = {
      .sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
      .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
      .dstAccessMask = VK_ACCESS_HOST_READ_BIT,
  };
  vk.vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                          VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

#define GVK_NEED(k)                                              \
  if (i + (k) > n) {                                             \
    snprintf(err, err_len, "truncated command stream at %zu", i); \
    r = VK_ERROR_UNKNOWN;                                        \
    goto done;                                                   \
  }

VkResult gvk_submit(gvk_device* d, const uint64_t* s, size_t n,
                    uint32_t ndispatch, uint32_t nbinding, uint64_t* device_ns,
                    char* err, size_t err_len) {
  VkResult r;
  int timed = device_ns != NULL && d->timestamps != VK_NULL_HANDLE;
  if (device_ns) *device_ns = 0;
  VkDescriptorPool dpool = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkDescriptorBufferInfo infos[64];
  VkWriteDescriptorSet writes[64];
  if (ndispatch > 0) {
    // The device keeps one descriptor pool, reset for each submission
    // (submissions are serialised and waited for) and grown when a
    // submission needs more sets or descriptors than it holds.
    uint32_t nb = nbinding ? nbinding : 1;
    if (d->dpool && d->dpool_sets >= ndispatch && d->dpool_descriptors >= nb) {
      r = vk.vkResetDescriptorPool(d->device, d->dpool, 0);
      if (r != VK_SUCCESS) {
        snprintf(err, err_len, "vkResetDescriptorPool");
        return r;
      }
    } else {
      if (d->dpool) vk.vkDestroyDescriptorPool(d->device, d->dpool, NULL);
      d->dpool = VK_NULL_HANDLE;
      uint32_t sets = ndispatch > 2 * d->dpool_sets ? ndispatch : 2 * d->dpool_sets;
      uint32_t descs = nb > 2 * d->dpool_descriptors ? nb : 2 * d->dpool_descriptors;
      if (sets < 16) sets = 16;
      if (descs < 64) descs = 64;
      VkDescriptorPoolSize ps = {
          .type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
          .descriptorCount = descs,
      };
      VkDescriptorPoolCreateInfo dpci = {
          .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
          .maxSets = sets,
          .poolSizeCount = 1,
          .pPoolSizes = &ps,
      };
      r = vk.vkCreateDescriptorPool(d->device, &dpci, NULL, &d->dpool);
      if (r != VK_SUCCESS) {
        d->dpool = VK_NULL_HANDLE;
        d->dpool_sets = d->dpool_descriptors = 0;
        snprintf(err, err_len, "vkCreateDescriptorPool");
        return r;
      }
      d->dpool_sets = sets;
      d->dpool_descriptors = descs;
    }
    dpool = d->dpool;
  }
  VkCommandBufferAllocateInfo cai = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
      .commandPool = d->pool,
      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
      .commandBufferCount = 1,
  };
  r = vk.vkAllocateCommandBuffers(d->device, &cai, &cb);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkAllocateCommandBuffers");
    cb = VK_NULL_HANDLE;
    goto done;
  }
  VkCommandBufferBeginInfo bi = {
      .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
  };
  r = vk.vkBeginCommandBuffer(cb, &bi);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkBeginCommandBuffer");
    goto done;
  }
  if (timed) {
    vk.vkCmdResetQueryPool(cb, d->timestamps, 0, 2);
    vk.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, d->timestamps, 0);
  }
  int first = 1;
  for (size_t i = 0; i < n;) {
    uint64_t op = s[i++];
    if (!first && op != GVK_CMD_BARRIER) full_barrier(cb);
    first = 0;
    switch (op) {
      case GVK_CMD_FILL: {
        GVK_NEED(4);
        vk.vkCmdFillBuffer(cb, (VkBuffer)s[i], s[i + 1], s[i + 2], (uint32_t)s[i + 3]);
        i += 4;
        break;
      }
      case GVK_CMD_COPY: {
        GVK_NEED(5);
        VkBufferCopy region = {.srcOffset = s[i + 1], .dstOffset = s[i + 3], .size = s[i + 4]};
        vk.vkCmdCopyBuffer(cb, (VkBuffer)s[i], (VkBuffer)s[i + 2], 1, &region);
        i += 5;
        break;
      }
      case GVK_CMD_DISPATCH: {
        GVK_NEED(6);
        gvk_executable* e = (gvk_executable*)(uintptr_t)s[i];
        uint32_t ord = (uint32_t)s[i + 1];
        uint32_t x = (uint32_t)s[i + 2], y = (uint32_t)s[i + 3], z = (uint32_t)s[i + 4];
        uint32_t nc = (uint32_t)s[i + 5];
        i += 6;
        GVK_NEED(nc + 1);
        uint32_t consts[64];
        for (uint32_t c = 0; c < nc && c < 64; c++) consts[c] = (uint32_t)s[i + c];
        i += nc;
        uint32_t nb = (uint32_t)s[i++];
        GVK_NEED(3 * (size_t)nb);
        if (ord >= e->count || nb > 64 || nc > 64) {
          snprintf(err, err_len, "bad dispatch of entry point %u", ord);
          r = VK_ERROR_UNKNOWN;
          goto done;
        }
        VkDescriptorSetAllocateInfo dsai = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
            .descriptorPool = dpool,
            .descriptorSetCount = 1,
            .pSetLayouts = &e->set_layouts[ord],
        };
        VkDescriptorSet set;
        r = vk.vkAllocateDescriptorSets(d->device, &dsai, &set);
        if (r != VK_SUCCESS) {
          snprintf(err, err_len, "vkAllocateDescriptorSets");
          goto done;
        }
        for (uint32_t b = 0; b < nb; b++) {
          infos[b] = (VkDescriptorBufferInfo){
              .buffer = (VkBuffer)s[i + 3 * b],
              .offset = s[i + 3 * b + 1],
              .range = s[i + 3 * b + 2],
          };
          writes[b] = (VkWriteDescriptorSet){
              .sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
              .dstSet = set,
              .dstBinding = b,
              .descriptorCount = 1,
              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
              .pBufferInfo = &infos[b],
          };
        }
        i += 3 * (size_t)nb;
        if (nb) vk.vkUpdateDescriptorSets(d->device, nb, writes, 0, NULL);
        vk.vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e->pipelines[ord]);
        vk.vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, e->layouts[ord], 0, 1,
                                   &set, 0, NULL);
        if (nc) {
          vk.vkCmdPushConstants(cb, e->layouts[ord], VK_SHADER_STAGE_COMPUTE_BIT, 0, 4 * nc,
                                consts);
        }
        vk.vkCmdDispatch(cb, x, y, z);
        break;
      }
      case GVK_CMD_BARRIER:
        full_barrier(cb);
        break;
      default:
        snprintf(err, err_len, "unknown command %llu in stream", (unsigned long long)op);
        r = VK_ERROR_UNKNOWN;
        goto done;
    }
  }
  if (timed) {
    vk.vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, d->timestamps, 1);
  }
  host_barrier(cb);
  r = vk.vkEndCommandBuffer(cb);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkEndCommandBuffer");
    goto done;
  }
  VkSubmitInfo si = {
      .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
      .commandBufferCount = 1,
      .pCommandBuffers = &cb,
  };
  r = vk.vkResetFences(d->device, 1, &d->fence);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkResetFences");
    goto done;
  }
  r = vk.vkQueueSubmit(d->queue, 1, &si, d->fence);
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "vkQueueSubmit");
    goto done;
  }
  // Poll the fence for up to spin_ns first, as CUDA's default event
  // synchronisation spins (a blocking wait wakes tens of microseconds
  // late), then block.
  {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
      r = vk.vkGetFenceStatus(d->device, d->fence);
      if (r != VK_NOT_READY) break;
      clock_gettime(CLOCK_MONOTONIC, &t);
      if ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) >= d->spin_ns) {
        r = vk.vkWaitForFences(d->device, 1, &d->fence, VK_TRUE, UINT64_MAX);
        break;
      }
    }
  }
  if (r != VK_SUCCESS) {
    snprintf(err, err_len, "waiting for the submission's fence");
    goto done;
  }
  if (timed) {
    uint64_t ts[2] = {0, 0};
    r = vk.vkGetQueryPoolResults(d->device, d->timestamps, 0, 2, sizeof(ts), ts, sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) {
      snprintf(err, err_len, "vkGetQueryPoolResults");
      goto done;
    }
    uint64_t mask = d->timestamp_bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << d->timestamp_bits) - 1);
    uint64_t ticks = (ts[1] - ts[0]) & mask;
    *device_ns = (uint64_t)((double)ticks * d->timestamp_period);
  }
done:
  if (cb) vk.vkFreeCommandBuffers(d->device, d->pool, 1, &cb);
  return r;
}

const char* gvk_result_name(VkResult r) {
  switch (r) {
#define GVK_NAME(x) \
  case x:           \
    return #x;
    GVK_NAME(VK_SUCCESS)
    GVK_NAME(VK_NOT_READY)
    GVK_NAME(VK_TIMEOUT)
    GVK_NAME(VK_EVENT_SET)
    GVK_NAME(VK_EVENT_RESET)
    GVK_NAME(VK_INCOMPLETE)
    GVK_NAME(VK_ERROR_OUT_OF_HOST_MEMORY)
    GVK_NAME(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    GVK_NAME(VK_ERROR_INITIALIZATION_FAILED)
    GVK_NAME(VK_ERROR_DEVICE_LOST)
    GVK_NAME(VK_ERROR_MEMORY_MAP_FAILED)
    GVK_NAME(VK_ERROR_LAYER_NOT_PRESENT)
    GVK_NAME(VK_ERROR_EXTENSION_NOT_PRESENT)
    GVK_NAME(VK_ERROR_FEATURE_NOT_PRESENT)
    GVK_NAME(VK_ERROR_INCOMPATIBLE_DRIVER)
    GVK_NAME(VK_ERROR_TOO_MANY_OBJECTS)
    GVK_NAME(VK_ERROR_FORMAT_NOT_SUPPORTED)
    GVK_NAME(VK_ERROR_FRAGMENTED_POOL)
    GVK_NAME(VK_ERROR_UNKNOWN)
    GVK_NAME(VK_ERROR_OUT_OF_POOL_MEMORY)
    GVK_NAME(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    GVK_NAME(VK_ERROR_FRAGMENTATION)
    GVK_NAME(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    GVK_NAME(VK_ERROR_INVALID_SHADER_NV)
#undef GVK_NAME
    default:
      return "VK_RESULT_UNKNOWN";
  }
}
