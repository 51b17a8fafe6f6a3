package cuda_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelabi"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/cuda"
)

var update = flag.Bool("update", false, "rewrite the golden PTX files")

// generatedVariants runs the front end and dispatch formation on a program
// and returns its cuda variants that have a builtin.module.
func generatedVariants(t *testing.T, file string, src []byte) []*ir.Operation {
	t.Helper()
	s, err := pipeline.Compile(file, src, pipeline.Options{ObjectSearchPaths: []string{"testdata"}}, "")
	if err != nil {
		t.Fatalf("front end: %v", err)
	}
	if err := backend.FormDispatches(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets}); err != nil {
		t.Fatalf("dispatch formation: %v", err)
	}
	var out []*ir.Operation
	var walk func(op *ir.Operation)
	walk = func(op *ir.Operation) {
		if op.Name == "hal.executable.variant" {
			if tg := hal.VariantTarget(op); tg != nil && tg.Backend == "cuda" && hal.InnerModule(op) != nil {
				out = append(out, op)
			}
			return
		}
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				for _, o := range b.Ops {
					walk(o)
				}
			}
		}
	}
	walk(s.Module.Op)
	return out
}

// checkPTX applies structural checks a PTX assembler would: every register
// used is declared within its class's count, braces balance, and every
// branch target is a label of the same function.
func checkPTX(t *testing.T, text string) {
	t.Helper()
	decl := regexp.MustCompile(`\.reg \.\w+ \t(%[a-z]+)<(\d+)>;`)
	counts := map[string]int{}
	for _, m := range decl.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		counts[m[1]] = n
	}
	use := regexp.MustCompile(`(%(?:rd|rs|fd|r|f|p))(\d+)\b`)
	for _, m := range use.FindAllStringSubmatch(text, -1) {
		n, _ := strconv.Atoi(m[2])
		if limit, ok := counts[m[1]]; !ok || n >= limit {
			t.Errorf("register %s%s used but not declared (declared %s<%d>)", m[1], m[2], m[1], limit)
		}
	}
	if strings.Count(text, "{") != strings.Count(text, "}") {
		t.Errorf("unbalanced braces")
	}
	for _, m := range regexp.MustCompile(`bra(?:\.uni)? \t(\$\w+);`).FindAllStringSubmatch(text, -1) {
		if !strings.Contains(text, "\n"+m[1]+":\n") {
			t.Errorf("branch to undefined label %s", m[1])
		}
	}
}

// TestGeneratedPTX compares the PTX of the generated elementwise dispatches
// with golden files, and checks it: entry names and parameter counts as
// the kernel ABI needs, declared registers, labels.
func TestGeneratedPTX(t *testing.T) {
	for _, file := range []string{"elementwise.mlir", "sample.mlir", "ops.mlir"} {
		t.Run(file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", file))
			if err != nil {
				t.Fatal(err)
			}
			variants := generatedVariants(t, file, src)
			if len(variants) == 0 {
				t.Fatal("no generated cuda variants")
			}
			var all strings.Builder
			for _, v := range variants {
				m, err := cuda.GeneratePTX(v, cuda.Arch(hal.VariantTarget(v)))
				if err != nil {
					t.Fatal(err)
				}
				checkPTX(t, m.PTX)
				var want []kernelabi.KernelInterface
				for _, k := range m.Kernels {
					want = append(want, kernelabi.KernelInterface{Export: k.Name, Bindings: k.BindingCount, Constants: k.ConstantCount})
					if k.BlockSize != [3]uint32{cuda.ElementwiseBlockSize, 1, 1} {
						t.Errorf("%s: block size %v", k.Name, k.BlockSize)
					}
				}
				if err := kernelabi.CheckPTX(v.ParentOp().SymName(), m.PTX, want); err != nil {
					t.Error(err)
				}
				all.WriteString(m.PTX)
			}
			golden := filepath.Join("testdata", "golden", strings.TrimSuffix(file, ".mlir")+".ptx")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(all.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if all.String() != string(want) {
				t.Errorf("generated PTX differs from %s (run with -update to accept):\n%s", golden, all.String())
			}
		})
	}
}

// TestGeneratedPTXPerArch generates the op-coverage program for several
// architectures: the .version is the oldest PTX ISA with the arch and the
// instructions used, instructions newer than the arch (max.NaN/min.NaN
// from sm_80) are replaced by sequences of older ones, no .approx
// instruction is used (the math library is exact to an ulp or so), and
// the sm_52 output matches its golden file.
func TestGeneratedPTXPerArch(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "ops.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	variants := generatedVariants(t, "ops.mlir", src)
	for _, tc := range []struct {
		arch, version string
		has, hasNot   []string
	}{
		{"sm_52", "4.1", []string{"setp.nan.f32", "and.b32"}, []string{"max.NaN", "min.NaN", ".approx"}},
		{"sm_60", "5.0", nil, []string{"max.NaN", ".approx"}},
		{"sm_75", "6.3", nil, []string{"max.NaN", ".approx"}},
		{"sm_80", "7.0", []string{"max.NaN.f32", "min.NaN.f32"}, []string{".approx"}},
		{"sm_86", "7.1", []string{"max.NaN.f32"}, nil},
		{"sm_90a", "8.0", []string{"max.NaN.f32"}, nil},
		{"sm_120", "8.7", []string{"max.NaN.f32"}, nil},
	} {
		t.Run(tc.arch, func(t *testing.T) {
			var all strings.Builder
			for _, v := range variants {
				m, err := cuda.GeneratePTX(v, tc.arch)
				if err != nil {
					t.Fatal(err)
				}
				checkPTX(t, m.PTX)
				if want := "\n.version " + tc.version + "\n.target " + tc.arch + "\n"; !strings.Contains(m.PTX, want) {
					t.Errorf("header lacks %q", want)
				}
				all.WriteString(m.PTX)
			}
			for _, s := range tc.has {
				if !strings.Contains(all.String(), s) {
					t.Errorf("no %s in the %s PTX", s, tc.arch)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(all.String(), s) {
					t.Errorf("%s in the %s PTX", s, tc.arch)
				}
			}
			if tc.arch != "sm_52" {
				return
			}
			golden := filepath.Join("testdata", "golden", "ops_sm_52.ptx")
			if *update {
				if err := os.WriteFile(golden, []byte(all.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if all.String() != string(want) {
				t.Errorf("generated PTX differs from %s (run with -update to accept):\n%s", golden, all.String())
			}
		})
	}
}
