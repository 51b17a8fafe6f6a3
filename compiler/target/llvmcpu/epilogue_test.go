package llvmcpu_test

import (
	"encoding/binary"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// epilogueVariant is a loop-nest matmul C = A @ B (B's columns dynamic)
// whose epilogue stores max(acc + R[i, j] + bias[j], 0): the micro-kernel
// path, with a 2-D epilogue input whose row stride is a push constant.
// EPI is replaced by the epilogue's signature.
const epilogueVariant = `
#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-unknown-unknown-eabi-elf"}>
#l = #hal.pipeline.layout<constants = 4, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
module {
  hal.executable private @mm {
    hal.executable.variant public @x86_64 target(#t) {
      hal.executable.export public @mm ordinal(0) layout(#l) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %n, %c1, %c1 : index, index, index
      }
      builtin.module {
        func.func private @mm_body(%i: index, %j: index, %k: index, %a: f32, %b: f32, %acc: f32) -> f32 {
          %p = arith.mulf %a, %b : f32
          %s = arith.addf %acc, %p : f32
          return %s : f32
        }
        func.func private @mm_epilogue(EPI {
          %s = arith.addf %acc, %r : f32
          %t = arith.addf %s, %bias : f32
          %z = arith.constant 0.0 : f32
          %m = arith.maximumf %t, %z : f32
          return %m : f32
        }
        func.func @mm() attributes {goiree.loop_nest = {body = @mm_body, ranges = [20 : index, -1 : index, 300 : index], iterator_types = ["parallel", "parallel", "reduction"],
            inputs = [{type = tensor<20x300xf32>, map = affine_map<(d0, d1, d2) -> (d0, d2)>}, {type = tensor<300x?xf32>, map = affine_map<(d0, d1, d2) -> (d2, d1)>}],
            outputs = [{type = tensor<20x?xf32>, map = affine_map<(d0, d1, d2) -> (d0, d1)>}], tile = 7 : index,
            epilogue = @mm_epilogue, epilogue_inputs = [{type = tensor<20x?xf32>, map = affine_map<(d0, d1, d2) -> (d0, d1)>}, {type = tensor<?xf32>, map = affine_map<(d0, d1, d2) -> (d1)>}]}} {
          return
        }
      }
    }
  }
}
`

func epilogueModule(t *testing.T, signature string) *ir.Operation {
	t.Helper()
	m, err := dialect.Parse("epilogue.mlir", []byte(strings.Replace(epilogueVariant, "EPI", signature, 1)), dialect.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var variant *ir.Operation
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if o.Name == "hal.executable.variant" {
			variant = o
		}
		return true
	})
	return variant
}

// TestMatmulEpilogue runs the micro-kernel with an epilogue against a Go
// loop: K = 300 spans two K slices, so a tile's epilogue must wait for
// the last; 20 x 45 leaves partial tiles.
func TestMatmulEpilogue(t *testing.T) {
	tools(t)
	variant := epilogueModule(t, "%i: index, %j: index, %acc: f32, %r: f32, %bias: f32) -> f32")
	lib, err := llvmcpu.GenerateC(variant)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(lib.Source, "gi_mm_block(&gi_q") || !strings.Contains(lib.Source, "gi_p.epi = ") {
		t.Fatalf("the kernel does not apply its epilogue through the micro-kernel:\n%s", lib.Source)
	}
	elf, err := llvmcpu.Build(variant, llvmcpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const m, n, k = 20, 45, 300
	rnd := rand.New(rand.NewSource(5))
	vals := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rnd.Intn(201)-100) / 64
		}
		return v
	}
	a, b, res, bias := vals(m*k), vals(k*n), vals(m*n), vals(n)
	r := newRunner(t, elf)
	out := r.buffer(f32s(splat(m*n, -7)))
	// Push constants: B's columns, R's columns, the bias length, C's
	// columns.
	r.dispatch(0, 3, []uint32{n, n, n, n}, r.buffer(f32s(a)), r.buffer(f32s(b)), r.buffer(f32s(res)), r.buffer(f32s(bias)), out)
	got := read(t, out)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			var acc, scale float64
			for l := 0; l < k; l++ {
				p := float64(a[i*k+l]) * float64(b[l*n+j])
				acc += p
				scale += math.Abs(p)
			}
			want := math.Max(acc+float64(res[i*n+j])+float64(bias[j]), 0)
			if g := float64(got[i*n+j]); math.Abs(g-want) > 1e-6*scale*k+1e-6 {
				t.Fatalf("C[%d][%d] = %g, want %g", i, j, g, want)
			}
		}
	}
}

// TestMatmulEpilogueF16 runs the same kernel storing f16 (acc = f32):
// each block accumulates in local memory and its tiles' epilogue stores
// the output.
func TestMatmulEpilogueF16(t *testing.T) {
	tools(t)
	src := strings.NewReplacer(
		"EPI", "%i: index, %j: index, %acc: f32, %r: f32, %bias: f32) -> f16",
		"return %m : f32", "%h = arith.truncf %m : f32 to f16\n          return %h : f16",
		"outputs = [{type = tensor<20x?xf32>, map = affine_map<(d0, d1, d2) -> (d0, d1)>}]", "outputs = [{type = tensor<20x?xf16>, map = affine_map<(d0, d1, d2) -> (d0, d1)>, acc = f32}]",
	).Replace(epilogueVariant)
	m, err := dialect.Parse("epilogue.mlir", []byte(src), dialect.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	var variant *ir.Operation
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if o.Name == "hal.executable.variant" {
			variant = o
		}
		return true
	})
	elf, err := llvmcpu.Build(variant, llvmcpu.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const rows, n, k = 20, 45, 300
	rnd := rand.New(rand.NewSource(6))
	vals := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rnd.Intn(201)-100) / 64
		}
		return v
	}
	a, b, res, bias := vals(rows*k), vals(k*n), vals(rows*n), vals(n)
	r := newRunner(t, elf)
	out := r.buffer(make([]byte, 2*rows*n))
	r.dispatch(0, 2, []uint32{n, n, n, n}, r.buffer(f32s(a)), r.buffer(f32s(b)), r.buffer(f32s(res)), r.buffer(f32s(bias)), out)
	got := make([]byte, 2*rows*n)
	if err := out.Read(0, got); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows; i++ {
		for j := 0; j < n; j++ {
			var acc, scale float64
			for l := 0; l < k; l++ {
				p := float64(a[i*k+l]) * float64(b[l*n+j])
				acc += p
				scale += math.Abs(p)
			}
			want := math.Max(acc+float64(res[i*n+j])+float64(bias[j]), 0)
			h := binary.LittleEndian.Uint16(got[2*(i*n+j):])
			g := float64(float16(h))
			// f16 keeps 11 bits: half an ulp of rounding, plus the f32
			// accumulation's error.
			if math.Abs(g-want) > math.Abs(want)/1024+1e-6*scale*k+1e-6 {
				t.Fatalf("C[%d][%d] = %g (0x%04x), want %g", i, j, g, h, want)
			}
		}
	}
}

// float16 decodes an IEEE half (normal numbers and zero, which are all
// the test produces: relu's results are 0 or at least 2^-12, above
// the subnormals).
func float16(h uint16) float32 {
	if h&0x7fff == 0 {
		return 0
	}
	return math.Float32frombits(uint32(h&0x8000)<<16 | (uint32(h>>10&0x1f)+112)<<23 | uint32(h&0x3ff)<<13)
}

// TestEpilogueSignature checks that an epilogue whose type is not the
// contract's is refused at the function.
func TestEpilogueSignature(t *testing.T) {
	variant := epilogueModule(t, "%i: index, %acc: f32, %r: f32, %bias: f32) -> f32")
	_, err := llvmcpu.GenerateC(variant)
	want := "epilogue.mlir:23:9: error: 'func.func' op loop-nest epilogue must have type (index, index, f32, f32, f32) -> f32"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v\nwant %q", err, want)
	}
}
