package modulejson

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/schemas/bytecode"
	"github.com/goiree/goiree/runtime/schemas/fbverify"
	"github.com/goiree/goiree/runtime/vm"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func smallModule(t *testing.T) []byte {
	t.Helper()
	b := vm.NewModuleBuilder("small")
	b.SetVersion(3)
	b.AddAttr("purpose", "json test")
	imp := b.Import("hal.buffer.length", "0r_I")
	b.OptionalImport("hal.devices.count", "0v_i")
	b.Rodata([]byte{1, 2, 3}, "application/octet-stream")
	g := b.AddGlobal(vm.KindI32)
	_ = g
	f := b.Function("len", "0r_I")
	f.Loc("small.mlir", 3, 7)
	r := f.NewI64()
	f.CallImport(imp, []vm.Reg{f.Arg(0)}, []vm.Reg{r})
	f.Loc("small.mlir", 4, 3)
	f.Return(r)
	b.Export("len", f, vm.Attr{Key: "iree.abi.declaration", Value: "func @len"})
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestWriteGolden(t *testing.T) {
	fb, _, err := fbverify.SizePrefixed(smallModule(t))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, fb); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	if !json.Valid([]byte(got)) {
		t.Fatalf("output is not valid JSON:\n%s", got)
	}
	var parsed map[string]any
	if err := json.Unmarshal([]byte(got), &parsed); err != nil {
		t.Fatal(err)
	}
	if parsed["name"] != "small" || parsed["version"] != float64(3) {
		t.Errorf("name/version: %v %v", parsed["name"], parsed["version"])
	}
	// The golden file leaves the bytecode bytes out (they follow the VM's
	// opcode numbering); check them against the FlatBuffer instead.
	def := bytecode.GetRootAsBytecodeModuleDef(fb, 0)
	var code struct {
		Data []int `json:"bytecode_data"`
	}
	if err := json.Unmarshal([]byte(got), &code); err != nil {
		t.Fatal(err)
	}
	if len(code.Data) != def.BytecodeDataLength() {
		t.Fatalf("bytecode_data has %d bytes, want %d", len(code.Data), def.BytecodeDataLength())
	}
	for i, v := range code.Data {
		if byte(v) != def.BytecodeData(i) {
			t.Fatalf("bytecode_data[%d] = %d, want %d", i, v, def.BytecodeData(i))
		}
	}
	got = regexp.MustCompile(`"bytecode_data": \[[0-9, ]*\]`).ReplaceAllString(got, `"bytecode_data": [...]`)
	golden := filepath.Join("testdata", "small.json")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("JSON differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}

func TestWriteRejectsCorruptInput(t *testing.T) {
	fb, _, err := fbverify.SizePrefixed(smallModule(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]byte{nil, fb[:len(fb)/2], append([]byte{0xFF, 0xFF, 0xFF, 0x7F}, fb[4:]...)} {
		var b strings.Builder
		if err := Write(&b, bad); err == nil {
			t.Errorf("corrupt FlatBuffer of %d bytes accepted", len(bad))
		}
	}
}

// FuzzWrite checks that no FlatBuffer makes Write panic: everything is
// verified before it is read, and accepted input prints valid JSON.
func FuzzWrite(f *testing.F) {
	seeds, err := filepath.Glob(filepath.Join("testdata", "*.fb"))
	if err != nil {
		f.Fatal(err)
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, fb []byte) {
		var b strings.Builder
		if err := Write(&b, fb); err != nil {
			return
		}
		if !json.Valid([]byte(b.String())) {
			t.Fatalf("invalid JSON for accepted input:\n%s", b.String())
		}
	})
}

// TestSeedFlatBuffer keeps testdata/small.fb, FuzzWrite's seed, a module
// Write accepts (go test -update rewrites it from the current builder).
func TestSeedFlatBuffer(t *testing.T) {
	path := filepath.Join("testdata", "small.fb")
	if *update {
		fb, _, err := fbverify.SizePrefixed(smallModule(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, fb, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	var b strings.Builder
	if err := Write(&b, data); err != nil {
		t.Errorf("%s: %v", path, err)
	}
}
