package e2e_test

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/dialect/transform"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// TestTransformSpec applies a preprocessing spec that replaces the chain
// -|a * b| (three generics) by a call of a function of its own, on dynamic
// shapes and on static ones (through tensor.cast), and runs the program on
// the CPU devices against a Go loop.
func TestTransformSpec(t *testing.T) {
	src, err := os.ReadFile("testdata/transform_spec.mlir")
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Parse("transform_spec.mlir", src, pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := transform.ApplyFile("testdata/transform_spec_spec.mlir", s.Module.Op, s.Registry); err != nil {
		t.Fatal(err)
	}
	ir := s.Print()
	if n := strings.Count(ir, "util.call @fused"); n != 2 {
		t.Fatalf("%d calls of @fused after the spec, want 2:\n%s", n, ir)
	}
	if strings.Contains(ir, "math.absf") {
		t.Fatalf("the replaced generics are still there after DCE:\n%s", ir)
	}
	if err := pipeline.Run(s, pipeline.RunOptions{To: "executable-sources"}); err != nil {
		t.Fatal(err)
	}
	module, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets, LLVMCPU: llvmcpu.Options{Objects: s.Resolver}})
	if err != nil {
		t.Fatal(err)
	}
	a := []float32{1.5, -2, 3, -0.25, 0, 7, -1}
	b := []float32{2, 4, -1.5, -8, -3, 0.5, -1}
	c := []float32{-1, 2, -3, 4, -5, 6}
	d := []float32{0.5, 0.5, -2, -2, 1, -0.125}
	list := func(xs []float32) string {
		var parts []string
		for _, x := range xs {
			parts = append(parts, fmt.Sprint(x))
		}
		return strings.Join(parts, ",")
	}
	want := func(x, y []float32) string {
		var parts []string
		for i := range x {
			parts = append(parts, fmt.Sprint(-float32(math.Abs(float64(x[i]*y[i])))))
		}
		return fmt.Sprintf("%dxf32=%s", len(x), strings.Join(parts, " "))
	}
	for _, dev := range devices {
		t.Run(dev.name, func(t *testing.T) {
			h, err := dev.make()
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			out := run(t, h, module, "mul_abs_negate",
				"7xf32="+list(a), "7xf32="+list(b), "6xf32="+list(c), "6xf32="+list(d))
			for _, w := range []string{want(a, b), want(c, d)} {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
}
