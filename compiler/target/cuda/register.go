package cuda

import (
	"fmt"

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

// tf32Flag lets f32 matmuls use tensor cores in TF32 (TF32Key). IREE has
// no such flag (its LLVMGPU mma.sync pipeline always lowers f32 to TF32);
// the name follows torch.backends.cuda.matmul.allow_tf32, and the default
// keeps f32 matmuls exact.
const tf32Flag = "iree-cuda-allow-tf32"

// acc16Flag lets matmuls with 16-bit accumulators sum in f32 on tensor
// cores (Accumulate16Key); the default keeps the program's rounding.
const acc16Flag = "iree-cuda-accumulate-16bit-in-f32"

// configureTarget records --iree-cuda-allow-tf32=true and
// --iree-cuda-accumulate-16bit-in-f32=true in an executable target that
// flags chose (allow_tf32 = true, accumulate_16bit_in_f32 = true),
// unless it says already.
func configureTarget(t *hal.ExecutableTargetAttr, flags map[string]string) error {
	for _, f := range []struct{ flag, key string }{{tf32Flag, TF32Key}, {acc16Flag, Accumulate16Key}} {
		v, ok := flags[f.flag]
		if !ok {
			continue
		}
		var on bool
		switch v {
		case "true", "1":
			on = true
		case "false", "0":
		default:
			return fmt.Errorf("--%s=%s: the value must be true or false", f.flag, v)
		}
		if !on || t.Config.Get(f.key) != nil {
			continue
		}
		if t.Config == nil {
			t.Config = &ir.DictAttr{}
		}
		t.Config.Entries = append(t.Config.Entries, ir.NamedAttr{Name: f.key, Value: ir.BoolAttr{Value: true}})
	}
	return nil
}

func init() {
	target.Register(target.Target{
		Name:                    Backend,
		Device:                  "cuda",
		DefaultExecutableTarget: DefaultExecutableTarget,
		Flags: []target.Flag{
			{Name: tf32Flag, Value: "true|false", Help: "f32 matmuls run on tensor cores in TF32 from sm_80 (operands rounded to 10-bit significands, sums in f32; as allow_tf32 = true in the target's configuration); default false: f32 matmuls stay exact"},
			{Name: acc16Flag, Value: "true|false", Help: "matmuls accumulating in f16 or bf16 run on tensor cores from sm_80, summing in f32 and rounding once (as accumulate_16bit_in_f32 = true in the target's configuration); default false: they round every step as written, in the tiled kernel"},
		},
		// --iree-cuda-allow-tf32 and --iree-cuda-accumulate-16bit-in-f32
		// go into the executable targets that flags choose.
		ConfigureExecutableTarget: configureTarget,
		// Loop-nest kernels become PTX (loopnest.go).
		LoopNests: true,
		// Many workgroups, a grid split into rows past 65,535 (the
		// kernels linearize it) and matmuls in blocks of 128 rows whose
		// column blocks have a workgroup each (z).
		LoopNestWorkgroups: gpuloops.Workgroups,
		LoopNestGridLimit:  gpuloops.GridLimit,
		LoopNestGroups:     true,
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
