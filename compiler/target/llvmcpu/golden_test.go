package llvmcpu_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGeneratedCGolden pins the generated C of the sample shims. Run with
// -update to rewrite the goldens after an intended change.
func TestGeneratedCGolden(t *testing.T) {
	for _, file := range []string{"shims_seed.mlir", "shims_head.mlir"} {
		t.Run(file, func(t *testing.T) {
			_, variant := parseVariant(t, file)
			lib, err := llvmcpu.GenerateC(variant)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", file[:len(file)-len(".mlir")]+".c")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(lib.Source), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(want) != lib.Source {
				t.Errorf("generated C differs from %s (run with -update to accept):\n%s", golden, lib.Source)
			}
			again, err := llvmcpu.GenerateC(variant)
			if err != nil || again.Source != lib.Source {
				t.Errorf("GenerateC is not deterministic")
			}
		})
	}
}
