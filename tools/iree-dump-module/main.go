// Command iree-dump-module prints what a .vmfb module holds: its metadata,
// imported and exported functions with their signatures, the disassembly of
// every function, the executables embedded in its rodata (format, size,
// entry points), or the whole FlatBuffer as JSON:
//
//	iree-dump-module module.vmfb
//	iree-dump-module --output=disassembly --function=main module.vmfb
//	iree-dump-module --output=flatbuffer-json module.vmfb
//
// The module is verified completely (as the runtime would) before anything
// is printed; "-" reads it from stdin.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goiree/goiree/runtime/schemas/fbverify"
	"github.com/goiree/goiree/runtime/tooling/modulejson"
	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/panicguard"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

func main() {
	args := os.Args[1:]
	os.Exit(panicguard.Run(args, os.Stderr, func() int { return run(args, os.Stdin, os.Stdout, os.Stderr) }))
}

// outputs are the --output values, each a set of sections.
var outputs = map[string][]string{
	"all":               {"metadata", "executables", "disassembly"},
	"metadata":          {"metadata"},
	"executables":       {"executables"},
	"disassembly":       {"disassembly"},
	"flatbuffer-json":   {"json"},
	"flatbuffer-binary": {"binary"},
}

// help is the --help text around the flags.
var help = toolflags.Help{
	Usage:       "iree-dump-module [flags] module.vmfb   (or - for stdin)",
	Description: "Prints what a compiled module (.vmfb) holds: its metadata (attributes, required types, module dependencies,\nimported, exported and internal functions, rodata), its embedded executables and the disassembly of its\nfunctions, or its FlatBuffer as JSON or as the raw binary. The module is verified before anything is printed.",
	Examples: []string{
		"iree-dump-module --output=metadata example.vmfb",
		"iree-dump-module --output=disassembly --function=mixed_invocation example.vmfb\niree-dump-module --output=flatbuffer-binary example.vmfb > example.fb",
	},
	Groups: []toolflags.Group{
		{Title: "Output", Flags: []string{"output", "function", "load_executables"}},
	},
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("iree-dump-module", flag.ContinueOnError)
	fs.SetOutput(stderr)
	output := fs.String("output", "all", "what to print: all, metadata, executables, disassembly, flatbuffer-json or flatbuffer-binary (the module's FlatBuffer without its size prefix, as bytes)")
	function := fs.String("function", "", "disassemble only this function")
	load := fs.Bool("load_executables", true, "read the export tables of CPU (ELF) executables by loading them in-process, as the runtime does (this runs each library's query function); false lists only their dynamic symbols")
	toolflags.AddLoggingFlags(fs)
	fs.Usage = func() { toolflags.PrintHelp(stdout, fs, help) }
	// The module path is positional: move it out of the way of Parse.
	paths, flagArgs := toolflags.SplitPositional(fs, args)
	if err := toolflags.Parse(fs, flagArgs); err != nil {
		if err == toolflags.ErrHelp {
			return 0
		}
		return toolflags.Report(stderr, err)
	}
	sections, ok := outputs[*output]
	if !ok {
		return toolflags.Report(stderr, fmt.Errorf("unknown --output=%s (want all, metadata, executables, disassembly, flatbuffer-json or flatbuffer-binary)", *output))
	}
	if len(paths) != 1 {
		return toolflags.Report(stderr, fmt.Errorf("expected one module file argument, got %d (usage: iree-dump-module [flags] module.vmfb)", len(paths)))
	}
	data, err := readModule(paths[0], stdin)
	if err != nil {
		return toolflags.Report(stderr, err)
	}
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		return toolflags.Report(stderr, fmt.Errorf("loading %s: %w", paths[0], err))
	}
	var out strings.Builder
	for i, s := range sections {
		if i > 0 {
			out.WriteByte('\n')
		}
		var err error
		switch s {
		case "metadata":
			var types []string
			if types, err = requiredTypes(data); err == nil {
				err = writeMetadata(&out, m, len(data), types)
			}
		case "executables":
			err = writeExecutables(&out, m, *load)
		case "disassembly":
			err = writeDisassembly(&out, m, *function)
		case "json":
			fb, _, ferr := fbverify.SizePrefixed(data)
			if ferr != nil {
				err = ferr
				break
			}
			err = modulejson.Write(&out, fb)
		case "binary":
			fb, _, ferr := fbverify.SizePrefixed(data)
			err = ferr
			out.Write(fb)
		}
		if err != nil {
			return toolflags.Report(stderr, err)
		}
	}
	if _, err := io.WriteString(stdout, out.String()); err != nil {
		return toolflags.Report(stderr, err)
	}
	return 0
}

func readModule(path string, stdin io.Reader) ([]byte, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, fmt.Errorf("reading module from stdin: %w", err)
		}
		return data, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading module: %w", err)
	}
	return data, nil
}
