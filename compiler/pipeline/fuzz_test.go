package pipeline

import (
	"testing"

	"github.com/goiree/goiree/compiler/transforms"
)

// FuzzCompile runs the whole front end on arbitrary text; it must never
// panic (objects are generally not found, which is an ordinary error).
func FuzzCompile(f *testing.F) {
	f.Add("func.func private @g()\n")
	f.Fuzz(func(t *testing.T, src string) {
		_, _ = Compile("fuzz.mlir", []byte(src), Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu", "cuda", "vulkan-spirv"}}}, "hal")
	})
}
