package vulkan

// MaxStorageBuffers exposes the device's maxPerStageDescriptorStorageBuffers
// to the external tests.
func MaxStorageBuffers(d *Device) int { return d.maxStorageBuffers() }
