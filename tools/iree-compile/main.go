// Command iree-compile compiles an MLIR program in IREE's dialects into a
// VM bytecode module (.vmfb): the front end parses and verifies the
// program, resolves its executable objects and checks their kernel ABI; the
// back end forms dispatches, builds CPU executables with clang and lld, and
// emits the host program as VM bytecode, all through the pass table of
// package pipeline. --compile-to=<phase> stops after any of IREE's phases
// and prints its IR (vm prints VM assembly), --compile-from=<phase>
// resumes from such IR, --mlir-print-ir-before-all/--mlir-print-ir-after-all
// print the IR around every pass and --mlir-timing times the passes, on
// stderr. The targets are those linked into the tool (compiler/target/all),
// each with its own flags.
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
	"slices"
	"strings"
	"time"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/pdl"
	"github.com/goiree/goiree/compiler/dialect/transform"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target"
	_ "github.com/goiree/goiree/compiler/target/all" // the targets iree-compile links
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/compiler/vmgen"
	"github.com/goiree/goiree/runtime/tooling/outfile"
	"github.com/goiree/goiree/tools/internal/compileflags"
	"github.com/goiree/goiree/tools/internal/flagsuggest"
	"github.com/goiree/goiree/tools/internal/panicguard"
)

// Executable dumps go through the same writer as -o: a dump path that is a
// device or FIFO is written in place, never replaced.
func init() { target.WriteDump = outfile.Write }

func main() {
	args := os.Args[1:]
	os.Exit(withCleanup(os.Stderr, func(stderr io.Writer) int {
		return panicguard.Run(args, stderr, func() int { return run(args, os.Stdin, os.Stdout, stderr) })
	}))
}

// usageHead and usageTail frame the target flags, which come from the
// target registry.
const usageHead = `OVERVIEW: IREE compilation driver

USAGE: iree-compile [options] <input file or '-' for stdin>

OPTIONS:
  -o <file>                                      Output file (default: stdout)
  --compile-to=<phase>                           Stop after a phase and print its IR (vm prints VM assembly; end compiles fully).
                                                   Phases: input, abi, preprocessing, global-optimization, dispatch-creation,
                                                   flow, stream, executable-sources, executable-configurations,
                                                   executable-targets, hal, vm, end
  --compile-from=<phase>                         The input is the IR printed after that phase (start .. hal); run the later phases
  --mlir-print-ir-before-all                     Print the IR before every pass to stderr
  --mlir-print-ir-after-all                      Print the IR after every pass to stderr
  --mlir-timing                                  Print the wall time of every pass to stderr
  --mlir-print-debuginfo                         Print every op's source location (loc(...)) with the IR, so that IR resumed
                                                   with --compile-from keeps the original locations (and module bytes)
  --output-format=<format>                       vm-bytecode (default), vm-asm, or mlir (IR after the last phase)
  --iree-hal-target-backends=<a,b,...>           Target backends when the module declares no hal.device.targets (repeatable)
  --iree-hal-target-device=<spec>                Target device when the module declares no hal.device.targets (repeatable):
                                                   a device (DEVICES); a backend for its device (BACKENDS);
                                                   name=device; device[0]; a,b (one device running the first variant it
                                                   supports); or a #hal.device.target<...> attribute. Repeated devices are
                                                   merged into that one device: a goiree module runs on one device.
  --iree-hal-local-target-device-backends=<a,...> Backends of the local device (default LOCAL; repeatable)
  --iree-hal-executable-object-search-path=<dir> Directory searched for relative object paths (repeatable)
  --iree-hal-list-target-backends                List the target backends and exit
  --split-input-file                             Compile each '// -----' separated chunk on its own
`

const usageTail = `  --iree-hal-clang-path=<path>                   clang that compiles kernel sources named by objects: .c for llvm-cpu, .cu to PTX
                                                   for cuda (default: --iree-llvmcpu-clang-path, else clang-16 or clang on PATH)
  --iree-hal-glslc-path=<path>                   glslc that compiles .glsl/.comp kernel sources for vulkan-spirv
                                                   (default: --iree-vulkan-glslc-path, else glslc on PATH)
  --iree-hal-kernel-cache-dir=<dir>              Cache of compiled kernel sources (default: the user cache directory's goiree/kernels)
  --iree-hal-dump-executable-sources-to=<dir>    Write the generated executable sources (C) to <dir>
  --iree-hal-dump-executable-binaries-to=<dir>   Write the linked executable binaries to <dir>
  --iree-input-type=<type>                       Input dialect (none, auto, tosa, stablehlo, stablehlo_xla, mhlo,
                                                   xla): every input dialect present is converted in the input
                                                   phase, so the value only has to name one this compiler knows
  --iree-opt-level=<O0..O3>                      Optimization level (default O0); from O1 assertions are stripped
  --iree-global-optimization-opt-level=<O0..O3>  Level of the global-optimization phase (default: --iree-opt-level)
  --iree-opt-strip-assertions[=true|false]       Remove the program's cf.assert ops at global-optimization
                                                   (default: on from O1)
  --help                                         Show this help
  --version                                      Show the compiler's version and exit
`

// usage is the --help text: the fixed flags and every linked target's.
func usage() string {
	var b strings.Builder
	head := strings.NewReplacer(
		"DEVICES", strings.Join(target.Devices(), ", "),
		"BACKENDS", strings.Join(target.Backends(), ", "),
		"LOCAL", strings.Join(target.DeviceBackends("local"), ","),
	).Replace(usageHead)
	b.WriteString(head)
	for _, t := range target.All() {
		for _, f := range t.Flags {
			left := "  --" + f.Name + "=" + f.Value
			fmt.Fprintf(&b, "%-48s %s\n", left, f.Help)
		}
	}
	b.WriteString(usageTail)
	return b.String()
}

type options struct {
	input       string
	output      string
	compileTo   string
	compileFrom string
	format      string
	// compile holds the flags that choose what the compiler does.
	compile     *compileflags.Flags
	listTargets bool
	split       bool
	help        bool
	version     bool
	printBefore bool
	printAfter  bool
	timing      bool
	debugInfo   bool
}

// parseFlags parses IREE-style flags: -flag or --flag, values after '='.
func parseFlags(args []string) (*options, error) {
	o := &options{compile: compileflags.New()}
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
		if handled, err := o.compile.Set(a, name, value, hasValue); handled {
			if err != nil {
				return nil, err
			}
			continue
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
		case "compile-from":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.compileFrom = value
		case "mlir-print-ir-before-all", "mlir-print-ir-after-all", "mlir-timing", "mlir-print-debuginfo":
			if err := noValue(); err != nil {
				return nil, err
			}
			on := value != "false" && value != "0"
			switch name {
			case "mlir-print-ir-before-all":
				o.printBefore = on
			case "mlir-print-ir-after-all":
				o.printAfter = on
			case "mlir-print-debuginfo":
				o.debugInfo = on
			default:
				o.timing = on
			}
		case "output-format":
			if err := needValue(); err != nil {
				return nil, err
			}
			o.format = value
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
		case "mlir-print-op-on-diagnostic", "verify":
			// Accepted for compatibility with IREE's build rules.
		case "help", "h":
			o.help = true
		case "version":
			o.version = true
		default:
			if s := flagsuggest.Closest(name, flagNames()); s != "" {
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
	}
	if o.compileTo != "" && !pipeline.ValidPhase(o.compileTo) {
		return nil, fmt.Errorf("invalid --compile-to=%s (phases: start, %s)", o.compileTo, strings.Join(pipeline.Phases, ", "))
	}
	if o.compileFrom != "" {
		if !pipeline.ValidPhase(o.compileFrom) {
			return nil, fmt.Errorf("invalid --compile-from=%s (phases: start, %s)", o.compileFrom, strings.Join(pipeline.Phases, ", "))
		}
		if !pipeline.Resumable(o.compileFrom) {
			return nil, fmt.Errorf("--compile-from=%s: the %s phase produces a bytecode module, not IR; resume from hal or an earlier phase", o.compileFrom, o.compileFrom)
		}
		if o.compileTo != "" {
			from, _ := pipeline.PhaseIndex(o.compileFrom)
			to, _ := pipeline.PhaseIndex(o.compileTo)
			if to < from {
				return nil, fmt.Errorf("--compile-to=%s comes before --compile-from=%s", o.compileTo, o.compileFrom)
			}
		}
	}
	switch o.format {
	case "", "vm-bytecode", "vm-asm", "mlir":
	case "vm-c":
		return nil, fmt.Errorf("--output-format=vm-c is not supported (use vm-bytecode or vm-asm)")
	default:
		return nil, fmt.Errorf("invalid --output-format=%s (expected vm-bytecode, vm-asm or mlir)", o.format)
	}
	// Target flags are checked before any input is read.
	if _, err := transforms.ResolveTargetOptions(o.compile.Targets, dialect.NewRegistry()); err != nil {
		return nil, err
	}
	return o, nil
}

// fixedFlags are the flags parseFlags knows besides the targets', for
// suggestions.
var fixedFlags = []string{
	"o", "compile-to", "compile-from", "output-format",
	"iree-hal-list-target-backends", "split-input-file",
	"mlir-print-op-on-diagnostic", "mlir-print-ir-before-all", "mlir-print-ir-after-all", "mlir-timing",
	"mlir-print-debuginfo", "verify", "help", "version",
}

// flagNames returns every flag name, the targets' included.
func flagNames() []string {
	names := append(slices.Clone(fixedFlags), compileflags.Names...)
	for _, t := range target.All() {
		for _, f := range t.Flags {
			names = append(names, f.Name)
			names = append(names, f.Aliases...)
		}
	}
	return names
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "iree-compile: error: %v\n", err)
		return 1
	}
	if o.help {
		fmt.Fprint(stdout, usage())
		return 0
	}
	if o.version {
		printVersion(stdout)
		return 0
	}
	if o.listTargets {
		fmt.Fprintln(stdout, "Registered target backends:")
		for _, b := range target.Backends() {
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
	// The IR is the output when a phase before vm is the last to run, or
	// when --output-format=mlir asks for the IR after the last IR phase.
	stop := o.compileTo
	emitIR := stop != "" || o.format == "mlir"
	if stop == "" && emitIR {
		stop = "hal"
	}
	popts := o.compile.PipelineOptions()
	var out strings.Builder
	failed := false
	chunks := splitChunks(src, o.split)
	if !emitIR && o.format != "vm-asm" && len(chunks) > 1 {
		fmt.Fprintf(stderr, "iree-compile: error: --split-input-file with %d chunks needs a text output (--output-format=vm-asm or mlir, or --compile-to=)\n", len(chunks))
		return 1
	}
	timer := &passTimer{}
	var prog *progress
	if !o.printBefore && !o.printAfter {
		// IR dumps on stderr would interleave with the line.
		prog = startProgress(stderr)
	}
	defer prog.stop()
	for i, chunk := range chunks {
		text, err := compileChunk(name, chunk, popts, o, stop, emitIR, stderr, timer, prog)
		if err != nil {
			prog.stop()
			fmt.Fprint(stderr, ir.FormatDiagnostic(err, name, src))
			failed = true
			continue
		}
		if i > 0 {
			out.WriteString("// -----\n")
		}
		out.WriteString(text)
	}
	prog.stop()
	if o.timing {
		timer.report(stderr)
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

// compileChunk parses one input chunk and runs the pipeline's passes from
// --compile-from to stop, returning the output text: the IR, or the
// bytecode module (or its VM assembly).
func compileChunk(name string, chunk []byte, popts pipeline.Options, o *options, stop string, emitIR bool, stderr io.Writer, timer *passTimer, prog *progress) (string, error) {
	start := time.Now()
	s, err := pipeline.Parse(name, chunk, popts)
	timer.add("Parser", time.Since(start))
	if err != nil {
		return "", err
	}
	// The spec runs where IREE runs it, in preprocessing: IR resumed from
	// a later phase (--compile-from) has been through it already.
	from, _ := pipeline.PhaseIndex(o.compileFrom)
	pre, _ := pipeline.PhaseIndex("preprocessing")
	if o.compile.PDLSpec != "" && (o.compileFrom == "" || from < pre) {
		err := pdl.ApplyFile(o.compile.PDLSpec, s.Module.Op, s.Registry)
		var ierr *ir.Error
		if err != nil && !errors.As(err, &ierr) {
			err = fmt.Errorf("--iree-preprocessing-pdl-spec-filename=%s: %w", o.compile.PDLSpec, err)
		}
		if err != nil {
			return "", err
		}
	}
	if o.compile.TransformSpec != "" && (o.compileFrom == "" || from < pre) {
		start := time.Now()
		err := transform.ApplyFile(o.compile.TransformSpec, s.Module.Op, s.Registry)
		timer.add("TransformSpec", time.Since(start))
		var ierr *ir.Error
		if err != nil && !errors.As(err, &ierr) {
			// Diagnostics name the spec's file:line:col already.
			err = fmt.Errorf("--iree-preprocessing-transform-spec-filename=%s: %w", o.compile.TransformSpec, err)
		}
		if err != nil {
			return "", err
		}
	}
	if o.compileFrom != "" {
		// The input is IR an earlier run printed: its loc(...) are the
		// original source positions.
		pipeline.RestoreLocations(s.Module)
	}
	print := func(s *pipeline.State) string {
		if o.debugInfo {
			return s.PrintDebug()
		}
		return s.Print()
	}
	ro := pipeline.RunOptions{From: o.compileFrom, To: stop}
	ro.BeforePass = func(p pipeline.Pass, s *pipeline.State) {
		prog.set(p.Phase, p.Name)
		if o.printBefore {
			fmt.Fprintf(stderr, "// -----// IR Dump Before %s (%s) //----- //\n%s\n", camel(p.Name), p.Name, print(s))
		}
	}
	ro.AfterPass = func(p pipeline.Pass, s *pipeline.State, elapsed time.Duration) {
		timer.add(p.Name, elapsed)
		if o.printAfter {
			fmt.Fprintf(stderr, "// -----// IR Dump After %s (%s) //----- //\n%s\n", camel(p.Name), p.Name, print(s))
		}
	}
	if err := pipeline.Run(s, ro); err != nil {
		return "", err
	}
	if emitIR {
		return print(s), nil
	}
	if o.format == "vm-asm" {
		return vmgen.Text(s.Output)
	}
	return string(s.Output), nil
}

// camel turns a pass name into the CamelCase class-style name MLIR prints
// before the pass argument (outline-dispatch-regions ->
// OutlineDispatchRegions).
func camel(name string) string {
	var b strings.Builder
	for _, w := range strings.Split(name, "-") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}

// passTimer accumulates wall time per pass (and for parsing and output)
// for --mlir-timing, in first-run order.
type passTimer struct {
	names []string
	times map[string]time.Duration
}

func (t *passTimer) add(name string, d time.Duration) {
	if t.times == nil {
		t.times = map[string]time.Duration{}
	}
	if _, ok := t.times[name]; !ok {
		t.names = append(t.names, name)
	}
	t.times[name] += d
}

// report prints the times in MLIR's --mlir-timing list layout.
func (t *passTimer) report(w io.Writer) {
	var total time.Duration
	for _, d := range t.times {
		total += d
	}
	pct := func(d time.Duration) float64 {
		if total == 0 {
			return 0
		}
		return 100 * float64(d) / float64(total)
	}
	rule := "===" + strings.Repeat("-", 73) + "==="
	fmt.Fprintf(w, "%s\n%s... Execution time report ...\n%s\n", rule, strings.Repeat(" ", 25), rule)
	fmt.Fprintf(w, "  Total Execution Time: %.4f seconds\n\n", total.Seconds())
	fmt.Fprintf(w, "  ----Wall Time----  ----Name----\n")
	for _, n := range t.names {
		d := t.times[n]
		fmt.Fprintf(w, "  %8.4f (%5.1f%%)  %s\n", d.Seconds(), pct(d), n)
	}
	fmt.Fprintf(w, "  %8.4f (%5.1f%%)  Total\n", total.Seconds(), pct(total))
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

// writeOutput writes text to path through outfile: a regular file whole
// or not at all (a temporary file renamed into place, so an existing file
// stays untouched on failure), a device, FIFO or /dev/stdout in place,
// never replaced; "" or "-" means stdout. Errors name path, never the
// temporary file.
func writeOutput(path, text string, stdout io.Writer) error {
	if path == "" || path == "-" {
		_, err := io.WriteString(stdout, text)
		return err
	}
	err := outfile.Write(path, []byte(text))
	var we *outfile.Error
	if errors.As(err, &we) {
		return fmt.Errorf("cannot write output '%s': %v", path, we.Err)
	}
	return err
}
