// Package dialecttest holds the checks the dialect packages' tests share:
// a custom-form round trip that also compares the generic form, and
// expected diagnostics.
package dialecttest

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

// RoundTrip parses and verifies src (named file), prints it in the custom
// form, and checks that the printed text parses back to the same IR: the
// same custom printing and the same generic printing; the generic printing
// must itself parse back unchanged. It returns the custom and generic
// printings.
func RoundTrip(t *testing.T, file, src string) (custom, generic string) {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := dialect.Parse(file, []byte(src), reg)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	custom = ir.PrintModule(m, reg, ir.PrintOptions{})
	generic = ir.PrintModule(m, reg, ir.PrintOptions{Generic: true, NoAliases: true})
	m2, err := dialect.Parse(file+".printed", []byte(custom), reg)
	if err != nil {
		t.Fatalf("reparse of the printed form: %v\n%s", err, custom)
	}
	if again := ir.PrintModule(m2, reg, ir.PrintOptions{}); again != custom {
		t.Fatalf("print(parse(print(x))) != print(x):\n--- first\n%s\n--- second\n%s", custom, again)
	}
	if g := ir.PrintModule(m2, reg, ir.PrintOptions{Generic: true, NoAliases: true}); g != generic {
		t.Fatalf("generic forms differ after a round trip:\n--- first\n%s\n--- second\n%s", generic, g)
	}
	m3, err := dialect.Parse(file+".generic", []byte(generic), reg)
	if err != nil {
		t.Fatalf("reparse of the generic form: %v\n%s", err, generic)
	}
	if g := ir.PrintModule(m3, reg, ir.PrintOptions{Generic: true, NoAliases: true}); g != generic {
		t.Fatalf("the generic form does not round-trip:\n--- first\n%s\n--- second\n%s", generic, g)
	}
	return custom, generic
}

// ContainsAll fails the test for each of wants that text lacks.
func ContainsAll(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(text, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, text)
		}
	}
}

// ExpectError parses and verifies src as file t.mlir and checks that it
// fails with exactly want.
func ExpectError(t *testing.T, src, want string) {
	t.Helper()
	reg := dialect.NewRegistry()
	_, err := dialect.Parse("t.mlir", []byte(src), reg)
	if err == nil {
		t.Fatalf("no error; want %s", want)
	}
	if err.Error() != want {
		t.Fatalf("got  %s\nwant %s", err, want)
	}
}
