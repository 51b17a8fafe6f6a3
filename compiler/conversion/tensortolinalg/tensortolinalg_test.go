package tensortolinalg_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/tensortolinalg"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestGolden converts testdata/convert.mlir and compares the printed IR
// with testdata/convert.golden (go test -update rewrites it).
func TestGolden(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "convert.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("convert.mlir", src, reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := tensortolinalg.Convert(m.Op); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("converted IR does not verify: %v", err)
	}
	got := ir.PrintModule(m, reg, ir.PrintOptions{})
	// The printed IR reads back the same (it is what --compile-to prints
	// and --compile-from reads).
	m2, err := dialect.Parse("convert.golden", []byte(got), reg)
	if err != nil {
		t.Fatalf("converted IR does not parse back: %v", err)
	}
	if again := ir.PrintModule(m2, reg, ir.PrintOptions{}); again != got {
		t.Errorf("converted IR prints differently after reading it back:\n%s", again)
	}
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		switch {
		case o.Name == "tensor.insert_slice", o.Name == "tensor.empty", o.Name == "tensor.dim", o.Name == "tensor.extract_slice":
		case strings.HasPrefix(o.Name, "tensor."):
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

// TestErrors checks that what the lowering cannot do yet is refused at
// the op's file:line:col.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"dynamic-pad", `func.func @f(%x: tensor<8xf32>, %l: index, %v: f32) -> tensor<?xf32> {
  %p = tensor.pad %x low[%l] high[0] {
  ^bb0(%i: index):
    tensor.yield %v : f32
  } : tensor<8xf32> to tensor<?xf32>
  return %p : tensor<?xf32>
}`, "bad.mlir:2:8: error: 'tensor.pad' op dynamic low paddings (dimension 0) are not supported yet; only sizes may be dynamic"},
		{"dynamic-concat", `func.func @f(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c = tensor.concat dim(0) %x, %x : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %c : tensor<?xf32>
}`, "bad.mlir:2:8: error: 'tensor.concat' op input #0 has a dynamic size along the concatenated dimension 0, which makes the offsets dynamic: not supported yet"},
		{"unranked", `func.func @f(%x: tensor<4xf32>) -> tensor<*xf32> {
  %c = tensor.cast %x : tensor<4xf32> to tensor<*xf32>
  return %c : tensor<*xf32>
}`, "bad.mlir:2:8: error: 'tensor.cast' op unranked tensors ('tensor<*xf32>') are not supported yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := dialect.Parse("bad.mlir", []byte(tc.src), dialect.NewRegistry())
			if err != nil {
				t.Fatal(err)
			}
			err = tensortolinalg.Convert(m.Op)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
