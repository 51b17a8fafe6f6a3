package vmvx_test

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
)

// TestEpilogue: a dense layer (matmul, bias, relu, f16 result) is one
// vmvx dispatch whose epilogue runs on each finished accumulator; its
// results match a Go loop on both local devices.
func TestEpilogue(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "epilogue.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("epilogue.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vmvx"}}}, "flow")
	if err != nil {
		t.Fatal(err)
	}
	dispatches := 0
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "flow.dispatch" {
			dispatches++
		}
		return true
	})
	if dispatches != 1 {
		t.Errorf("the dense layer is %d dispatches, want 1", dispatches)
	}
	module := compile(t, "epilogue.mlir")
	x := make([]float32, 13*70)
	w := make([]float32, 70*9)
	b := make([]float32, 9)
	for i := range x {
		x[i] = float32(i%11-5) / 4
	}
	for i := range w {
		w[i] = float32(i%7-3) / 8
	}
	for i := range b {
		b[i] = float32(i-4) / 2
	}
	for _, d := range devices {
		dev, err := d.make()
		if err != nil {
			t.Fatal(err)
		}
		res := invoke(t, dev, module, "dense", arg("13x70xf32", x), arg("70x9xf32", w), arg("9xf32", b))
		dev.Close()
		for i := 0; i < 13; i++ {
			for j := 0; j < 9; j++ {
				var acc float32
				for k := 0; k < 70; k++ {
					acc += float32(x[i*70+k] * w[k*9+j])
				}
				want := bufferfmt.Float32ToF16(max(acc+b[j], 0))
				if got := binary.LittleEndian.Uint16(res[0][2*(i*9+j):]); got != want {
					t.Errorf("%s: element (%d, %d) = %#04x, want %#04x", d.name, i, j, got, want)
				}
			}
		}
	}
}
