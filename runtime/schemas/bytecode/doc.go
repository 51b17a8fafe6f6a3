// Package bytecode holds the Go code flatc generates from
// bytecode_module_def.fbs, the schema of a VM module (.vmfb): the
// BytecodeModuleDef root table with its imports, exports, function
// descriptors, bytecode, rodata segments and debug database.
//
// The generated accessors do no bounds checking and panic on malformed
// input: verify a buffer with
// github.com/goiree/goiree/runtime/schemas/fbverify before reading it.
package bytecode

import _ "embed"

// Schema is the text of bytecode_module_def.fbs.
//
//go:embed bytecode_module_def.fbs
var Schema string

// FileIdentifier is the FlatBuffers file identifier of a module.
const FileIdentifier = "IREE"
