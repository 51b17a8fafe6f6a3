package ir

import (
	"strings"
	"testing"
)

// TestIntegerLiterals checks MLIR's integer literal grammar: decimal with
// any leading zeros (IREE's tests write [05, 06, 07, 08]) or 0x hex, the
// full unsigned 64-bit range wrapping to int64.
func TestIntegerLiterals(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "0", want: 0},
		{in: "08", want: 8},
		{in: "0010", want: 10},
		{in: "0x1F", want: 31},
		{in: "0XfF", want: 255},
		{in: "18446744073709551615", want: -1},
		{in: "0xFFFFFFFFFFFFFFFF", want: -1},
		{in: "18446744073709551616", bad: true},
		{in: "0b101", bad: true},
		{in: "1_000", bad: true},
	}
	for _, c := range cases {
		got, err := parseIntText(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("%s: got %d, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	m, err := Parse("t.mlir", []byte(`"t.c"() {v = dense<[05, 06, 07, 08]> : tensor<4xi32>} : () -> ()`), NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if got := AttrString(m.Op.Body().Ops[0].Attr("v")); got != "dense<[5, 6, 7, 8]> : tensor<4xi32>" {
		t.Errorf("dense with leading zeros reads as %s", got)
	}
}

// TestComplexLiterals checks dense complex literals, (re, im) per element
// as StableHLO programs write them (IREE's fft test), and their errors.
func TestComplexLiterals(t *testing.T) {
	cases := []struct{ in, want, err string }{
		{in: `dense<[(0.5,-1.25), (2.0,0.0)]> : tensor<2xcomplex<f32>>`, want: `dense<[(0.5,-1.25), (2.0,0.0)]> : tensor<2xcomplex<f32>>`},
		{in: `dense<(1.0, 2.0)> : tensor<3xcomplex<f64>>`, want: `dense<(1.0,2.0)> : tensor<3xcomplex<f64>>`},
		{in: `dense<[[(1,2)], [(-3,4)]]> : tensor<2x1xcomplex<i32>>`, want: `dense<[[(1,2)], [(-3,4)]]> : tensor<2x1xcomplex<i32>>`},
		{in: `dense<[1.0, 2.0]> : tensor<2xcomplex<f32>>`, err: "expected a complex literal (re, im) for element type 'complex<f32>'"},
		{in: `dense<[(1.0,2.0)]> : tensor<1xf32>`, err: "complex literal for element type 'f32'"},
		{in: `dense<[(1.0 2.0)]> : tensor<1xcomplex<f32>>`, err: "expected ','"},
		{in: `dense<[((1.0,2.0),3.0)]> : tensor<1xcomplex<f32>>`, err: "complex literal parts must be numbers"},
	}
	for _, c := range cases {
		m, err := Parse("t.mlir", []byte(`"t.c"() {v = `+c.in+`} : () -> ()`), NewRegistry())
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: got %v, want an error containing %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if got := AttrString(m.Op.Body().Ops[0].Attr("v")); got != c.want {
			t.Errorf("%s reads as %s, want %s", c.in, got, c.want)
		}
	}
}
