package cuda_test

import (
	"encoding/binary"
	"math"
	"testing"
)

// TestMinMaxF64PTX runs f64 maximumf and minimumf in the PTX interpreter
// over ordinary values, both zeros and NaN against the IEEE-754 2019
// maximum and minimum (NaN propagates, -0 < +0).
func TestMinMaxF64PTX(t *testing.T) {
	nan := math.NaN()
	vals := []float64{1.5, -2, 0, math.Copysign(0, -1), nan, math.Inf(1), math.Inf(-1), 1e300}
	var a, b []float64
	for _, x := range vals {
		for _, y := range vals {
			a, b = append(a, x), append(b, y)
		}
	}
	enc := func(v []float64) []byte {
		out := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(x))
		}
		return out
	}
	ieee := func(x, y float64, isMax bool) float64 {
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return nan
		case x == y: // zeros of either sign
			if isMax == math.Signbit(x) {
				return y
			}
			return x
		case isMax:
			return math.Max(x, y)
		}
		return math.Min(x, y)
	}
	for _, arch := range []string{"sm_52", "sm_90"} {
		ds := simDispatches(t, "minmax64.mlir", arch)
		if len(ds) != 2 {
			t.Fatalf("%s: %d dispatches, want 2", arch, len(ds))
		}
		for _, d := range ds {
			isMax := false
			for _, o := range d.body.Body().Ops {
				isMax = isMax || o.Name == "arith.maximumf"
			}
			out := runElementwise(t, d, len(a), enc(a), enc(b))[0]
			for i := range a {
				got := math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:]))
				want := ieee(a[i], b[i], isMax)
				if !(math.IsNaN(got) && math.IsNaN(want)) && (got != want || math.Signbit(got) != math.Signbit(want)) {
					t.Errorf("%s: max=%v (%v, %v) = %v, want %v", arch, isMax, a[i], b[i], got, want)
				}
			}
		}
	}
}
