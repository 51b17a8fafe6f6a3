package local_test

import (
	"encoding/binary"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
)

func loadMul(t *testing.T) *local.Executable {
	t.Helper()
	exe, err := local.Load(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: kerneltest.MulLibrary(t)})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { exe.Release() })
	return exe
}

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func TestExports(t *testing.T) {
	exe := loadMul(t)
	if exe.Name() != "mul_library" || exe.Format() != "embedded-elf-x86_64" {
		t.Errorf("name %q format %q", exe.Name(), exe.Format())
	}
	want := []hal.ExportInfo{
		{Name: "simple_mul", ConstantCount: 1, BindingCount: 3, WorkgroupSize: [3]uint32{64, 0, 0}},
		{Name: "fail_at", ConstantCount: 1, BindingCount: 1},
		{Name: "grid_ids", ConstantCount: 0, BindingCount: 1, LocalMemoryBytes: 4096},
	}
	got := exe.Exports()
	if len(got) != len(want) {
		t.Fatalf("exports = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("export %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestDispatchDirect(t *testing.T) {
	exe := loadMul(t)
	const n = 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i), 0.5
	}
	ab, bb, cb := f32bytes(a), f32bytes(b), make([]byte, 4*n)
	d, err := exe.PrepareDispatch(kerneltest.SimpleMul, [3]uint32{(n + 63) / 64, 1, 1}, []uint32{n}, [][]byte{ab, bb, cb}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if err := d.Run(0, nil, 0, d.WorkgroupCount()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(cb[4*i:])); got != float32(i)*0.5 {
			t.Fatalf("c[%d] = %v, want %v", i, got, float32(i)*0.5)
		}
	}
	if err := d.Run(0, nil, 0, d.WorkgroupCount()+1); err == nil {
		t.Error("range past the grid accepted")
	}
}

func TestDispatchErrors(t *testing.T) {
	exe := loadMul(t)
	marks := make([]byte, 4*16)
	d, err := exe.PrepareDispatch(kerneltest.FailAt, [3]uint32{16, 1, 1}, []uint32{5}, [][]byte{marks}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	err = d.Run(0, nil, 0, 16)
	if err == nil || !strings.Contains(err.Error(), `dispatch of export 1 ("fail_at") failed with status 7 at workgroup (5, 0, 0)`) {
		t.Fatalf("error = %v", err)
	}
	for i := 0; i < 16; i++ {
		ran := binary.LittleEndian.Uint32(marks[4*i:]) == 1
		if ran != (i <= 5) {
			t.Errorf("workgroup %d ran = %v; workgroups after the failure must not run", i, ran)
		}
	}
	tests := []struct {
		name      string
		ordinal   int
		wg        [3]uint32
		constants []uint32
		bindings  int
		err       string
	}{
		{"ordinal", 3, [3]uint32{1, 1, 1}, nil, 0, "entry point ordinal 3 out of range: executable has 3 export(s)"},
		{"constants", 0, [3]uint32{1, 1, 1}, []uint32{1, 2}, 3, `export 0 ("simple_mul"): expects 1 constant(s) but 2 were provided`},
		{"bindings", 0, [3]uint32{1, 1, 1}, []uint32{1}, 2, `expects 3 binding(s) but 2 were provided`},
		{"z", 2, [3]uint32{1, 1, 1 << 17}, nil, 1, "workgroup count z 131072 exceeds 65535"},
	}
	for _, tt := range tests {
		_, err := exe.PrepareDispatch(tt.ordinal, tt.wg, tt.constants, make([][]byte, tt.bindings), 1)
		if err == nil || !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%s: error = %v, want %q", tt.name, err, tt.err)
		}
	}
}

func TestGridOrderAndLocalMemory(t *testing.T) {
	exe := loadMul(t)
	wg := [3]uint32{5, 3, 2}
	out := make([]byte, 4*30)
	d, err := exe.PrepareDispatch(kerneltest.GridIDs, wg, nil, [][]byte{out}, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	if err := d.Run(0, nil, 0, 30); err == nil || !strings.Contains(err.Error(), "needs 4096 bytes of local memory") {
		t.Errorf("missing local memory: %v", err)
	}
	lm := make([]byte, d.LocalMemoryBytes())
	// Two ranges on two processors cover the grid.
	if err := d.Run(1, lm, 0, 13); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(0, lm, 13, 30); err != nil {
		t.Fatal(err)
	}
	for z := uint32(0); z < 2; z++ {
		for y := uint32(0); y < 3; y++ {
			for x := uint32(0); x < 5; x++ {
				flat := (z*3+y)*5 + x
				if got, want := binary.LittleEndian.Uint32(out[4*flat:]), x|y<<10|z<<20; got != want {
					t.Errorf("workgroup (%d,%d,%d) wrote %#x, want %#x", x, y, z, got, want)
				}
			}
		}
	}
	if err := d.Run(2, lm, 0, 1); err == nil || !strings.Contains(err.Error(), "status 9") {
		t.Errorf("processor id >= max concurrency not seen by the kernel: %v", err)
	}
}

func TestLoadRejects(t *testing.T) {
	mul := kerneltest.MulLibrary(t)
	tests := []struct {
		name   string
		params hal.ExecutableParams
		err    string
	}{
		{"old ABI version", hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: kerneltest.BuildKernel(t, "old_version.c")},
			"executable does not support this version of the runtime"},
		{"arm64 on x86 host", hal.ExecutableParams{Format: local.FormatEmbeddedELFARM64, Data: mul},
			`executable format "embedded-elf-arm_64" is recognised but cannot run on this linux/amd64 host`},
		{"unknown format", hal.ExecutableParams{Format: "spirv-fb", Data: mul},
			`executable format "spirv-fb" is not supported by the local devices`},
		{"an ELF as vmvx", hal.ExecutableParams{Format: local.FormatVMVX, Data: mul},
			`vmvx executable`},
		{"vmvx constants", hal.ExecutableParams{Format: local.FormatVMVX, Data: mul, Constants: []uint32{1}},
			"vmvx executables take no executable-level constants"},
		{"constants", hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: mul, Constants: []uint32{1}},
			"executable expects 0 constant(s) but 1 were provided"},
		{"layout count", hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: mul, Layouts: []hal.PipelineLayout{{ConstantCount: 1, BindingCount: 3}}},
			"executable has 3 export(s) but 1 pipeline layout(s) were given"},
		{"layout mismatch", hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: mul, Layouts: []hal.PipelineLayout{{ConstantCount: 1, BindingCount: 3}, {ConstantCount: 1, BindingCount: 2}, {ConstantCount: 0, BindingCount: 1}}},
			`export 1 ("fail_at") declares 1 binding(s) but its layout has 2`},
		{"not an ELF", hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: []byte("PTX text")},
			"too small for an ELF header"},
		{"no query symbol", hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: kerneltest.RelocsLibrary(t)},
			"ELF does not export iree_hal_executable_library_query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			exe, err := local.Load(tt.params)
			if err == nil {
				exe.Release()
				t.Fatalf("Load succeeded, want %q", tt.err)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error = %v\nwant containing %q", err, tt.err)
			}
		})
	}
}

func TestReleaseTwice(t *testing.T) {
	exe, err := local.Load(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: kerneltest.MulLibrary(t)})
	if err != nil {
		t.Fatal(err)
	}
	d, err := exe.PrepareDispatch(kerneltest.GridIDs, [3]uint32{1, 1, 1}, nil, [][]byte{make([]byte, 4)}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := exe.Release(); err != nil {
		t.Fatal(err)
	}
	if err := d.Run(0, make([]byte, 4096), 0, 1); err == nil || !strings.Contains(err.Error(), "released executable") {
		t.Errorf("run after release: %v", err)
	}
	if err := exe.Release(); err == nil {
		t.Error("second Release succeeded")
	}
}

func TestProcessorFeatures(t *testing.T) {
	f := local.ProcessorFeatures()
	// Every x86-64 CPU this runs on has SSE3 (x86-64-v2 and up).
	if f&1 == 0 {
		t.Errorf("processor features %#x lack SSE3", f)
	}
	// The bits sit where IREE's cpu_feature_bits.inl puts them; the
	// kernel's view of the CPU (/proc/cpuinfo) is the reference.
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil || runtime.GOARCH != "amd64" {
		t.Skipf("skipping the bit-position check: no /proc/cpuinfo on this amd64 host (%v)", err)
	}
	var flags map[string]bool
	for _, line := range strings.Split(string(cpuinfo), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "flags" {
			flags = map[string]bool{}
			for _, fl := range strings.Fields(value) {
				flags[fl] = true
			}
			break
		}
	}
	if flags == nil {
		t.Skip("skipping the bit-position check: /proc/cpuinfo lists no flags")
	}
	for _, b := range []struct {
		flag string
		bit  uint
	}{
		{"pni", 0}, {"ssse3", 1}, {"sse4_1", 2}, {"sse4_2", 3},
		{"avx", 10}, {"fma", 11}, {"f16c", 14}, {"avx2", 15},
		{"avx512f", 20}, {"avx512cd", 21}, {"avx512vl", 22}, {"avx512dq", 23}, {"avx512bw", 24}, {"avx512_vnni", 28},
	} {
		if got := f>>b.bit&1 == 1; got != flags[b.flag] {
			t.Errorf("bit %d (%s) is %v, /proc/cpuinfo says %v (features %#x)", b.bit, b.flag, got, flags[b.flag], f)
		}
	}
}

func TestLoadRejectsBadLibraries(t *testing.T) {
	tests := []struct {
		bad int
		err string
	}{
		{1, "export 0 entry point 0x"},
		{2, "built with sanitizer 1"},
		{3, `bad_library imports "missing_import", but no executable plugin is loaded to provide it`},
		{4, "export count 0 is not in [1, 65536]"},
		{5, "executable expects 2 constant(s) but 0 were provided"},
		{6, "executable does not support this version of the runtime (library version 0x474f0002"},
		{7, "export 0 has unsupported flags 0x1"},
		{8, "import table lists 1 import(s) but no symbol names"},
		{9, `import "twice" is listed twice`},
		{10, "import 1 has an empty name"},
		{11, "executable's query function crashed: SIGSEGV (address not mapped, address 0xc)"},
	}
	src := kerneltest.Source(t, "bad_library.c")
	for _, tt := range tests {
		t.Run(tt.err, func(t *testing.T) {
			flags := append(append([]string{}, kerneltest.CompileFlags...), "-DBAD="+strconv.Itoa(tt.bad))
			so := kerneltest.BuildWithFlags(t, flags, map[string]string{"bad_library.c": src})
			exe, err := local.Load(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: so})
			if err == nil {
				exe.Release()
				t.Fatalf("Load succeeded, want %q", tt.err)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error = %v\nwant containing %q", err, tt.err)
			}
		})
	}
}
