// Package spirv holds the Go code flatc generates from
// spirv_executable_def.fbs, the payload of a "vulkan-spirv-fb" executable:
// entry points, optional subgroup sizes, per-entry layout counts, the
// SPIR-V code words and, for generated code, each entry point's code
// generation configuration (configs: pipeline, workgroup size, subgroup
// size, tile sizes per level; package runtime/schemas/kernelconfig;
// absent in payloads written before configs existed).
//
// The generated accessors do no bounds checking and panic on malformed
// input: verify a buffer with
// github.com/goiree/goiree/runtime/schemas/fbverify before reading it.
package spirv

import _ "embed"

// Schema is the text of spirv_executable_def.fbs.
//
//go:embed spirv_executable_def.fbs
var Schema string

// FileIdentifier is the FlatBuffers file identifier of a SPIR-V payload.
const FileIdentifier = "SPVE"

// Format is the HAL executable format string of a SPIR-V payload.
const Format = "vulkan-spirv-fb"
