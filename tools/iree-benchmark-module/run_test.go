package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/tools/internal/demomodule"
)

var update = flag.Bool("update", false, "rewrite testdata/simple_mul.so (the demonstration kernel) from a fresh build with clang-16 and ld.lld-16")

func runTool(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// demoModule writes the demonstration module (simple_mul over two f32
// views) around the committed kernel testdata/simple_mul.so; -update
// rebuilds the kernel first.
func demoModule(t *testing.T) string {
	t.Helper()
	if *update {
		clang, lld, err := demomodule.FindTools()
		if err != nil {
			t.Fatalf("-update: %v", err)
		}
		elf, err := demomodule.BuildKernel(clang, lld, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join("testdata", "simple_mul.so"), elf, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	elf, err := os.ReadFile(filepath.Join("testdata", "simple_mul.so"))
	if err != nil {
		t.Fatal(err)
	}
	vmfb, err := demomodule.Build(elf)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "demo.vmfb")
	if err := os.WriteFile(path, vmfb, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestHelp(t *testing.T) {
	code, stdout, _ := runTool(t, "", "--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	for _, flag := range []string{"--module", "--module_file", "--function", "--entry_function", "--input", "--function_input",
		"--device", "--list_drivers", "--list_devices", "--print_statistics", "--task_topology_group_count",
		"--batch_size", "--time_unit", "--benchmark_format", "--benchmark_repetitions", "--benchmark_min_time",
		"--benchmark_report_aggregates_only", "--benchmark_filter", "--executable_plugin", "--v"} {
		if !strings.Contains(stdout, "\n  "+flag+"=") && !strings.Contains(stdout, "\n  "+flag+"\n") && !strings.Contains(stdout, "\n  "+flag+"[=") {
			t.Errorf("--help does not list %s", flag)
		}
	}
}

func TestBadCommandLines(t *testing.T) {
	demo := demoModule(t)
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"positional", "", []string{"module.vmfb"}, "unexpected positional argument"},
		{"unknown flag", "", []string{"--no_such_flag"}, "flag provided but not defined: -no_such_flag"},
		{"batch size", "", []string{"--batch_size=0"}, "--batch_size=0 must be at least 1"},
		{"repetitions", "", []string{"--benchmark_repetitions=0"}, "--benchmark_repetitions=0 must be at least 1"},
		{"time unit", "", []string{"--time_unit=fortnight"}, `--time_unit="fortnight": want s, ms, us or ns`},
		{"format", "", []string{"--benchmark_format=xml"}, `--benchmark_format="xml": want console, json or csv`},
		{"out format", "", []string{"--benchmark_out_format=xml"}, `--benchmark_out_format="xml": want json, console or csv`},
		{"out directory", "", []string{"--benchmark_out=/nonexistent/dir/r.json"}, "--benchmark_out=/nonexistent/dir/r.json: directory /nonexistent/dir does not exist"},
		{"filter regex", "", []string{"--benchmark_filter=BM_(simple"}, `--benchmark_filter="BM_(simple": error parsing regexp: missing closing )`},
		{"negative filter matches nothing", "", []string{"--module=" + demo, "--function=simple_mul", "--input=4xf32=1", "--input=4xf32=1", "--benchmark_filter=-simple"}, "matches no benchmark"},
		{"min time", "", []string{"--benchmark_min_time=soon"}, `--benchmark_min_time="soon"`},
		{"min time negative", "", []string{"--benchmark_min_time=-1"}, `--benchmark_min_time="-1"`},
		{"min iterations", "", []string{"--benchmark_min_time=0x"}, "an iteration count must be an integer"},
		{"group count", "", []string{"--task_topology_group_count=-1"}, "must not be negative"},
		{"underflow", "", []string{"--function=f", "--input=8xf32=1 2"}, "input data string underflow"},
		{"missing module", "", []string{"--function=f", "--module=/nonexistent/m.vmfb"}, "reading module"},
		{"empty stdin", "", []string{"--function=f"}, "no data"},
		{"garbage module", "not a module", []string{"--function=f", "--module=-"}, "loading module <stdin>"},
		{"stdin twice", "x", []string{"--module=-", "--module=-"}, "stdin can be read only once"},
		{"bad second device", "", []string{"--module=" + demo, "--device=local-sync", "--device=nope"}, `unknown driver "nope"`},
		{"bad device", "", []string{"--module=" + demo, "--device=no-such-driver"}, "no-such-driver"},
		{"unknown function", "", []string{"--module=" + demo, "--function=nope"}, `function "nope" not found`},
		{"no argless export", "", []string{"--module=" + demo}, "exports no function without arguments"},
		{"inputs for the only export without --function, wrong arity", "", []string{"--module=" + demo, "--input=4xf32=1"}, "calling simple_mul: the function takes 2 argument(s)"},
		{"wrong arity", "", []string{"--module=" + demo, "--function=simple_mul", "--input=4xf32=1"}, "calling simple_mul"},
		{"filter", "", []string{"--module=" + demo, "--function=simple_mul", "--input=4xf32=1", "--input=4xf32=1", "--benchmark_filter=zzz"}, "matches no benchmark"},
		{"call fails", "", []string{"--module=" + demo, "--function=simple_mul", "--input=4xf32=1", "--input=5xf32=1", "--benchmark_min_time=1x"}, "benchmarking BM_simple_mul/process_time/real_time"},
	}
	for _, tc := range tests {
		code, stdout, stderr := runTool(t, tc.stdin, tc.args...)
		if code != 1 {
			t.Errorf("%s: exit code %d, want 1", tc.name, code)
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q, want it to contain %q", tc.name, stderr, tc.want)
		}
		if strings.Count(strings.TrimRight(stderr, "\n"), "\n") != 0 {
			t.Errorf("%s: error is not one line: %q", tc.name, stderr)
		}
		if tc.name != "call fails" && stdout != "" {
			t.Errorf("%s: stdout %q, want nothing", tc.name, stdout)
		}
	}
}

func TestListDrivers(t *testing.T) {
	code, stdout, _ := runTool(t, "", "--list_drivers")
	if code != 0 || !strings.Contains(stdout, "local-sync\n") || !strings.Contains(stdout, "local-task\n") {
		t.Errorf("--list_drivers: exit %d, output %q", code, stdout)
	}
	if code, stdout, stderr := runTool(t, "", "--list_devices"); code != 0 || !strings.Contains(stdout, "local-sync://0") {
		t.Errorf("--list_devices: exit %d, %q %s", code, stdout, stderr)
	}
}

var rowRE = regexp.MustCompile(`^(BM_\S+) +([0-9.]+) (s|ms|us|ns) +([0-9.]+) (s|ms|us|ns) +([0-9]+)( items_per_second=[0-9.]+[kMG]?/s)?$`)

func TestConsoleTable(t *testing.T) {
	demo := demoModule(t)
	tests := []struct {
		name  string
		args  []string
		unit  string
		rows  []string // benchmark names in order
		iters []string // Iterations column
	}{
		// Milliseconds unless --time_unit says otherwise, as in IREE.
		{"one run", []string{"--device=local-sync", "--benchmark_min_time=7x"}, "ms",
			[]string{"BM_simple_mul/process_time/real_time"}, []string{"7"}},
		{"repetitions", []string{"--device=local-task", "--benchmark_min_time=5x", "--benchmark_repetitions=3", "--time_unit=us"}, "us",
			[]string{"BM_simple_mul/process_time/real_time", "BM_simple_mul/process_time/real_time", "BM_simple_mul/process_time/real_time",
				"BM_simple_mul/process_time/real_time_mean", "BM_simple_mul/process_time/real_time_median", "BM_simple_mul/process_time/real_time_stddev"},
			[]string{"5", "5", "5", "3", "3", "3"}},
		{"aggregates only", []string{"--benchmark_min_time=2x", "--benchmark_repetitions=2", "--benchmark_report_aggregates_only", "--time_unit=ns"}, "ns",
			[]string{"BM_simple_mul/process_time/real_time_mean", "BM_simple_mul/process_time/real_time_median", "BM_simple_mul/process_time/real_time_stddev"},
			[]string{"2", "2", "2"}},
		{"min time", []string{"--device=local-sync", "--benchmark_min_time=0.02s", "--batch_size=4", "--time_unit=s"}, "s",
			[]string{"BM_simple_mul/process_time/real_time"}, nil},
	}
	for _, tc := range tests {
		args := append([]string{"--module=" + demo, "--function=simple_mul", "--input=100xf32=2", "--input=100xf32=4"}, tc.args...)
		code, stdout, stderr := runTool(t, "", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.name, code, stderr)
		}
		lines := strings.Split(strings.TrimRight(stdout, "\n"), "\n")
		if len(lines) != 4+len(tc.rows) {
			t.Fatalf("%s: %d lines, want %d:\n%s", tc.name, len(lines), 4+len(tc.rows), stdout)
		}
		if !strings.HasPrefix(lines[0], "Running on device local-") || strings.Trim(lines[1], "-") != "" || lines[1] != lines[3] {
			t.Errorf("%s: header lines:\n%s", tc.name, strings.Join(lines[:4], "\n"))
		}
		if f := strings.Fields(lines[2]); strings.Join(f, " ") != "Benchmark Time CPU Iterations" || len(lines[2]) != len(lines[1]) {
			t.Errorf("%s: column header %q", tc.name, lines[2])
		}
		for i, want := range tc.rows {
			line := lines[4+i]
			m := rowRE.FindStringSubmatch(line)
			if m == nil {
				t.Errorf("%s: row %q does not look like a benchmark row", tc.name, line)
				continue
			}
			if m[1] != want || m[3] != tc.unit || m[5] != tc.unit {
				t.Errorf("%s: row %q: want name %s, unit %s", tc.name, line, want, tc.unit)
			}
			if tc.iters != nil && m[6] != tc.iters[i] {
				t.Errorf("%s: row %q: iterations %s, want %s", tc.name, line, m[6], tc.iters[i])
			}
			if aggregate := strings.HasSuffix(want, "_mean") || strings.HasSuffix(want, "_median") || strings.HasSuffix(want, "_stddev"); aggregate == (m[7] != "") {
				t.Errorf("%s: row %q: items_per_second only on iteration rows", tc.name, line)
			}
		}
	}
}

func TestJSON(t *testing.T) {
	demo := demoModule(t)
	code, stdout, stderr := runTool(t, "", "--module="+demo, "--function=simple_mul", "--input=64xf32=2", "--input=64xf32=4",
		"--device=local-sync", "--benchmark_format=json", "--benchmark_min_time=4x", "--benchmark_repetitions=2", "--batch_size=3", "--time_unit=us")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Context    map[string]any `json:"context"`
		Benchmarks []struct {
			Name            string   `json:"name"`
			RunName         string   `json:"run_name"`
			RunType         string   `json:"run_type"`
			Repetitions     int      `json:"repetitions"`
			RepetitionIndex *int     `json:"repetition_index"`
			AggregateName   string   `json:"aggregate_name"`
			Iterations      int64    `json:"iterations"`
			RealTime        float64  `json:"real_time"`
			CPUTime         float64  `json:"cpu_time"`
			TimeUnit        string   `json:"time_unit"`
			ItemsPerSecond  *float64 `json:"items_per_second"`
		} `json:"benchmarks"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if doc.Context["device"] != "local-sync" || doc.Context["batch_size"] != 3.0 {
		t.Errorf("context %v", doc.Context)
	}
	wantTypes := []string{"iteration", "iteration", "aggregate", "aggregate", "aggregate"}
	wantAgg := []string{"", "", "mean", "median", "stddev"}
	if len(doc.Benchmarks) != len(wantTypes) {
		t.Fatalf("%d benchmark entries, want %d:\n%s", len(doc.Benchmarks), len(wantTypes), stdout)
	}
	for i, b := range doc.Benchmarks {
		name := "BM_simple_mul/process_time/real_time"
		if wantAgg[i] != "" {
			name += "_" + wantAgg[i]
		}
		if b.Name != name || b.RunName != "BM_simple_mul/process_time/real_time" || b.RunType != wantTypes[i] || b.AggregateName != wantAgg[i] ||
			b.TimeUnit != "us" || b.Repetitions != 2 {
			t.Errorf("entry %d: %+v", i, b)
		}
		if b.RunType == "iteration" {
			if b.Iterations != 4 || b.RepetitionIndex == nil || *b.RepetitionIndex != i || b.RealTime <= 0 || b.ItemsPerSecond == nil {
				t.Errorf("entry %d: %+v", i, b)
			} else if want := 3 / (b.RealTime * 1e-6); math.Abs(*b.ItemsPerSecond-want) > 1e-6*want {
				t.Errorf("entry %d: items_per_second %v, want %v (3 calls per iteration)", i, *b.ItemsPerSecond, want)
			}
		} else if b.Iterations != 2 || b.ItemsPerSecond != nil {
			t.Errorf("entry %d: %+v", i, b)
		}
	}
}

func TestParseMinTime(t *testing.T) {
	tests := []struct {
		in    string
		d     time.Duration
		iters int64
		bad   bool
	}{
		{"0.5", 500 * time.Millisecond, 0, false},
		{"0.25s", 250 * time.Millisecond, 0, false},
		{"2", 2 * time.Second, 0, false},
		{"100x", 0, 100, false},
		{" 3x ", 0, 3, false},
		{"0", 0, 0, true},
		{"x", 0, 0, true},
		{"1.5x", 0, 0, true},
		{"NaN", 0, 0, true},
		{"1e9", 0, 0, true},
		{"", 0, 0, true},
	}
	for _, tc := range tests {
		d, iters, err := parseMinTime(tc.in)
		if (err != nil) != tc.bad || d != tc.d || iters != tc.iters {
			t.Errorf("parseMinTime(%q) = %v, %d, %v", tc.in, d, iters, err)
		}
	}
}

func TestAggregates(t *testing.T) {
	runs := []result{
		{iters: 10, real: 10 * time.Microsecond, cpu: 20 * time.Microsecond},
		{iters: 10, real: 30 * time.Microsecond, cpu: 20 * time.Microsecond},
		{iters: 10, real: 20 * time.Microsecond, cpu: 50 * time.Microsecond},
		{iters: 10, real: 40 * time.Microsecond, cpu: 30 * time.Microsecond},
	}
	got := aggregates(runs)
	want := []aggregate{
		{"mean", 2500, 3000},
		{"median", 2500, 2500},
		{"stddev", math.Sqrt(5e6 / 3), math.Sqrt(6e6 / 3)},
	}
	for i := range want {
		if got[i].name != want[i].name || math.Abs(got[i].real-want[i].real) > 1e-9 || math.Abs(got[i].cpu-want[i].cpu) > 1e-9 {
			t.Errorf("aggregate %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if s := stddev([]float64{5}); s != 0 {
		t.Errorf("stddev of one value = %v", s)
	}
}

// TestIterationGrowth checks that the iteration count grows until a run
// lasts --benchmark_min_time. Each iteration sleeps at least 0.3 ms, so
// whatever the sleeps overshoot by, growth (×10 while a run is under a
// tenth of the minimum, then 1.4 × minimum / measured) ends below
// 1.4 × 20 ms / 0.3 ms ≈ 93 iterations. (With 0.2 ms sleeps an exact
// sleep would aim at 140, so the bound below held only when the machine
// overslept.)
func TestIterationGrowth(t *testing.T) {
	calls := 0
	c := benchCase{name: "BM_sleep", body: func(n int) error {
		calls += n
		time.Sleep(300 * time.Microsecond)
		return nil
	}}
	r, err := iterationsFor(c, config{batchSize: 2, minTime: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.real < 20*time.Millisecond || r.iters < 2 || r.iters > 100 {
		t.Errorf("final run %+v: want ≥ 20ms and a grown count below 100 iterations of 0.3ms", r)
	}
	if calls%2 != 0 || int64(calls) < 2*r.iters {
		t.Errorf("%d calls for a final run of %d iterations of batch 2", calls, r.iters)
	}
}

func TestFormatting(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{{0.1234, "     0.123"}, {5.678, "      5.68"}, {56.78, "      56.8"}, {5678.9, "      5679"}} {
		if got := formatTime(tc.v); got != tc.want {
			t.Errorf("formatTime(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		v    float64
		want string
	}{{12, "12/s"}, {40800, "40.8k/s"}, {2.5e6, "2.5M/s"}, {3e9, "3G/s"}} {
		if got := humanRate(tc.v); got != tc.want {
			t.Errorf("humanRate(%v) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

func TestReleaseResults(t *testing.T) {
	demo := demoModule(t)
	hits := regexp.MustCompile(`POOL: (\d+) hits`)
	for _, tc := range []struct {
		flag  string
		reuse bool
	}{{"--release_results=true", true}, {"--release_results=false", false}} {
		code, _, stderr := runTool(t, "", "--module="+demo, "--function=simple_mul", "--input=4096xf32=2", "--input=4096xf32=4",
			"--device=local-sync", "--benchmark_min_time=6x", "--print_statistics", tc.flag)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.flag, code, stderr)
		}
		m := hits.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("%s: no pool statistics in %q", tc.flag, stderr)
		}
		if got := m[1] != "0"; got != tc.reuse {
			t.Errorf("%s: %s pool hits; want reuse %v", tc.flag, m[1], tc.reuse)
		}
	}
}
