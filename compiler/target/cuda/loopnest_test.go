package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelabi"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/cuda"
	"github.com/goiree/goiree/compiler/transforms"
	cudadriver "github.com/goiree/goiree/runtime/hal/drivers/cuda"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
)

// cudaOptions compiles for the cuda target only.
var cudaOptions = pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"cuda"}}}

// loopNestVariants forms the linalg dispatches of testdata/loopnest.mlir
// for cuda and returns their variants in module order.
func loopNestVariants(t *testing.T) []*ir.Operation {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "loopnest.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("loopnest.mlir", src, cudaOptions, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []*ir.Operation
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "hal.executable.variant" && hal.InnerModule(op) != nil {
			out = append(out, op)
			return false
		}
		return true
	})
	return out
}

// TestLoopNestPTX compares the PTX of loop-nest kernels for sm_52 and
// sm_80 with golden files (no ptxas here: the lead's GPU runs load them)
// and checks their structure and kernel interface: one pointer per
// binding, one 32-bit parameter per constant.
func TestLoopNestPTX(t *testing.T) {
	vs := loopNestVariants(t)
	// The zero fills before matmul and the tiled products fold into
	// those kernels (no init binding), so they have no variants.
	if len(vs) != 13 {
		t.Fatalf("%d generated variants, want 13 (1 for matmul, 1 for narrow, 2 for rowmax, 4 for rows, 4 for tiled, 1 for window)", len(vs))
	}
	for _, arch := range []string{"sm_52", "sm_80"} {
		t.Run(arch, func(t *testing.T) {
			var all strings.Builder
			for _, v := range vs {
				m, err := cuda.GeneratePTX(v, arch)
				if err != nil {
					t.Fatal(err)
				}
				checkPTX(t, m.PTX)
				var want []kernelabi.KernelInterface
				for _, k := range m.Kernels {
					want = append(want, kernelabi.KernelInterface{Export: k.Name, Bindings: k.BindingCount, Constants: k.ConstantCount})
					if k.BlockSize != [3]uint32{cuda.LoopNestBlockSize, 1, 1} {
						t.Errorf("%s: block size %v", k.Name, k.BlockSize)
					}
				}
				if err := kernelabi.CheckPTX(v.ParentOp().SymName(), m.PTX, want); err != nil {
					t.Error(err)
				}
				all.WriteString(m.PTX)
			}
			golden := filepath.Join("testdata", "golden", "loopnest_"+arch+".ptx")
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

// TestLoopNestBad: a type with no PTX form is refused at its linalg op,
// and an op without a PTX translation at the op in the body.
func TestLoopNestBad(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"type", `func.func @f(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %e = tensor.empty() : tensor<4xf8E4M3FN>
  %r = linalg.copy ins(%x : tensor<4xf8E4M3FN>) outs(%e : tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %r : tensor<4xf8E4M3FN>
}`, "bad.mlir:3:8: error: 'func.func' op input #0: element type f8E4M3FN is not supported by cuda code generation"},
		{"op", `func.func @f(%x: tensor<4xi32>) -> tensor<4xi32> {
  %e = tensor.empty() : tensor<4xi32>
  %r = linalg.map ins(%x : tensor<4xi32>) outs(%e : tensor<4xi32>) (%a: i32) {
    %s = math.cttz %a : i32
    linalg.yield %s : i32
  }
  return %r : tensor<4xi32>
}`, "bad.mlir:4:10: error: 'math.cttz' op 'math.cttz' cannot be used in a cuda loop-nest body"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pipeline.Compile("bad.mlir", []byte(tc.src), cudaOptions, "vm")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestLoopNestOnDevice runs the f64 row reduction on the first CUDA device
// (skipped without one) against a Go loop; e2e's TestGPULoopNests runs the
// kernels both GPU targets compile.
func TestLoopNestOnDevice(t *testing.T) {
	if err := cudadriver.Available(); err != nil {
		t.Skipf("skipping: no CUDA device: %v", err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "loopnest.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("loopnest.mlir", src, cudaOptions, "vm")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := cudadriver.NewDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ss, err := session.Open(dev, s.Output)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	call := func(fn string, inputs ...string) [][]byte {
		t.Helper()
		res, err := ss.Call(fn, inputs...)
		if err != nil {
			t.Fatalf("%s: %v", fn, err)
		}
		var data [][]byte
		for _, r := range res {
			view, err := halmodule.BufferViewOf(r)
			if err != nil {
				t.Fatal(err)
			}
			b, err := functionio.ReadBufferView(view)
			if err != nil {
				t.Fatal(err)
			}
			data = append(data, b.Data)
		}
		return data
	}
	var rows []string
	want := make([]float64, 5)
	for i := 0; i < 5; i++ {
		want[i] = -1e300
		for j := 0; j < 300; j++ {
			v := math.Sin(float64(i*300+j)) * 1e10
			want[i] = math.Max(want[i], v)
			rows = append(rows, fmt.Sprint(v))
		}
	}
	data := call("rowmax", "5x300xf64="+strings.Join(rows, " "))
	for i, w := range want {
		if g := math.Float64frombits(binary.LittleEndian.Uint64(data[0][8*i:])); g != w {
			t.Errorf("rowmax[%d] = %v, want %v", i, g, w)
		}
	}
}
