package functionio

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// plainNPY writes one little-endian .npy (format 1.0) array the way NumPy
// lays it out, independently of package npy: magic, version, header length,
// the header dict padded with spaces to a multiple of 64 bytes and ending
// in a newline, then the data.
func plainNPY(descr string, shape []int, data []byte) []byte {
	dims := make([]string, len(shape))
	for i, d := range shape {
		dims[i] = fmt.Sprint(d)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	header := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, tuple)
	for (10+len(header)+1)%64 != 0 {
		header += " "
	}
	header += "\n"
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(header)))
	b.WriteString(header)
	b.Write(data)
	return b.Bytes()
}

func f32s(xs ...float32) []byte {
	var b bytes.Buffer
	for _, x := range xs {
		binary.Write(&b, binary.LittleEndian, math.Float32bits(x))
	}
	return b.Bytes()
}

func i32s(xs ...int32) []byte {
	var b bytes.Buffer
	for _, x := range xs {
		binary.Write(&b, binary.LittleEndian, x)
	}
	return b.Bytes()
}

// TestInputGrammar runs every --input form through ParseInputs and Values
// and prints what the function would receive, in iree-run-module's result
// format, against files written here.
func TestInputGrammar(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write := func(name string, data []byte) {
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// three.npy: three arrays one after another.
	write("three.npy", bytes.Join([][]byte{
		plainNPY("<f4", []int{2}, f32s(1, 2)),
		plainNPY("<i4", []int{2, 2}, i32s(1, 2, 3, 4)),
		plainNPY("<f4", []int{}, f32s(-5)),
	}, nil))
	write("one.npy", plainNPY("<f4", []int{3}, f32s(7, 8, 9)))
	// six.bin: six little-endian f32 values, 1.5 .. 6.5.
	write("six.bin", f32s(1.5, 2.5, 3.5, 4.5, 5.5, 6.5))

	for _, tc := range []struct {
		name  string
		specs []string
		cc    string
		want  string // printed as iree-run-module prints results
	}{
		{"@ reads the first array only", []string{"@three.npy"}, "0r_v", "2xf32=1 2"},
		{"+ reads the next array", []string{"@three.npy", "+three.npy"}, "0rr_v", "2xf32=1 2 | 2x2xi32=[1 2][3 4]"},
		{"+ on an unread file starts at its first array", []string{"+three.npy", "+three.npy"}, "0rr_v", "2xf32=1 2 | 2x2xi32=[1 2][3 4]"},
		{"@ starts the file over", []string{"@three.npy", "@three.npy"}, "0rr_v", "2xf32=1 2 | 2xf32=1 2"},
		{"* reads every array left", []string{"*three.npy"}, "0rrr_v", "2xf32=1 2 | 2x2xi32=[1 2][3 4] | f32=-5"},
		{"* after @ reads the rest", []string{"@three.npy", "*three.npy"}, "0rrr_v", "2xf32=1 2 | 2x2xi32=[1 2][3 4] | f32=-5"},
		{"* at the end reads nothing", []string{"*one.npy", "*one.npy"}, "0r_v", "3xf32=7 8 9"},
		{"files keep separate offsets", []string{"@three.npy", "@one.npy", "+three.npy"}, "0rrr_v", "2xf32=1 2 | 3xf32=7 8 9 | 2x2xi32=[1 2][3 4]"},
		{"raw prefix of a longer file", []string{"2x2xf32=@six.bin"}, "0r_v", "2x2xf32=[1.5 2.5][3.5 4.5]"},
		{"raw continuation", []string{"2xf32=@six.bin", "f32=+six.bin", "3xf32=+six.bin"}, "0rrr_v", "2xf32=1.5 2.5 | f32=3.5 | 3xf32=4.5 5.5 6.5"},
		{"raw @ starts over", []string{"2xf32=@six.bin", "2xf32=@six.bin"}, "0rr_v", "2xf32=1.5 2.5 | 2xf32=1.5 2.5"},
		{"rank-0 tensor", []string{"f32=-5"}, "0r_v", "f32=-5"},
		{"shape and type alone are zeros", []string{"2xi32", "2x2xf32"}, "0rr_v", "2xi32=0 0 | 2x2xf32=[0 0][0 0]"},
		{"rank-0 i32 tensor", []string{"i32=7"}, "0r_v", "i32=7"},
		{"typed scalar for a scalar argument", []string{"f32=-5"}, "0f_v", "f32=-5"},
		{"(null) for a ref", []string{"(null)"}, "0r_v", "(null)"},
		{"(null) for scalars is 0", []string{"(null)", "(null)", "(null)", "(null)"}, "0iIfF_v", "i32=0 | i64=0 | f32=0 | f64=0"},
		{"storage without values", []string{"&4xf32"}, "0r_v", "hal.buffer 16 bytes: 00000000000000000000000000000000"},
		{"storage with values", []string{"&2xi32=1 258"}, "0r_v", "hal.buffer 8 bytes: 0100000002010000"},
		{"storage from a file", []string{"&2xf32=@six.bin"}, "0r_v", "hal.buffer 8 bytes: 0000c03f00002040"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			inputs, err := ParseInputs(tc.specs)
			if err != nil {
				t.Fatal(err)
			}
			values, err := Values(inputs, mustSig(t, tc.cc), hal.NewHostAllocator(0))
			if err != nil {
				t.Fatal(err)
			}
			if got := describe(t, values); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// describe prints values one after another, separated by " | ": buffer
// views and scalars as iree-run-module prints them, hal.buffers as their
// length and hex bytes.
func describe(t *testing.T, values []vm.Value) string {
	t.Helper()
	var parts []string
	for _, v := range values {
		switch {
		case v.Kind() != vm.KindRef:
			parts = append(parts, FormatScalar(v))
		case v.Ref().IsNull():
			parts = append(parts, "(null)")
		case v.Ref().Type() == halmodule.BufferType:
			buf := v.Ref().Object().(*hal.Buffer)
			data := make([]byte, buf.ByteLength())
			if err := buf.Read(0, data); err != nil {
				t.Fatal(err)
			}
			parts = append(parts, fmt.Sprintf("hal.buffer %d bytes: %x", len(data), data))
		default:
			s, err := formatRef(v, 1024)
			if err != nil {
				t.Fatal(err)
			}
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " | ")
}

func TestInputGrammarErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("one.npy", plainNPY("<f4", []int{3}, f32s(7, 8, 9)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("six.bin", f32s(1, 2, 3, 4, 5, 6), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir("d.npy", 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		specs []string
		cc    string
		want  string
	}{
		{[]string{""}, "0r_v", "no value specified for input"},
		{[]string{"  "}, "0r_v", "no value specified for input"},
		{[]string{"@one.npy", "+one.npy"}, "0rr_v", "--input=+one.npy: one.npy: no array left to read at byte 140 (the file holds 140 bytes)"},
		{[]string{"@missing.npy"}, "0r_v", "--input=@missing.npy: reading missing.npy: no such file or directory"},
		{[]string{"+six.bin"}, "0r_v", `"six.bin" is not a .npy file`},
		{[]string{"*six.bin"}, "0r_v", `"six.bin" is not a .npy file`},
		{[]string{"@six.npy"}, "0r_v", "reading six.npy: no such file or directory"},
		{[]string{"@d.npy"}, "0r_v", "reading d.npy: is a directory"},
		{[]string{"@"}, "0r_v", `"" is not a .npy file`},
		{[]string{"@six.bin.npy"}, "0r_v", "reading six.bin.npy"},
		{[]string{"7xf32=@six.bin"}, "0r_v", "six.bin holds 24 bytes but 7xf32 needs 28"},
		{[]string{"4xf32=@six.bin", "3xf32=+six.bin"}, "0rr_v", "--input=3xf32=+six.bin: six.bin holds 8 bytes from byte 16 on but 3xf32 needs 12"},
		{[]string{"4xf32=@"}, "0r_v", "missing file name"},
		{[]string{"4xq9=@six.bin"}, "0r_v", "q9"},
		{[]string{"&4xf32"}, "0i_v", "expects an i32 scalar here, not a buffer view"},
		{[]string{"&"}, "0r_v", "parsing buffer view"},
		{[]string{"2xq9"}, "0r_v", "missing '=' between shape/type and values"},
		{[]string{"xx"}, "0r_v", "missing '=' between shape/type and values"},
		{[]string{"5"}, "0r_v", "write a shape and type (f32=5 for rank 0, 1xf32=5)"},
		{[]string{"f32=1e999"}, "0r_v", "f32"},
	} {
		inputs, err := ParseInputs(tc.specs)
		if err == nil {
			_, err = Values(inputs, mustSig(t, tc.cc), hal.NewHostAllocator(0))
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q with %s: error %v, want it to contain %q", tc.specs, tc.cc, err, tc.want)
		}
	}
}

// TestInputGrammarNumPy reads files written by NumPy itself when python3
// with numpy is installed (skipped otherwise).
func TestInputGrammarNumPy(t *testing.T) {
	python := ""
	// The python3 on PATH may be a separate installation (pyenv) without
	// the distribution's numpy package.
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("python3 with numpy is not installed")
	}
	dir := t.TempDir()
	script := `
import numpy as np
with open("multi.npy", "wb") as f:
    np.save(f, np.array([1.5, -2.25], dtype=np.float32))
    np.save(f, np.arange(6, dtype=np.int32).reshape(2, 3))
    np.save(f, np.float64(3.125))
    np.save(f, np.array([[True, False]]))
np.arange(5, dtype=np.float32).tofile("five.bin")
`
	cmd := exec.Command(python, "-c", script)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	t.Chdir(dir)
	inputs, err := ParseInputs([]string{"@multi.npy", "+multi.npy", "*multi.npy", "2x2xf32=@five.bin", "f32=+five.bin"})
	if err != nil {
		t.Fatal(err)
	}
	values, err := Values(inputs, mustSig(t, "0rrrrrr_v"), hal.NewHostAllocator(0))
	if err != nil {
		t.Fatal(err)
	}
	// i1 elements print as hex bytes, as IREE prints booleans.
	want := "2xf32=1.5 -2.25 | 2x3xi32=[0 1 2][3 4 5] | f64=3.125 | 1x2xi1=[01 00] | 2x2xf32=[0 1][2 3] | f32=4"
	if got := describe(t, values); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestScalarAndBufferOutputs writes scalar, null and hal.buffer results to
// .npy and raw files, as IREE does, and reads them back with a plain
// decoder (and with NumPy when it is installed).
func TestScalarAndBufferOutputs(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	alloc := hal.NewHostAllocator(0)
	buf, err := alloc.AllocateBuffer(hal.BufferParams{}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := buf.Write(0, []byte{7, 8, 9}); err != nil {
		t.Fatal(err)
	}
	results := []vm.Value{
		vm.I32(-7), vm.I64(1 << 40), vm.F32(1.2345678), vm.F64(-2.5e300),
		vm.RefValue(vm.Ref{}), vm.RefValue(halmodule.BufferRef(buf)),
	}
	specs := []string{"@all.npy", "+all.npy", "+all.npy", "+all.npy", "+all.npy", "+all.npy"}
	if err := WriteOutputs(&bytes.Buffer{}, results, specs, 1024); err != nil {
		t.Fatal(err)
	}
	raw := []string{"@all.bin", "+all.bin", "+all.bin", "+all.bin", "+all.bin", "+all.bin"}
	if err := WriteOutputs(&bytes.Buffer{}, results, raw, 1024); err != nil {
		t.Fatal(err)
	}
	// Read the arrays back through the --input grammar.
	inputs, err := ParseInputs([]string{"*all.npy"})
	if err != nil {
		t.Fatal(err)
	}
	values, err := Values(inputs, mustSig(t, "0rrrrrr_v"), alloc)
	if err != nil {
		t.Fatal(err)
	}
	want := "i32=-7 | i64=1099511627776 | f32=1.23457 | f64=-2.5E+300 | 0xi8= | 3xi8=7 8 9"
	if got := describe(t, values); got != want {
		t.Errorf("npy read back:\ngot  %s\nwant %s", got, want)
	}
	// The f32 is stored exactly, not as its printed text.
	if got := values[2].Ref().Object().(*hal.BufferView); got != nil {
		b, err := ReadBufferView(got)
		if err != nil || !bytes.Equal(b.Data, f32s(1.2345678)) {
			t.Errorf("f32 result stored as %x, want %x (%v)", b.Data, f32s(1.2345678), err)
		}
	}
	wantRaw := bytes.Join([][]byte{i32s(-7), binary.LittleEndian.AppendUint64(nil, 1<<40), f32s(1.2345678),
		binary.LittleEndian.AppendUint64(nil, math.Float64bits(-2.5e300)), {7, 8, 9}}, nil)
	if got, err := os.ReadFile("all.bin"); err != nil || !bytes.Equal(got, wantRaw) {
		t.Errorf("all.bin = %x, want %x (%v)", got, wantRaw, err)
	}
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Log("python3 with numpy is not installed: NumPy's reading not checked")
		return
	}
	script := `
import numpy as np
with open("all.npy", "rb") as f:
    for _ in range(6):
        a = np.load(f)
        print(a.dtype, a.shape, a.tolist())
`
	out, err := exec.Command(python, "-c", script).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	wantNumPy := "int32 () -7\nint64 () 1099511627776\nfloat32 () 1.2345677614212036\nfloat64 () -2.5e+300\nint8 (0,) []\nint8 (3,) [7, 8, 9]\n"
	if string(out) != wantNumPy {
		t.Errorf("numpy read:\n%s\nwant:\n%s", out, wantNumPy)
	}
}

// TestExpectedRankZero checks --expected_output=f32=2 against rank-0
// buffer views, as IREE's iree-run-module-expected test does.
func TestExpectedRankZero(t *testing.T) {
	alloc := hal.NewHostAllocator(0)
	results := []vm.Value{viewValue(t, alloc, "f32=-2"), viewValue(t, alloc, "f32=2")}
	for _, tc := range []struct {
		expected []string
		th       Thresholds
		ok       bool
		out      string
	}{
		{[]string{"f32=-2", "f32=2.0"}, DefaultThresholds, true, SuccessLine},
		{[]string{"f32=-2", "(ignored)"}, DefaultThresholds, true, SuccessLine},
		{[]string{"f32=-2", "f32=2.1"}, Thresholds{F16: 0.1, F32: 0.1, F64: 0.1}, true, SuccessLine},
		{[]string{"f32=123", "f32=2.0"}, DefaultThresholds, false, "[FAILED] result[0]: element at index 0 (-2) does not match the expected (123)"},
		{[]string{"f32=-2", "f32=4.5"}, DefaultThresholds, false, "[FAILED] result[1]: element at index 0 (2) does not match the expected (4.5)"},
		{[]string{"f32=-2", "4xf32=2.0"}, DefaultThresholds, false, "[FAILED] result[1]: metadata is f32; expected that the view matches 4xf32"},
		// Within the f32 threshold (1e-4): approximate passes, exact fails.
		{[]string{"f32=-2.00005", "f32=2"}, DefaultThresholds, true, SuccessLine},
		{[]string{"f32=-2.00005", "f32=2"}, Thresholds{Exact: true}, false, "[FAILED] result[0]: element at index 0 (-2) does not match the expected (-2.00005)"},
		// The relative part: 0.5 off 100000 is within rtol 1e-5 only with it.
		{[]string{"f32=-2", "f32=2.00001"}, Thresholds{F32: 0, RTol: 1e-5}, true, SuccessLine},
		{[]string{"f32=-2", "f32=2.0001"}, Thresholds{F32: 0, RTol: 1e-5}, false, "[FAILED] result[1]"},
	} {
		var out bytes.Buffer
		ok, err := CompareResults(&out, results, tc.expected, tc.th, 1024)
		if err != nil || ok != tc.ok || !strings.Contains(out.String(), tc.out) {
			t.Errorf("%q: ok %v err %v, output:\n%s\nwant ok %v and %q", tc.expected, ok, err, out.String(), tc.ok, tc.out)
		}
	}
}

// TestElementTolerances checks the per-type absolute thresholds, the
// relative tolerance and the exact mode on single elements.
func TestElementTolerances(t *testing.T) {
	f32 := func(x float32) []byte { return f32s(x) }
	bf16 := func(x float32) []byte {
		return binary.LittleEndian.AppendUint16(nil, uint16(math.Float32bits(x)>>16))
	}
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name             string
		actual, expected []byte
		et               hal.ElementType
		th               Thresholds
		equal            bool
	}{
		{"f32 within the threshold", f32(1.00005), f32(1), hal.ElementTypeF32, DefaultThresholds, true},
		{"f32 beyond it", f32(1.001), f32(1), hal.ElementTypeF32, DefaultThresholds, false},
		{"f32 within rtol of a large value", f32(100000.5), f32(100000), hal.ElementTypeF32, DefaultThresholds, true},
		{"f32 beyond rtol of a large value", f32(100002), f32(100000), hal.ElementTypeF32, DefaultThresholds, false},
		{"NaN equals NaN", f32(nan), f32(nan), hal.ElementTypeF32, DefaultThresholds, true},
		{"NaN is not a number", f32(nan), f32(1), hal.ElementTypeF32, DefaultThresholds, false},
		{"bf16 uses its own threshold", bf16(1.0078125), bf16(1), hal.ElementTypeBF16, DefaultThresholds, true},
		{"bf16 beyond it", bf16(1.03125), bf16(1), hal.ElementTypeBF16, DefaultThresholds, false},
		{"exact mode", f32(1.00005), f32(1), hal.ElementTypeF32, Thresholds{Exact: true}, false},
		{"exact mode, equal bytes", f32(1), f32(1), hal.ElementTypeF32, Thresholds{Exact: true}, true},
		{"integers are exact", i32s(3), i32s(4), hal.ElementTypeI32, Thresholds{F32: 10, RTol: 1}, false},
	} {
		if got := elementsEqual(tc.actual, tc.expected, tc.et, tc.th); got != tc.equal {
			t.Errorf("%s: equal = %v, want %v", tc.name, got, tc.equal)
		}
	}
	for _, tc := range []struct {
		mode  string
		exact bool
		ok    bool
	}{{"approximate", false, true}, {"exact", true, true}, {" exact ", true, true}, {"fuzzy", false, false}} {
		exact, err := ParseEqualityMode(tc.mode)
		if (err == nil) != tc.ok || exact != tc.exact {
			t.Errorf("ParseEqualityMode(%q) = %v, %v", tc.mode, exact, err)
		}
	}
}
