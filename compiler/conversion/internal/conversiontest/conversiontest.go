// Package conversiontest holds the golden test every conversion package
// runs: convert testdata/convert.mlir, verify the result, read the printed
// IR back, check that no op of the converted dialect is left, and compare
// with testdata/convert.golden (go test -update rewrites it).
package conversiontest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Golden runs convert on testdata/convert.mlir of the calling package's
// directory. leftover reports an op the conversion should have replaced
// (by name); each one found is an error at its position.
func Golden(t *testing.T, convert func(module *ir.Operation) error, leftover func(name string) bool) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "convert.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("convert.mlir", src, reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := convert(m.Op); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("converted IR does not verify: %v", err)
	}
	got := ir.PrintModule(m, reg, ir.PrintOptions{})
	// The printed IR reads back the same: it is what --compile-to prints
	// and --compile-from reads.
	m2, err := dialect.Parse("convert.golden", []byte(got), reg)
	if err != nil {
		t.Fatalf("converted IR does not parse back: %v", err)
	}
	if again := ir.PrintModule(m2, reg, ir.PrintOptions{}); again != got {
		t.Errorf("converted IR prints differently after reading it back:\n%s", again)
	}
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if leftover(o.Name) {
			t.Errorf("%s: %s was not converted", o.Pos, o.Name)
		}
		return true
	})
	golden := filepath.Join("testdata", "convert.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("converted IR differs from %s (go test -update rewrites it):\n%s", golden, got)
	}
}
