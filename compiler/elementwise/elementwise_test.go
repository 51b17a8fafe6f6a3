package elementwise_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	_ "github.com/goiree/goiree/compiler/target/llvmcpu" // the fallback target of programs without targets
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestOutlineGolden pins the IR after dispatch formation; the result must
// also verify and print/parse round-trip.
func TestOutlineGolden(t *testing.T) {
	for _, tc := range []struct {
		file       string
		dispatches int
	}{
		{"chain.mlir", 1},
		{"mixed.mlir", 1},
		{"interleaved.mlir", 2},
	} {
		t.Run(tc.file, func(t *testing.T) {
			reg := dialect.NewRegistry()
			src, err := os.ReadFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			m, err := dialect.Parse(tc.file, src, reg)
			if err != nil {
				t.Fatal(err)
			}
			n, err := elementwise.Outline(m.Op, elementwise.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.dispatches {
				t.Errorf("%d dispatch regions formed, want %d", n, tc.dispatches)
			}
			if err := dialect.Verify(reg, m.Op); err != nil {
				t.Fatalf("outlined IR does not verify: %v", err)
			}
			out := ir.PrintModule(m, reg, ir.PrintOptions{})
			if _, err := dialect.Parse("printed.mlir", []byte(out), reg); err != nil {
				t.Fatalf("printed IR does not parse: %v\n%s", err, out)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(tc.file, ".mlir")+".mlir")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if string(want) != out {
				t.Errorf("outlined IR differs from %s (run with -update to accept):\n%s", golden, out)
			}
		})
	}
}

// TestTargets checks that every device target gets a variant.
func TestTargets(t *testing.T) {
	cases := []struct {
		name, targets, want string
	}{
		{"cpu", `#a = #hal.executable.target<"llvm-cpu", "embedded-elf-arm_64">
#b = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#d = #hal.device.target<"llvm-cpu", {executable_targets = [#a, #b]}>`, "arm_64,x86_64"},
		// Targets sharing a format get distinct variants.
		{"cuda-archs", `#a = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#b = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_90"}>
#d = #hal.device.target<"cuda", {executable_targets = [#a, #b]}>`, "cuda_nvptx_fb,cuda_nvptx_fb_sm_90"},
		{"same-format-no-config", `#a = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#b = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic"}>
#d = #hal.device.target<"llvm-cpu", {executable_targets = [#a, #b]}>`, "x86_64,x86_64_1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.targets + `
module attributes {hal.device.targets = [#d]} {
  func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {
    %y = arith.addf %x, %x : tensor<8xf32>
    return %y : tensor<8xf32>
  }
}`
			reg := dialect.NewRegistry()
			m, err := dialect.Parse("t.mlir", []byte(src), reg)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(elementwise.DeviceTargets(m.Op)); got != 2 {
				t.Fatalf("DeviceTargets: %d, want 2", got)
			}
			if _, err := elementwise.Outline(m.Op, elementwise.Options{}); err != nil {
				t.Fatal(err)
			}
			if err := dialect.Verify(reg, m.Op); err != nil {
				t.Fatalf("verify after outlining: %v", err)
			}
			var variants []string
			ir.Walk(m.Op, func(o *ir.Operation) bool {
				if o.Name == "hal.executable.variant" {
					variants = append(variants, o.SymName())
				}
				return true
			})
			if got := strings.Join(variants, ","); got != c.want {
				t.Errorf("variants %s, want %s", got, c.want)
			}
		})
	}
}

// TestUnsupportedElement checks the message for tensors of index.
func TestUnsupportedElement(t *testing.T) {
	src := `func.func @f(%x: tensor<8xindex>) -> tensor<8xindex> {
  %y = arith.addi %x, %x : tensor<8xindex>
  return %y : tensor<8xindex>
}`
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("t.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = elementwise.Outline(m.Op, elementwise.Options{})
	if err == nil || !strings.Contains(err.Error(), "tensors of index are not supported") {
		t.Errorf("error %v", err)
	}
}
