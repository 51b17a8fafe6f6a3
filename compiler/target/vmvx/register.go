package vmvx

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/target"
	rvmvx "github.com/goiree/goiree/runtime/hal/local/vmvx"
)

// DefaultExecutableTarget is the executable target a program gets for
// --iree-hal-target-backends=vmvx or
// --iree-hal-local-target-device-backends=vmvx, as IREE spells it.
func DefaultExecutableTarget() *hal.ExecutableTargetAttr {
	return &hal.ExecutableTargetAttr{Backend: "vmvx", Format: rvmvx.Format}
}

func init() {
	target.Register(target.Target{
		Name:                    "vmvx",
		Device:                  "local",
		Explicit:                true, // llvm-cpu stays the local device's default
		LoopNestEpilogues:       true,
		LoopNests:               true,
		DefaultExecutableTarget: DefaultExecutableTarget,
		NewBuilder: func(env target.Env) target.Builder {
			return Builder{DumpSourcesTo: env.DumpSourcesTo, DumpBinariesTo: env.DumpBinariesTo}
		},
	})
}
