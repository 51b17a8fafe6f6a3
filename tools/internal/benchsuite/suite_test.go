package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/hal"
)

func TestMedian(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{[]time.Duration{3 * ms}, 3 * ms},
		{[]time.Duration{5 * ms, 1 * ms, 3 * ms}, 3 * ms},
		{[]time.Duration{4 * ms, 1 * ms, 2 * ms, 10 * ms}, 3 * ms},
	} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestBandwidthRow(t *testing.T) {
	tests := []struct {
		ours, ref time.Duration
		min       float64
		ratio     float64
		met       bool
	}{
		{10 * time.Millisecond, 9 * time.Millisecond, 0.9, 0.9, true},
		{10 * time.Millisecond, 8 * time.Millisecond, 0.9, 0.8, false},
		{5 * time.Millisecond, 10 * time.Millisecond, 0.95, 2, true},
	}
	for _, tc := range tests {
		r := bandwidthRow("x", 1e9, tc.ours, tc.ref, "C", tc.min)
		if math.Abs(r.ratio-tc.ratio) > 1e-9 || r.met != tc.met {
			t.Errorf("bandwidthRow(%v, %v, %v) = ratio %v met %v, want %v %v", tc.ours, tc.ref, tc.min, r.ratio, r.met, tc.ratio, tc.met)
		}
	}
	r := bandwidthRow("x", 12e6, time.Millisecond, time.Millisecond, "C, 1 thread", 0.95)
	if r.ours != "12.00 GB/s (1 ms)" || r.ref != "12.00 GB/s (1 ms, C, 1 thread)" {
		t.Errorf("cells %q %q", r.ours, r.ref)
	}
}

func TestToolTime(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		log  string
		want time.Duration
		bad  bool
	}{
		{"1.0 1.5\n", 500 * time.Millisecond, false},
		{"1.0 2.0\n1.5 2.5\n3.0 3.25\n", 1750 * time.Millisecond, false}, // overlap counted once
		{"1.0 3.0\n1.5 2.0\n", 2 * time.Second, false},                   // nested
		{"1.0\n", 0, true},
		{"2.0 1.0\n", 0, true},
		{"a b\n", 0, true},
	}
	for i, tc := range tests {
		p := filepath.Join(dir, "log")
		if err := os.WriteFile(p, []byte(tc.log), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := toolTime(p)
		if (err != nil) != tc.bad || (!tc.bad && (got-tc.want).Abs() > time.Microsecond) {
			t.Errorf("case %d: toolTime = %v, %v; want %v (bad %v)", i, got, err, tc.want, tc.bad)
		}
	}
	if _, err := toolTime(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing log: no error")
	}
}

func TestPrintTable(t *testing.T) {
	var b bytes.Buffer
	printTable(&b, []row{
		{name: "a", ours: "1 ms", ref: "2 ms", ratio: 0.5, target: "ratio ≥ 0.9", met: false, note: "why"},
		{name: "longer-name", ours: "x", ref: "-", ratio: nan(), target: "t", met: true},
	})
	want := "figure       ours  reference  ratio  target       met\n" +
		"-----------------------------------------------------\n" +
		"a            1 ms  2 ms       0.500  ratio ≥ 0.9  no\n" +
		"longer-name  x     -          -      t            yes\n" +
		"a: why\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestWriteAll(t *testing.T) {
	b := make([]byte, 64)
	writeAll(b, 0x0101010101010101)
	if !bytes.Equal(b, bytes.Repeat([]byte{1}, 64)) {
		t.Errorf("writeAll: %v", b)
	}
}

func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"--repetitions=0"}, {"--large_n=10"}, {"--compiles=1"}, {"stray"}, {"--gpu_n=0"}, {"--dispatches=0"},
		{"--user_n="}, {"--user_n=16,x"}, {"--user_n=0"}, {"--user_n=2147483648"},
		{"--build_only"}, {"--prebuilt"}, {"--prebuilt", "--work_dir=" + t.TempDir()}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code == 0 || out.Len() != 0 {
			t.Errorf("%v: exit %d, stdout %q", args, code, out.String())
		}
	}
}

// TestSmallRun runs every row on small sizes and checks the table's shape
// (the figures themselves depend on the machine).
func TestSmallRun(t *testing.T) {
	for _, tool := range [][]string{{"clang-16", "clang"}, {"ld.lld-16", "ld.lld"}} {
		if _, err := findTool("", tool...); err != nil {
			t.Skipf("skipping: %v (the suite builds its kernel and harness with clang-16 and links with ld.lld-16)", err)
		}
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("skipping: bash not found (the compiler row times clang and lld through bash wrappers)")
	}
	var out, errb bytes.Buffer
	code := run([]string{"--repetitions=1", "--large_n=4096", "--small_calls=10", "--compiles=2",
		"--sample=testdata/simple_mul.mlir", "--work_dir=" + t.TempDir(), "--gpu_n=10000", "--user_n=10000,4096", "--dispatches=10", "--vulkan_cpu", "--matmul_n=67", "--softmax_n=130",
		"--gpu_matmul_n=33", "--gpu_softmax_n=65"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	lines := strings.Split(out.String(), "\n")
	var names []string
	for _, l := range lines[2:] {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasSuffix(f[0], ":") {
			names = append(names, f[0])
		}
	}
	want := []string{"cpu-large/local-sync", "cpu-large/local-task", "buffers", "cpu-small/local-sync", "cpu-small/local-task",
		"cpu-linalg/matmul-67", "cpu-linalg/softmax-130", "cuda/dispatch", "cuda/hand-tuned-float4-10000", "cuda/hand-tuned-float4-10000-torch", "vulkan/hand-tuned-vec4-10000",
		"cuda/user-10000", "cuda/user-10000-torch", "cuda/user-10000-achievable", "cuda/user-4K", "cuda/user-4K-torch", "cuda/user-4K-achievable",
		"vulkan/user-10000", "vulkan/user-10000-achievable", "vulkan/user-4K", "vulkan/user-4K-achievable",
		"cuda/codegen-matmul-33", "cuda/codegen-matmul-f16-33", "cuda/codegen-softmax-65", "cuda/codegen-dense-33",
		"vulkan/codegen-matmul-33", "vulkan/codegen-matmul-f16-33", "vulkan/codegen-matmul-f16-nv2-33", "vulkan/codegen-softmax-65", "vulkan/codegen-dense-33",
		"compiler/wall", "compiler/deterministic"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v\n%s", names, want, out.String())
	}
	// GPU rows are measured or skipped with a reason, never failed (the
	// Vulkan row runs on lavapipe where it is installed).
	for _, l := range lines[2:] {
		if f := strings.Fields(l); len(f) > 1 && f[1] == "failed" {
			t.Errorf("failed row: %s\n%s", l, out.String())
		}
	}
	if !strings.Contains(out.String(), "2 outputs identical") {
		t.Errorf("compiler output not deterministic:\n%s", out.String())
	}
}

// TestPrebuilt builds into a work directory and runs from it without
// building: the small rows run, and without clang the compiler rows are
// skipped with a reason.
func TestPrebuilt(t *testing.T) {
	for _, tool := range [][]string{{"clang-16", "clang"}, {"ld.lld-16", "ld.lld"}} {
		if _, err := findTool("", tool...); err != nil {
			t.Skipf("skipping: %v (the suite builds its kernel and harness with clang-16 and links with ld.lld-16)", err)
		}
	}
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if code := run([]string{"--build_only", "--work_dir=" + dir}, &out, &errb); code != 0 || out.Len() != 0 {
		t.Fatalf("--build_only: exit %d, stdout %q, stderr %s", code, out.String(), errb.String())
	}
	for _, f := range []string{cpuObjectFile, harnessFile, cpuModuleFile, ptxFile, cudaModuleFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--build_only did not write %s: %v", f, err)
		}
	}
	out.Reset()
	errb.Reset()
	code := run([]string{"--prebuilt", "--work_dir=" + dir, "--only=c", "--clang=/nonexistent/clang", "--repetitions=1", "--large_n=4096", "--small_calls=10",
		"--gpu_n=4096", "--dispatches=10"}, &out, &errb)
	if code != 0 {
		t.Fatalf("--prebuilt: exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"cpu-small/local-sync ", "cpu-large/local-task ", "compiler/wall: no clang-16/clang", "cuda/dispatch "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--prebuilt table lacks %q:\n%s", want, out.String())
		}
	}
}

func TestPrintSkipped(t *testing.T) {
	var b bytes.Buffer
	r := skipped("gpu/x", "ratio ≥ 1", "no device")
	r2 := skipped("gpu/y", "t", "no ref")
	r2.note = "measured"
	printTable(&b, []row{r, r2})
	want := "figure  ours     reference  ratio  target     met\n" +
		"-------------------------------------------------\n" +
		"gpu/x   skipped  -          -      ratio ≥ 1  -\n" +
		"gpu/y   skipped  -          -      t          -\n" +
		"gpu/x: no device\n" +
		"gpu/y: no ref; measured\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestParseTorch(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"torch mul_s=0.000750000 copy_s=0.000700000 mul_dev_s=0.000740000 device=NVIDIA H200", true},
		{"torch mul_s=0.1 copy_s=0.1 device=X", false},                       // a figure missing
		{"torch mul_s=0.1 copy_s=0.1 mul_dev_s=0.1", false},                  // no device
		{"torch mul_s=x copy_s=0.1 mul_dev_s=0.1 device=X", false},           // not a number
		{"torch mul_s=0.1 copy_s=0.1 mul_dev_s=0.1 bogus=1 device=X", false}, // unknown key
		{"Traceback (most recent call last):", false},                        // not the line
		{"torch mul_s=-1 copy_s=0.1 mul_dev_s=0.1 device=X", false},          // negative
	} {
		tr, err := parseTorch("2.0", tc.line)
		if (err == nil) != tc.ok {
			t.Errorf("parseTorch(%q): %v, want ok %v", tc.line, err, tc.ok)
			continue
		}
		if tc.ok && (tr.mul != 750*time.Microsecond || tr.copy != 700*time.Microsecond || tr.mulDev != 740*time.Microsecond || tr.device != "NVIDIA H200") {
			t.Errorf("parseTorch(%q) = %+v", tc.line, tr)
		}
	}
}

func TestParseTorchCodegen(t *testing.T) {
	good := "/usr/lib/python3/torch/warning: something\nfigure=matmul wall_s=0.002800000 dev_s=0.002700000\nfigure=softmax wall_s=0.000300000 dev_s=0.000280000\ndevice=NVIDIA H200\n"
	figs, dev, err := parseTorchCodegen(good)
	if err != nil || dev != "NVIDIA H200" || len(figs) != 2 || figs["matmul"] != (torchFigure{2800 * time.Microsecond, 2700 * time.Microsecond}) || figs["softmax"].dev != 280*time.Microsecond {
		t.Errorf("parseTorchCodegen(good) = %v, %q, %v", figs, dev, err)
	}
	for _, bad := range []string{
		"figure=matmul wall_s=0.1 dev_s=0.1\n",            // no device
		"device=X\n",                                      // no figures
		"figure=matmul wall_s=x dev_s=0.1\ndevice=X\n",    // not a number
		"figure=matmul wall_s=0.1 bogus=0.1\ndevice=X\n",  // unknown key
		"figure=matmul wall_s=-0.1 dev_s=0.1\ndevice=X\n", // negative
	} {
		if _, _, err := parseTorchCodegen(bad); err == nil {
			t.Errorf("parseTorchCodegen(%q) succeeded", bad)
		}
	}
}

func TestCheckProduct(t *testing.T) {
	for _, n := range []int{1, 1000, 1 << 20, 3<<20 + 5} {
		z := make([]float32, n)
		for i := range z {
			z[i] = 8
		}
		if i, ok := checkProduct(z, 8, 0); !ok {
			t.Errorf("n=%d: good result rejected at %d", n, i)
		}
		// Long results are checked at the edges and at every 4099th
		// element after the first 64K.
		for _, bad := range []int{0, n - 1, min(n-1, 1<<16+100*4099)} {
			z[bad] = 0
			if i, ok := checkProduct(z, 8, 0); ok || i != bad {
				t.Errorf("n=%d: wrong element %d reported as %d, %v", n, bad, i, ok)
			}
			z[bad] = 8
		}
	}
}

func TestSizeName(t *testing.T) {
	for n, want := range map[int]string{256 << 20: "256M", 4096: "4K", 10000: "10000", 1 << 20: "1M"} {
		if got := sizeName(n); got != want {
			t.Errorf("sizeName(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseTorchUser(t *testing.T) {
	good := "loading...\ntorch_user n=16777216 wall_s=0.000400000 dev_s=0.000390000 kernels=5 device=NVIDIA H200\n" +
		"torch_user n=4096 wall_s=0.000020000 dev_s=0.000010000 kernels=0 device=NVIDIA H200\n"
	res, err := parseTorchUser("2.0", good)
	if err != nil {
		t.Fatal(err)
	}
	if r := res[16777216]; r.wall != 400*time.Microsecond || r.dev != 390*time.Microsecond || r.kernels != 5 || r.device != "NVIDIA H200" || r.version != "2.0" {
		t.Errorf("16M: %+v", r)
	}
	if r := res[4096]; r.wall != 20*time.Microsecond || r.kernels != 0 {
		t.Errorf("4096: %+v", r)
	}
	for _, bad := range []string{
		"",                                   // no line
		"Traceback (most recent call last):", // not the line
		"torch_user n=16 wall_s=0.1 dev_s=0.1 kernels=5",                  // no device
		"torch_user n=16 wall_s=0.1 kernels=5 device=X",                   // a figure missing
		"torch_user n=16 wall_s=x dev_s=0.1 kernels=5 device=X",           // not a number
		"torch_user n=0 wall_s=0.1 dev_s=0.1 kernels=5 device=X",          // no size
		"torch_user n=16 wall_s=-1 dev_s=0.1 kernels=5 device=X",          // negative
		"torch_user n=16 wall_s=0.1 dev_s=0.1 kernels=5 bogus=1 device=X", // unknown key
	} {
		if _, err := parseTorchUser("2.0", bad); err == nil {
			t.Errorf("parseTorchUser(%q) accepted", bad)
		}
	}
}

func TestParseSizes(t *testing.T) {
	got, err := parseSizes("16777216, 268435456")
	if err != nil || len(got) != 2 || got[0] != 16<<20 || got[1] != 256<<20 {
		t.Errorf("parseSizes: %v, %v", got, err)
	}
	for _, bad := range []string{"", "16,", "x", "-1", "0", "2147483648"} {
		if _, err := parseSizes(bad); err == nil {
			t.Errorf("parseSizes(%q) accepted", bad)
		}
	}
}

// TestDispatchBytes counts the bindings of dispatches only, each once.
func TestDispatchBytes(t *testing.T) {
	cmds := []hal.Command{
		&hal.DispatchCommand{Bindings: []hal.BindingRange{{Length: 40}, {Length: 40}, {Length: 40}}},
		&hal.BarrierCommand{},
		&hal.CopyCommand{Length: 1000},
		&hal.DispatchCommand{Bindings: []hal.BindingRange{{Length: 40}, {Length: 8}}},
	}
	if b, d := dispatchBytes(cmds); b != 168 || d != 2 {
		t.Errorf("dispatchBytes = %d bytes, %d dispatches; want 168, 2", b, d)
	}
}

// TestBoundRow: the ratio is the bound time over ours.
func TestBoundRow(t *testing.T) {
	m := userMeasure{bytes: 4e9, times: callTimes{wall: 2 * time.Millisecond}}
	r := boundRow("cuda/user-x", "t", 0.8, m, 4e12, "copy") // bound 1 ms
	if math.Abs(r.ratio-0.5) > 1e-9 || r.met {
		t.Errorf("ratio %v met %v, want 0.5 and not met", r.ratio, r.met)
	}
	m.times.wall = 1100 * time.Microsecond
	if r := boundRow("cuda/user-x", "t", 0.8, m, 4e12, "copy"); !r.met {
		t.Errorf("ratio %v not met", r.ratio)
	}
}

// namedExe is an executable with named exports, for splitUser.
type namedExe []string

func (e namedExe) Format() string { return "test" }
func (e namedExe) Exports() []hal.ExportInfo {
	var out []hal.ExportInfo
	for _, n := range e {
		out = append(out, hal.ExportInfo{Name: n, ConstantCount: -1, BindingCount: -1})
	}
	return out
}
func (e namedExe) Release() error { return nil }

// TestSplitUser: the user's export is found by name and the other
// dispatches' bytes are the generated bytes; a missing or repeated user
// dispatch is an error.
func TestSplitUser(t *testing.T) {
	user := namedExe{"scaled_mul"}
	gen := namedExe{"gen_0", "gen_1"}
	three := []hal.BindingRange{{Length: 40}, {Length: 40}, {Length: 40}}
	u := &hal.DispatchCommand{Executable: user, Bindings: three}
	cmds := []hal.Command{u, &hal.BarrierCommand{},
		&hal.DispatchCommand{Executable: gen, Ordinal: 1, Bindings: three}, &hal.CopyCommand{Length: 1000},
		&hal.DispatchCommand{Executable: gen, Bindings: three[:2]}}
	sp, err := splitUser(cmds, "scaled_mul")
	if err != nil || sp.user != u || sp.userBytes != 120 || sp.genBytes != 200 {
		t.Errorf("splitUser = %+v, %v; want the first dispatch, 120 user bytes, 200 generated", sp, err)
	}
	for _, tc := range []struct {
		cmds []hal.Command
		want string
	}{
		{cmds[2:], "dispatched no"},
		{append([]hal.Command{u}, cmds...), "twice"},
	} {
		if _, err := splitUser(tc.cmds, "scaled_mul"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("splitUser: %v, want an error with %q", err, tc.want)
		}
	}
}

// TestAchievableRow: the achievable bound is the user's kernel alone plus
// the generated bytes at the copy bandwidth, and the ratio is that bound
// over ours; without the kernel's time the row is skipped with the reason.
func TestAchievableRow(t *testing.T) {
	m := userMeasure{bytes: 8e9, times: callTimes{wall: 4 * time.Millisecond},
		split: userSplit{userBytes: 4e9, genBytes: 4e9}, alone: 2 * time.Millisecond}
	r := achievableRow("cuda/user-x-achievable", "t", 0.8, m, 4e12, "raw") // bound 2 ms + 1 ms
	if math.Abs(r.ratio-0.75) > 1e-9 || r.met || r.skip != "" {
		t.Errorf("ratio %v met %v skip %q, want 0.75, not met", r.ratio, r.met, r.skip)
	}
	// The user's 4e9 bytes need 1 ms at 4 TB/s; alone it takes 2 ms, so
	// at best 2 ms / 3 ms of the copy bound.
	if !strings.Contains(r.note, "2.00×") || !strings.Contains(r.note, "at best 0.667") {
		t.Errorf("note %q", r.note)
	}
	m.times.wall = 3 * time.Millisecond
	if r := achievableRow("x", "t", 0.8, m, 4e12, "raw"); !r.met {
		t.Errorf("ratio %v not met", r.ratio)
	}
	m.aloneErr = fmt.Errorf("no timing")
	if r := achievableRow("x", "t", 0.8, m, 4e12, "raw"); r.skip == "" || !strings.Contains(r.skip, "no timing") {
		t.Errorf("without the kernel's time: %+v", r)
	}
}
