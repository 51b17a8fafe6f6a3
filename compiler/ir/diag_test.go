package ir

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFormatDiagnosticLongLine checks that a diagnostic on a very long
// source line echoes at most maxEchoBytes of it around the column, with the
// caret under the byte the column names.
func TestFormatDiagnosticLongLine(t *testing.T) {
	weights := strings.Repeat("1.5, ", 200000) // about 1 MB on one line
	for _, tc := range []struct {
		name string
		line string
		col  int
		// want is the byte the caret must point at; leftCut/rightCut say
		// whether "…" must open/close the echoed line.
		want              string
		leftCut, rightCut bool
	}{
		{"short line kept whole", "%0 = foo.bar 1", 6, "f", false, false},
		{"error at the start", "BAD" + weights, 1, "B", false, true},
		{"error in the middle", weights[:500000] + "BAD" + weights[500000:], 500001, "B", true, true},
		{"error at the end", weights + "BAD", len(weights) + 1, "B", true, false},
		{"column past the end", weights, len(weights) + 5, "", true, false},
		{"multibyte text before the column", strings.Repeat("é", 300) + "BAD" + strings.Repeat("é", 300), 601, "B", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte("module {\n" + tc.line + "\n}\n")
			out := FormatDiagnostic(Errorf(Pos{File: "f.mlir", Line: 2, Col: tc.col}, "bad"), "f.mlir", src)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			if len(lines) != 3 {
				t.Fatalf("got %d lines, want message, source and caret:\n%.400s", len(lines), out)
			}
			echo, caret := lines[1], lines[2]
			if n := len(strings.TrimSuffix(strings.TrimPrefix(echo, "…"), "…")); n > maxEchoBytes {
				t.Errorf("echoed %d bytes of the line, want at most %d", n, maxEchoBytes)
			}
			if got := strings.HasPrefix(echo, "…"); got != tc.leftCut {
				t.Errorf("leading … = %v, want %v: %q", got, tc.leftCut, echo)
			}
			if got := strings.HasSuffix(echo, "…"); got != tc.rightCut {
				t.Errorf("trailing … = %v, want %v: %q", got, tc.rightCut, echo)
			}
			if !utf8.ValidString(echo) {
				t.Errorf("echoed line is not valid UTF-8: %q", echo)
			}
			// The caret's display column (in runes) names the rune under it.
			runes := []rune(echo)
			at := utf8.RuneCountInString(strings.TrimSuffix(caret, "^"))
			got := ""
			if at < len(runes) {
				got = string(runes[at])
			}
			if got != tc.want {
				t.Errorf("caret at rune %d points at %q, want %q\n%s\n%s", at, got, tc.want, echo, caret)
			}
		})
	}
}
