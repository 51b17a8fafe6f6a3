// Package local runs CPU executables on the host: it defines the executable
// C ABI (executable_library.h, also available as ABIHeader), loads
// libraries with the Go ELF loader of package elf, validates their export
// tables, and calls their entry points through a small cgo trampoline that
// runs a whole range of workgroups per crossing into C.
//
// The local-sync and local-task drivers build on Executable and Dispatch;
// ExecutableCache implements hal.ExecutableCache for both. Supported formats
// are listed by Formats; "embedded-elf-x86_64" runs on x86-64 hosts and
// "embedded-elf-arm_64" is recognised but refused on other hosts with a
// clear error; "vmvx-bytecode-fb" (package vmvx) is interpreted by the VM
// on every host.
package local

import _ "embed"

// ABIHeader is the text of executable_library.h, for tools and tests that
// compile kernels or shims against the ABI.
//
//go:embed executable_library.h
var ABIHeader string

// LibraryVersion is IREE_HAL_EXECUTABLE_LIBRARY_VERSION_LATEST.
const LibraryVersion = 0x474F0001

// QuerySymbol is the name of the library query function.
const QuerySymbol = "iree_hal_executable_library_query"

// LocalMemoryPageSize is IREE_HAL_WORKGROUP_LOCAL_MEMORY_PAGE_SIZE.
const LocalMemoryPageSize = 4096
