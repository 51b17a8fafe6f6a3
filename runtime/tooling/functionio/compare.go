package functionio

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/vm"
)

// Thresholds say how float elements are compared, as IREE's
// --equality_mode, --expected_{f16,bf16,f32,f64}_threshold and
// --expected_rtol do: in the approximate mode an actual value passes when
// |actual - expected| <= threshold(type) + RTol*|expected| (NaN equals
// NaN); Exact compares every element byte for byte.
type Thresholds struct {
	F16, BF16, F32, F64 float64
	RTol                float64
	Exact               bool
}

// DefaultThresholds are IREE's defaults.
var DefaultThresholds = Thresholds{F16: 0.001, BF16: 0.01, F32: 0.0001, F64: 0.0001, RTol: 1e-5}

// ParseEqualityMode reads --equality_mode: "approximate" or "exact".
func ParseEqualityMode(mode string) (exact bool, err error) {
	switch strings.TrimSpace(mode) {
	case "approximate":
		return false, nil
	case "exact":
		return true, nil
	}
	return false, fmt.Errorf("--equality_mode=%s: want approximate or exact", mode)
}

// SuccessLine is what iree-run-module prints when every output matched.
const SuccessLine = "[SUCCESS] all function outputs matched their expected values."

// CompareResults checks results against --expected_output values (the same
// forms --input takes, plus "(ignored)" to skip a result). It writes one
// "[FAILED] result[i]: ..." report per mismatch to w and returns whether
// all matched; on success it writes SuccessLine. An error means the
// expectations themselves could not be used.
func CompareResults(w io.Writer, results []vm.Value, expected []string, th Thresholds, maxElements int64) (bool, error) {
	var exp []Input
	// Expected values read from files share offsets as inputs do.
	var files inputFiles
	defer files.close()
	for _, spec := range expected {
		if s := trimSpec(spec); s == "(ignored)" {
			exp = append(exp, Input{Spec: spec, Null: true, Scalar: "(ignored)"})
			continue
		}
		got, err := files.parseInput(spec)
		if err != nil {
			return false, fmt.Errorf("--expected_output=%s: %w", abbreviate(spec), err)
		}
		exp = append(exp, got...)
	}
	if len(exp) != len(results) {
		return false, fmt.Errorf("%d expected output(s) given but the function returned %d result(s)", len(exp), len(results))
	}
	ok := true
	for i, e := range exp {
		if e.Scalar == "(ignored)" {
			continue
		}
		msg, err := compareOne(results[i], e, th, maxElements)
		if err != nil {
			return false, fmt.Errorf("result[%d]: %w", i, err)
		}
		if msg != "" {
			ok = false
			fmt.Fprintf(w, "[FAILED] result[%d]: %s\n", i, msg)
		}
	}
	if ok {
		fmt.Fprintln(w, SuccessLine)
	}
	return ok, nil
}

func trimSpec(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// compareOne returns "" when actual matches e, else a description.
func compareOne(actual vm.Value, e Input, th Thresholds, maxElements int64) (string, error) {
	if actual.Kind() != vm.KindRef {
		if e.Buffer != nil || e.Null {
			return fmt.Sprintf("expected a buffer view but got %s", FormatScalar(actual)), nil
		}
		want, err := value(e, actual.Kind(), nil)
		if err != nil {
			return "", err
		}
		if FormatScalar(want) != FormatScalar(actual) {
			return fmt.Sprintf("expected %s but got %s", FormatScalar(want), FormatScalar(actual)), nil
		}
		return "", nil
	}
	if e.Null {
		if actual.Ref().IsNull() {
			return "", nil
		}
		return fmt.Sprintf("expected (null) but got %s", TypeName(actual)), nil
	}
	if e.Buffer == nil && strings.Contains(e.Scalar, "=") {
		// "f32=2" against a buffer view is a rank-0 buffer view, as for
		// --input.
		b, err := bufferfmt.Parse(e.Scalar)
		if err != nil {
			return "", err
		}
		e.Buffer = b
	}
	if e.Buffer == nil {
		return fmt.Sprintf("expected the scalar %s but got %s", e.Scalar, TypeName(actual)), nil
	}
	if actual.Ref().IsNull() || actual.Ref().Type() != halmodule.BufferViewType {
		return fmt.Sprintf("expected a buffer view but got %s", TypeName(actual)), nil
	}
	view, err := halmodule.BufferViewOf(actual)
	if err != nil {
		return "", err
	}
	got, err := ReadBufferView(view)
	if err != nil {
		return "", err
	}
	want := e.Buffer
	describe := func(reason string) string {
		return fmt.Sprintf("%s\n  expected: %s\n  actual:   %s", reason, formatOrErr(want, maxElements), formatOrErr(got, maxElements))
	}
	if got.ElementType != want.ElementType || got.Shape.String() != want.Shape.String() {
		return describe(fmt.Sprintf("metadata is %s; expected that the view matches %s", typeString(got), typeString(want))), nil
	}
	size := want.ElementType.ByteSize()
	for i := 0; i*size < len(want.Data); i++ {
		a, b := got.Data[i*size:(i+1)*size], want.Data[i*size:(i+1)*size]
		if !elementsEqual(a, b, want.ElementType, th) {
			return describe(fmt.Sprintf("element at index %d (%s) does not match the expected (%s)",
				i, bufferfmt.FormatElement(a, want.ElementType), bufferfmt.FormatElement(b, want.ElementType))), nil
		}
	}
	return "", nil
}

func typeString(b *bufferfmt.Buffer) string {
	if len(b.Shape) == 0 {
		return b.ElementType.String()
	}
	return b.Shape.String() + "x" + b.ElementType.String()
}

func formatOrErr(b *bufferfmt.Buffer, maxElements int64) string {
	s, err := bufferfmt.Format(b.Shape, b.ElementType, b.Data, maxElements)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return s
}

// elementsEqual compares the actual element a with the expected b; floats
// within the tolerance (NaN equals NaN), everything else (and everything
// in the exact mode) bit for bit.
func elementsEqual(a, b []byte, et hal.ElementType, th Thresholds) bool {
	if th.Exact {
		return string(a) == string(b)
	}
	var x, y, t float64
	switch {
	case et == hal.ElementTypeF32:
		x, y, t = float64(math.Float32frombits(binary.LittleEndian.Uint32(a))), float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), th.F32
	case et == hal.ElementTypeF64:
		x, y, t = math.Float64frombits(binary.LittleEndian.Uint64(a)), math.Float64frombits(binary.LittleEndian.Uint64(b)), th.F64
	case et == hal.ElementTypeF16:
		x, y, t = float64(bufferfmt.F16ToFloat32(binary.LittleEndian.Uint16(a))), float64(bufferfmt.F16ToFloat32(binary.LittleEndian.Uint16(b))), th.F16
	case et == hal.ElementTypeBF16:
		x, y, t = float64(bufferfmt.BF16ToFloat32(binary.LittleEndian.Uint16(a))), float64(bufferfmt.BF16ToFloat32(binary.LittleEndian.Uint16(b))), th.BF16
	default:
		return string(a) == string(b)
	}
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	if x == y {
		return true // also equal infinities
	}
	return math.Abs(x-y) <= t+th.RTol*math.Abs(y)
}
