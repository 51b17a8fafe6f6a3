package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/goiree/goiree/runtime/vm"
)

// maxIterations bounds the iteration count, as Google Benchmark does.
const maxIterations = 1_000_000_000

// config is the measurement and reporting part of the flags, validated.
type config struct {
	batchSize   int
	unit        timeUnit
	format      string
	repetitions int
	minTime     time.Duration // 0 when fixedIters is set
	fixedIters  int64
	aggregates  bool
	outPath     string // --benchmark_out, "" for none
	outFormat   string
	filter      filter
}

func validFormat(f string) bool { return f == "console" || f == "json" || f == "csv" }

// filter is a compiled --benchmark_filter.
type filter struct {
	re     *regexp.Regexp // nil: every benchmark
	negate bool
}

// compileFilter reads --benchmark_filter as Google Benchmark does: a
// regular expression searched for anywhere in the benchmark name; "" and
// "all" select every benchmark, and a leading '-' selects the benchmarks
// the rest does not match.
func compileFilter(spec string) (filter, error) {
	s := strings.TrimSpace(spec)
	var f filter
	if s == "" || s == "all" {
		return f, nil
	}
	if strings.HasPrefix(s, "-") {
		f.negate, s = true, s[1:]
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return f, fmt.Errorf("--benchmark_filter=%q: %v", spec, err)
	}
	f.re = re
	return f, nil
}

// match reports whether the benchmark named name runs.
func (f filter) match(name string) bool {
	if f.re == nil {
		return true
	}
	return f.re.MatchString(name) != f.negate
}

// timeUnit is a --time_unit.
type timeUnit struct {
	name    string
	perUnit float64 // nanoseconds per unit
}

var timeUnits = map[string]timeUnit{
	"s":  {"s", 1e9},
	"ms": {"ms", 1e6},
	"us": {"us", 1e3},
	"ns": {"ns", 1},
}

func newConfig(o *options) (config, error) {
	c := config{batchSize: o.batchSize, format: strings.TrimSpace(o.format), repetitions: o.repetitions, aggregates: o.aggregatesOnly}
	var err error
	if o.batchSize < 1 {
		return c, fmt.Errorf("--batch_size=%d must be at least 1", o.batchSize)
	}
	if o.repetitions < 1 {
		return c, fmt.Errorf("--benchmark_repetitions=%d must be at least 1", o.repetitions)
	}
	u, ok := timeUnits[strings.TrimSpace(o.timeUnit)]
	if !ok {
		return c, fmt.Errorf("--time_unit=%q: want s, ms, us or ns", o.timeUnit)
	}
	c.unit = u
	if !validFormat(c.format) {
		return c, fmt.Errorf("--benchmark_format=%q: want console, json or csv", o.format)
	}
	c.outPath, c.outFormat = strings.TrimSpace(o.outPath), strings.TrimSpace(o.outFormat)
	if !validFormat(c.outFormat) {
		return c, fmt.Errorf("--benchmark_out_format=%q: want json, console or csv", o.outFormat)
	}
	if c.outPath != "" {
		// Fail before measuring anything rather than after.
		if st, err := os.Stat(filepath.Dir(c.outPath)); err != nil || !st.IsDir() {
			return c, fmt.Errorf("--benchmark_out=%s: directory %s does not exist", c.outPath, filepath.Dir(c.outPath))
		}
	}
	if c.filter, err = compileFilter(o.filter); err != nil {
		return c, err
	}
	if c.minTime, c.fixedIters, err = parseMinTime(o.minTime); err != nil {
		return c, err
	}
	return c, nil
}

// parseMinTime reads --benchmark_min_time: seconds ("0.5", "0.5s") or an
// iteration count ("100x").
func parseMinTime(s string) (time.Duration, int64, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "x"); ok {
		iters, err := strconv.ParseInt(n, 10, 64)
		if err != nil || iters < 1 || iters > maxIterations {
			return 0, 0, fmt.Errorf("--benchmark_min_time=%q: an iteration count must be an integer in [1, %d] followed by 'x'", s, maxIterations)
		}
		return 0, iters, nil
	}
	secs, err := strconv.ParseFloat(strings.TrimSuffix(s, "s"), 64)
	if err != nil || secs <= 0 || math.IsNaN(secs) || secs > 3600 {
		return 0, 0, fmt.Errorf("--benchmark_min_time=%q: want seconds in (0, 3600] ('0.5', '0.5s') or an iteration count ('100x')", s)
	}
	d := time.Duration(secs * float64(time.Second))
	if d <= 0 {
		return 0, 0, fmt.Errorf("--benchmark_min_time=%q is below one nanosecond", s)
	}
	return d, 0, nil
}

// benchCase is one benchmark: body(n) runs n iterations.
type benchCase struct {
	name string
	args []vm.Value // the inputs, released at the end
	body func(n int) error
}

// result is one measurement: iters iterations took real wall time and cpu
// process CPU time.
type result struct {
	iters int64
	real  time.Duration
	cpu   time.Duration
}

// perIter returns the real and CPU nanoseconds of one iteration.
func (r result) perIter() (float64, float64) {
	return float64(r.real) / float64(r.iters), float64(r.cpu) / float64(r.iters)
}

// processCPU returns the CPU time (user + system) of the whole process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func timeOnce(c benchCase, iters int64, batch int) (result, error) {
	cpu0 := processCPU()
	t0 := time.Now()
	for i := int64(0); i < iters; i++ {
		if err := c.body(batch); err != nil {
			return result{}, err
		}
	}
	real := time.Since(t0)
	return result{iters: iters, real: real, cpu: processCPU() - cpu0}, nil
}

// iterationsFor finds the iteration count whose run lasts at least
// cfg.minTime, growing it the way Google Benchmark does, and returns that
// run.
func iterationsFor(c benchCase, cfg config) (result, error) {
	if cfg.fixedIters > 0 {
		return timeOnce(c, cfg.fixedIters, cfg.batchSize)
	}
	iters := int64(1)
	for {
		r, err := timeOnce(c, iters, cfg.batchSize)
		if err != nil {
			return result{}, err
		}
		if r.real >= cfg.minTime || iters >= maxIterations {
			return r, nil
		}
		secs := max(r.real.Seconds(), 1e-9)
		mult := 10.0
		if secs/cfg.minTime.Seconds() > 0.1 {
			mult = cfg.minTime.Seconds() * 1.4 / secs
		}
		iters = min(max(int64(float64(iters)*mult), iters+1), maxIterations)
	}
}

// measure runs the benchmark cfg.repetitions times: the first repetition
// finds the iteration count, the others reuse it.
func measure(c benchCase, cfg config) ([]result, error) {
	first, err := iterationsFor(c, cfg)
	if err != nil {
		return nil, err
	}
	runs := []result{first}
	for len(runs) < cfg.repetitions {
		r, err := timeOnce(c, first.iters, cfg.batchSize)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// aggregate is one of the _mean, _median, _stddev rows.
type aggregate struct {
	name      string
	real, cpu float64 // nanoseconds per iteration
}

// aggregates computes mean, median and sample standard deviation of the
// per-iteration times of runs (Google Benchmark's three default rows).
func aggregates(runs []result) []aggregate {
	reals := make([]float64, len(runs))
	cpus := make([]float64, len(runs))
	for i, r := range runs {
		reals[i], cpus[i] = r.perIter()
	}
	return []aggregate{
		{"mean", mean(reals), mean(cpus)},
		{"median", median(reals), median(cpus)},
		{"stddev", stddev(reals), stddev(cpus)},
	}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// stddev is the sample standard deviation (n-1), 0 for one value.
func stddev(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	m := mean(xs)
	s := 0.0
	for _, x := range xs {
		s += (x - m) * (x - m)
	}
	return math.Sqrt(s / float64(len(xs)-1))
}
