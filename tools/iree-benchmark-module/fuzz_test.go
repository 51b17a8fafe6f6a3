package main

import "testing"

// FuzzParseMinTime checks that any --benchmark_min_time text either fails
// cleanly or yields exactly one of a positive duration and a positive
// iteration count within the limits.
func FuzzParseMinTime(f *testing.F) {
	for _, s := range []string{"0.5", "0.5s", "100x", "x", "", "-1", "1e400", "NaNs", "3600", "9999999999x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, iters, err := parseMinTime(s)
		if err != nil {
			if d != 0 || iters != 0 {
				t.Fatalf("parseMinTime(%q) = %v, %d with error %v", s, d, iters, err)
			}
			return
		}
		if (d > 0) == (iters > 0) {
			t.Fatalf("parseMinTime(%q) = %v, %d: want exactly one of them", s, d, iters)
		}
		if iters > maxIterations || d.Hours() > 1 {
			t.Fatalf("parseMinTime(%q) = %v, %d: over the limits", s, d, iters)
		}
	})
}
