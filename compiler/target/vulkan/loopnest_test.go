package vulkan_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
	vkdriver "github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// vulkanOptions compiles for the vulkan-spirv target only.
var vulkanOptions = pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vulkan-spirv"}}}

// loopNestVariants forms the linalg dispatches of a program for
// vulkan-spirv and returns their variants by executable name.
func loopNestVariants(t *testing.T, file string) map[string]*ir.Operation {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, vulkanOptions, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*ir.Operation{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "hal.executable.variant" && vulkan.Supports(op) {
			out[op.ParentOp().SymName()] = op
		}
		return true
	})
	return out
}

// TestLoopNestGolden compares the shaders of loop-nest kernels with
// testdata/*.glsl.golden (rewrite them with -update) and checks that glslc
// compiles them to valid SPIR-V.
func TestLoopNestGolden(t *testing.T) {
	tool := glslc(t)
	vs := loopNestVariants(t, "loopnest.mlir")
	var names []string
	for n := range vs {
		names = append(names, n)
	}
	sort.Strings(names)
	if strings.Join(names, " ") != "matmul_linalg_0 matmul_linalg_1 narrow_linalg_0 rows_linalg_0 rows_linalg_1 rows_linalg_2 rows_linalg_3 tiled_linalg_0 tiled_linalg_1 tiled_linalg_2 tiled_linalg_3 tiled_linalg_4 tiled_linalg_5" {
		t.Fatalf("executables %v", names)
	}
	for _, exe := range names {
		src, err := vulkan.GenerateGLSL(hal.InnerModule(vs[exe]), exe)
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		golden := filepath.Join("testdata", exe+".glsl.golden")
		if *update {
			if err := os.WriteFile(golden, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if want, err := os.ReadFile(golden); err != nil {
			t.Fatalf("%v (run go test -update)", err)
		} else if src != string(want) {
			t.Errorf("%s: generated GLSL differs from %s:\n%s", exe, golden, src)
		}
		code, err := vulkan.CompileGLSL(tool, src)
		if err != nil {
			t.Fatalf("%s: %v", exe, err)
		}
		spirvVal(t, code)
		if ws := localSize(code); ws != [3]uint32{vulkan.LoopNestWorkgroupSize, 1, 1} {
			t.Errorf("%s: LocalSize %v, want %d x 1 x 1", exe, ws, vulkan.LoopNestWorkgroupSize)
		}
	}
}

// localSize reads the LocalSize execution mode of a SPIR-V module.
func localSize(code []uint32) [3]uint32 {
	const opExecutionMode, localSize = 16, 17
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 {
			break
		}
		if code[i]&0xffff == opExecutionMode && n == 6 && code[i+2] == localSize {
			return [3]uint32{code[i+3], code[i+4], code[i+5]}
		}
		i += n
	}
	return [3]uint32{}
}

// TestLoopNestOnDevice runs the kernels on the first Vulkan device. The
// narrow kernel's i8, i16 and i1 results share words between invocations
// and workgroups, so each element must be written alone; the row
// reductions are shared by each workgroup's invocations, at lengths below,
// at and above the workgroup size, and empty.
func TestLoopNestOnDevice(t *testing.T) {
	glslc(t)
	if err := vkdriver.Available(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if infos, err := vkdriver.NewDriver().Devices(); err != nil || len(infos) == 0 {
		t.Skipf("skipping: no Vulkan device (%v); install mesa-vulkan-drivers for lavapipe", err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "loopnest.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile("loopnest.mlir", src, vulkanOptions, "vm")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := vkdriver.NewDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	ss, err := session.Open(dev, s.Output)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	x := make([]int32, 37)
	y := make([]int16, 37)
	var xs, ys []string
	for i := range x {
		x[i] = int32(i*i*977 - 30000)
		y[i] = int16(i*1777 - 32000)
		xs = append(xs, fmt.Sprint(x[i]))
		ys = append(ys, fmt.Sprint(y[i]))
	}
	k := int8(-7) // 249 as an unsigned i8
	testRows(t, ss)
	testTiled(t, ss)
	res, err := ss.Call("narrow", "37xi32="+strings.Join(xs, " "), "37xi16="+strings.Join(ys, " "), fmt.Sprintf("i32=%d", k))
	if err != nil {
		t.Fatal(err)
	}
	data := resultBytes(t, res)
	for i := range x {
		t8 := int8(x[i])
		d := y[i] + y[i] + int16(i)
		lt := x[i] < int32(y[i])
		q := uint8(t8) / uint8(k)
		if g := int8(data[0][i]); g != t8 {
			t.Errorf("trunci[%d] = %d, want %d", i, g, t8)
		}
		if g := int16(binary.LittleEndian.Uint16(data[1][2*i:])); g != d {
			t.Errorf("addi[%d] = %d, want %d", i, g, d)
		}
		if g := data[2][i]; g != map[bool]byte{true: 1, false: 0}[lt] {
			t.Errorf("cmpi[%d] = %d, want %v", i, g, lt)
		}
		if g := data[3][i]; g != q {
			t.Errorf("divui[%d] = %d, want %d", i, g, q)
		}
	}
}

// TestLoopNestBadTypes: element types the target does not generate name
// the device feature they would need, at the linalg op.
func TestLoopNestBadTypes(t *testing.T) {
	glslc(t)
	for _, tc := range []struct{ ty, want string }{
		{"f64", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'f64' needs the Vulkan device feature shaderFloat64"},
		{"f16", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'f16' needs the Vulkan device features shaderFloat16 and storageBuffer16BitAccess"},
		{"i64", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'i64' needs the Vulkan device feature shaderInt64"},
		{"bf16", "bad.mlir:3:8: error: 'func.func' op input #0: element type 'bf16' is not supported by vulkan-spirv code generation"},
	} {
		t.Run(tc.ty, func(t *testing.T) {
			src := strings.ReplaceAll(`func.func @f(%x: tensor<4xT>) -> tensor<4xT> {
  %e = tensor.empty() : tensor<4xT>
  %r = linalg.copy ins(%x : tensor<4xT>) outs(%e : tensor<4xT>) -> tensor<4xT>
  return %r : tensor<4xT>
}`, "T", tc.ty)
			_, err := pipeline.Compile("bad.mlir", []byte(src), vulkanOptions, "vm")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// resultBytes returns the element bytes of a call's results.
func resultBytes(t *testing.T, res []vm.Value) [][]byte {
	t.Helper()
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

// testRows checks @rows against Go loops. The f32 inputs are multiples of
// 1/8 small enough that every order of summation is exact.
func testRows(t *testing.T, ss *session.Session) {
	for _, sz := range [][2]int{{3, 1000}, {5, 127}, {2, 128}, {4, 129}, {70, 3}, {2, 0}, {0, 5}} {
		rows, cols := sz[0], sz[1]
		var xs, ys []string
		sums := make([]float32, rows)
		maxs := make([]int32, rows)
		for i := 0; i < rows; i++ {
			sums[i], maxs[i] = 0.5, -5
			for j := 0; j < cols; j++ {
				x := float32((i*31+j*17)%41-20) / 8
				y := int32((i*7919+j*104729)%20011 - 10000)
				sums[i] += x
				maxs[i] = max(maxs[i], y)
				xs = append(xs, fmt.Sprint(x))
				ys = append(ys, fmt.Sprint(y))
			}
		}
		shape := fmt.Sprintf("%dx%dx", rows, cols)
		res, err := ss.Call("rows", shape+"f32="+strings.Join(xs, " "), shape+"i32="+strings.Join(ys, " "))
		if err != nil {
			t.Fatalf("rows %v: %v", sz, err)
		}
		data := resultBytes(t, res)
		for i := 0; i < rows; i++ {
			if g := math.Float32frombits(binary.LittleEndian.Uint32(data[0][4*i:])); g != sums[i] {
				t.Errorf("rows %v: sum[%d] = %v, want %v", sz, i, g, sums[i])
			}
			if g := int32(binary.LittleEndian.Uint32(data[1][4*i:])); g != maxs[i] {
				t.Errorf("rows %v: max[%d] = %v, want %v", sz, i, g, maxs[i])
			}
		}
	}
}

// testTiled checks @tiled against Go loops; the f32 inputs are small
// multiples of 1/4, so every product and sum is exact.
func testTiled(t *testing.T, ss *session.Session) {
	val := func(i, mod int) float32 { return float32(i*7919%mod-mod/2) / 4 }
	tensor := func(shape string, n, mod int) ([]float32, string) {
		v := make([]float32, n)
		s := make([]string, n)
		for i := range v {
			v[i] = val(i+mod, mod)
			s[i] = fmt.Sprint(v[i])
		}
		return v, shape + "xf32=" + strings.Join(s, " ")
	}
	a, as := tensor("2x45x70", 2*45*70, 13)
	b, bs := tensor("2x70x67", 2*70*67, 11)
	c, cs := tensor("2050x20", 2050*20, 9)
	d, ds := tensor("20x70", 20*70, 7)
	p := make([]int32, 9*33)
	q := make([]int32, 33*130)
	var ps, qs []string
	for i := range p {
		p[i] = int32(i*7919%2001 - 1000)
		ps = append(ps, fmt.Sprint(p[i]))
	}
	for i := range q {
		q[i] = int32(i*104729%3001 - 1500)
		qs = append(qs, fmt.Sprint(q[i]))
	}
	res, err := ss.Call("tiled", as, bs, cs, ds, "9x33xi32="+strings.Join(ps, " "), "33x130xi32="+strings.Join(qs, " "))
	if err != nil {
		t.Fatal(err)
	}
	data := resultBytes(t, res)
	f32At := func(r, i int) float32 { return math.Float32frombits(binary.LittleEndian.Uint32(data[r][4*i:])) }
	bad := 0
	for n := 0; n < 2; n++ {
		for i := 0; i < 45; i++ {
			for j := 0; j < 67; j++ {
				var acc float32
				for l := 0; l < 70; l++ {
					acc += a[n*45*70+i*70+l] * b[n*70*67+l*67+j]
				}
				if g := f32At(0, n*45*67+i*67+j); g != acc && bad < 5 {
					bad++
					t.Errorf("batch_matmul[%d,%d,%d] = %v, want %v", n, i, j, g, acc)
				}
			}
		}
	}
	for i := 0; i < 2050; i++ {
		for j := 0; j < 70; j++ {
			var acc float32
			for l := 0; l < 20; l++ {
				acc += c[i*20+l] * d[l*70+j]
			}
			if g := f32At(1, i*70+j); g != acc && bad < 10 {
				bad++
				t.Errorf("matmul[%d,%d] = %v, want %v", i, j, g, acc)
			}
		}
	}
	for i := 0; i < 9; i++ {
		for j := 0; j < 130; j++ {
			acc := int32(-100000)
			for l := 0; l < 33; l++ {
				acc = max(acc, p[i*33+l]+q[l*130+j])
			}
			if g := int32(binary.LittleEndian.Uint32(data[2][4*(i*130+j):])); g != acc && bad < 15 {
				bad++
				t.Errorf("max-plus[%d,%d] = %v, want %v", i, j, g, acc)
			}
		}
	}
}
