// Package hal is the "hal" native VM module: the functions compiled host
// programs import to drive a HAL device (allocate buffers, build buffer
// views, prepare executables, record and submit command buffers, wait on
// fences). The imports, with their calling conventions and semantics, are
// listed in IMPORTS.md next to this file; the compiler back end emits calls
// to exactly those names and signatures.
//
// HAL objects cross the VM boundary as refs of the types registered in this
// package (hal.buffer, hal.buffer_view, hal.device, hal.command_buffer,
// hal.executable, hal.fence, hal.semaphore, hal.allocator).
//
// Import it under another name where the runtime's hal package is also
// used:
//
//	import halmodule "github.com/goiree/goiree/runtime/modules/hal"
package hal
