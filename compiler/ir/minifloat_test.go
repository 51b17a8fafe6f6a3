package ir

import (
	"math"
	"testing"
)

// TestEncodeMinifloat checks f16 and bf16 encodings against their known
// bit patterns, including rounding ties, subnormals and overflow.
func TestEncodeMinifloat(t *testing.T) {
	for _, c := range []struct {
		v    float64
		f16  uint16
		bf16 uint16
	}{
		{0, 0x0000, 0x0000},
		{math.Copysign(0, -1), 0x8000, 0x8000},
		{1, 0x3C00, 0x3F80},
		{-2, 0xC000, 0xC000},
		{0.5, 0x3800, 0x3F00},
		{65504, 0x7BFF, 0x4780},
		{65519, 0x7BFF, 0x4780},              // below the tie with infinity
		{65520, 0x7C00, 0x4780},              // the tie rounds to even: infinity
		{1 + 1.0/2048, 0x3C00, 0x3F80},       // f16 tie, even mantissa kept
		{1 + 3.0/2048, 0x3C02, 0x3F80},       // f16 tie, odd mantissa rounds up
		{math.Ldexp(1, -24), 0x0001, 0x3380}, // smallest f16 subnormal
		{math.Ldexp(1, -14), 0x0400, 0x3880}, // smallest f16 normal
		{math.Ldexp(1, -25), 0x0000, 0x3300}, // f16 tie at zero: even
		{3.140625, 0x4248, 0x4049},
		{-7.3e-6, 0x807A, 0xB6F5}, // an f16 subnormal
		{math.Inf(1), 0x7C00, 0x7F80},
		{math.Inf(-1), 0xFC00, 0xFF80},
		{1e39, 0x7C00, 0x7F80}, // past bf16's largest finite value
	} {
		if got := uint16(encodeMinifloat(c.v, 5, 10)); got != c.f16 {
			t.Errorf("f16(%v) = %#04x, want %#04x", c.v, got, c.f16)
		}
		if got := uint16(encodeMinifloat(c.v, 8, 7)); got != c.bf16 {
			t.Errorf("bf16(%v) = %#04x, want %#04x", c.v, got, c.bf16)
		}
	}
	if got := uint16(encodeMinifloat(math.NaN(), 5, 10)); got&0x7C00 != 0x7C00 || got&0x3FF == 0 {
		t.Errorf("f16(NaN) = %#04x, not a NaN", got)
	}
}

// TestRawBytesHalf: f16 and bf16 dense attributes lay out two bytes per
// element, little-endian.
func TestRawBytesHalf(t *testing.T) {
	for _, c := range []struct {
		elem string
		want []byte
	}{
		{"f16", []byte{0x00, 0x3C, 0x00, 0xC0, 0x66, 0x2E}},
		{"bf16", []byte{0x80, 0x3F, 0x00, 0xC0, 0xCD, 0x3D}},
	} {
		a, err := ParseAttribute("dense<[1.0, -2.0, 0.1]> : tensor<3x"+c.elem+">", NewRegistry())
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.(*DenseAttr).RawBytes()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(c.want) {
			t.Errorf("%s: RawBytes = % x, want % x", c.elem, got, c.want)
		}
	}
}

// TestHalfHexLiterals: hex literals of f16 and bf16 are their bit
// patterns (MLIR writes infinities and NaNs of every float type so), and
// their infinities and NaNs print back as such.
func TestHalfHexLiterals(t *testing.T) {
	for _, c := range []struct {
		text  string
		value float64
		print string
	}{
		{"0xFC00 : f16", math.Inf(-1), "0xFC00 : f16"},
		{"0x7C00 : f16", math.Inf(1), "0x7C00 : f16"},
		{"0x7E00 : f16", math.NaN(), "0x7E00 : f16"},
		{"0x3C00 : f16", 1, "1.0 : f16"},
		{"0x0001 : f16", math.Ldexp(1, -24), "5.960464477539063e-08 : f16"},
		{"0x83FF : f16", -math.Ldexp(1023, -24), "-6.097555160522461e-05 : f16"},
		{"0xFF80 : bf16", math.Inf(-1), "0xFF80 : bf16"},
		{"0x7FC0 : bf16", math.NaN(), "0x7FC0 : bf16"},
		{"0x3F80 : bf16", 1, "1.0 : bf16"},
		{"0x0001 : bf16", math.Ldexp(1, -133), "9.183549615799121e-41 : bf16"},
	} {
		a, err := ParseAttribute(c.text, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.text, err)
		}
		f, ok := a.(FloatAttr)
		if !ok || !(f.Value == c.value || math.IsNaN(f.Value) && math.IsNaN(c.value)) {
			t.Errorf("%s = %#v, want %v", c.text, a, c.value)
		}
		if got := AttrString(a); got != c.print {
			t.Errorf("%s prints as %q, want %q", c.text, got, c.print)
		}
	}
}
