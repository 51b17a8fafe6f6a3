package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// TestLinalgGather runs testdata/linalg_gather.mlir (computed-index reads
// in linalg bodies, map_load, map_store, affine.linearize_index and
// affine.delinearize_index) on the CPU drivers (llvm-cpu), on local-sync
// compiled for vmvx, and on the GPU devices, against Go loops.
func TestLinalgGather(t *testing.T) {
	onEveryDevice(t, "linalg_gather.mlir", checkGather)
	t.Run("vmvx", func(t *testing.T) {
		src, err := os.ReadFile(filepath.Join("testdata", "linalg_gather.mlir"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := pipeline.Compile("linalg_gather.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vmvx"}}}, "vm")
		if err != nil {
			t.Fatal(err)
		}
		dev, err := localsync.NewDevice()
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		checkGather(t, dev, s.Output)
		emptyTableFails(t, dev, s.Output)
	})
	t.Run("empty-table", func(t *testing.T) {
		module, err := compile("linalg_gather.mlir", nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range devices {
			dev, err := d.make()
			if err != nil {
				t.Fatal(err)
			}
			emptyTableFails(t, dev, module)
			dev.Close()
		}
	})
}

// emptyTableFails checks that reading rows of a table with none fails the
// dispatch (there is no element to clamp an index to) instead of reading
// outside the buffer.
func emptyTableFails(t *testing.T, dev rhal.Device, module []byte) {
	t.Helper()
	_, err := tryRun(dev, module, "rows", "0x4xf32", "5xi32=1 0 -4 2 1")
	if err == nil || !strings.Contains(err.Error(), "rows_linalg_0") {
		t.Errorf("rows of an empty table: got %v, want the dispatch to fail", err)
	}
}

// clampIndex is where the kernels read for index i of a dimension of n:
// the nearest index inside it.
func clampIndex(i int32, n int) int {
	return int(max(0, min(i, int32(n-1))))
}

func checkGather(t *testing.T, dev rhal.Device, module []byte) {
	// rows: a table of 3 rows read at indices inside and outside it.
	table := []float32{1.5, -2, 3.25, 4, 5, 6, -7, 8, 9, 10.5, 11, -12}
	idx := []int32{2, -1, 0, 7, math.MaxInt32}
	var want []float32
	for _, x := range idx {
		want = append(want, table[clampIndex(x, 3)*4:clampIndex(x, 3)*4+4]...)
	}
	if got := callF32(t, dev, module, "rows", fmtF32("3x4xf32", table), fmtI32("5xi32", idx)); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rows = %v, want %v", got, want)
	}

	// pick_sum: a reduction reading the table once per step.
	tab := []int32{3, -1, 4, 1, -5, 9, 2, -6, 5}
	pick := []int32{0, 8, 4, 4, -3, 1, 12, 7, 6, 5, 2, 3}
	var wantI []int32
	for i := 0; i < 3; i++ {
		s := int32(0)
		for k := 0; k < 4; k++ {
			s += tab[clampIndex(pick[i*4+k], 9)] * int32(k+1)
		}
		wantI = append(wantI, s)
	}
	if got := callI32(t, dev, module, "pick_sum", fmtI32("9xi32", tab), fmtI32("3x4xi32", pick)); fmt.Sprint(got) != fmt.Sprint(wantI) {
		t.Errorf("pick_sum = %v, want %v", got, wantI)
	}

	// unflatten: rows of n from a source shorter than 3n, padded with -1.
	for _, n := range []int{1, 4, 6} {
		src := make([]float32, 2*n+1)
		for i := range src {
			src[i] = float32(i) + 0.5
		}
		var want []float32
		for i := 0; i < 3; i++ {
			for j := 0; j < n; j++ {
				if l := i*n + j; l < len(src) {
					want = append(want, src[l])
				} else {
					want = append(want, -1)
				}
			}
		}
		if got := callF32(t, dev, module, "unflatten", fmtF32(fmt.Sprintf("%dxf32", len(src)), src), fmt.Sprint(n)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("unflatten(n=%d) = %v, want %v", n, got, want)
		}
	}

	// transpose_store: in viewed as 3x4, transposed into dst but for the
	// masked row, which keeps dst's values.
	in := make([]int32, 12)
	dst := make([]int32, 12)
	for i := range in {
		in[i] = int32(i*7 - 20)
		dst[i] = int32(100 + i)
	}
	wantT := append([]int32(nil), dst...)
	for a := 0; a < 3; a++ {
		for b := 0; b < 4; b++ {
			if a != 1 {
				wantT[b*3+a] = in[a*4+b]
			}
		}
	}
	if got := callI32(t, dev, module, "transpose_store", fmtI32("12xi32", in), fmtI32("4x3xi32", dst)); fmt.Sprint(got) != fmt.Sprint(wantT) {
		t.Errorf("transpose_store = %v, want %v", got, wantT)
	}

	// wrap: linearized over a dynamic row length, delinearized by 5.
	x := []int32{10, 20, 30, 40, 50}
	for _, m := range []int{1, 3, 7} {
		var want []int32
		for i := 0; i < 2; i++ {
			for j := 0; j < m; j++ {
				want = append(want, x[(i*m+j)%5])
			}
		}
		if got := callI32(t, dev, module, "wrap", fmtI32("5xi32", x), fmt.Sprint(m)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("wrap(m=%d) = %v, want %v", m, got, want)
		}
	}
}

func fmtI32(shape string, vals []int32) string {
	return shape + "=" + ints(vals)
}

// callI32 calls fn and returns its single i32 tensor result's elements.
func callI32(t *testing.T, dev rhal.Device, module []byte, fn string, inputs ...string) []int32 {
	t.Helper()
	bm, err := vm.LoadBytecodeModule(module)
	if err != nil {
		t.Fatal(err)
	}
	s, err := session.New(dev, []*vm.BytecodeModule{bm}, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.Call(fn, inputs...)
	if err != nil {
		t.Fatalf("%s(%s): %v", fn, strings.Join(inputs, ", "), err)
	}
	defer vm.ReleaseValues(res)
	if len(res) != 1 {
		t.Fatalf("%s returned %d values, want 1", fn, len(res))
	}
	v, err := halmodule.BufferViewOf(res[0])
	if err != nil {
		t.Fatal(err)
	}
	n := int64(1)
	for _, d := range v.Shape() {
		n *= d
	}
	raw := make([]byte, 4*n)
	if err := v.Buffer().Read(0, raw); err != nil {
		t.Fatal(err)
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return out
}
