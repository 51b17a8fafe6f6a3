package cuda

import (
	"fmt"
	"strconv"
	"strings"
)

// Arch is a CUDA target architecture, "sm_<major><minor>" with an optional
// suffix: "sm_52", "sm_80", "sm_90a", "sm_100f". The minor version is the
// last digit, so sm_100 is compute capability 10.0 and sm_120 is 12.0.
type Arch struct {
	Major, Minor int
	// Suffix is 0 for a plain arch, 'a' for an arch-specific one (its PTX
	// uses features of exactly that compute capability) or 'f' for a
	// family-specific one (that major version, this minor or newer).
	Suffix byte
}

// ParseArch parses "sm_XY", "sm_XYa" or "sm_XYf".
func ParseArch(s string) (Arch, error) {
	digits, ok := strings.CutPrefix(s, "sm_")
	var a Arch
	if n := len(digits); ok && n > 0 && (digits[n-1] == 'a' || digits[n-1] == 'f') {
		a.Suffix = digits[n-1]
		digits = digits[:n-1]
	}
	if !ok || len(digits) < 2 || len(digits) > 4 || strings.TrimLeft(digits, "0123456789") != "" || digits[0] == '0' {
		return Arch{}, fmt.Errorf("CUDA architecture %q is not of the form sm_<major><minor> (e.g. sm_52, sm_80, sm_90a)", s)
	}
	n, err := strconv.Atoi(digits)
	if err != nil {
		return Arch{}, fmt.Errorf("CUDA architecture %q: %w", s, err)
	}
	a.Major, a.Minor = n/10, n%10
	return a, nil
}

// String returns the "sm_XY[a|f]" spelling.
func (a Arch) String() string {
	s := fmt.Sprintf("sm_%d%d", a.Major, a.Minor)
	if a.Suffix != 0 {
		s += string(a.Suffix)
	}
	return s
}

// Number is major*10+minor (52 for sm_52, 100 for sm_100), the order of
// compute capabilities.
func (a Arch) Number() int { return a.Major*10 + a.Minor }

// RunsOn reports whether PTX generated for a can be JIT-compiled for a
// device of compute capability dev (whose suffix is ignored): plain PTX
// runs on that capability and every newer one, arch-specific PTX only on
// exactly that capability, family-specific PTX on that major version from
// that minor on.
func (a Arch) RunsOn(dev Arch) bool {
	switch a.Suffix {
	case 'a':
		return dev.Major == a.Major && dev.Minor == a.Minor
	case 'f':
		return dev.Major == a.Major && dev.Minor >= a.Minor
	}
	return dev.Number() >= a.Number()
}

// PTXTarget returns the architecture named by a PTX module's .target
// directive ("sm_80" for ".target sm_80, debug"), or "" when the text has
// none before its first entry.
func PTXTarget(ptx string) string {
	for rest := ptx; rest != ""; {
		line := rest
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		line = strings.TrimSpace(line)
		if t, ok := strings.CutPrefix(line, ".target"); ok && (t == "" || t[0] == ' ' || t[0] == '\t') {
			t = strings.TrimSpace(t)
			if i := strings.IndexAny(t, ", \t"); i >= 0 {
				t = t[:i]
			}
			return t
		}
		if strings.HasPrefix(line, ".entry") || strings.HasPrefix(line, ".visible") {
			return "" // directives after the header: no .target
		}
	}
	return ""
}
