package main

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	for _, args := range [][]string{{"--repetitions=0"}, {"--large_n=10"}, {"--compiles=1"}, {"stray"}} {
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
		"--sample=testdata/simple_mul.mlir", "--work_dir=" + t.TempDir()}, &out, &errb)
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
	want := []string{"cpu-large/local-sync", "cpu-large/local-task", "buffers", "cpu-small/local-sync", "cpu-small/local-task", "compiler/wall", "compiler/deterministic"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("rows %v, want %v\n%s", names, want, out.String())
	}
	if !strings.Contains(out.String(), "2 outputs identical") {
		t.Errorf("compiler output not deterministic:\n%s", out.String())
	}
}
