package functionio

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/npy"
	"github.com/goiree/goiree/runtime/vm"
)

func mustSig(t *testing.T, cc string) vm.Signature {
	t.Helper()
	s, err := vm.ParseSignature(cc)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func viewValue(t *testing.T, alloc hal.Allocator, text string) vm.Value {
	t.Helper()
	b, err := bufferfmt.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	v, err := NewBufferView(alloc, b)
	if err != nil {
		t.Fatal(err)
	}
	return vm.RefValue(halmodule.BufferViewRef(v))
}

func TestInputsToValues(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "x.bin")
	if err := os.WriteFile(bin, []byte{1, 0, 0, 0, 2, 0, 0, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	inputs, err := ParseInputs([]string{
		"8xf32=2", "i32=5", "-3", "2xi32=@" + bin, "*testdata/two_arrays.npy", "(null)", "2.5",
	})
	if err != nil {
		t.Fatal(err)
	}
	alloc := hal.NewHostAllocator(0)
	values, err := Values(inputs, mustSig(t, "0riIrrrrF_v"), alloc)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := PrintResults(&out, values, 1024); err != nil {
		t.Fatal(err)
	}
	want := `result[0]: hal.buffer_view
8xf32=2 2 2 2 2 2 2 2
result[1]: i32=5
result[2]: i64=-3
result[3]: hal.buffer_view
2xi32=1 2
result[4]: hal.buffer_view
4xi32=1 -2 3 -4
result[5]: hal.buffer_view
ui8=7
result[6]: (null)
result[7]: f64=2.5
`
	if out.String() != want {
		t.Errorf("printed:\n%s\nwant:\n%s", out.String(), want)
	}
}

func TestInputErrors(t *testing.T) {
	alloc := hal.NewHostAllocator(0)
	tests := []struct {
		specs []string
		cc    string
		want  string
	}{
		{[]string{"8xf32=1 2"}, "0r_v", "input data string underflow"},
		{[]string{"2xf32=1 2 3"}, "0r_v", "output data buffer overflow"},
		{[]string{"@missing.npy"}, "0r_v", "reading missing.npy"},
		{[]string{"@file.bin"}, "0r_v", "raw binary input needs a shape and type"},
		{[]string{"128xf32=@testdata/two_arrays.npy"}, "0r_v", "holds 273 bytes but 128xf32 needs 512"},
		{[]string{"8xf32=1"}, "0rr_v", "takes 2 argument(s) (0rr_r"[:19]},
		{[]string{"5"}, "0r_v", "expects a buffer view here, not the scalar"},
		{[]string{"4xf32=1"}, "0i_v", "expects an i32 scalar here, not a buffer view"},
		{[]string{"abc"}, "0i_v", "missing '=' between shape/type and values"},
		{[]string{"1.5"}, "0i_v", "invalid i32 value"},
		{[]string{"f32=1"}, "0i_v", "expects i32, not f32"},
		{[]string{"1"}, "0CiD_v", "variadic"},
	}
	for _, tc := range tests {
		inputs, err := ParseInputs(tc.specs)
		if err == nil {
			_, err = Values(inputs, mustSig(t, tc.cc), alloc)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v with %s: error %v, want it to contain %q", tc.specs, tc.cc, err, tc.want)
		}
	}
}

func TestWriteOutputs(t *testing.T) {
	alloc := hal.NewHostAllocator(0)
	results := []vm.Value{viewValue(t, alloc, "4xf32=1 2 3 4"), viewValue(t, alloc, "2x2xi32=[5 6][7 8]"), vm.I32(9)}
	dir := t.TempDir()
	npyPath := filepath.Join(dir, "out.npy")
	binPath := filepath.Join(dir, "out.bin")
	var out bytes.Buffer
	if err := WriteOutputs(&out, results, []string{"@" + npyPath, "+" + binPath, "-"}, 1024); err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "result[2]: i32=9\n" {
		t.Errorf("stdout = %q", got)
	}
	// Append the same results again: the npy file gets a second array.
	if err := WriteOutputs(&out, results, []string{"+" + npyPath, "+" + binPath, ""}, 1024); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(npyPath)
	if err != nil {
		t.Fatal(err)
	}
	arrays, err := npy.ReadAll(data)
	if err != nil || len(arrays) != 2 || arrays[1].Shape.String() != "4" {
		t.Fatalf("npy after append: %v arrays, err %v", len(arrays), err)
	}
	bin, err := os.ReadFile(binPath)
	if err != nil || len(bin) != 32 || bin[16] != 5 {
		t.Fatalf("bin after append: %d bytes %v", len(bin), err)
	}
	// A failing output writes nothing: result[2] goes to a missing directory.
	fresh := filepath.Join(dir, "fresh.npy")
	if err := WriteOutputs(&out, results, []string{"@" + fresh, "-", "@" + filepath.Join(dir, "no", "x.npy")}, 1024); err == nil {
		t.Fatal("an output into a missing directory succeeded")
	}
	if _, err := os.Stat(fresh); !os.IsNotExist(err) {
		t.Errorf("%s was written although the outputs failed", fresh)
	}
	if err := WriteOutputs(&out, results, []string{"-"}, 1024); err == nil || !strings.Contains(err.Error(), "1 --output flag(s) given but the function returned 3") {
		t.Errorf("count mismatch: %v", err)
	}
	if err := WriteOutputs(&out, results, []string{"x", "-", "-"}, 1024); err == nil {
		t.Error("bad output spec accepted")
	}
	if err := WriteOutputs(&out, results[:1], []string{"@" + filepath.Join(dir, "no", "such", "dir.npy")}, 1024); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestPrintElision(t *testing.T) {
	alloc := hal.NewHostAllocator(0)
	var out bytes.Buffer
	if err := PrintResults(&out, []vm.Value{viewValue(t, alloc, "2x3xf32=1.5 2 3 4 5 6")}, 4); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "result[0]: hal.buffer_view\n2x3xf32=[1.5 2 3][4...]\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCompareResults(t *testing.T) {
	alloc := hal.NewHostAllocator(0)
	results := []vm.Value{viewValue(t, alloc, "4xf32=1 2 3 4.00001"), vm.I32(7), viewValue(t, alloc, "2xi8=1 2")}
	tests := []struct {
		expected []string
		ok       bool
		want     string
	}{
		{[]string{"4xf32=1 2 3 4", "7", "2xi8=1 2"}, true, SuccessLine},
		{[]string{"4xf32=1 2 3 4", "i32=7", "(ignored)"}, true, SuccessLine},
		{[]string{"4xf32=1 2 3 5", "7", "2xi8=1 2"}, false, "[FAILED] result[0]: element at index 3 (4.00001) does not match the expected (5)"},
		{[]string{"4xf32=1", "8", "2xi8=1 2"}, false, "[FAILED] result[1]: expected i32=8 but got i32=7"},
		{[]string{"4xf64=1 2 3 4", "7", "2xi8=1 2"}, false, "metadata is 4xf32; expected that the view matches 4xf64"},
		{[]string{"(ignored)", "7", "3xi8=1 2 3"}, false, "metadata is 2xi8; expected that the view matches 3xi8"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		ok, err := CompareResults(&out, results, tc.expected, DefaultThresholds, 1024)
		if err != nil {
			t.Errorf("%v: %v", tc.expected, err)
			continue
		}
		if ok != tc.ok || !strings.Contains(out.String(), tc.want) {
			t.Errorf("%v: ok=%v output %q, want ok=%v containing %q", tc.expected, ok, out.String(), tc.ok, tc.want)
		}
	}
	if _, err := CompareResults(&bytes.Buffer{}, results, []string{"1"}, DefaultThresholds, 1024); err == nil {
		t.Error("count mismatch accepted")
	}
}
