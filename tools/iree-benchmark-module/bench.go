package main

import (
	"fmt"
	"math"
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
	if c.format != "console" && c.format != "json" {
		return c, fmt.Errorf("--benchmark_format=%q: want console or json", o.format)
	}
	var err error
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
