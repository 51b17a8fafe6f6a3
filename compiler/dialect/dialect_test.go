package dialect

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/golden")

// roundTrip parses and verifies src, prints it canonically, and checks that
// parsing the printed text gives the same IR (same canonical and generic
// printings).
func roundTrip(t *testing.T, name string, src []byte) string {
	t.Helper()
	reg := NewRegistry()
	m, err := Parse(name, src, reg)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	printed := ir.PrintModule(m, reg, ir.PrintOptions{})
	generic := ir.PrintModule(m, reg, ir.PrintOptions{Generic: true, NoAliases: true})
	m2, err := Parse(name+".printed", []byte(printed), reg)
	if err != nil {
		t.Fatalf("reparse of printed %s: %v\n%s", name, err, printed)
	}
	if again := ir.PrintModule(m2, reg, ir.PrintOptions{}); again != printed {
		t.Fatalf("print(parse(print(x))) != print(x) for %s:\n--- first\n%s\n--- second\n%s", name, printed, again)
	}
	if g2 := ir.PrintModule(m2, reg, ir.PrintOptions{Generic: true, NoAliases: true}); g2 != generic {
		t.Fatalf("generic forms differ after round trip for %s:\n--- first\n%s\n--- second\n%s", name, generic, g2)
	}
	// The generic form must itself parse back to the same IR.
	m3, err := Parse(name+".generic", []byte(generic), reg)
	if err != nil {
		t.Fatalf("reparse of generic %s: %v\n%s", name, err, generic)
	}
	if g3 := ir.PrintModule(m3, reg, ir.PrintOptions{Generic: true, NoAliases: true}); g3 != generic {
		t.Fatalf("generic form does not round-trip for %s", name)
	}
	return printed
}

func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden (run with -update to create): %v", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the printed IR (run with -update to accept):\n%s", path, got)
	}
}

func TestPrograms(t *testing.T) {
	files, err := filepath.Glob("testdata/programs/*.mlir")
	if err != nil || len(files) == 0 {
		t.Fatalf("no programs found: %v", err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".mlir")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			printed := roundTrip(t, f, src)
			checkGolden(t, filepath.Join("testdata", "golden", name+".mlir"), printed)
		})
	}
}

// TestSeedAndHeadAgree checks that the seed and HEAD spellings of variants
// and exports print identically (the printer's canonical form is HEAD).
func TestSeedAndHeadAgree(t *testing.T) {
	seed := `#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#l = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable private @e {
  hal.executable.variant public @v, target = #t, objects = [#hal.executable.object<{path = "a.o"}>] {
    hal.executable.export public @f ordinal(0) layout(#l) attributes {workgroup_size = [1 : index, 1 : index, 1 : index]} {
    ^bb0(%d: !hal.device, %w: index):
      hal.return %w, %w, %w : index, index, index
    }
  }
}
`
	head := `#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#l = #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable private @e {
  hal.executable.variant public @v target(#t) objects([#hal.executable.object<{path = "a.o"}>]) {
    hal.executable.export public @f ordinal(0) layout(#l) count(%d: !hal.device, %w: index) -> (index, index, index) {
      hal.return %w, %w, %w : index, index, index
    } attributes {workgroup_size = [1 : index, 1 : index, 1 : index]}
  }
}
`
	a := roundTrip(t, "seed", []byte(seed))
	b := roundTrip(t, "head", []byte(head))
	if a != b {
		t.Errorf("seed and HEAD spellings print differently:\n%s\n---\n%s", a, b)
	}
	if !strings.Contains(a, "target(#t) objects([") || !strings.Contains(a, "count(%d: !hal.device, %w: index)") {
		t.Errorf("canonical form is not the HEAD spelling:\n%s", a)
	}
}
