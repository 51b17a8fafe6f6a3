package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// reporter prints benchmark results.
type reporter interface {
	start(cfg config, device string, cases []benchCase)
	report(name string, runs []result, cfg config)
	finish() error
}

func newReporter(format string, w io.Writer) (reporter, error) {
	switch format {
	case "console":
		return &consoleReporter{w: w}, nil
	case "json":
		return &jsonReporter{w: w}, nil
	case "csv":
		return &csvReporter{w: w}, nil
	}
	return nil, fmt.Errorf("--benchmark_format=%q: want console, json or csv", format)
}

// multiReporter reports to each of its reporters (stdout and
// --benchmark_out).
type multiReporter []reporter

func (m multiReporter) start(cfg config, device string, cases []benchCase) {
	for _, r := range m {
		r.start(cfg, device, cases)
	}
}

func (m multiReporter) report(name string, runs []result, cfg config) {
	for _, r := range m {
		r.report(name, runs, cfg)
	}
}

func (m multiReporter) finish() error {
	for _, r := range m {
		if err := r.finish(); err != nil {
			return err
		}
	}
	return nil
}

// csvHeader is Google Benchmark's CSV header.
const csvHeader = "name,iterations,real_time,cpu_time,time_unit,bytes_per_second,items_per_second,label,error_occurred,error_message"

// csvReporter prints Google Benchmark's CSV rows: one per run, then the
// aggregates (their items_per_second empty).
type csvReporter struct {
	w   io.Writer
	err error
}

func (c *csvReporter) start(cfg config, device string, cases []benchCase) {
	_, c.err = fmt.Fprintln(c.w, csvHeader)
}

func (c *csvReporter) row(name string, iters int64, real, cpu float64, unit timeUnit, ips string) {
	if c.err != nil {
		return
	}
	// Names are quoted, with quotes doubled, as Google Benchmark writes
	// them.
	q := `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
	_, c.err = fmt.Fprintf(c.w, "%s,%d,%s,%s,%s,,%s,,,\n", q, iters, csvNumber(real/unit.perUnit), csvNumber(cpu/unit.perUnit), unit.name, ips)
}

// csvNumber prints v with six significant digits, as a C++ stream does.
func csvNumber(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func (c *csvReporter) report(name string, runs []result, cfg config) {
	if !(cfg.aggregates && len(runs) > 1) {
		for _, r := range runs {
			real, cpu := r.perIter()
			c.row(name, r.iters, real, cpu, cfg.unit, csvNumber(itemsPerSecond(r, cfg.batchSize)))
		}
	}
	if len(runs) > 1 {
		for _, a := range aggregates(runs) {
			c.row(name+"_"+a.name, int64(len(runs)), a.real, a.cpu, cfg.unit, "")
		}
	}
}

func (c *csvReporter) finish() error {
	if c.err != nil {
		return fmt.Errorf("writing CSV results: %w", c.err)
	}
	return nil
}

// itemsPerSecond is the rate of function calls of a run.
func itemsPerSecond(r result, batch int) float64 {
	if r.real <= 0 {
		return 0
	}
	return float64(r.iters) * float64(batch) / r.real.Seconds()
}

// consoleReporter prints Google Benchmark's console table.
type consoleReporter struct {
	w     io.Writer
	width int
}

func (c *consoleReporter) start(cfg config, device string, cases []benchCase) {
	c.width = len("Benchmark")
	suffix := 0
	if cfg.repetitions > 1 {
		suffix = len("_median")
	}
	for _, bc := range cases {
		c.width = max(c.width, len(bc.name)+suffix)
	}
	header := fmt.Sprintf("%-*s %13s %15s %12s", c.width, "Benchmark", "Time", "CPU", "Iterations")
	rule := strings.Repeat("-", len(header))
	fmt.Fprintf(c.w, "Running on device %s, %d CPU(s), batch size %d\n%s\n%s\n%s\n", device, runtime.NumCPU(), cfg.batchSize, rule, header, rule)
}

func (c *consoleReporter) row(name string, real, cpu float64, iters int64, unit timeUnit, extra string) {
	fmt.Fprintf(c.w, "%-*s %s %-4s %s %-4s %12d%s\n", c.width, name,
		formatTime(real/unit.perUnit), unit.name, formatTime(cpu/unit.perUnit), unit.name, iters, extra)
}

func (c *consoleReporter) report(name string, runs []result, cfg config) {
	if !(cfg.aggregates && len(runs) > 1) {
		for _, r := range runs {
			real, cpu := r.perIter()
			c.row(name, real, cpu, r.iters, cfg.unit, " items_per_second="+humanRate(itemsPerSecond(r, cfg.batchSize)))
		}
	}
	if len(runs) > 1 {
		for _, a := range aggregates(runs) {
			c.row(name+"_"+a.name, a.real, a.cpu, int64(len(runs)), cfg.unit, "")
		}
	}
}

func (c *consoleReporter) finish() error { return nil }

// formatTime prints a time in ten columns with Google Benchmark's
// precision: more decimals for smaller values.
func formatTime(v float64) string {
	switch {
	case v < 1:
		return fmt.Sprintf("%10.3f", v)
	case v < 10:
		return fmt.Sprintf("%10.2f", v)
	case v < 100:
		return fmt.Sprintf("%10.1f", v)
	}
	return fmt.Sprintf("%10.0f", v)
}

// humanRate prints a rate with a k, M or G suffix and "/s".
func humanRate(v float64) string {
	for _, s := range []struct {
		scale float64
		unit  string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if math.Abs(v) >= s.scale {
			return fmt.Sprintf("%.4g%s/s", v/s.scale, s.unit)
		}
	}
	return fmt.Sprintf("%.4g/s", v)
}

// jsonRun is one entry of Google Benchmark's "benchmarks" array.
type jsonRun struct {
	Name            string   `json:"name"`
	FamilyIndex     int      `json:"family_index"`
	InstanceIndex   int      `json:"per_family_instance_index"`
	RunName         string   `json:"run_name"`
	RunType         string   `json:"run_type"`
	Repetitions     int      `json:"repetitions"`
	RepetitionIndex *int     `json:"repetition_index,omitempty"`
	Threads         int      `json:"threads"`
	AggregateName   string   `json:"aggregate_name,omitempty"`
	AggregateUnit   string   `json:"aggregate_unit,omitempty"`
	Iterations      int64    `json:"iterations"`
	RealTime        float64  `json:"real_time"`
	CPUTime         float64  `json:"cpu_time"`
	TimeUnit        string   `json:"time_unit"`
	ItemsPerSecond  *float64 `json:"items_per_second,omitempty"`
}

type jsonContext struct {
	Date           string `json:"date"`
	HostName       string `json:"host_name"`
	Executable     string `json:"executable"`
	NumCPUs        int    `json:"num_cpus"`
	Device         string `json:"device"`
	BatchSize      int    `json:"batch_size"`
	LibraryVersion string `json:"library_version"`
}

// jsonReporter collects every run and prints one JSON document at the end.
type jsonReporter struct {
	w   io.Writer
	doc struct {
		Context    jsonContext `json:"context"`
		Benchmarks []jsonRun   `json:"benchmarks"`
	}
	family int
}

func (j *jsonReporter) start(cfg config, device string, cases []benchCase) {
	host, _ := os.Hostname()
	exe, _ := os.Executable()
	j.doc.Context = jsonContext{
		Date: time.Now().Format(time.RFC3339), HostName: host, Executable: exe,
		NumCPUs: runtime.NumCPU(), Device: device, BatchSize: cfg.batchSize, LibraryVersion: runtime.Version(),
	}
	j.doc.Benchmarks = []jsonRun{}
}

func (j *jsonReporter) report(name string, runs []result, cfg config) {
	base := jsonRun{Name: name, FamilyIndex: j.family, RunName: name, Repetitions: cfg.repetitions, Threads: 1, TimeUnit: cfg.unit.name}
	j.family++
	if !(cfg.aggregates && len(runs) > 1) {
		for i, r := range runs {
			e := base
			e.RunType = "iteration"
			idx := i
			e.RepetitionIndex = &idx
			e.Iterations = r.iters
			real, cpu := r.perIter()
			e.RealTime, e.CPUTime = real/cfg.unit.perUnit, cpu/cfg.unit.perUnit
			ips := itemsPerSecond(r, cfg.batchSize)
			e.ItemsPerSecond = &ips
			j.doc.Benchmarks = append(j.doc.Benchmarks, e)
		}
	}
	if len(runs) > 1 {
		for _, a := range aggregates(runs) {
			e := base
			e.Name = name + "_" + a.name
			e.RunType = "aggregate"
			e.AggregateName = a.name
			e.AggregateUnit = "time"
			e.Iterations = int64(len(runs))
			e.RealTime, e.CPUTime = a.real/cfg.unit.perUnit, a.cpu/cfg.unit.perUnit
			j.doc.Benchmarks = append(j.doc.Benchmarks, e)
		}
	}
}

func (j *jsonReporter) finish() error {
	out, err := json.MarshalIndent(&j.doc, "", "  ")
	if err != nil {
		return fmt.Errorf("writing JSON results: %w", err)
	}
	_, err = fmt.Fprintf(j.w, "%s\n", out)
	return err
}
