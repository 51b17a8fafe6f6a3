// Command iree-link links MLIR modules at the source level, as IREE's
// iree-link does: the functions a program declares without a body
// (`util.func private @module_b.helper(i32) -> i32`) are replaced by the
// definitions other modules export, with what those need (package
// compiler/linker).
//
//	iree-link --link-module=a.mlir --link-module=b.mlir main.mlir -o linked.mlir
//	iree-link --library-path=libs main.mlir       (finds @m.f in libs/m.mlir)
//	iree-link --bundle --link-module=a.mlir --link-module=b.mlir -o bundle.mlir
//	iree-link --list-symbols main.mlir
//
// The output is MLIR text; "-" reads the input from stdin and -o - (the
// default) writes to stdout.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/linker"
	"github.com/goiree/goiree/runtime/tooling/outfile"
	"github.com/goiree/goiree/tools/internal/panicguard"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

func main() {
	args := os.Args[1:]
	os.Exit(panicguard.Run(args, os.Stderr, func() int { return run(args, os.Stdin, os.Stdout, os.Stderr) }))
}

var help = toolflags.Help{
	Usage:       "iree-link [flags] <input.mlir or - for stdin>",
	Description: "Links MLIR modules: each function the input declares without a body is replaced by the definition a\nlinked module exports (module @m exports its public functions as @m.name, an anonymous module under their\nown names), with the private functions, globals and executables it uses. --bundle instead gathers the\nmodules into one, named ones as nested modules.",
	Examples: []string{
		"iree-link --link-module=module_a.mlir --link-module=module_b.mlir main.mlir -o linked.mlir",
		"iree-link --bundle --link-module=module_a.mlir --link-module=module_b.mlir -o bundle.mlir",
		"iree-link --list-symbols module_a.mlir",
	},
	Groups: []toolflags.Group{
		{Title: "Linking", Flags: []string{"link-module", "library-path", "bundle", "list-symbols", "o", "output-bytecode"}},
	},
}

// list is a repeatable string flag.
type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("iree-link", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var modules, paths list
	fs.Var(&modules, "link-module", "a module to link from (repeatable)")
	fs.Var(&paths, "library-path", "a directory searched for <m>.mlir when the input declares @m.<name> and no --link-module is named @m (repeatable)")
	bundle := fs.Bool("bundle", false, "gather the --link-module modules into one module (named ones nested, anonymous ones merged) instead of linking")
	listSymbols := fs.Bool("list-symbols", false, "list the input's public functions and exit")
	output := fs.String("o", "-", "output file (- for stdout)")
	bytecode := fs.Bool("output-bytecode", false, "write MLIR bytecode (not supported: the output is MLIR text)")
	toolflags.AddLoggingFlags(fs)
	fs.Usage = func() { toolflags.PrintHelp(stdout, fs, help) }
	inputs, flagArgs := toolflags.SplitPositional(fs, args)
	if err := toolflags.Parse(fs, flagArgs); err != nil {
		if err == toolflags.ErrHelp {
			return 0
		}
		return toolflags.Report(stderr, err)
	}
	if *bytecode || strings.HasSuffix(*output, ".mlirbc") {
		return toolflags.Report(stderr, fmt.Errorf("MLIR bytecode output is not supported; write MLIR text (-o <file>.mlir or -o -)"))
	}
	if len(inputs) > 1 {
		return toolflags.Report(stderr, fmt.Errorf("expected one input file, got %d: %s", len(inputs), strings.Join(inputs, " ")))
	}
	input := "-"
	if len(inputs) == 1 {
		input = inputs[0]
	}
	reg := dialect.NewRegistry()
	var libs []*linker.Library
	for _, path := range modules {
		lib, err := load(reg, path, nil)
		if err != nil {
			return toolflags.Report(stderr, err)
		}
		libs = append(libs, lib)
	}
	var out *ir.Module
	if *bundle {
		if len(inputs) > 0 {
			return toolflags.Report(stderr, fmt.Errorf("--bundle takes its modules from --link-module, not %s", input))
		}
		var err error
		if out, err = linker.Bundle(reg, libs); err != nil {
			return toolflags.Report(stderr, err)
		}
	} else {
		main, err := load(reg, input, stdin)
		if err != nil {
			return toolflags.Report(stderr, err)
		}
		if *listSymbols {
			var b strings.Builder
			fmt.Fprintf(&b, "Public symbols in %s:\n", input)
			for _, name := range linker.PublicFunctions(main.Module.Op) {
				fmt.Fprintf(&b, "  %s\n", ir.SymbolName(name))
			}
			return write(*output, b.String(), stdout, stderr)
		}
		found, err := discover(reg, main.Module, libs, paths)
		if err != nil {
			return toolflags.Report(stderr, err)
		}
		if err := linker.Link(reg, main.Module, append(libs, found...)); err != nil {
			return toolflags.Report(stderr, err)
		}
		if err := ir.Verify(main.Module.Op, reg); err != nil {
			return toolflags.Report(stderr, fmt.Errorf("the linked module does not verify: %w", err))
		}
		out = main.Module
	}
	return write(*output, ir.PrintModule(out, reg, ir.PrintOptions{}), stdout, stderr)
}

// load parses one module ("-": stdin) and verifies its structure. The
// checks that only compiling needs (a dispatch's operands against its
// export's layout) are iree-compile's: linking moves source as it is.
func load(reg *ir.Registry, path string, stdin io.Reader) (*linker.Library, error) {
	var src []byte
	var err error
	if path == "-" && stdin != nil {
		src, err = io.ReadAll(stdin)
	} else {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	m, err := ir.Parse(path, src, reg)
	if err != nil {
		return nil, err
	}
	if err := ir.Verify(m.Op, reg); err != nil {
		return nil, err
	}
	return &linker.Library{Path: path, Module: m}, nil
}

// discover loads, for each declaration @m.name of main that no given
// library named @m provides, the first <m>.mlir found in paths.
func discover(reg *ir.Registry, main *ir.Module, libs []*linker.Library, paths []string) ([]*linker.Library, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	have := map[string]bool{}
	for _, l := range libs {
		have[l.Name()] = true
	}
	var found []*linker.Library
	for _, op := range main.Op.Body().Ops {
		prefix, _, ok := strings.Cut(op.SymName(), ".")
		if !linker.IsDeclaration(op) || !ok || have[prefix] {
			continue
		}
		have[prefix] = true
		for _, dir := range paths {
			path := filepath.Join(dir, prefix+".mlir")
			if _, err := os.Stat(path); err != nil {
				continue
			}
			lib, err := load(reg, path, nil)
			if err != nil {
				return nil, err
			}
			if lib.Name() != prefix {
				return nil, fmt.Errorf("%s: expected module @%s (the input declares @%s), found %s", path, prefix, op.SymName(), moduleName(lib))
			}
			found = append(found, lib)
			break
		}
	}
	return found, nil
}

func moduleName(l *linker.Library) string {
	if l.Name() == "" {
		return "an anonymous module"
	}
	return "module @" + l.Name()
}

// write writes text to path (- for stdout) whole or not at all.
func write(path, text string, stdout, stderr io.Writer) int {
	if path == "-" || path == "" {
		if _, err := io.WriteString(stdout, text); err != nil {
			return toolflags.Report(stderr, err)
		}
		return 0
	}
	if err := outfile.Write(path, []byte(text)); err != nil {
		return toolflags.Report(stderr, fmt.Errorf("cannot write output '%s': %w", path, err))
	}
	return 0
}
