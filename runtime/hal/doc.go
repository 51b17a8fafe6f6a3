// Package hal is the hardware abstraction layer of the runtime: the
// driver-independent API through which host programs allocate buffers,
// record command buffers, prepare executables and submit work to devices.
//
// The object model follows IREE's HAL:
//
//   - A Driver is registered by name in a Registry and creates Devices from
//     URIs of the form "<driver>[://<index>]" (see ParseDeviceURI).
//   - A Device owns an Allocator, creates ExecutableCaches and Semaphores,
//     and executes CommandBuffers with QueueExecute.
//   - A Buffer is a byte range of an allocation; Subspan narrows it and Map
//     gives bounds-checked host access. A BufferView adds a shape, an element
//     type and an encoding.
//   - A CommandBuffer records fill, update, copy, dispatch and barrier
//     commands and validates each one as it is recorded, so that a bad
//     binding range or constant count is reported with a precise message
//     before any device sees it.
//   - Semaphores are host timelines with uint64 payloads; a Fence is a set of
//     (semaphore, value) points.
//
// All byte arithmetic is done in int64 with explicit overflow checks. Errors
// carry a status Code (see Error and CodeOf).
package hal
