package toolflags

import (
	"flag"

	"github.com/goiree/goiree/runtime/tooling/functionio"
)

// ComparisonFlagNames are the names AddComparisonFlags defines, for a help
// group.
var ComparisonFlagNames = []string{"equality_mode", "expected_f16_threshold", "expected_bf16_threshold",
	"expected_f32_threshold", "expected_f64_threshold", "expected_rtol"}

// AddComparisonFlags defines IREE's --expected_output comparison flags on
// fs, filling th (which starts as functionio.DefaultThresholds):
// --equality_mode=approximate|exact, the absolute
// --expected_{f16,bf16,f32,f64}_threshold and the relative --expected_rtol.
func AddComparisonFlags(fs *flag.FlagSet, th *functionio.Thresholds) {
	*th = functionio.DefaultThresholds
	fs.Var(equalityMode{th}, "equality_mode", "how --expected_output compares floats: approximate (|actual - expected| <= threshold + rtol*|expected|, NaN equals NaN) or exact (byte for byte)")
	fs.Float64Var(&th.F16, "expected_f16_threshold", th.F16, "absolute tolerance for f16 elements in --expected_output")
	fs.Float64Var(&th.BF16, "expected_bf16_threshold", th.BF16, "absolute tolerance for bf16 elements in --expected_output")
	fs.Float64Var(&th.F32, "expected_f32_threshold", th.F32, "absolute tolerance for f32 elements in --expected_output")
	fs.Float64Var(&th.F64, "expected_f64_threshold", th.F64, "absolute tolerance for f64 elements in --expected_output")
	fs.Float64Var(&th.RTol, "expected_rtol", th.RTol, "relative tolerance for every float type in --expected_output, times |expected|")
}

// equalityMode is the --equality_mode flag, stored in Thresholds.Exact.
type equalityMode struct{ th *functionio.Thresholds }

func (e equalityMode) String() string {
	if e.th != nil && e.th.Exact {
		return "exact"
	}
	return "approximate"
}

func (e equalityMode) Set(v string) error {
	exact, err := functionio.ParseEqualityMode(v)
	if err != nil {
		return err
	}
	e.th.Exact = exact
	return nil
}
