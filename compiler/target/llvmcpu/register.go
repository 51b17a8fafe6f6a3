package llvmcpu

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// Flags of the llvm-cpu target, by name without dashes.
const (
	clangFlag  = "iree-llvmcpu-clang-path"
	linkerFlag = "iree-llvmcpu-embedded-linker-path"
	cpuFlag    = "iree-llvmcpu-target-cpu"
	featFlag   = "iree-llvmcpu-target-cpu-features"
)

// DefaultExecutableTarget is the executable target a program gets for
// --iree-hal-target-backends=llvm-cpu or the local device: x86-64
// embedded ELF, as IREE's host default.
func DefaultExecutableTarget() *hal.ExecutableTargetAttr {
	return &hal.ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64", Config: &ir.DictAttr{Entries: []ir.NamedAttr{
		{Name: "data_layout", Value: ir.StringAttr{Value: "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"}},
		{Name: "native_vector_size", Value: ir.IndexAttr(32)},
		{Name: "target_triple", Value: ir.StringAttr{Value: Triples["embedded-elf-x86_64"]}},
	}}}
}

func init() {
	target.Register(target.Target{
		Name:      "llvm-cpu",
		Device:    "local",
		Fallback:  true, // generated dispatches of a program without targets run on the host
		LoopNests: true,
		// Every path of the loop-nest code generator applies epilogues
		// (see loopNest and matmulNest).
		LoopNestEpilogues: true,
		// Row groups run a workgroup's rows one after another (group.go).
		LoopNestGroups: true,
		Flags: []target.Flag{
			{Name: clangFlag, Value: "<path>", Help: "clang used for CPU executables (default: clang-16 or clang on PATH)"},
			{Name: linkerFlag, Aliases: []string{"iree-llvm-embedded-linker-path"}, Value: "<path>", Help: "ld.lld used for CPU executables (default: ld.lld-16 or ld.lld on PATH)"},
			{Name: cpuFlag, Aliases: []string{"iree-llvm-target-cpu"}, Value: "host|<name>", Help: "CPU the generated code may use (host: this machine; default: the triple's baseline)"},
			{Name: featFlag, Aliases: []string{"iree-llvm-target-cpu-features"}, Value: "<+feature,...>", Help: "extra CPU features for the generated code, e.g. +avx2,+fma"},
		},
		DefaultExecutableTarget: DefaultExecutableTarget,
		NewBuilder: func(env target.Env) target.Builder {
			o := Options{
				ClangPath:      env.Flags[clangFlag],
				LinkerPath:     env.Flags[linkerFlag],
				CPU:            env.Flags[cpuFlag],
				CPUFeatures:    env.Flags[featFlag],
				DumpSourcesTo:  env.DumpSourcesTo,
				DumpBinariesTo: env.DumpBinariesTo,
			}
			if env.Objects != nil {
				o.Objects = env.Objects
			}
			return NewBuilder(o)
		},
	})
}

// NewBuilder returns the builder the registry uses: a variant that is a
// complete executable library (see prebuiltLibrary) is embedded as it is,
// every other one is generated, compiled and linked by Build.
func NewBuilder(o Options) target.Builder {
	return registeredBuilder{gen: Builder{Options: o}, objects: o.Objects}
}
