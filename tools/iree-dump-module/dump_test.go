package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/demomodule"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ (and testdata/simple_mul.so when clang and ld.lld are present)")

// demoModule writes the demonstration module (tools/internal/demomodule)
// around the committed kernel testdata/simple_mul.so to a temporary file.
// The module is assembled by the current VM builder, so the goldens follow
// the VM's text forms rather than a frozen binary.
func demoModule(t *testing.T) string {
	t.Helper()
	so := filepath.Join("testdata", "simple_mul.so")
	if *update {
		if clang, lld, err := demomodule.FindTools(); err == nil {
			elf, err := demomodule.BuildKernel(clang, lld, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(so, elf, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	elf, err := os.ReadFile(so)
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := demomodule.Build(elf)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.vmfb")
	if err := os.WriteFile(path, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runTool(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, bytes.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// encodingDependent matches the numbers of a dump that follow the VM's
// instruction encoding (file size, bytecode ranges) rather than this tool.
var encodingDependent = regexp.MustCompile(`File: [0-9]+ bytes|bytecode \[[0-9]+, [0-9]+\)`)

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	got = encodingDependent.ReplaceAllStringFunc(got, func(s string) string {
		if strings.HasPrefix(s, "File") {
			return "File: N bytes"
		}
		return "bytecode [N, N)"
	})
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func TestDumpDemoModule(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("skipping: the goldens list the x86-64 kernel's loaded export table")
	}
	demo := demoModule(t)
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{"--output=metadata", demo}, "demo.metadata.txt"},
		{[]string{"--output=executables", demo}, "demo.executables.txt"},
		{[]string{"--output=executables", "--load_executables=false", demo}, "demo.executables.static.txt"},
	} {
		code, stdout, stderr := runTool(t, nil, tc.args...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			continue
		}
		checkGolden(t, tc.golden, stdout)
	}
	// The JSON is valid and holds the module's tables; stdin gives the
	// same dump as the file.
	code, js, stderr := runTool(t, nil, "--output=flatbuffer-json", demo)
	var parsed struct {
		Name     string `json:"name"`
		Imported []struct {
			FullName string `json:"full_name"`
		} `json:"imported_functions"`
		Exported []struct {
			LocalName string `json:"local_name"`
			Signature struct {
				CC string `json:"calling_convention"`
			} `json:"signature"`
		} `json:"exported_functions"`
		Rodata []struct {
			Mime string `json:"mime_type"`
		} `json:"rodata_segments"`
		Bytecode []int `json:"bytecode_data"`
	}
	if err := json.Unmarshal([]byte(js), &parsed); err != nil || code != 0 {
		t.Fatalf("flatbuffer-json: exit %d, %v, %s", code, err, stderr)
	}
	if parsed.Name != "demo" || len(parsed.Imported) != 17 || parsed.Imported[0].FullName != "hal.devices.get" ||
		len(parsed.Exported) != 1 || parsed.Exported[0].LocalName != "simple_mul" || parsed.Exported[0].Signature.CC != "0rr_r" ||
		len(parsed.Rodata) != 4 || parsed.Rodata[1].Mime != "application/x-elf" || len(parsed.Bytecode) == 0 {
		t.Errorf("flatbuffer-json content: %+v", parsed)
	}
	data, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	_, fromStdin, _ := runTool(t, data, "--output=metadata", "-")
	_, fromFile, _ := runTool(t, nil, "--output=metadata", demo)
	if fromStdin != fromFile {
		t.Error("stdin and file dumps differ")
	}
	// The disassembly is the VM's own text form (golden-tested in
	// runtime/vm) under a section header; --output=all is the three
	// sections in order.
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatal(err)
	}
	var dis strings.Builder
	if err := m.Disassemble(&dis); err != nil {
		t.Fatal(err)
	}
	_, disOut, _ := runTool(t, nil, "--output", "disassembly", demo)
	if !strings.HasSuffix(disOut, dis.String()) || !strings.Contains(disOut, "// Disassembly\n") {
		t.Errorf("--output=disassembly:\n%s", disOut)
	}
	_, meta, _ := runTool(t, nil, "--output=metadata", demo)
	_, exes, _ := runTool(t, nil, "--output=executables", demo)
	if _, all, _ := runTool(t, nil, demo); all != meta+"\n"+exes+"\n"+disOut {
		t.Errorf("--output=all is not metadata, executables and disassembly in order:\n%s", all)
	}
	code, stdout, _ := runTool(t, nil, "--output=disassembly", "--function=simple_mul", demo)
	if code != 0 || !strings.Contains(stdout, "call.import @hal.command_buffer.dispatch(") {
		t.Errorf("--function=simple_mul: exit %d\n%s", code, stdout)
	}
}

func TestDumpErrors(t *testing.T) {
	demo := demoModule(t)
	data, err := os.ReadFile(demo)
	if err != nil {
		t.Fatal(err)
	}
	corrupt := append([]byte{}, data...)
	corrupt[8] ^= 0xFF // inside the FlatBuffer root offset / identifier
	tests := []struct {
		args  []string
		stdin []byte
		want  string
	}{
		{nil, nil, "expected one module file argument, got 0"},
		{[]string{demo, demo}, nil, "expected one module file argument, got 2"},
		{[]string{"--output=bogus", demo}, nil, "unknown --output=bogus"},
		{[]string{"/nonexistent.vmfb"}, nil, "reading module"},
		{[]string{"-"}, data[:100], "loading -"},
		{[]string{"-"}, corrupt, "loading -"},
		{[]string{"--output=disassembly", "--function=nope", demo}, nil, "--function=nope: no such function (functions: simple_mul)"},
		{[]string{"--nope", demo}, nil, "flag provided but not defined"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runTool(t, tc.stdin, tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.want) || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q, want %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	if code, stdout, _ := runTool(t, nil, "--help"); code != 0 || !strings.Contains(stdout, "--output=<string>") {
		t.Errorf("--help: %d %q", code, stdout)
	}
}
