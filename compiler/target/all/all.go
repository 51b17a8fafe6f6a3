// Package all links every code generation target into a program: importing
// it (for its side effects) registers each target with package target. It
// is the one place that lists them.
package all

import (
	// Each import registers its target from init.
	_ "github.com/goiree/goiree/compiler/target/cuda"
	_ "github.com/goiree/goiree/compiler/target/llvmcpu"
	_ "github.com/goiree/goiree/compiler/target/vmvx"
	_ "github.com/goiree/goiree/compiler/target/vulkan"
)
