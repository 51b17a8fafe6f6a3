package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sampleProgram returns the program the compiler row compiles and the
// directory holding its objects: --sample, else the repository's CPU sample
// (built from its own kernels) when run from tools/ or the root, else the
// suite's benchmark program.
func (e *env) sampleProgram(o *options) (string, []byte, string, error) {
	path := o.sample
	if path == "" {
		for _, p := range []string{"../compiler/e2e/testdata/cpu_hal.mlir", "compiler/e2e/testdata/cpu_hal.mlir"} {
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		return "testdata/simple_mul.mlir", benchProgram, e.objDir, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return "", nil, "", fmt.Errorf("reading the sample: %w", err)
	}
	// The sample's kernels sit beside it as functions.c.
	kernels := filepath.Join(filepath.Dir(path), "functions.c")
	if _, err := os.Stat(kernels); err != nil {
		return path, src, e.objDir, nil
	}
	dir := filepath.Join(e.dir, "sample-objects")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, "", fmt.Errorf("creating sample object directory: %w", err)
	}
	if err := e.buildObject(kernels, filepath.Join(dir, "functions_x86_64.o")); err != nil {
		return "", nil, "", err
	}
	return path, src, dir, nil
}

// timingWrapper writes a bash script that runs tool and appends the start
// and end of each run (EPOCHREALTIME, no extra process) to log.
func timingWrapper(dir, name, tool, log string) (string, error) {
	script := fmt.Sprintf("#!/bin/bash\ns=$EPOCHREALTIME\n%q \"$@\"\nrc=$?\necho \"$s $EPOCHREALTIME\" >> %q\nexit $rc\n", tool, log)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		return "", fmt.Errorf("writing %s wrapper: %w", name, err)
	}
	return p, nil
}

// toolTime reads a wrapper log and returns the time covered by the union of
// its intervals (tools may run in parallel).
func toolTime(log string) (time.Duration, error) {
	data, err := os.ReadFile(log)
	if err != nil {
		return 0, fmt.Errorf("reading tool timing log: %w", err)
	}
	type span struct{ a, b float64 }
	var spans []span
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			return 0, fmt.Errorf("tool timing log line %q", line)
		}
		a, err1 := strconv.ParseFloat(f[0], 64)
		b, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil || b < a {
			return 0, fmt.Errorf("tool timing log line %q", line)
		}
		spans = append(spans, span{a, b})
	}
	slices.SortFunc(spans, func(x, y span) int {
		if x.a < y.a {
			return -1
		}
		if x.a > y.a {
			return 1
		}
		return 0
	})
	total, end := 0.0, -1.0
	for _, s := range spans {
		if s.a > end {
			total += s.b - s.a
			end = s.b
		} else if s.b > end {
			total += s.b - end
			end = s.b
		}
	}
	return time.Duration(total * 1e9), nil
}

// compilerRows times compiles of the sample and checks their outputs are
// byte-identical.
func compilerRows(e *env, o *options, log io.Writer) ([]row, error) {
	if e.clang == "" || e.lld == "" {
		why := "no clang-16/clang or ld.lld-16/ld.lld on this machine (a --prebuilt run); the compiler rows are measured where they are"
		return []row{skipped("compiler/wall", "ours ≤ 300 ms, ratio (clang+lld share) ≥ 0.5", why), skipped("compiler/deterministic", "byte-identical", why)}, nil
	}
	name, src, objDir, err := e.sampleProgram(o)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "compiler: %s × %d ...\n", name, o.compiles)
	var walls []time.Duration
	var first []byte
	identical := true
	for i := 0; i < o.compiles; i++ {
		t0 := time.Now()
		out, err := e.compile(filepath.Base(name), src, objDir, e.clang, e.lld)
		walls = append(walls, time.Since(t0))
		if err != nil {
			return nil, fmt.Errorf("compiling %s: %w", name, err)
		}
		if first == nil {
			first = out
		} else if !bytes.Equal(first, out) {
			identical = false
		}
	}
	// The share of clang and lld, from compiles through timing wrappers.
	var shares []float64
	var toolTimes []time.Duration
	for i := 0; i < o.compiles; i++ {
		logf := filepath.Join(e.dir, fmt.Sprintf("tools-%d.log", i))
		clang, err := timingWrapper(e.dir, "clang-timed", e.clang, logf)
		if err != nil {
			return nil, err
		}
		lld, err := timingWrapper(e.dir, "lld-timed", e.lld, logf)
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		if _, err := e.compile(filepath.Base(name), src, objDir, clang, lld); err != nil {
			return nil, fmt.Errorf("compiling %s through timing wrappers: %w", name, err)
		}
		wall := time.Since(t0)
		tt, err := toolTime(logf)
		if err != nil {
			return nil, err
		}
		toolTimes = append(toolTimes, tt)
		shares = append(shares, tt.Seconds()/wall.Seconds())
	}
	slices.Sort(shares)
	share := shares[len(shares)/2]
	wall := median(walls)
	rows := []row{{
		name:   "compiler/wall",
		ours:   fmtDur(wall) + " (" + filepath.Base(name) + ")",
		ref:    fmtDur(median(toolTimes)) + " in clang+lld",
		ratio:  share,
		target: "ours ≤ 300 ms, ratio (clang+lld share) ≥ 0.5",
		met:    wall <= 300*time.Millisecond && share >= 0.5,
		note:   "in process (iree-compile's phases, without process start); the share comes from compiles through timing wrappers",
	}}
	same := "identical"
	if !identical {
		same = "DIFFERENT"
	}
	rows = append(rows, row{
		name:   "compiler/deterministic",
		ours:   fmt.Sprintf("%d outputs %s (%d bytes)", o.compiles, same, len(first)),
		ref:    "-",
		ratio:  nan(),
		target: "byte-identical",
		met:    identical,
	})
	return rows, nil
}
