// Command iree-compile compiles an MLIR program in IREE's dialects into a
// VM bytecode module (.vmfb): the front end parses and verifies the
// program, resolves its executable objects and checks their kernel ABI; the
// back end forms dispatches, builds CPU executables with clang and lld, and
// emits the host program as VM bytecode. --compile-to=input|flow|hal stops
// after a phase and prints its IR; --output-format=vm-asm prints the VM
// program as text.
//
// Usage:
//
//	iree-compile [flags] <input.mlir|->
//
// Flags may be written with one or two dashes; values follow `=` (or, for
// -o, the next argument).
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelsrc"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/compiler/vmgen"
	"github.com/goiree/goiree/runtime/tooling/functionio"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usage = `OVERVIEW: IREE compilation driver

USAGE: iree-compile [options] <input file or '-' for stdin>

OPTIONS:
  -o <file>                                      Output file (default: stdout)
  --compile-to=<phase>                           Stop after a phase and print its IR: input (= preprocessing), flow, hal; vm prints VM assembly; end compiles fully
  --output-format=<format>                       vm-bytecode (default), vm-asm, or mlir (IR after the last phase)
  --iree-hal-target-backends=<a,b,...>           Target backends when the module declares no hal.device.targets (repeatable)
  --iree-hal-target-device=<spec>                Target device when the module declares no hal.device.targets (repeatable):
                                                   local, vulkan or cuda; a backend for its device (llvm-cpu); name=device;
                                                   device[0]; a,b (one device running the first variant it supports);
                                                   or a #hal.device.target<...> attribute. Repeated devices are merged
                                                   into that one device: a goiree module runs on one device.
  --iree-hal-local-target-device-backends=<a,...> Backends of the local device (default llvm-cpu; repeatable)
  --iree-hal-executable-object-search-path=<dir> Directory searched for relative object paths (repeatable)
  --iree-hal-list-target-backends                List the target backends and exit
  --split-input-file                             Compile each '// -----' separated chunk on its own
  --iree-llvmcpu-clang-path=<path>               clang used for CPU executables (default: clang-16 or clang on PATH)
  --iree-llvmcpu-embedded-linker-path=<path>     ld.lld used for CPU executables (default: ld.lld-16 or ld.lld on PATH)
  --iree-vulkan-glslc-path=<path>                glslc used for generated Vulkan dispatches (default: glslc on PATH)
  --iree-hal-clang-path=<path>                   clang that compiles kernel sources named by objects: .c for llvm-cpu, .cu to PTX
                                                   for cuda (default: --iree-llvmcpu-clang-path, else clang-16 or clang on PATH)
  --iree-hal-glslc-path=<path>                   glslc that compiles .glsl/.comp kernel sources for vulkan-spirv
                                                   (default: --iree-vulkan-glslc-path, else glslc on PATH)
  --iree-hal-kernel-cache-dir=<dir>              Cache of compiled kernel sources (default: the user cache directory's goiree/kernels)
  --iree-hal-dump-executable-sources-to=<dir>    Write the generated executable sources (C) to <dir>
  --iree-hal-dump-executable-binaries-to=<dir>   Write the linked executable binaries to <dir>
  --iree-input-type=<type>                       Accepted for compatibility (none, auto)
  --help                                         Show this help
`

type options struct {
	input       string
	output      string
	compileTo   string
	format      string
	targets     transforms.TargetOptions
	specFlag    string // a transform or PDL spec flag, which is not supported
	searchPaths []string
	listTargets bool
	split       bool
	help        bool
	clangPath   string
	glslcPath   string
	linkerPath  string
	dumpSources string
	dumpBinary  string
	// Kernel sources (.c, .cu, .glsl) named by objects.
	kernelClang string
	kernelGlslc string
	kernelCache string
}

// parseFlags parses IREE-style flags: -flag or --flag, values after '='.
func parseFlags(args []string) (*options, error) {
	o := &options{}
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-" || !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		value, hasValue := "", false
		if j := strings.IndexByte(name, '='); j >= 0 {
			name, value, hasValue = name[:j], name[j+1:], true
		}
		needValue := func() error {
			if !hasValue {
				return fmt.Errorf("option '%s' requires a value (write --%s=<value>)", a, name)
			}
			return nil
		}
		noValue := func() error {
			if hasValue && value != "true" && value != "1" {
				if value == "false" || value == "0" {
					return nil
				}
				return fmt.Errorf("option '--%s' does not take a value", name)
			}
			return nil
		}
		switch name {
		case "o":
			if !hasValue {
				if i+1 >= len(args) {
					return nil, fmt.Errorf("option '-o' requires a value")
				}
				i++
				value = args[i]
			}
			if value == "" {
				return nil, fmt.Errorf("option '-o' requires a non-empty value")
			}
			o.output = value
		case "compile-to":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.compileTo = value
		case "output-format":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.format = value
		case "iree-hal-target-backends":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.targets.Backends = appendList(o.targets.Backends, value)
		case "iree-hal-target-device":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.targets.Devices = append(o.targets.Devices, value)
		case "iree-hal-local-target-device-backends":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.targets.LocalBackends = appendList(o.targets.LocalBackends, value)
		case "iree-preprocessing-transform-spec-filename", "iree-preprocessing-pdl-spec-filename":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.specFlag = "--" + name + "=" + value
		case "iree-hal-executable-object-search-path":
			if err := needValue(); err != nil {
				return nil, err
			}
			if value != "" {
				o.searchPaths = append(o.searchPaths, value)
			}
		case "iree-hal-list-target-backends":
			if err := noValue(); err != nil {
				return nil, err
			}
			o.listTargets = value != "false" && value != "0"
		case "split-input-file":
			if err := noValue(); err != nil {
				return nil, err
			}
			o.split = value != "false" && value != "0"
		case "iree-input-type":
			if err := needValue(); err != nil {
				return nil, err
			}
			if value != "none" && value != "auto" {
				return nil, fmt.Errorf("unsupported --iree-input-type=%s (only none and auto are supported)", value)
			}
		case "iree-llvmcpu-clang-path":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.clangPath = value
		case "iree-llvmcpu-embedded-linker-path", "iree-llvm-embedded-linker-path":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.linkerPath = value
		case "iree-vulkan-glslc-path":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.glslcPath = value
		case "iree-hal-clang-path", "iree-hal-glslc-path", "iree-hal-kernel-cache-dir":
			if err := needValue(); err != nil {
				return nil, err
			}
			switch name {
			case "iree-hal-clang-path":
				o.kernelClang = value
			case "iree-hal-glslc-path":
				o.kernelGlslc = value
			default:
				o.kernelCache = value
			}
		case "iree-hal-dump-executable-sources-to":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.dumpSources = value
		case "iree-hal-dump-executable-binaries-to":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.dumpBinary = value
		case "mlir-print-op-on-diagnostic", "verify":
			// Accepted for compatibility with IREE's build rules.
		case "help", "h":
			o.help = true
		default:
			if s := closestFlag(name); s != "" {
				return nil, fmt.Errorf("Unknown command line argument '%s'.  Try: 'iree-compile --help'; did you mean '--%s'?", a, s)
			}
			return nil, fmt.Errorf("Unknown command line argument '%s'.  Try: 'iree-compile --help'", a)
		}
	}
	if len(positional) > 1 {
		return nil, fmt.Errorf("too many positional arguments: %s (expected one input file)", strings.Join(positional, " "))
	}
	if len(positional) == 1 {
		o.input = positional[0]
	}
	switch o.compileTo {
	case "vm":
		// The VM program after the back end, printed as VM assembly.
		if o.format != "" && o.format != "vm-asm" {
			return nil, fmt.Errorf("--compile-to=vm prints VM assembly; it cannot be combined with --output-format=%s", o.format)
		}
		o.compileTo, o.format = "", "vm-asm"
	case "end":
		o.compileTo = ""
	case "preprocessing":
		// IREE's preprocessing phase only runs what the preprocessing
		// flags ask for (pass pipelines, transform and PDL specs), which
		// goiree refuses, so the program after it is the input phase's.
		o.compileTo = "input"
	}
	if o.compileTo != "" && !pipeline.ValidPhase(o.compileTo) {
		for _, p := range ireePhases {
			if p == o.compileTo {
				return nil, fmt.Errorf("--compile-to=%s is not implemented yet (goiree stops after input, preprocessing, flow, hal, vm or end)", o.compileTo)
			}
		}
		return nil, fmt.Errorf("invalid --compile-to=%s (IREE's phases: %s)", o.compileTo, strings.Join(ireePhases, ", "))
	}
	switch o.format {
	case "", "vm-bytecode", "vm-asm", "mlir":
	case "vm-c":
		return nil, fmt.Errorf("--output-format=vm-c is not supported (use vm-bytecode or vm-asm)")
	default:
		return nil, fmt.Errorf("invalid --output-format=%s (expected vm-bytecode, vm-asm or mlir)", o.format)
	}
	// Target flags are checked before any input is read.
	if _, err := transforms.ResolveTargetOptions(o.targets, dialect.NewRegistry()); err != nil {
		return nil, err
	}
	return o, nil
}

// ireePhases are the phases IREE's --compile-to names, in order.
var ireePhases = []string{"start", "input", "abi", "preprocessing", "global-optimization", "dispatch-creation", "flow", "stream",
	"executable-sources", "executable-configurations", "executable-targets", "hal", "vm", "end"}

// appendList appends the comma-separated, non-empty items of value.
func appendList(list []string, value string) []string {
	for _, b := range strings.Split(value, ",") {
		if b = strings.TrimSpace(b); b != "" {
			list = append(list, b)
		}
	}
	return list
}

// flagNames are the flags parseFlags knows, for suggestions.
var flagNames = []string{
	"o", "compile-to", "output-format", "iree-hal-target-backends", "iree-hal-target-device",
	"iree-hal-local-target-device-backends", "iree-hal-executable-object-search-path",
	"iree-hal-list-target-backends", "split-input-file", "iree-input-type", "iree-llvmcpu-clang-path",
	"iree-llvmcpu-embedded-linker-path", "iree-llvm-embedded-linker-path", "iree-vulkan-glslc-path",
	"iree-hal-dump-executable-sources-to", "iree-hal-dump-executable-binaries-to",
	"iree-hal-clang-path", "iree-hal-glslc-path", "iree-hal-kernel-cache-dir",
	"iree-preprocessing-transform-spec-filename", "iree-preprocessing-pdl-spec-filename",
	"mlir-print-op-on-diagnostic", "verify", "help",
	"iree-hal-clang-path", "iree-hal-glslc-path", "iree-hal-kernel-cache-dir",
}

// closestFlag returns the known flag nearest to name by edit distance, or
// "" when none is close enough to be a typo of it (at most 2 edits, or one
// per 8 characters of a long name): a different flag with a similar name
// (--compile-mode, --compile-to) is no suggestion.
func closestFlag(name string) string {
	best, bestD := "", max(2, len(name)/8)+1
	for _, f := range flagNames {
		if d := editDistance(name, f); d < bestD {
			best, bestD = f, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: error: %v\n", err)
		return 1
	}
	if o.help {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if o.listTargets {
		fmt.Fprintln(stdout, "Registered target backends:")
		for _, b := range transforms.Backends() {
			fmt.Fprintf(stdout, "  %s\n", b)
		}
		return 0
	}
	if o.input == "" {
		fmt.Fprintf(stderr, "iree-compile: error: no input file given (pass a file name or '-' for stdin)\n")
		return 1
	}
	name := o.input
	var src []byte
	if o.input == "-" {
		name = "<stdin>"
		src, err = io.ReadAll(stdin)
	} else {
		src, err = os.ReadFile(o.input)
	}
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: error: could not read input '%s': %v\n", o.input, unwrapPathError(err))
		return 1
	}
	emitIR := o.compileTo != "" || o.format == "mlir"
	stop := o.compileTo
	if o.specFlag != "" {
		// The spec's rewrites (matching ops and splicing in custom kernels)
		// would change what the module runs; compiling without them would
		// be a silently different program.
		fmt.Fprintf(stderr, "iree-compile: error: %s: transform-dialect and PDL preprocessing specs are not supported; compile the program after applying the spec's rewrites by hand\n", o.specFlag)
		return 1
	}
	popts := pipeline.Options{Targets: o.targets, ObjectSearchPaths: o.searchPaths}
	popts.KernelSources = kernelSourceOptions(o)
	var out strings.Builder
	failed := false
	chunks := splitChunks(src, o.split)
	if !emitIR && o.format != "vm-asm" && len(chunks) > 1 {
		fmt.Fprintf(stderr, "iree-compile: error: --split-input-file with %d chunks needs a text output (--output-format=vm-asm or mlir, or --compile-to=)\n", len(chunks))
		return 1
	}
	for i, chunk := range chunks {
		s, err := pipeline.Compile(name, chunk, popts, stop)
		if err == nil && !emitIR {
			var text string
			text, err = emitModule(s, o)
			if err == nil && i > 0 {
				out.WriteString("// -----\n")
			}
			out.WriteString(text)
		} else if err == nil {
			if i > 0 {
				out.WriteString("// -----\n")
			}
			out.WriteString(s.Print())
		}
		if err != nil {
			fmt.Fprint(stderr, ir.FormatDiagnostic(err, name, src))
			failed = true
		}
	}
	if failed {
		return 1
	}
	if err := writeOutput(o.output, out.String(), stdout); err != nil {
		fmt.Fprintf(stderr, "iree-compile: error: %v\n", err)
		return 1
	}
	return 0
}

// emitModule runs the back end on a module that went through every front
// end phase and returns the bytecode module (or its text form for vm-asm).
func emitModule(s *pipeline.State, o *options) (string, error) {
	vmfb, err := backend.Compile(s.Module.Op, backend.Options{
		Registry:  s.Registry,
		Targets:   s.Targets,
		GlslcPath: o.glslcPath,
		LLVMCPU: llvmcpu.Options{
			ClangPath:      o.clangPath,
			LinkerPath:     o.linkerPath,
			Objects:        s.Resolver,
			DumpSourcesTo:  o.dumpSources,
			DumpBinariesTo: o.dumpBinary,
		},
	})
	if err != nil {
		return "", err
	}
	if o.format == "vm-asm" {
		return vmgen.Text(vmfb)
	}
	return string(vmfb), nil
}

// kernelSourceOptions picks the tools that compile kernel sources: the
// --iree-hal-*-path flags, else the tools given for the back ends (so one
// --iree-llvmcpu-clang-path serves both), else a PATH lookup.
func kernelSourceOptions(o *options) kernelsrc.Options {
	k := kernelsrc.Options{ClangPath: o.kernelClang, GlslcPath: o.kernelGlslc, CacheDir: o.kernelCache}
	if k.ClangPath == "" {
		k.ClangPath = o.clangPath
	}
	if k.GlslcPath == "" {
		k.GlslcPath = o.glslcPath
	}
	return k
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// splitChunks splits the source at `// -----` lines. Each chunk is padded
// with the newlines before it so diagnostics keep the file's line numbers.
func splitChunks(src []byte, split bool) [][]byte {
	if !split {
		return [][]byte{src}
	}
	lines := strings.SplitAfter(string(src), "\n")
	var chunks [][]byte
	var cur strings.Builder
	start := 0
	for i, l := range lines {
		if strings.TrimSpace(l) == "// -----" {
			chunks = append(chunks, []byte(strings.Repeat("\n", start)+cur.String()))
			cur.Reset()
			start = i + 1
			continue
		}
		cur.WriteString(l)
	}
	chunks = append(chunks, []byte(strings.Repeat("\n", start)+cur.String()))
	return chunks
}

// writeOutput writes text to path whole or not at all (a temporary file
// renamed into place, so an existing file stays untouched on failure); ""
// or "-" means stdout. Errors name path, never the temporary file.
func writeOutput(path, text string, stdout io.Writer) error {
	if path == "" || path == "-" {
		_, err := io.WriteString(stdout, text)
		return err
	}
	err := functionio.WriteFileAtomic(path, []byte(text))
	var we *functionio.WriteError
	if errors.As(err, &we) {
		return fmt.Errorf("cannot write output '%s': %v", path, we.Err)
	}
	return err
}
