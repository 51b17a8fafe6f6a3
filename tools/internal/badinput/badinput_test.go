// Package badinput holds one table-driven test of how the five tools fail:
// bad flags, inputs, modules and programs, crashing kernels and workgroup
// counts out of range, each with its exit code and exact first stderr line.
// Print the table as Markdown with
//
//	go test ./tools/internal/badinput -v -run TestBadInputTable -args -table
package badinput

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/tooling/npy"
)

var printTable = flag.Bool("table", false, "print the bad-input table as Markdown on stdout (case, command, exit code, first line of stderr)")

// tools are the command-line tools the table runs.
var tools = []string{"iree-compile", "iree-run-module", "iree-benchmark-module", "iree-dump-module", "iree-check-module"}

// buildTools returns a directory holding the tools. Under Bazel they
// are the go_binary data dependencies found in the runfiles; under go test
// they are built with the go command (from the build cache after the
// first time).
func buildTools(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("TEST_SRCDIR"); dir != "" {
		out := t.TempDir()
		for _, name := range tools {
			var found string
			filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
				if err == nil && found == "" && !d.IsDir() && d.Name() == name {
					found = p
				}
				return nil
			})
			if found == "" {
				t.Fatalf("%s is not among the test's runfiles under %s", name, dir)
			}
			if err := os.Symlink(found, filepath.Join(out, name)); err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("skipping: %v (the go command builds the tools)", err)
	}
	out := t.TempDir()
	args := []string{"build", "-o", out + string(filepath.Separator)}
	for _, name := range tools {
		args = append(args, "github.com/goiree/goiree/tools/"+name)
	}
	if b, err := exec.Command(goCmd, args...).CombinedOutput(); err != nil {
		t.Fatalf("building the tools: %v\n%s", err, b)
	}
	return out
}

// toolResult is what one run of a tool gave.
type toolResult struct {
	code           int
	stdout, stderr string
}

// runTool runs bin in the current directory with stdin (no terminal) and
// returns its exit code (-1 when a signal or the timeout ended it).
func runTool(t *testing.T, bin, stdin string, args []string) toolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", bin, err)
	}
	return toolResult{code, stdout.String(), stderr.String()}
}

// like reports whether got equals want, where in want "{N}" stands for
// decimal digits and "{H}" for hex digits (program counters and bytecode
// offsets that move when the compiler's output changes).
func like(want, got string) bool {
	re := regexp.QuoteMeta(want)
	re = strings.ReplaceAll(re, `\{N\}`, `[0-9]+`)
	re = strings.ReplaceAll(re, `\{H\}`, `[0-9a-f]+`)
	return regexp.MustCompile("^" + re + "$").MatchString(got)
}

// dirContents returns the files under dir (relative names, "name/" for
// directories) with their contents.
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			out[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// writeNPY writes one .npy array of the given shape and element type,
// filled with zeros.
func writeNPY(t *testing.T, name string, et hal.ElementType, shape ...int64) {
	t.Helper()
	n := int64(1)
	for _, d := range shape {
		n *= d
	}
	b, err := npy.Encode(&npy.Array{Shape: hal.Shape(shape), ElementType: et, Data: make([]byte, n*int64(et.ByteSize()))})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// badCase is one row of the table: a tool run the way a user gets it
// wrong, the exit code it must end with and the exact first line of its
// stderr ({N} and {H} match numbers that move with the compiler's output).
type badCase struct {
	name  string
	tool  string
	args  []string
	stdin string
	code  int
	first string
}

// TestBadInputTable runs the five tools on bad flags, bad inputs, bad
// modules, bad programs, crashing kernels and out-of-range workgroup
// counts. Every case must end with its exit code, print exactly its first
// stderr line (a clear message naming the problem and where) and leave
// the directory as it was: no partial output, no temporary file. With
// -args -table it prints the table as Markdown.
func TestBadInputTable(t *testing.T) {
	bin := buildTools(t)
	src := filepath.Join("..", "..", "iree-run-module", "testdata", "failures")
	prog, err := os.ReadFile(filepath.Join(src, "failures.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	kernels, err := os.ReadFile(filepath.Join(src, "kernels.c"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("clang-16"); err != nil {
		t.Skip("skipping: clang-16 compiles the kernels")
	}
	t.Chdir(t.TempDir())
	p := string(prog)
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("failures.mlir", p)
	write("kernels.c", string(kernels))
	// The module every runtime case uses, compiled by the tool under test.
	if r := runTool(t, filepath.Join(bin, "iree-compile"), "", []string{"failures.mlir", "-o", "f.vmfb"}); r.code != 0 {
		t.Fatalf("compiling failures.mlir: exit %d\n%s", r.code, r.stderr)
	}
	// A test program for iree-check-module: one export taking nothing.
	write("nothing.mlir", "func.func @nothing() {\n  return\n}\n")
	if r := runTool(t, filepath.Join(bin, "iree-compile"), "", []string{"nothing.mlir", "-o", "nothing.vmfb"}); r.code != 0 {
		t.Fatalf("compiling nothing.mlir: exit %d\n%s", r.code, r.stderr)
	}
	module, err := os.ReadFile("f.vmfb")
	if err != nil {
		t.Fatal(err)
	}
	huge := bytes.Clone(module)
	binary.LittleEndian.PutUint32(huge, 0x7fffffff)
	damaged := bytes.Clone(module)
	elf := bytes.Index(damaged, []byte("\x7fELF\x02\x01\x01"))
	if elf < 0 {
		t.Fatal("the compiled module embeds no ELF image")
	}
	damaged[elf+200] ^= 0x5a
	write("empty.vmfb", "")
	write("eight.vmfb", string(module[:8]))
	write("truncated.vmfb", string(module[:len(module)/2]))
	write("text.vmfb", "module @m {}\n")
	write("sizeprefix.vmfb", string(huge))
	write("damaged.vmfb", string(damaged))
	write("bad.npy", "\x93NUMPY\x01\x00\x10\x00{'descr': '<i4'")
	write("short.bin", string(make([]byte, 12)))
	write("keep.npy", "an earlier result")
	writeNPY(t, "i32.npy", hal.ElementTypeI32, 4)
	writeNPY(t, "f32.npy", hal.ElementTypeF32, 4)
	writeNPY(t, "i32x8.npy", hal.ElementTypeI32, 8)
	write("flags.txt", "--function=divide\n--frobnicate=1\n")
	// Broken programs for iree-compile.
	write("syntax.mlir", p[:strings.Index(p, "func.func @write_null")])
	write("unknown_op.mlir", strings.Replace(p, "arith.index_cast %n", "arith.frobnicate %n", 1))
	write("binary.mlir", "\x00\xff\xfe garbage")
	write("empty.mlir", "")
	write("noobject.mlir", strings.Replace(p, `path = "kernels.c"`, `path = "nope.c"`, 1))
	write("nofunction.mlir", strings.Replace(p, `goiree.cpu_function = "divide"`, `goiree.cpu_function = "nope"`, 1))
	write("badtype.mlir", strings.Replace(p, "-> tensor<1xi32> {", "-> tensor<1xi33x> {", 1))
	write("undefined.mlir", strings.Replace(p, "return %r : tensor<4xi32>", "return %q : tensor<4xi32>", 1))
	if err := os.Mkdir("badc", 0o755); err != nil {
		t.Fatal(err)
	}
	write("badc/kernels.c", strings.Replace(string(kernels), "void divide(", "void divide(int,", 1)+"\nthis is not C;\n")
	write("garbage.o", "this is not an object file")
	write("garbage.mlir", strings.ReplaceAll(p, `path = "kernels.c"`, `path = "garbage.o"`))
	write("badsrc.mlir", strings.ReplaceAll(p, `path = "kernels.c"`, `path = "badc/kernels.c"`))
	if err := os.Mkdir("adir", 0o755); err != nil {
		t.Fatal(err)
	}
	before := dirContents(t, ".")

	const (
		compile = "iree-compile"
		run     = "iree-run-module"
		bench   = "iree-benchmark-module"
		dump    = "iree-dump-module"
		check   = "iree-check-module"
	)
	mod := "--module=f.vmfb"
	cases := []badCase{
		// iree-run-module: flags.
		{"unknown flag", run, []string{mod, "--frobnicate"}, "", 1, "[ERROR] flag provided but not defined: -frobnicate (see --help)"},
		{"mistyped flag", run, []string{mod, "--fuction=divide"}, "", 1, "[ERROR] flag provided but not defined: -fuction; did you mean --function? (see --help)"},
		{"positional argument", run, []string{"f.vmfb"}, "", 1, "[ERROR] unexpected positional argument (expected none). Did you use pass a flag with a single dash ('-')? Use '--' instead."},
		{"missing flag file", run, []string{"--flagfile=nope.txt"}, "", 1, "[ERROR] reading flag file: open nope.txt: no such file or directory"},
		{"unknown flag in a flag file", run, []string{mod, "--flagfile=flags.txt"}, "", 1, "[ERROR] flag provided but not defined: -frobnicate (see --help)"},
		{"negative element count", run, []string{mod, "--function=divide", "--input=4xi32=1", "--output_max_element_count=-1"}, "", 1, "[ERROR] --output_max_element_count=-1 must not be negative"},
		{"unknown equality mode", run, []string{mod, "--function=divide", "--input=4xi32=1", "--equality_mode=close"}, "", 1, "[ERROR] invalid value \"close\" for flag -equality_mode: --equality_mode=close: want approximate or exact (see --help)"},
		{"negative group count", run, []string{mod, "--function=divide", "--input=4xi32=1", "--task_topology_group_count=-1"}, "", 1, "[ERROR] --task_topology_group_count=-1 must not be negative"},
		// iree-run-module: modules.
		{"missing module", run, []string{"--module=nope.vmfb", "--function=divide"}, "", 1, "[ERROR] reading module: open nope.vmfb: no such file or directory"},
		{"empty stdin for --module=-", run, []string{"--module=-", "--function=divide"}, "", 1, "[ERROR] reading module from stdin: no data (give --module=file.vmfb or pipe a module in)"},
		{"empty module", run, []string{"--module=empty.vmfb", "--function=divide"}, "", 1, "[ERROR] loading module empty.vmfb: loading bytecode module: INVALID_ARGUMENT; module of 0 bytes is too short (need at least 16)"},
		{"truncated module", run, []string{"--module=truncated.vmfb", "--function=divide"}, "", 1, "[ERROR] loading module truncated.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size {N} exceeds the {N} bytes after the prefix"},
		{"text instead of a module", run, []string{"--module=text.vmfb", "--function=divide"}, "", 1, "[ERROR] loading module text.vmfb: loading bytecode module: INVALID_ARGUMENT; module of 13 bytes is too short (need at least 16)"},
		{"size prefix past the end", run, []string{"--module=sizeprefix.vmfb", "--function=divide"}, "", 1, "[ERROR] loading module sizeprefix.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size 2147483647 exceeds the {N} bytes after the prefix"},
		{"damaged executable", run, []string{"--module=damaged.vmfb", "--function=divide", "--input=4xi32=1"}, "", 1, "[ERROR] loading module damaged.vmfb: loading bytecode module: DATA_LOSS; module failures: executable @trap_dispatch_0::@embedded_elf_x86_64 (rodata segment {N}) is damaged: the SHA-256 of its {N} bytes differs from the one the compiler recorded; rebuild or re-copy the module"},
		{"same module twice", run, []string{mod, mod, "--function=divide", "--input=4xi32=1"}, "", 1, "[ERROR] ALREADY_EXISTS; creating context: two modules named \"failures\""},
		{"unknown function", run, []string{mod, "--function=nope"}, "", 1, "[ERROR] NOT_FOUND; function \"nope\" not found (exports: failures.count, failures.write_null, failures.divide, failures.trap)"},
		{"no --function, several exports", run, []string{mod, "--input=4xi32=1"}, "", 1, "[ERROR] module \"failures\" exports 4 functions (count, write_null, divide, trap); --function= must be given"},
		{"too few arguments", run, []string{mod, "--function=divide"}, "", 1, "[ERROR] calling divide: the function takes 1 argument(s) (0r_r) but 0 input(s) were given"},
		{"too many arguments", run, []string{mod, "--function=divide", "--input=4xi32=1", "--input=4xi32=2"}, "", 1, "[ERROR] calling divide: the function takes 1 argument(s) (0r_r) but 2 input(s) were given"},
		// iree-run-module: inputs.
		{"wrong element type", run, []string{mod, "--function=divide", "--input=4xf32=1"}, "", 1, "[ERROR] executing divide: hal.buffer_view.assert: INVALID_ARGUMENT; input 0: element type mismatch; expected i32 but have f32; at failures.divide+{N} (failures.mlir:{N}:{N})"},
		{"wrong shape", run, []string{mod, "--function=divide", "--input=8xi32=1"}, "", 1, "[ERROR] executing divide: hal.buffer_view.assert: INVALID_ARGUMENT; input 0: shape mismatch; expected 4 but have 8; at failures.divide+{N} (failures.mlir:{N}:{N})"},
		{"wrong rank", run, []string{mod, "--function=divide", "--input=2x2xi32=1"}, "", 1, "[ERROR] executing divide: hal.buffer_view.assert: INVALID_ARGUMENT; input 0: rank mismatch; expected rank 1 (4) but have rank 2 (2x2); at failures.divide+{N} (failures.mlir:{N}:{N})"},
		{"scalar for a buffer", run, []string{mod, "--function=divide", "--input=5"}, "", 1, "[ERROR] calling divide: input 0 (--input=5): the function expects a buffer view here, not the scalar \"5\": write a shape and type (f32=5 for rank 0, 1xf32=5)"},
		{"buffer for a scalar", run, []string{mod, "--function=count", "--input=1xi64=3", "--input=1xi32=0"}, "", 1, "[ERROR] calling count: input 0 (--input=1xi64=3): the function expects an i64 scalar here, not a buffer view"},
		{"i32 out of range", run, []string{mod, "--function=divide", "--input=4xi32=2147483648"}, "", 1, "[ERROR] --input=4xi32=2147483648: parsing buffer view \"4xi32=2147483648\": element 0: invalid i32 value \"2147483648\": out of range [-2147483648, 2147483647]: signless integers of 32 and 64 bits are signed (write ui32 for unsigned values)"},
		{"i64 scalar out of range", run, []string{mod, "--function=count", "--input=i64=9223372036854775808", "--input=1xi32=0"}, "", 1, "[ERROR] calling count: input 0 (--input=i64=9223372036854775808): parsing scalar \"i64=9223372036854775808\": invalid i64 value \"9223372036854775808\": out of range [-9223372036854775808, 9223372036854775807]: signless integers of 32 and 64 bits are signed"},
		{"f32 out of range", run, []string{mod, "--function=divide", "--input=4xf32=1e999"}, "", 1, "[ERROR] --input=4xf32=1e999: parsing buffer view \"4xf32=1e999\": element 0: invalid f32 value \"1e999\": out of range: the largest finite f32 is 3.4028235e+38"},
		{"not a number", run, []string{mod, "--function=divide", "--input=4xi32=abc"}, "", 1, "[ERROR] --input=4xi32=abc: parsing buffer view \"4xi32=abc\": element 0: invalid i32 value \"abc\": not an integer (decimal, 0x hex or 0-prefixed octal)"},
		{"too few values", run, []string{mod, "--function=divide", "--input=4xi32=1 2"}, "", 1, "[ERROR] --input=4xi32=1 2: parsing buffer view \"4xi32=1 2\": input data string underflow: 2 values given for 4 elements"},
		{"too many values", run, []string{mod, "--function=divide", "--input=4xi32=1 2 3 4 5"}, "", 1, "[ERROR] --input=4xi32=1 2 3 4 5: parsing buffer view \"4xi32=1 2 3 4 5\": output data buffer overflow: the shape holds 4 elements but more values were given"},
		{"unknown element type", run, []string{mod, "--function=divide", "--input=4xq9=1"}, "", 1, "[ERROR] --input=4xq9=1: parsing buffer view \"4xq9=1\": unsupported element type \"q9\""},
		{"negative dimension", run, []string{mod, "--function=divide", "--input=4x-1xi32=1"}, "", 1, "[ERROR] --input=4x-1xi32=1: parsing buffer view \"4x-1xi32=1\": invalid dimension \"-1\" in shape \"4x-1\""},
		{"missing .npy", run, []string{mod, "--function=divide", "--input=@nope.npy"}, "", 1, "[ERROR] --input=@nope.npy: reading nope.npy: no such file or directory"},
		{"corrupt .npy", run, []string{mod, "--function=divide", "--input=@bad.npy"}, "", 1, "[ERROR] --input=@bad.npy: reading bad.npy: array at byte 0: npy: reading header: unexpected EOF"},
		{".npy of the wrong type", run, []string{mod, "--function=divide", "--input=@f32.npy"}, "", 1, "[ERROR] executing divide: hal.buffer_view.assert: INVALID_ARGUMENT; input 0: element type mismatch; expected i32 but have f32; at failures.divide+{N} (failures.mlir:{N}:{N})"},
		{".npy of the wrong shape", run, []string{mod, "--function=divide", "--input=@i32x8.npy"}, "", 1, "[ERROR] executing divide: hal.buffer_view.assert: INVALID_ARGUMENT; input 0: shape mismatch; expected 4 but have 8; at failures.divide+{N} (failures.mlir:{N}:{N})"},
		{"+f.npy past its last array", run, []string{mod, "--function=divide", "--input=@i32.npy", "--input=+i32.npy"}, "", 1, "[ERROR] --input=+i32.npy: i32.npy: no array left to read at byte 144 (the file holds 144 bytes)"},
		{"short .bin", run, []string{mod, "--function=divide", "--input=4xi32=@short.bin"}, "", 1, "[ERROR] --input=4xi32=@short.bin: short.bin holds 12 bytes but 4xi32 needs 16"},
		{"missing .bin", run, []string{mod, "--function=divide", "--input=4xi32=@nope.bin"}, "", 1, "[ERROR] --input=4xi32=@nope.bin: reading nope.bin: no such file or directory"},
		// iree-run-module: devices.
		{"unknown driver", run, []string{mod, "--function=divide", "--input=4xi32=1", "--device=nope"}, "", 1, "[ERROR] NOT_FOUND; unknown driver \"nope\" (available drivers: cuda, local-sync, local-task, vulkan)"},
		{"missing device index", run, []string{mod, "--function=divide", "--input=4xi32=1", "--device=local-task://7"}, "", 1, "[ERROR] NOT_FOUND; device \"local-task://7\" not found: driver \"local-task\" has 1 device(s)"},
		{"bad second device", run, []string{mod, "--function=divide", "--input=4xi32=1", "--device=local-sync", "--device=nope"}, "", 1, "[ERROR] NOT_FOUND; unknown driver \"nope\" (available drivers: cuda, local-sync, local-task, vulkan)"},
		// iree-run-module: workgroup counts and crashing kernels.
		{"workgroup count 2^32", run, []string{mod, "--function=count", "--input=i64=4294967296", "--input=1xi32=0"}, "", 1, "[ERROR] executing count: hal.ex.workgroup_count_error: OUT_OF_RANGE; dispatch of @count_dispatch_0::@embedded_elf_x86_64::@count: workgroup count (4294967296, 1, 1) exceeds 4294967295 (2^32-1), the most the HAL takes in one dimension; it is not truncated; at failures.count+{N} (failures.mlir:{N}:{N})"},
		{"negative workgroup count", run, []string{mod, "--function=count", "--input=i64=-1", "--input=1xi32=0"}, "", 1, "[ERROR] executing count: hal.ex.workgroup_count_error: OUT_OF_RANGE; dispatch of @count_dispatch_0::@embedded_elf_x86_64::@count: workgroup count (-1, 1, 1) is negative; at failures.count+{N} (failures.mlir:{N}:{N})"},
		{"kernel writes through NULL", run, []string{mod, "--function=write_null", "--input=4xi64=0", "--output=@keep.npy"}, "", 1, "[ERROR] executing write_null: hal.ex.submit_and_wait: INTERNAL; command 0: kernel crashed: SIGSEGV (address not mapped, address 0x0) in executable @write_null_dispatch_0::@embedded_elf_x86_64, export 0 (\"null_store\"), workgroup (2, 0, 0) (the process may be corrupt; run with -v for Go's dump); at failures.write_null+{N} (failures.mlir:{N}:{N})"},
		{"kernel divides by zero", run, []string{mod, "--device=local-task", "--function=divide", "--input=4xi32=1 2 0 4"}, "", 1, "[ERROR] executing divide: hal.ex.submit_and_wait: INTERNAL; command 0: kernel crashed: SIGFPE (integer divide by zero at pc 0x{H}) in executable @divide_dispatch_0::@embedded_elf_x86_64, export 0 (\"div_zero\"), workgroup (2, 0, 0) (the process may be corrupt; run with -v for Go's dump); at failures.divide+{N} (failures.mlir:{N}:{N})"},
		{"kernel executes ud2", run, []string{mod, "--function=trap", "--input=4xi32=1"}, "", 1, "[ERROR] executing trap: hal.ex.submit_and_wait: INTERNAL; command 0: kernel crashed: SIGILL (illegal operand at pc 0x{H}) in executable @trap_dispatch_0::@embedded_elf_x86_64, export 0 (\"illegal\"), workgroup (2, 0, 0) (the process may be corrupt; run with -v for Go's dump); at failures.trap+{N} (failures.mlir:{N}:{N})"},
		// iree-run-module: outputs.
		{"output in a missing directory", run, []string{mod, "--function=divide", "--input=4xi32=1", "--output=@missing/out.npy"}, "", 1, "[ERROR] writing missing/out.npy: no such file or directory"},
		{"output onto a directory", run, []string{mod, "--function=divide", "--input=4xi32=1", "--output=@adir"}, "", 1, "[ERROR] writing adir: is a directory"},
		{"more outputs than results", run, []string{mod, "--function=divide", "--input=4xi32=1", "--output=@keep.npy", "--output=@b.npy"}, "", 1, "[ERROR] 2 --output flag(s) given but the function returned 1 result(s)"},
		{"output without @ or +", run, []string{mod, "--function=divide", "--input=4xi32=1", "--output=out.npy"}, "", 1, "[ERROR] --output=out.npy: expected -, @file or +file"},
		{"bad expected output", run, []string{mod, "--function=divide", "--input=4xi32=1", "--expected_output=4xi32=x"}, "", 1, "[ERROR] --expected_output=4xi32=x: parsing buffer view \"4xi32=x\": element 0: invalid i32 value \"x\": not an integer (decimal, 0x hex or 0-prefixed octal)"},

		// iree-benchmark-module.
		{"unknown flag", bench, []string{mod, "--benchmark_frobnicate"}, "", 1, "[ERROR] flag provided but not defined: -benchmark_frobnicate (see --help)"},
		{"missing module", bench, []string{"--module=nope.vmfb"}, "", 1, "[ERROR] reading module: open nope.vmfb: no such file or directory"},
		{"damaged executable", bench, []string{"--module=damaged.vmfb", "--function=divide", "--input=4xi32=1"}, "", 1, "[ERROR] loading module damaged.vmfb: loading bytecode module: DATA_LOSS; module failures: executable @trap_dispatch_0::@embedded_elf_x86_64 (rodata segment {N}) is damaged: the SHA-256 of its {N} bytes differs from the one the compiler recorded; rebuild or re-copy the module"},
		{"filter matches nothing", bench, []string{mod, "--function=divide", "--input=4xi32=1", "--benchmark_filter=nomatch"}, "", 1, "[ERROR] --benchmark_filter=\"nomatch\" matches no benchmark"},
		{"bad filter", bench, []string{mod, "--function=divide", "--input=4xi32=1", "--benchmark_filter=["}, "", 1, "[ERROR] --benchmark_filter=\"[\": error parsing regexp: missing closing ]: `[`"},
		{"unknown time unit", bench, []string{mod, "--function=divide", "--input=4xi32=1", "--time_unit=weeks"}, "", 1, "[ERROR] --time_unit=\"weeks\": want s, ms, us or ns"},
		{"bad minimum time", bench, []string{mod, "--function=divide", "--input=4xi32=1", "--benchmark_min_time=soon"}, "", 1, "[ERROR] --benchmark_min_time=\"soon\": want seconds in (0, 3600] ('0.5', '0.5s') or an iteration count ('100x')"},
		{"unknown output format", bench, []string{mod, "--function=divide", "--input=4xi32=1", "--benchmark_out=o.json", "--benchmark_out_format=xml"}, "", 1, "[ERROR] --benchmark_out_format=\"xml\": want json, console or csv"},
		{"report in a missing directory", bench, []string{mod, "--function=divide", "--input=4xi32=1", "--benchmark_out=missing/o.json"}, "", 1, "[ERROR] --benchmark_out=missing/o.json: directory missing does not exist"},
		{"--output without output processing", bench, []string{mod, "--function=divide", "--input=4xi32=1", "--output=@o.npy"}, "", 1, "[ERROR] --output and --expected_output take effect only with --enable_output_processing (as in IREE)"},
		{"--input without --function, several exports", bench, []string{mod, "--input=4xi32=1"}, "", 1, "[ERROR] --input given without --function and module \"failures\" exports 4 functions: name the function the inputs are for"},
		{"i32 out of range", bench, []string{mod, "--function=divide", "--input=4xi32=-2147483649"}, "", 1, "[ERROR] --input=4xi32=-2147483649: parsing buffer view \"4xi32=-2147483649\": element 0: invalid i32 value \"-2147483649\": out of range [-2147483648, 2147483647]"},
		{"workgroup count 2^32", bench, []string{mod, "--function=count", "--input=i64=4294967296", "--input=1xi32=0"}, "", 1, "[ERROR] benchmarking BM_count/process_time/real_time: executing count: hal.ex.workgroup_count_error: OUT_OF_RANGE; dispatch of @count_dispatch_0::@embedded_elf_x86_64::@count: workgroup count (4294967296, 1, 1) exceeds 4294967295 (2^32-1), the most the HAL takes in one dimension; it is not truncated; at failures.count+{N} (failures.mlir:{N}:{N})"},
		{"kernel writes through NULL", bench, []string{mod, "--function=write_null", "--input=4xi64=0"}, "", 1, "[ERROR] benchmarking BM_write_null/process_time/real_time: executing write_null: hal.ex.submit_and_wait: INTERNAL; command 0: kernel crashed: SIGSEGV (address not mapped, address 0x0) in executable @write_null_dispatch_0::@embedded_elf_x86_64, export 0 (\"null_store\"), workgroup (2, 0, 0) (the process may be corrupt; run with -v for Go's dump); at failures.write_null+{N} (failures.mlir:{N}:{N})"},

		// iree-dump-module.
		{"unknown flag", dump, []string{"--frobnicate", "f.vmfb"}, "", 1, "[ERROR] flag provided but not defined: -frobnicate (see --help)"},
		{"no module", dump, nil, "", 1, "[ERROR] expected one module file argument, got 0 (usage: iree-dump-module [flags] module.vmfb)"},
		{"two modules", dump, []string{"f.vmfb", "f.vmfb"}, "", 1, "[ERROR] expected one module file argument, got 2 (usage: iree-dump-module [flags] module.vmfb)"},
		{"missing module", dump, []string{"nope.vmfb"}, "", 1, "[ERROR] reading module: open nope.vmfb: no such file or directory"},
		{"empty module", dump, []string{"empty.vmfb"}, "", 1, "[ERROR] loading empty.vmfb: loading bytecode module: INVALID_ARGUMENT; module of 0 bytes is too short (need at least 16)"},
		{"eight bytes", dump, []string{"eight.vmfb"}, "", 1, "[ERROR] loading eight.vmfb: loading bytecode module: INVALID_ARGUMENT; module of 8 bytes is too short (need at least 16)"},
		{"truncated module", dump, []string{"truncated.vmfb"}, "", 1, "[ERROR] loading truncated.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size {N} exceeds the {N} bytes after the prefix"},
		{"size prefix past the end", dump, []string{"sizeprefix.vmfb"}, "", 1, "[ERROR] loading sizeprefix.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size 2147483647 exceeds the {N} bytes after the prefix"},
		{"flatbuffer-json of a truncated module", dump, []string{"--output=flatbuffer-json", "truncated.vmfb"}, "", 1, "[ERROR] loading truncated.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size {N} exceeds the {N} bytes after the prefix"},
		{"unknown output", dump, []string{"--output=yaml", "f.vmfb"}, "", 1, "[ERROR] unknown --output=yaml (want all, metadata, executables, disassembly, flatbuffer-json or flatbuffer-binary)"},
		{"unknown function", dump, []string{"--output=disassembly", "--function=nope", "f.vmfb"}, "", 1, "[ERROR] --function=nope: no such function (functions: count, write_null, divide, trap, __device_init, __exe_count_dispatch_0_embedded_elf_x86_64, __exe_write_null_dispatch_0_embedded_elf_x86_64, __exe_divide_dispatch_0_embedded_elf_x86_64, __exe_trap_dispatch_0_embedded_elf_x86_64)"},

		// iree-check-module. The failures program's exports take
		// arguments, so it is no test program: that is refused before any
		// device is made.
		{"unknown flag", check, []string{mod, "--expect_failures"}, "", 1, "[ERROR] flag provided but not defined: -expect_failures; did you mean --expect_failure? (see --help)"},
		{"missing module", check, []string{"--module=nope.vmfb"}, "", 1, "[ERROR] reading module: open nope.vmfb: no such file or directory"},
		{"missing positional module", check, []string{"nope.vmfb"}, "", 1, "[ERROR] reading module: open nope.vmfb: no such file or directory"},
		{"empty stdin", check, []string{"-"}, "", 1, "[ERROR] reading module from stdin: no data (give --module=file.vmfb or pipe a module in)"},
		{"truncated module", check, []string{"--module=truncated.vmfb"}, "", 1, "[ERROR] loading module truncated.vmfb: loading bytecode module: INVALID_ARGUMENT; bad FlatBuffer: size prefix: FlatBuffer size {N} exceeds the {N} bytes after the prefix"},
		{"text instead of a module", check, []string{"--module=text.vmfb", "--expect_failure"}, "", 1, "[ERROR] loading module text.vmfb: loading bytecode module: INVALID_ARGUMENT; module of 13 bytes is too short (need at least 16)"},
		{"damaged executable", check, []string{"--module=damaged.vmfb"}, "", 1, "[ERROR] loading module damaged.vmfb: loading bytecode module: DATA_LOSS; module failures: executable @trap_dispatch_0::@embedded_elf_x86_64 (rodata segment {N}) is damaged: the SHA-256 of its {N} bytes differs from the one the compiler recorded; rebuild or re-copy the module"},
		{"exports that take arguments", check, []string{mod}, "", 1, "[ERROR] expected function with no inputs or outputs, but export 'count' has signature '0Ir_r'"},
		{"bad test filter", check, []string{mod, "--gtest_filter=:-count"}, "", 1, "[ERROR] --gtest_filter=\":-count\" has no pattern before '-'"},
		{"unknown device", check, []string{"--module=nothing.vmfb", "--device=nope"}, "", 1, "[ERROR] NOT_FOUND; unknown driver \"nope\" (available drivers: cuda, local-sync, local-task, vulkan)"},
		{"no test failed under --expect_failure", check, []string{"--module=nothing.vmfb", "--expect_failure"}, "", 1, "[ERROR] --expect_failure: all 1 test passed"},

		// iree-compile.
		{"missing input", compile, []string{"nope.mlir", "-o", "out.vmfb"}, "", 1, "iree-compile: error: could not read input 'nope.mlir': no such file or directory"},
		{"empty input", compile, []string{"empty.mlir", "-o", "out.vmfb"}, "", 1, "empty.mlir:1:1: error: 'builtin.module' op module has no public function to export"},
		{"binary input", compile, []string{"binary.mlir", "-o", "out.vmfb"}, "", 1, "binary.mlir:1:1: error: unexpected character '\\x00'"},
		{"syntax error", compile, []string{"syntax.mlir", "-o", "out.vmfb"}, "", 1, "syntax.mlir:28:3: error: expected '}' to end region, found end of file"},
		{"unknown op", compile, []string{"unknown_op.mlir", "-o", "out.vmfb"}, "", 1, "unknown_op.mlir:16:10: error: custom op 'arith.frobnicate' is unknown"},
		{"bad type", compile, []string{"badtype.mlir", "-o", "out.vmfb"}, "", 1, "badtype.mlir:15:66: error: expected type, found 'i33x'"},
		{"undefined value", compile, []string{"undefined.mlir", "-o", "out.vmfb"}, "", 1, "undefined.mlir:57:12: error: use of undeclared SSA value name '%q'"},
		{"missing object", compile, []string{"noobject.mlir", "-o", "out.vmfb"}, "", 1, "noobject.mlir:17:10: error: 'hal.executable.variant' op referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: #hal.executable.object<{path = \"nope.c\"}> (tried: nope.c)"},
		{"kernel function not in the object", compile, []string{"nofunction.mlir", "-o", "out.vmfb"}, "", 1, "nofunction.mlir:46:10: error: 'hal.executable.variant' op kernel ABI mismatch: kernels.c: does not define function 'nope', which @div_zero calls through a hal.import.static declaration (defined functions: count_workgroups, divide, trap, write_null)"},
		{"kernel source does not compile", compile, []string{"badsrc.mlir", "-o", "out.vmfb"}, "", 1, "badsrc.mlir:17:10: error: compiling kernel source badc/kernels.c for x86_64-unknown-unknown-eabi-elf: clang-16 failed (exit status 1):"},
		{"object is not ELF", compile, []string{"garbage.mlir", "-o", "out.vmfb"}, "", 1, "garbage.mlir:17:10: error: 'hal.executable.variant' op kernel ABI mismatch: garbage.o: not an ELF object file"},
		{"unknown target backend", compile, []string{"failures.mlir", "--iree-hal-target-backends=metal", "-o", "out.vmfb"}, "", 1, "iree-compile: error: unknown target backend 'metal' in --iree-hal-target-backends (available: cuda, llvm-cpu, vmvx, vulkan-spirv)"},
		{"unknown target device", compile, []string{"failures.mlir", "--iree-hal-target-device=tpu", "-o", "out.vmfb"}, "", 1, "iree-compile: error: --iree-hal-target-device=tpu: unknown target device 'tpu' (available devices: cuda, local, vulkan; or a backend standing for its device: cuda, llvm-cpu, vmvx, vulkan-spirv)"},
		{"unknown phase", compile, []string{"failures.mlir", "--compile-to=done", "-o", "out.vmfb"}, "", 1, "iree-compile: error: invalid --compile-to=done (phases: start, input, abi, preprocessing, global-optimization, dispatch-creation, flow, stream, executable-sources, executable-configurations, executable-targets, hal, vm, end)"},
		{"unknown flag", compile, []string{"failures.mlir", "--iree-frobnicate", "-o", "out.vmfb"}, "", 1, "iree-compile: error: Unknown command line argument '--iree-frobnicate'.  Try: 'iree-compile --help'"},
		{"missing linker", compile, []string{"failures.mlir", "--iree-llvmcpu-embedded-linker-path=/nonexistent/ld.lld", "-o", "out.vmfb"}, "", 1, "error: /nonexistent/ld.lld not found or not executable (set --iree-llvmcpu-embedded-linker-path=<path>)"},
		{"output in a missing directory", compile, []string{"failures.mlir", "-o", "missing/out.vmfb"}, "", 1, "iree-compile: error: cannot write output 'missing/out.vmfb': no such file or directory"},
		{"output onto a directory", compile, []string{"failures.mlir", "-o", "adir"}, "", 1, "iree-compile: error: cannot write output 'adir': is a directory"},
	}
	type row struct {
		c     badCase
		first string
		code  int
	}
	var rows []row
	for _, c := range cases {
		t.Run(c.tool+"/"+c.name, func(t *testing.T) {
			r := runTool(t, filepath.Join(bin, c.tool), c.stdin, c.args)
			first, _, _ := strings.Cut(r.stderr, "\n")
			rows = append(rows, row{c, first, r.code})
			if os.Getenv("DUMPGOT") != "" {
				fmt.Fprintf(os.Stderr, "GOT\t%s/%s\t%d\t%q\n", c.tool, c.name, r.code, first)
			}
			if r.code != c.code || !like(c.first, first) {
				t.Errorf("%s %s\nexit %d, first stderr line:\n\t%q\nwant exit %d and\n\t%q\nstdout:\n%s", c.tool, strings.Join(c.args, " "), r.code, first, c.code, c.first, r.stdout)
			}
			if after := dirContents(t, "."); !maps.Equal(before, after) {
				var changed []string
				for _, k := range slices.Sorted(maps.Keys(after)) {
					if v, ok := before[k]; !ok || v != after[k] {
						changed = append(changed, k)
					}
				}
				t.Errorf("%s %s changed or created %v", c.tool, strings.Join(c.args, " "), changed)
				for k := range after {
					if _, ok := before[k]; !ok {
						os.RemoveAll(k)
					}
				}
			}
		})
	}
	if *printTable {
		fmt.Printf("| # | case | command | exit | first line of stderr |\n|---|---|---|---|---|\n")
		for i, r := range rows {
			cmd := r.c.tool
			for _, a := range r.c.args {
				if strings.ContainsAny(a, " *&[") {
					a = "'" + a + "'"
				}
				cmd += " " + a
			}
			fmt.Printf("| %d | %s | `%s` | %d | `%s` |\n", i+1, r.c.name, mdEscape(cmd), r.code, mdEscape(r.first))
		}
	}
}

// mdEscape makes s safe inside a Markdown table's code span.
func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "'").Replace(s)
}
