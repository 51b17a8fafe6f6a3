package vulkan

import "fmt"

// checkStorageBuffers refuses an entry point with more storage-buffer
// bindings than the device's maxPerStageDescriptorStorageBuffers: every
// binding is a storage buffer of the compute stage, and a driver given
// more may fail or crash when the pipeline layout is created (lavapipe
// does past 32) rather than report an error. A limit of 0 (not reported)
// checks nothing.
func checkStorageBuffers(entry string, bindings int, device string, limit uint32) error {
	if limit == 0 || uint32(bindings) <= limit {
		return nil
	}
	return fmt.Errorf("entry point %q binds %d storage buffers, beyond device %q's maxPerStageDescriptorStorageBuffers %d", entry, bindings, device, limit)
}

// maxStorageBuffers is the device's maxPerStageDescriptorStorageBuffers.
func (d *Device) maxStorageBuffers() int { return int(d.dev.max_storage_buffers) }
