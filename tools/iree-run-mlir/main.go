// Command iree-run-mlir compiles an MLIR program and runs it in one step,
// as IREE's tool does: iree-compile's flags choose the targets,
// iree-run-module's flags the device, function, inputs and outputs.
//
//	iree-run-mlir --Xcompiler,iree-hal-target-backends=llvm-cpu prog.mlir --input=4xf32=1,2,3,4
//	iree-run-mlir --device=local-task prog.mlir --function=main --input=f32=2
//	iree-run-mlir --iree-hal-target-backends=vmvx prog.mlir     (every exported function, in order)
//
// A compiler flag is written --Xcompiler,<flag>=<value>, or after "--", or
// plainly when it is one iree-compile knows (--iree-hal-target-backends=...);
// --Xruntime,<flag> marks a runtime flag. With no target flag, the target
// follows the --device (local-* → llvm-cpu, cuda → cuda, vulkan →
// vulkan-spirv); with no --device, the device follows the target (llvm-cpu
// and vmvx → local-task). With no --function, a module exporting one
// function runs it; one exporting several runs each in turn, in one
// context. Nothing is written to disk.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/pdl"
	"github.com/goiree/goiree/compiler/dialect/transform"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target"
	_ "github.com/goiree/goiree/compiler/target/all" // the targets iree-run-mlir compiles for
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/compileflags"
	"github.com/goiree/goiree/tools/internal/panicguard"
	"github.com/goiree/goiree/tools/internal/runmodule"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

func main() {
	args := os.Args[1:]
	os.Exit(panicguard.Run(args, os.Stderr, func() int { return run(args, os.Stdin, os.Stdout, os.Stderr) }))
}

var help = toolflags.Help{
	Usage:       "iree-run-mlir [flags] <file.mlir or - for stdin> [-- compiler flags]",
	Description: "Compiles an MLIR program (iree-compile's flags, written --Xcompiler,<flag> or plainly) and runs a function\nof it on a HAL device (iree-run-module's flags), printing the results as iree-run-module does.",
	Examples: []string{
		"iree-run-mlir --Xcompiler,iree-hal-target-backends=llvm-cpu prog.mlir --input=4xf32=1,2,3,4",
		"iree-run-mlir --device=vulkan prog.mlir --function=main --input=f32=2",
	},
	Groups: append([]toolflags.Group{{Title: "Function", Flags: runmodule.FunctionFlags}}, runmodule.FlagGroups...),
}

// driverTargets maps a --device driver to the target backend that
// compiles for it, when no target flag is given.
var driverTargets = map[string]string{"local-sync": "llvm-cpu", "local-task": "llvm-cpu", "local": "llvm-cpu", "cuda": "cuda", "vulkan": "vulkan-spirv"}

// splitArgs sorts args into the source file, compiler flags and runtime
// flags.
func splitArgs(args []string, cf *compileflags.Flags, fs *flag.FlagSet) (sources []string, runtime []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			for _, c := range args[i+1:] {
				if err := setCompiler(cf, c); err != nil {
					return nil, nil, err
				}
			}
			return sources, runtime, nil
		case a == "-" || !strings.HasPrefix(a, "-"):
			sources = append(sources, a)
		case strings.HasPrefix(strings.TrimLeft(a, "-"), "Xcompiler") || strings.HasPrefix(strings.TrimLeft(a, "-"), "Xruntime"):
			kind, rest, _ := strings.Cut(strings.TrimLeft(a, "-"), ",")
			if rest == "" {
				if i+1 >= len(args) {
					return nil, nil, fmt.Errorf("%s needs a flag after it (--%s,<flag>=<value> or --%s --<flag>=<value>)", a, kind, kind)
				}
				i++
				rest = args[i]
			}
			rest = "--" + strings.TrimLeft(rest, "-")
			if kind == "Xcompiler" {
				if err := setCompiler(cf, rest); err != nil {
					return nil, nil, err
				}
			} else if kind == "Xruntime" {
				runtime = append(runtime, rest)
			} else {
				return nil, nil, fmt.Errorf("unknown flag %s", a)
			}
		default:
			name, value, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if handled, err := cf.Set(a, name, value, has); handled {
				if err != nil {
					return nil, nil, err
				}
				continue
			}
			runtime = append(runtime, a)
			// A runtime flag that takes a value may have it next.
			if f := fs.Lookup(name); f != nil && !has && !isBool(f) && i+1 < len(args) {
				i++
				runtime = append(runtime, args[i])
			}
		}
	}
	return sources, runtime, nil
}

// setCompiler applies one compiler flag.
func setCompiler(cf *compileflags.Flags, a string) error {
	name, value, has := strings.Cut(strings.TrimLeft(a, "-"), "=")
	handled, err := cf.Set(a, name, value, has)
	if err != nil {
		return err
	}
	if !handled {
		return fmt.Errorf("compiler flag %s is not supported by iree-run-mlir (it takes the flags that choose targets, objects, kernel-source tools, dumps and optimization levels; compile with iree-compile for the rest)", a)
	}
	return nil
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o runmodule.Options
	o.EveryFunction = true
	fs := flag.NewFlagSet("iree-run-mlir", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := runmodule.AddFlags(fs, &o); err != nil {
		return toolflags.Report(stderr, err)
	}
	toolflags.AddLoggingFlags(fs)
	fs.Usage = func() { toolflags.PrintHelp(stdout, fs, help) }
	cf := compileflags.New()
	sources, runtimeArgs, err := splitArgs(args, cf, fs)
	if err != nil {
		return toolflags.Report(stderr, err)
	}
	if err := toolflags.Parse(fs, runtimeArgs); err != nil {
		if err == toolflags.ErrHelp {
			return 0
		}
		return toolflags.Report(stderr, err)
	}
	if len(sources) > 1 {
		return toolflags.Report(stderr, fmt.Errorf("expected one source file, got %d: %s", len(sources), strings.Join(sources, " ")))
	}
	path := "-"
	if len(sources) == 1 {
		path = sources[0]
	}
	load := func() ([]*vm.BytecodeModule, error) {
		name, data, err := compile(path, stdin, cf, &o)
		if err != nil {
			return nil, err
		}
		m, err := session.LoadModule(name, data)
		if err != nil {
			return nil, err
		}
		return []*vm.BytecodeModule{m}, nil
	}
	code, err := runmodule.Execute(&o, load, stdout, stderr)
	if err != nil {
		return toolflags.Report(stderr, err)
	}
	return code
}

// compile reads and compiles the source, first choosing the target from
// the devices when no flag names one and afterwards the device from the
// target when no --device is given.
func compile(path string, stdin io.Reader, cf *compileflags.Flags, o *runmodule.Options) (string, []byte, error) {
	name := path
	var src []byte
	var err error
	if path == "-" {
		name = "<stdin>"
		src, err = io.ReadAll(stdin)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return "", nil, fmt.Errorf("reading %s: %w", path, err)
	}
	t := &cf.Targets
	if len(t.Backends) == 0 && len(t.Devices) == 0 && len(t.LocalBackends) == 0 {
		for _, d := range o.Devices.Devices {
			driver, _, _ := strings.Cut(strings.TrimSpace(d), ":")
			if b, ok := driverTargets[driver]; ok {
				t.Backends = append(t.Backends, b)
			}
		}
	}
	s, err := pipeline.Parse(name, src, cf.PipelineOptions())
	if err != nil {
		return "", nil, err
	}
	if cf.PDLSpec != "" {
		if err := pdl.ApplyFile(cf.PDLSpec, s.Module.Op, s.Registry); err != nil {
			return "", nil, fmt.Errorf("--iree-preprocessing-pdl-spec-filename=%s: %w", cf.PDLSpec, err)
		}
	}
	if cf.TransformSpec != "" {
		if err := transform.ApplyFile(cf.TransformSpec, s.Module.Op, s.Registry); err != nil {
			return "", nil, fmt.Errorf("--iree-preprocessing-transform-spec-filename=%s: %w", cf.TransformSpec, err)
		}
	}
	if err := pipeline.Run(s, pipeline.RunOptions{To: "end"}); err != nil {
		return "", nil, err
	}
	if len(o.Devices.Devices) == 0 && len(s.Targets) > 0 {
		if dev, ok := target.BackendDevice(s.Targets[0].Backend); ok {
			if dev == "local" {
				dev = "local-task"
			}
			o.Devices.Devices = append(o.Devices.Devices, dev)
		}
	}
	return name, s.Output, nil
}
