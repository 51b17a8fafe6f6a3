package check

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"os/exec"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
)

// numpyPython returns a python3 that has numpy, or skips the test. The
// python3 on PATH may be a separate installation (pyenv) without the
// distribution's numpy.
func numpyPython(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			return p
		}
	}
	t.Skip("python3 with numpy is not installed")
	return ""
}

// TestIsCloseAgainstNumPy compares IsClose with numpy.isclose(actual,
// expected, rtol, atol, equal_nan=True), the contract IREE's comparison
// follows, over random values and the special ones.
func TestIsCloseAgainstNumPy(t *testing.T) {
	py := numpyPython(t)
	specials := []float64{0, math.Copysign(0, -1), 1, -1, 1e-7, 3.5, -100, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64, 5e-324}
	// Finite tolerances only: with an infinite one NumPy computes inf*0 =
	// NaN and rejects equal values, where IREE's rule accepts them first.
	tols := []float64{0, 1e-6, 1e-4, 0.1, 1, 1e300}
	rng := rand.New(rand.NewSource(1))
	type row struct{ a, e, atol, rtol float64 }
	var rows []row
	for _, a := range specials {
		for _, e := range specials {
			rows = append(rows, row{a, e, tols[rng.Intn(len(tols))], tols[rng.Intn(len(tols))]})
		}
	}
	for i := 0; i < 2000; i++ {
		e := rng.NormFloat64() * math.Pow(10, float64(rng.Intn(7)-3))
		// Actual values near the expected one, so that both outcomes occur.
		a := e + rng.NormFloat64()*math.Pow(10, float64(rng.Intn(9)-6))
		rows = append(rows, row{a, e, tols[rng.Intn(len(tols))], tols[rng.Intn(len(tols))]})
	}
	var in bytes.Buffer
	for _, r := range rows {
		binary.Write(&in, binary.LittleEndian, []float64{r.a, r.e, r.atol, r.rtol})
	}
	script := `
import sys, numpy as np
x = np.frombuffer(sys.stdin.buffer.read(), dtype='<f8').reshape(-1, 4)
with np.errstate(all='ignore'):
    r = [np.isclose(a, e, rtol=rt, atol=at, equal_nan=True) for a, e, at, rt in x]
print(''.join('1' if v else '0' for v in r))
`
	cmd := exec.Command(py, "-c", script)
	cmd.Stdin = &in
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("numpy: %v", err)
	}
	want := strings.TrimSpace(string(out))
	if len(want) != len(rows) {
		t.Fatalf("numpy answered %d values for %d rows", len(want), len(rows))
	}
	bad := 0
	for i, r := range rows {
		got := IsClose(r.a, r.e, r.atol, r.rtol)
		if w := want[i] == '1'; got != w {
			bad++
			if bad <= 10 {
				t.Errorf("IsClose(%v, %v, atol=%v, rtol=%v) = %v, numpy.isclose says %v", r.a, r.e, r.atol, r.rtol, got, w)
			}
		}
	}
	if bad > 10 {
		t.Errorf("%d disagreements in all", bad)
	}
}

// TestFloatDecoderExact checks the f16 and bf16 decodings against NumPy
// (float16, and bfloat16 as the high half of a float32) for every bit
// pattern.
func TestFloatDecoderExact(t *testing.T) {
	py := numpyPython(t)
	script := `
import sys, numpy as np
b = np.arange(65536, dtype=np.uint16)
f16 = b.view(np.float16).astype(np.float64)
bf16 = (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
sys.stdout.buffer.write(f16.astype('<f8').tobytes() + bf16.astype('<f8').tobytes())
`
	out, err := exec.Command(py, "-c", script).Output()
	if err != nil {
		t.Fatalf("numpy: %v", err)
	}
	if len(out) != 2*65536*8 {
		t.Fatalf("numpy wrote %d bytes", len(out))
	}
	data := make([]byte, 2*65536)
	for i := 0; i < 65536; i++ {
		binary.LittleEndian.PutUint16(data[2*i:], uint16(i))
	}
	for k, name := range []string{"f16", "bf16"} {
		et, err := hal.ParseElementType(name)
		if err != nil {
			t.Fatal(err)
		}
		decode, ok := floatDecoder(et)
		if !ok {
			t.Fatalf("no decoder for %s", name)
		}
		bad := 0
		for i := 0; i < 65536; i++ {
			want := math.Float64frombits(binary.LittleEndian.Uint64(out[8*(k*65536+i):]))
			got := decode(data, i)
			if got != want && !(math.IsNaN(got) && math.IsNaN(want)) || math.Signbit(got) != math.Signbit(want) && !math.IsNaN(want) {
				bad++
				if bad <= 5 {
					t.Errorf("%s 0x%04x decodes to %v, numpy says %v", name, i, got, want)
				}
			}
		}
	}
}

func TestFormatE3(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{-0.001, "-1.000e-03"}, {2, "2.000e+00"}, {0, "0.000e+00"}, {1.5e100, "1.500e+100"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
	} {
		if got := formatE3(tc.x); got != tc.want {
			t.Errorf("formatE3(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
	// Go's %e and C's agree on finite values: the exponent has at least
	// two digits in both.
	if got := fmt.Sprintf("%.3e", 1e-5); got != "1.000e-05" {
		t.Errorf("%%.3e of 1e-5 = %s", got)
	}
}
