// Package cuda holds the Go code flatc generates from
// cuda_executable_def.fbs, the payload of a "cuda-nvptx-fb" executable:
// entry points, block sizes, shared memory sizes and one PTX image per
// target architecture (ptx_images, keyed by "sm_XY"; payloads written
// before it have one ptx_image, which decodes as the image of its
// .target), plus Executable, its Marshal/Unmarshal, and Arch, the
// architecture names and which devices run their PTX. Each image may
// carry, per entry point, the code generation configuration the compiler
// chose for that architecture (configs: pipeline, workgroup size,
// subgroup size, tile sizes per level; package
// runtime/schemas/kernelconfig), which differs between images where the
// arch changes the kernel (tensor cores from sm_80); payloads written
// before configs existed, and external PTX, have none.
//
// The generated accessors do no bounds checking and panic on malformed
// input: verify a buffer with
// github.com/goiree/goiree/runtime/schemas/fbverify before reading it.
package cuda

import _ "embed"

// Schema is the text of cuda_executable_def.fbs.
//
//go:embed cuda_executable_def.fbs
var Schema string

// FileIdentifier is the FlatBuffers file identifier of a CUDA payload.
const FileIdentifier = "CUDA"

// Format is the HAL executable format string of a CUDA payload.
const Format = "cuda-nvptx-fb"
