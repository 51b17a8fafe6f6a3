package cuda

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// DefaultExecutableTarget is the executable target a program gets for
// --iree-hal-target-backends=cuda or the cuda device: PTX for DefaultArch.
func DefaultExecutableTarget() *hal.ExecutableTargetAttr {
	return &hal.ExecutableTargetAttr{Backend: Backend, Format: Format, Config: &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "target_arch", Value: ir.StringAttr{Value: DefaultArch}},
	}}}
}

func init() {
	target.Register(target.Target{
		Name:                    Backend,
		Device:                  "cuda",
		DefaultExecutableTarget: DefaultExecutableTarget,
		// Loop-nest kernels become PTX (loopnest.go).
		LoopNests: true,
		// Many workgroups, a grid split into rows past 65,535 (the
		// kernels linearize it) and matmuls in blocks of 128 rows whose
		// column blocks have a workgroup each (z).
		LoopNestWorkgroups: gpuloops.Workgroups,
		LoopNestGridLimit:  gpuloops.GridLimit,
		LoopNestMinTile:    func(_ *hal.ExecutableTargetAttr, d *ir.DictAttr) int64 { return gpuloops.MinTile(d) },
		LoopNestSplit:      func(_ *hal.ExecutableTargetAttr, d *ir.DictAttr) int64 { return splitOf(d) },
		NewBuilder: func(env target.Env) target.Builder {
			o := Options{DumpSourcesTo: env.DumpSourcesTo, DumpBinariesTo: env.DumpBinariesTo}
			if env.Objects != nil {
				o.Objects = env.Objects
			}
			return Builder{Options: o}
		},
	})
}
