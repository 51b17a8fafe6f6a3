package toolflags

import (
	"fmt"
	"os"
	"strings"
)

// maxFlagfileDepth bounds --flagfile nesting, so that a file naming itself
// is an error instead of an endless loop.
const maxFlagfileDepth = 8

// ExpandFlagfiles replaces every --flagfile=<path> in args by the flags the
// file holds, in place, as IREE's tools read flag files: one flag per line
// written --name=value, surrounding whitespace ignored, blank lines and
// lines starting with '#' or '//' skipped; a positional argument in a file
// is an error naming file:line. Files may name further flag files.
func ExpandFlagfiles(args []string) ([]string, error) {
	return expandFlagfiles(args, 0)
}

func expandFlagfiles(args []string, depth int) ([]string, error) {
	var out []string
	for _, a := range args {
		path, ok := flagfileValue(a)
		if !ok {
			out = append(out, a)
			continue
		}
		if path == "" {
			return nil, fmt.Errorf("--flagfile= requires a file path")
		}
		if depth >= maxFlagfileDepth {
			return nil, fmt.Errorf("--flagfile=%s: flag files nest more than %d deep (does one name itself?)", path, maxFlagfileDepth)
		}
		flags, err := readFlagfile(path)
		if err != nil {
			return nil, err
		}
		expanded, err := expandFlagfiles(flags, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, expanded...)
	}
	return out, nil
}

// flagfileValue reports whether a is --flagfile=<path> (or -flagfile=...)
// and returns the path.
func flagfileValue(a string) (string, bool) {
	name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if !strings.HasPrefix(a, "-") || strings.TrimSpace(name) != "flagfile" {
		return "", false
	}
	if !hasValue {
		return "", true
	}
	return strings.TrimSpace(value), true
}

func readFlagfile(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading flag file: %w", err)
	}
	var flags []string
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "//") {
			continue
		}
		if !strings.HasPrefix(line, "--") {
			return nil, fmt.Errorf("%s:%d: positional arguments not allowed in flag files (write --name=value): %s", path, i+1, abbreviate(line))
		}
		name, value, hasValue := strings.Cut(line[2:], "=")
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("%s:%d: no flag name: %s", path, i+1, abbreviate(line))
		}
		if hasValue {
			flags = append(flags, "--"+name+"="+unquote(strings.TrimSpace(value)))
		} else {
			flags = append(flags, "--"+name)
		}
	}
	return flags, nil
}

// unquote strips one pair of double quotes around a flag file value, as
// IREE does ("a b" is a b).
func unquote(v string) string {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1]
	}
	return v
}

func abbreviate(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
