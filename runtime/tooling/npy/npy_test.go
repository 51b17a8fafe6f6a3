package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
)

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestReadFiles(t *testing.T) {
	tests := []struct {
		file   string
		shapes []string
		types  []hal.ElementType
		check  func(t *testing.T, arrays []*Array)
	}{
		{"f32_2x3.npy", []string{"2x3"}, []hal.ElementType{hal.ElementTypeF32}, func(t *testing.T, a []*Array) {
			for i := 0; i < 6; i++ {
				if v := math.Float32frombits(binary.LittleEndian.Uint32(a[0].Data[4*i:])); v != float32(i) {
					t.Errorf("element %d = %v", i, v)
				}
			}
		}},
		{"two_arrays.npy", []string{"4", ""}, []hal.ElementType{hal.ElementTypeI32, hal.ElementTypeUI8}, func(t *testing.T, a []*Array) {
			if v := int32(binary.LittleEndian.Uint32(a[0].Data[4:])); v != -2 {
				t.Errorf("a[0][1] = %d", v)
			}
			if !bytes.Equal(a[1].Data, []byte{7}) {
				t.Errorf("a[1] = %v", a[1].Data)
			}
		}},
		{"f64_be_v2.npy", []string{"3"}, []hal.ElementType{hal.ElementTypeF64}, func(t *testing.T, a []*Array) {
			for i, want := range []float64{1.5, -2.25, 1e10} {
				if v := math.Float64frombits(binary.LittleEndian.Uint64(a[0].Data[8*i:])); v != want {
					t.Errorf("element %d = %v, want %v", i, v, want)
				}
			}
		}},
		{"bool.npy", []string{"3"}, []hal.ElementType{hal.ElementTypeI1}, nil},
	}
	for _, tc := range tests {
		arrays, err := ReadAll(readFile(t, tc.file))
		if err != nil {
			t.Errorf("%s: %v", tc.file, err)
			continue
		}
		if len(arrays) != len(tc.shapes) {
			t.Errorf("%s: %d arrays, want %d", tc.file, len(arrays), len(tc.shapes))
			continue
		}
		for i, a := range arrays {
			if a.Shape.String() != tc.shapes[i] || a.ElementType != tc.types[i] {
				t.Errorf("%s[%d]: %sx%s, want %sx%s", tc.file, i, a.Shape, a.ElementType, tc.shapes[i], tc.types[i])
			}
		}
		if tc.check != nil {
			tc.check(t, arrays)
		}
	}
}

func TestReadErrors(t *testing.T) {
	good := readFile(t, "f32_2x3.npy")
	hdr := func(dict string) []byte {
		var b bytes.Buffer
		b.WriteString(magic + "\x01\x00")
		binary.Write(&b, binary.LittleEndian, uint16(len(dict)))
		b.WriteString(dict)
		return b.Bytes()
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "empty file"},
		{"fortran", readFile(t, "fortran.npy"), "fortran_order arrays are not supported"},
		{"truncated data", readFile(t, "truncated.npy"), "data holds 12 of 16 bytes"},
		{"truncated header", good[:40], "reading header"},
		{"short magic", good[:4], "reading magic"},
		{"bad magic", append([]byte("\x93NUMPX"), good[6:]...), "bad magic"},
		{"version 4", append([]byte(magic+"\x04\x00"), good[8:]...), "unsupported format version 4.0"},
		{"trailing garbage", append(append([]byte{}, good...), 'x'), "array 1"},
		{"complex dtype", hdr("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }\n"), "structured dtypes"},
		{"unknown dtype", hdr("{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }\n"), "unsupported dtype"},
		{"no order char", hdr("{'descr': 'f4', 'fortran_order': False, 'shape': (1,), }\n"), "unsupported dtype"},
		{"missing shape", hdr("{'descr': '<f4', 'fortran_order': False, }\n"), "missing or non-tuple 'shape'"},
		{"missing descr", hdr("{'fortran_order': False, 'shape': (1,), }\n"), "missing or non-string 'descr'"},
		{"bad dim", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }\n"), "expected a dimension"},
		{"huge dim", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }\n"), "out of range"},
		{"huge shape", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 2), }\n"), "too many elements"},
		{"lying shape", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000,), }\n"), "data holds 0 of 8000000000 bytes"},
		{"duplicate key", hdr("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (1,), }\n"), "duplicate key"},
		{"not a dict", hdr("'descr'\n"), "expected '{'"},
		{"unterminated", hdr("{'descr: <f4\n"), "unterminated string"},
		{"after dict", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x\n"), "unexpected text"},
	}
	for _, tc := range tests {
		_, err := ReadAll(tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	if _, err := Read(bytes.NewReader(nil)); err != io.EOF {
		t.Errorf("Read of nothing = %v, want io.EOF", err)
	}
	if _, err := Read(bytes.NewReader(good[:100])); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("Read of a truncated header = %v, want io.ErrUnexpectedEOF", err)
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	tests := []*Array{
		{Shape: hal.Shape{2, 3}, ElementType: hal.ElementTypeF32, Data: make([]byte, 24)},
		{Shape: hal.Shape{}, ElementType: hal.ElementTypeI64, Data: []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{Shape: hal.Shape{3}, ElementType: hal.ElementTypeI1, Data: []byte{1, 0, 1}},
		{Shape: hal.Shape{2}, ElementType: hal.ElementTypeF16, Data: []byte{0, 0x3c, 0, 0xc0}},
		{Shape: hal.Shape{1, 1, 2}, ElementType: hal.ElementTypeUI16, Data: []byte{1, 0, 2, 0}},
		{Shape: hal.Shape{0}, ElementType: hal.ElementTypeF64, Data: nil},
	}
	for _, a := range tests {
		b, err := Encode(a)
		if err != nil {
			t.Errorf("Encode(%sx%s): %v", a.Shape, a.ElementType, err)
			continue
		}
		hlen := int(binary.LittleEndian.Uint16(b[8:]))
		if (10+hlen)%64 != 0 || b[10+hlen-1] != '\n' {
			t.Errorf("Encode(%sx%s): data starts at %d, header ends in %q", a.Shape, a.ElementType, 10+hlen, b[10+hlen-1])
		}
		got, err := ReadAll(b)
		if err != nil {
			t.Errorf("ReadAll(Encode(%sx%s)): %v", a.Shape, a.ElementType, err)
			continue
		}
		if len(got) != 1 || got[0].Shape.String() != a.Shape.String() || got[0].ElementType != a.ElementType || !bytes.Equal(got[0].Data, a.Data) {
			t.Errorf("round trip of %sx%s gave %+v", a.Shape, a.ElementType, got[0])
		}
	}
	// The committed numpy-layout file encodes byte for byte.
	want := readFile(t, "f32_2x3.npy")
	arrays, err := ReadAll(want)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := Encode(arrays[0]); !bytes.Equal(b, want) {
		t.Errorf("Encode differs from numpy's layout:\n%q\n%q", b, want)
	}
	if _, err := Encode(&Array{Shape: hal.Shape{1}, ElementType: hal.ElementTypeBF16, Data: []byte{0, 0}}); err == nil {
		t.Error("Encode accepted bf16, which has no NumPy dtype")
	}
	if _, err := Encode(&Array{Shape: hal.Shape{2}, ElementType: hal.ElementTypeF32, Data: []byte{0}}); err == nil {
		t.Error("Encode accepted a short buffer")
	}
	var w bytes.Buffer
	if err := Write(&w, arrays[0]); err != nil || !bytes.Equal(w.Bytes(), want) {
		t.Errorf("Write: %v", err)
	}
}

// FuzzReadNPY checks that no input makes the reader panic or allocate far
// beyond its input, and that accepted arrays re-encode and re-read the same.
func FuzzReadNPY(f *testing.F) {
	for _, name := range []string{"f32_2x3.npy", "two_arrays.npy", "f64_be_v2.npy", "fortran.npy", "bool.npy", "truncated.npy"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		arrays, err := ReadAll(data)
		if err != nil {
			return
		}
		for _, a := range arrays {
			b, err := Encode(a)
			if err != nil {
				if a.ElementType.Numerical() == hal.NumericalComplex {
					continue
				}
				t.Fatalf("Encode of a read array: %v", err)
			}
			again, err := ReadAll(b)
			if err != nil || len(again) != 1 || !bytes.Equal(again[0].Data, a.Data) {
				t.Fatalf("re-read: %v", err)
			}
		}
	})
}
