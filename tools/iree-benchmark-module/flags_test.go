package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFilter checks --benchmark_filter against Google Benchmark's meaning:
// a regular expression found anywhere in the name, '-' negating it, an
// empty filter and 'all' selecting everything.
func TestFilter(t *testing.T) {
	names := []string{"BM_main/process_time/real_time", "BM_predict/process_time/real_time", "BM_main_v2/process_time/real_time"}
	for _, tc := range []struct {
		filter string
		want   string // the names selected, joined by spaces (short forms)
	}{
		{"", "main predict main_v2"},
		{"all", "main predict main_v2"},
		{"main", "main main_v2"},
		{"^BM_main/", "main"},
		{"BM_(main|predict)/", "main predict"},
		{"-main", "predict"},
		{"-^BM_main/", "predict main_v2"},
		{"real_time$", "main predict main_v2"},
		{"process_time/cpu", ""},
		{"BM_.*_v[0-9]", "main_v2"},
	} {
		f, err := compileFilter(tc.filter)
		if err != nil {
			t.Fatalf("%q: %v", tc.filter, err)
		}
		var got []string
		for _, n := range names {
			if f.match(n) {
				got = append(got, strings.TrimPrefix(strings.Split(n, "/")[0], "BM_"))
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("--benchmark_filter=%q selects %q, want %q", tc.filter, strings.Join(got, " "), tc.want)
		}
	}
	if _, err := compileFilter("a[b"); err == nil {
		t.Error("a malformed regex was accepted")
	}
}

// TestBenchmarkOut runs a real benchmark with --benchmark_out in each
// format and --benchmark_format=csv on stdout, and reads the results back.
func TestBenchmarkOut(t *testing.T) {
	demo := demoModule(t)
	dir := t.TempDir()
	base := []string{"--module=" + demo, "--function=simple_mul", "--input=64xf32=2", "--input=64xf32=4", "--device=local-sync", "--benchmark_min_time=3x"}
	const name = "BM_simple_mul/process_time/real_time"

	// JSON (the default --benchmark_out_format) next to the console table.
	jsonPath := filepath.Join(dir, "r.json")
	code, stdout, stderr := runTool(t, "", append(base, "--benchmark_out="+jsonPath)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "Benchmark") || !strings.Contains(stdout, name) {
		t.Errorf("stdout is not the console table:\n%s", stdout)
	}
	var doc struct {
		Benchmarks []struct {
			Name       string  `json:"name"`
			Iterations int64   `json:"iterations"`
			TimeUnit   string  `json:"time_unit"`
			RealTime   float64 `json:"real_time"`
		} `json:"benchmarks"`
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", jsonPath, err)
	}
	if len(doc.Benchmarks) != 1 || doc.Benchmarks[0].Name != name || doc.Benchmarks[0].Iterations != 3 || doc.Benchmarks[0].TimeUnit != "ms" || doc.Benchmarks[0].RealTime <= 0 {
		t.Errorf("%s holds %+v", jsonPath, doc.Benchmarks)
	}

	// CSV to a file, with repetitions: the runs, then the aggregates.
	csvPath := filepath.Join(dir, "r.csv")
	code, _, stderr = runTool(t, "", append(base, "--benchmark_out="+csvPath, "--benchmark_out_format=csv", "--benchmark_repetitions=2", "--time_unit=us")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", csvPath, err)
	}
	if strings.Join(rows[0], ",") != csvHeader {
		t.Errorf("CSV header %q", rows[0])
	}
	wantNames := []string{name, name, name + "_mean", name + "_median", name + "_stddev"}
	wantIters := []string{"3", "3", "2", "2", "2"}
	if len(rows) != 1+len(wantNames) {
		t.Fatalf("%d CSV rows, want %d: %q", len(rows)-1, len(wantNames), rows)
	}
	for i, r := range rows[1:] {
		if len(r) != 10 || r[0] != wantNames[i] || r[1] != wantIters[i] || r[4] != "us" {
			t.Errorf("CSV row %d = %q, want name %s, %s iterations, unit us", i, r, wantNames[i], wantIters[i])
			continue
		}
		if _, err := strconv.ParseFloat(r[2], 64); err != nil {
			t.Errorf("CSV row %d real_time %q: %v", i, r[2], err)
		}
		if aggregate := i >= 2; aggregate != (r[6] == "") {
			t.Errorf("CSV row %d items_per_second %q", i, r[6])
		}
	}

	// The console table to a file, CSV on stdout.
	conPath := filepath.Join(dir, "r.txt")
	code, stdout, stderr = runTool(t, "", append(base, "--benchmark_out="+conPath, "--benchmark_out_format=console", "--benchmark_format=csv")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, csvHeader+"\n\""+name+"\",3,") {
		t.Errorf("stdout is not CSV:\n%s", stdout)
	}
	if text, err := os.ReadFile(conPath); err != nil || !strings.Contains(string(text), "Benchmark") || !strings.Contains(string(text), " ms ") {
		t.Errorf("%s is not the console table (%v):\n%s", conPath, err, text)
	}
}

// TestToolFlags runs the shared IREE flags through the benchmark tool.
func TestToolFlags(t *testing.T) {
	demo := demoModule(t)
	dir := t.TempDir()
	flagfile := filepath.Join(dir, "bench.flags")
	if err := os.WriteFile(flagfile, []byte("# the demo benchmark\n--module="+demo+"\n--function=simple_mul\n--input=16xf32=2\n--input=16xf32=4\n--benchmark_min_time=2x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string // contained
		stderr string // contained
	}{
		{"flagfile", []string{"--flagfile=" + flagfile, "--benchmark_format=csv"}, 0, `"BM_simple_mul/process_time/real_time",2,`, ""},
		{"several devices", []string{"--flagfile=" + flagfile, "--device=local-sync", "--device=local-task"}, 0, "Running on device local-sync", ""},
		{"regex filter", []string{"--flagfile=" + flagfile, "--benchmark_filter=^BM_simple_(mul|add)/"}, 0, "BM_simple_mul/process_time/real_time", ""},
		{"only export needs no --function", []string{"--module=" + demo, "--input=4xf32=1", "--input=4xf32=2", "--benchmark_min_time=2x", "--benchmark_format=csv"}, 0, `"BM_simple_mul/process_time/real_time",2,`, ""},
		{"list devices of a driver", []string{"--list_devices=local-task"}, 0, "local-task://0\n", ""},
		{"dump devices", []string{"--dump_devices=local-sync"}, 0, "# --device=local-sync://0\n", ""},
		{"mistyped flag", []string{"--benchmark_filtre=x"}, 1, "", "did you mean --benchmark_filter?"},
		{"mistyped unit flag", []string{"--time_units=ms"}, 1, "", "did you mean --time_unit?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runTool(t, "", tc.args...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nwant it to contain %q\nstderr:\n%s\nwant it to contain %q", code, tc.code, stdout, tc.stdout, stderr, tc.stderr)
			}
		})
	}
}

// TestHelpLayout checks IREE's --help layout on stdout.
func TestHelpLayout(t *testing.T) {
	code, stdout, _ := runTool(t, "", "--help")
	if code != 0 {
		t.Fatalf("--help exited %d", code)
	}
	order := []string{"Usage: iree-benchmark-module --module=file.vmfb", "Times calls of exported functions", "Examples:\n  iree-benchmark-module --device=local-task",
		"\n  iree-benchmark-module --module=model.vmfb --benchmark_filter=", "Module and function:\n  --module=", "Inputs and outputs:\n  --input=", "  --enable_output_processing\n",
		"Devices:\n  --device=", "Benchmark:\n  --benchmark_filter=<regex>", "  --time_unit=<string>\n      unit of the reported times: s, ms, us or ns (default ms)",
		"  --benchmark_out=<file>", "Flag files:\n  --flagfile=", "Logging flags:\n  --v="}
	at := 0
	for _, s := range order {
		i := strings.Index(stdout[at:], s)
		if i < 0 {
			t.Fatalf("--help lacks %q after byte %d:\n%s", s, at, stdout)
		}
		at += i + len(s)
	}
	if strings.Contains(stdout, "Other flags:") {
		t.Errorf("a flag is in no group:\n%s", stdout)
	}
}

// TestOutputProcessing checks --enable_output_processing: the last
// iteration's results are printed, written or checked as iree-run-module
// does, and only with the flag.
func TestOutputProcessing(t *testing.T) {
	demo := demoModule(t)
	dir := t.TempDir()
	base := []string{"--module=" + demo, "--function=simple_mul", "--input=4xf32=2", "--input=4xf32=4", "--device=local-sync", "--benchmark_min_time=3x"}
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		stdout  string // contained
		notOut  string // not contained
		stderr  string // contained
		npyFile string
	}{
		{"disabled", nil, 0, "BM_simple_mul", "result[", "", ""},
		{"printed", []string{"--enable_output_processing"}, 0, "BM_simple_mul", "", "", ""},
		{"printed values", []string{"--enable_output_processing"}, 0, "result[0]: hal.buffer_view\n4xf32=8 8 8 8\n", "", "", ""},
		{"written", []string{"--enable_output_processing", "--output=@" + filepath.Join(dir, "r.npy")}, 0, "BM_simple_mul", "result[", "", filepath.Join(dir, "r.npy")},
		{"expected match", []string{"--enable_output_processing", "--expected_output=4xf32=8"}, 0, "[SUCCESS] all function outputs matched their expected values.", "", "", ""},
		{"expected mismatch", []string{"--enable_output_processing", "--expected_output=4xf32=3"}, 1, "[FAILED] result[0]: element at index 0 (8) does not match the expected (3)", "", "", ""},
		{"output without processing", []string{"--output=@" + filepath.Join(dir, "x.npy")}, 1, "", "", "take effect only with --enable_output_processing", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runTool(t, "", append(append([]string(nil), base...), tc.args...)...)
			if code != tc.code || !strings.Contains(stdout, tc.stdout) || (tc.notOut != "" && strings.Contains(stdout, tc.notOut)) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("exit %d (want %d)\nstdout:\n%s\nstderr:\n%s", code, tc.code, stdout, stderr)
			}
			if tc.npyFile != "" {
				data, err := os.ReadFile(tc.npyFile)
				if err != nil || !bytes.HasPrefix(data, []byte("\x93NUMPY")) || !bytes.HasSuffix(data, bytes.Repeat([]byte{0, 0, 0, 0x41}, 4)) {
					t.Errorf("%s: %v, %q", tc.npyFile, err, data)
				}
			}
		})
	}
}
