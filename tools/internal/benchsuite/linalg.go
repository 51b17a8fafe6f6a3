package main

import (
	"fmt"
	"io"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/runtime/hal"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// The cpu-linalg rows time programs the compiler generates all the code
// for (linalg ops, no user kernel), compiled for this host's CPU
// (--iree-llvmcpu-target-cpu=host) and called on local-task with every
// CPU the way iree-benchmark-module calls them, against numpy doing the
// same math in the same run:
//
//   - cpu-linalg/matmul-<n>: linalg.matmul of two n x n f32 (--matmul_n,
//     1024; onto a zero fill) against numpy's a @ b. Target: ≥ 0.5 of
//     numpy's speed.
//   - cpu-linalg/softmax-<n>: linalg.softmax along the rows of n x n f32
//     (--softmax_n, 4096) against np.exp(x - x.max(1, keepdims=True)) /
//     sum. Target: faster than numpy.
//
// numpy's BLAS is whatever its python links (the note names it): the
// figure is relative to the machine's numpy, not to a particular BLAS.

// The programs, with T standing for the n x n f32 tensor type.
const linalgMatmulProgram = `func.func @matmul(%a: T, %b: T) -> T {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : T
  %f = linalg.fill ins(%z : f32) outs(%e : T) -> T
  %r = linalg.matmul ins(%a, %b : T, T) outs(%f : T) -> T
  return %r : T
}
`

const linalgSoftmaxProgram = `func.func @softmax(%x: T) -> T {
  %e = tensor.empty() : T
  %r = linalg.softmax dimension(1) ins(%x : T) outs(%e : T) -> T
  return %r : T
}
`

// numpyScript times the reference: argv is the figure (matmul or
// softmax), n and the repetitions; it prints the median seconds and
// numpy's BLAS library (from the process's mappings).
const numpyScript = `import sys, time, numpy as np
what, n, reps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
if what == "matmul":
    a = rng.random((n, n), dtype=np.float32)
    b = rng.random((n, n), dtype=np.float32)
    f = lambda: a @ b
else:
    x = rng.random((n, n), dtype=np.float32)
    def f():
        e = np.exp(x - x.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)
f()
ts = []
for _ in range(reps):
    t = time.perf_counter()
    f()
    ts.append(time.perf_counter() - t)
ts.sort()
blas = sorted({l.split()[-1] for l in open("/proc/self/maps") if "blas" in l.lower() and len(l.split()) >= 6})
print(ts[len(ts) // 2], ",".join(blas) or "unknown")
`

// numpyPython returns a python that imports numpy: --python, else
// /usr/bin/python3.
func numpyPython(o *options) (string, error) {
	for _, p := range []string{o.python, "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no python with numpy (tried %s and /usr/bin/python3)", o.python)
}

// runNumpy returns numpy's median time for a figure and its BLAS.
func runNumpy(python, what string, n, reps int) (time.Duration, string, error) {
	out, err := exec.Command(python, "-c", numpyScript, what, strconv.Itoa(n), strconv.Itoa(reps)).CombinedOutput()
	if err != nil {
		return 0, "", fmt.Errorf("numpy %s: %v: %s", what, err, lastLine(out))
	}
	f := strings.Fields(lastLine(out))
	if len(f) != 2 {
		return 0, "", fmt.Errorf("numpy %s printed %q", what, lastLine(out))
	}
	s, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0, "", fmt.Errorf("numpy %s printed %q", what, lastLine(out))
	}
	return time.Duration(s * float64(time.Second)), f[1], nil
}

// compileForHost compiles a linalg program for this machine's CPU.
func (e *env) compileForHost(name, src string) ([]byte, error) {
	s, err := pipeline.Compile(name, []byte(src), pipeline.Options{}, "")
	if err != nil {
		return nil, err
	}
	return backend.Compile(s.Module.Op, backend.Options{
		Registry: s.Registry,
		Targets:  s.Targets,
		LLVMCPU:  llvmcpu.Options{ClangPath: e.clang, LinkerPath: e.lld, Objects: s.Resolver, CPU: "host"},
	})
}

// linalgCall is one function of a module on a local-task device with
// inputs made by functionio, as iree-benchmark-module makes them.
type linalgCall struct {
	dev     hal.Device
	ctx     *vm.Context
	fn      *vm.Function
	args    []vm.Value
	results []vm.Value
}

func newLinalgCall(module []byte, fn string, inputs ...string) (*linalgCall, error) {
	dev, err := localtask.NewDevice(localtask.Options{})
	if err != nil {
		return nil, err
	}
	c := &linalgCall{dev: dev, results: make([]vm.Value, 1)}
	fail := func(err error) (*linalgCall, error) {
		dev.Close()
		return nil, err
	}
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		return fail(err)
	}
	hm, err := halmodule.New(dev)
	if err != nil {
		return fail(err)
	}
	if c.ctx, err = vm.NewInstance().NewContext(hm, m); err != nil {
		return fail(err)
	}
	if c.fn, err = c.ctx.LookupFunction(fn); err != nil {
		return fail(err)
	}
	in, err := functionio.ParseInputs(inputs)
	if err != nil {
		return fail(err)
	}
	if c.args, err = functionio.Values(in, c.fn.Signature(), dev.Allocator()); err != nil {
		return fail(err)
	}
	return c, nil
}

// call times one call; with check it also returns the result's elements
// (f32) before releasing it.
func (c *linalgCall) call(check func([]float32) error) (time.Duration, error) {
	t0 := time.Now()
	if err := c.ctx.InvokeInto(c.fn, c.args, c.results); err != nil {
		return 0, fmt.Errorf("calling %s: %w", c.fn.Name(), err)
	}
	d := time.Since(t0)
	if check != nil {
		v, err := halmodule.BufferViewOf(c.results[0])
		if err != nil {
			return 0, err
		}
		b, err := v.Buffer().HostBytes()
		if err != nil {
			return 0, err
		}
		if len(b) < 4 {
			return 0, fmt.Errorf("%s returned %d bytes", c.fn.Name(), len(b))
		}
		if err := check(unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)); err != nil {
			return 0, err
		}
	}
	return d, vm.ReleaseValues(c.results)
}

func (c *linalgCall) close() { c.dev.Close() }

// allNear checks that every element is within 1e-6 relative of want.
func allNear(want float32) func([]float32) error {
	return func(z []float32) error {
		for i, v := range z {
			if math.Abs(float64(v-want)) > 1e-6*math.Abs(float64(want)) {
				return fmt.Errorf("element %d is %g, want %g", i, v, want)
			}
		}
		return nil
	}
}

func linalgRows(e *env, o *options, want func(string) bool, log io.Writer) []row {
	python, pyErr := numpyPython(o)
	mn, sn := o.matmulN, o.softmaxN
	tensor := func(n int) string { return fmt.Sprintf("tensor<%dx%dxf32>", n, n) }
	figures := []struct {
		name, fn, program, numpy, target string
		n                                int
		inputs                           []string
		check                            func([]float32) error
		flops                            float64
		atLeast                          float64
	}{
		{fmt.Sprintf("cpu-linalg/matmul-%d", mn), "matmul", strings.ReplaceAll(linalgMatmulProgram, "T", tensor(mn)), "matmul", "ours ≥ 0.5 × numpy (speed)", mn,
			[]string{fmt.Sprintf("%dx%dxf32=1", mn, mn), fmt.Sprintf("%dx%dxf32=1", mn, mn)}, allNear(float32(mn)), 2 * float64(mn) * float64(mn) * float64(mn), 0.5},
		{fmt.Sprintf("cpu-linalg/softmax-%d", sn), "softmax", strings.ReplaceAll(linalgSoftmaxProgram, "T", tensor(sn)), "softmax", "ours faster than numpy", sn,
			[]string{fmt.Sprintf("%dx%dxf32=5", sn, sn)}, allNear(1 / float32(sn)), 0, 1},
	}
	var rows []row
	for _, f := range figures {
		if !want(f.name) {
			continue
		}
		fmt.Fprintf(log, "%s: compiling for the host CPU, %d calls ...\n", f.name, o.repetitions)
		if e.clang == "" {
			rows = append(rows, skipped(f.name, f.target, "no clang to compile the program"))
			continue
		}
		if pyErr != nil {
			rows = append(rows, skipped(f.name, f.target, pyErr.Error()))
			continue
		}
		module, err := e.compileForHost(f.fn+".mlir", f.program)
		if err != nil {
			rows = append(rows, failed(f.name, f.target, err))
			continue
		}
		c, err := newLinalgCall(module, f.fn, f.inputs...)
		if err != nil {
			rows = append(rows, failed(f.name, f.target, err))
			continue
		}
		var ds []time.Duration
		_, err = c.call(f.check) // warm-up, checked
		for r := 0; err == nil && r < o.repetitions; r++ {
			var d time.Duration
			d, err = c.call(nil)
			ds = append(ds, d)
		}
		c.close()
		if err != nil {
			rows = append(rows, failed(f.name, f.target, err))
			continue
		}
		ref, blas, err := runNumpy(python, f.numpy, f.n, o.repetitions)
		if err != nil {
			rows = append(rows, failed(f.name, f.target, err))
			continue
		}
		ours := median(ds)
		speed := float64(ref) / float64(max(ours, 1))
		note := fmt.Sprintf("ratio is numpy's time / ours (speed); numpy %s, BLAS %s; ours compiled with --iree-llvmcpu-target-cpu=host, local-task", python, blas)
		if f.flops > 0 {
			note += fmt.Sprintf("; %.1f GFLOP/s ours, %.1f numpy", f.flops/ours.Seconds()/1e9, f.flops/ref.Seconds()/1e9)
		}
		met := speed >= f.atLeast
		if f.atLeast == 1 {
			met = speed > 1
		}
		rows = append(rows, row{
			name:   f.name,
			ours:   fmtDur(ours) + " per call",
			ref:    fmtDur(ref) + " (numpy)",
			ratio:  speed,
			target: f.target,
			met:    met,
			note:   note,
		})
	}
	return rows
}
