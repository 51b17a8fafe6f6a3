package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/task"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// caller invokes a function of a benchmark module (simple_mul, or the user
// program) on one device.
type caller struct {
	dev     hal.Device
	ctx     *vm.Context
	fn      *vm.Function
	args    []vm.Value
	results []vm.Value
	// want is every element of a correct result (8 for simple_mul of 2
	// and 4), within tol relative (0: exactly).
	want, tol float32
}

// newCaller makes a caller of simple_mul over n f32 on a new device:
// local-sync, or local-task with groups worker groups (0: the default
// topology, one group per CPU capped at task.DefaultMaxGroupCount as
// IREE's --task_topology_max_group_count is).
func newCaller(module []byte, device string, groups, n int) (*caller, error) {
	var dev hal.Device
	var err error
	switch device {
	case "local-sync":
		dev, err = localsync.NewDevice()
	case "local-task":
		dev, err = localtask.NewDevice(localtask.Options{GroupCount: groups})
	default:
		err = fmt.Errorf("unknown device %q", device)
	}
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", device, err)
	}
	return newCallerOn(dev, module, "simple_mul", n)
}

// newCallerOn makes a caller of function fn on dev, which it owns (close
// closes it, also when newCallerOn fails), with inputs of n f32 (2 and 4).
func newCallerOn(dev hal.Device, module []byte, fn string, n int) (*caller, error) {
	return newCallerInputs(dev, module, fn, []string{fmt.Sprintf("%dxf32=2", n), fmt.Sprintf("%dxf32=4", n)})
}

// newCallerInputs makes a caller of function fn on dev, which it owns,
// with inputs in iree-run-module's --input spelling.
func newCallerInputs(dev hal.Device, module []byte, fn string, inputs []string) (*caller, error) {
	c := &caller{dev: dev, want: 8}
	fail := func(err error) (*caller, error) {
		dev.Close()
		return nil, err
	}
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		return fail(fmt.Errorf("loading the benchmark module: %w", err))
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
	c.results = make([]vm.Value, 1)
	return c, nil
}

// call makes one call and releases the result buffer, so that the next
// call's allocation is served from the allocator's cache, as a caller that
// drops its result does.
func (c *caller) call() error {
	if err := c.ctx.InvokeInto(c.fn, c.args, c.results); err != nil {
		return fmt.Errorf("calling %s: %w", c.fn.Name(), err)
	}
	// The result view is the caller's: releasing it returns its buffer
	// to the device's pool for the next call.
	return vm.ReleaseValues(c.results)
}

// check makes one call and verifies its result (c.want, 2 * 4 = 8 for
// simple_mul): every element up to 1M elements, beyond that the first and
// last 64K and every 4099th (reading device memory mapped over the bus is
// slow).
func (c *caller) check() error {
	if err := c.ctx.InvokeInto(c.fn, c.args, c.results); err != nil {
		return fmt.Errorf("calling %s: %w", c.fn.Name(), err)
	}
	v, err := halmodule.BufferViewOf(c.results[0])
	if err != nil {
		return err
	}
	b, err := v.Buffer().HostBytes()
	if err != nil {
		return err
	}
	if len(b) < 4 {
		return fmt.Errorf("%s result has %d bytes", c.fn.Name(), len(b))
	}
	z := unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
	if i, ok := checkProduct(z, c.want, c.tol); !ok {
		return fmt.Errorf("%s result is wrong at element %d: %g (want %g in every element)", c.fn.Name(), i, z[i], c.want)
	}
	return vm.ReleaseValues(c.results)
}

// checkProduct checks that z holds want (within tol relative): every
// element of short results, a sample of long ones. It returns the first
// wrong index.
func checkProduct(z []float32, want, tol float32) (int, bool) {
	const all, edge, stride = 1 << 20, 1 << 16, 4099
	n := len(z)
	at := func(i int) bool {
		return z[i] == want || math.Abs(float64(z[i]-want)) <= float64(tol)*math.Abs(float64(want))
	}
	if n <= all {
		for i := range z {
			if !at(i) {
				return i, false
			}
		}
		return 0, true
	}
	for i := 0; i < edge; i++ {
		if !at(i) {
			return i, false
		}
		if !at(n - 1 - i) {
			return n - 1 - i, false
		}
	}
	for i := edge; i < n-edge; i += stride {
		if !at(i) {
			return i, false
		}
	}
	return 0, true
}

func (c *caller) close() { c.dev.Close() }

// harness runs the C reference and returns the median it reports.
func (e *env) harnessRun(mode string, n, a, rounds int) (time.Duration, error) {
	out, err := exec.Command(e.harness, mode, strconv.Itoa(n), strconv.Itoa(a), strconv.Itoa(rounds)).CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("reference harness %s: %v\n%s", mode, err, out)
	}
	f := strings.Fields(string(out))
	if len(f) != 2 || !strings.HasPrefix(f[0], "ns=") || f[1] != "check=8" {
		return 0, fmt.Errorf("reference harness %s: unexpected output %q", mode, out)
	}
	ns, err := strconv.ParseInt(strings.TrimPrefix(f[0], "ns="), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("reference harness %s: %w", mode, err)
	}
	return time.Duration(ns), nil
}

// largePasses is how many back-to-back passes make one measurement of a
// cpu-large row, on both sides.
const largePasses = 3

// largeRows measures simple_mul over o.largeN floats: local-sync against
// the C loop on one thread, local-task with one worker group per CPU
// against the C loop on every CPU (the same thread count: IREE's default
// topology caps the groups at 8, task.DefaultMaxGroupCount, so on the
// H200's 16-core host the default ran 8 threads against the reference's
// 16), and, where that cap applies, local-task's default topology against
// the C loop on as many threads. With --large_profile it then profiles
// local-task calls (largeProfile).
func largeRows(e *env, o *options, log io.Writer) ([]row, error) {
	bytes := int64(3 * 4 * o.largeN)
	cpus := runtime.NumCPU()
	all := min(cpus, task.MaxWorkers)
	def, err := task.DetectTopology(0, 0)
	if err != nil {
		return nil, err
	}
	type largeCase struct {
		name, device    string
		groups, threads int
		refName         string
		min             float64
		note            string
	}
	cases := []largeCase{
		{"cpu-large/local-sync", "local-sync", 0, 1, "C, 1 thread", 0.95, ""},
		{"cpu-large/local-task", "local-task", all, cpus, fmt.Sprintf("C, %d threads", cpus), 0.90,
			fmt.Sprintf("local-task with %d worker groups (--task_topology_group_count=%d, one per CPU, as many threads as the C loop); the default topology has %d", all, all, def.GroupCount)},
	}
	if def.GroupCount < all {
		cases = append(cases, largeCase{"cpu-large/local-task-default", "local-task", 0, def.GroupCount, fmt.Sprintf("C, %d threads", def.GroupCount), 0.90,
			fmt.Sprintf("local-task's default topology: %d worker groups (IREE's --task_topology_max_group_count default) on %d CPUs, against the C loop on as many threads", def.GroupCount, cpus)})
	}
	var rows []row
	for _, d := range cases {
		fmt.Fprintf(log, "%s: %d f32 ...\n", d.name, o.largeN)
		c, err := newCaller(e.module, d.device, d.groups, o.largeN)
		if err != nil {
			return nil, err
		}
		if err := c.check(); err != nil {
			c.close()
			return nil, err
		}
		// Ours and the reference alternate, so that both see the same load
		// on a shared machine, and each side's figure is the median of the
		// same number of back-to-back passes (largePasses calls of ours, a
		// harness run of as many passes), so that neither side's
		// measurement filters its noise more than the other's. Context
		// switches are counted around each.
		var ours, refs, pairs []time.Duration
		var oursCS, refCS switches
		for i := 0; i < o.repetitions; i++ {
			s0 := selfSwitches()
			var passes []time.Duration
			var err error
			for p := 0; p < largePasses && err == nil; p++ {
				t0 := time.Now()
				err = c.call()
				passes = append(passes, time.Since(t0))
			}
			oursCS = oursCS.add(selfSwitches().sub(s0))
			if err != nil {
				c.close()
				return nil, err
			}
			ours = append(ours, median(passes))
			c0 := childSwitches()
			ref, err := e.harnessRun("large", o.largeN, d.threads, largePasses)
			if err != nil {
				c.close()
				return nil, err
			}
			refCS = refCS.add(childSwitches().sub(c0))
			refs = append(refs, ref)
			// The pair's ratio, kept as a duration scaled by 1e6 so that
			// median() orders it.
			pairs = append(pairs, time.Duration(float64(ref)/float64(ours[i])*1e6))
		}
		c.close()
		r := bandwidthRow(d.name, bytes, median(ours), median(refs), d.refName, d.min)
		reps := float64(o.repetitions)
		lo, hi := slices.Min(pairs), slices.Max(pairs)
		r.note = fmt.Sprintf("each figure the median of %d alternating measurements, each the median of %d back-to-back passes; the %d pairs' ratios range from %.3f to %.3f; context switches per pass: ours %.0f voluntary, %.0f involuntary; the C loop %.0f, %.0f per process (setup included)",
			o.repetitions, largePasses, len(pairs), float64(lo)/1e6, float64(hi)/1e6,
			float64(oursCS.voluntary)/reps/largePasses, float64(oursCS.involuntary)/reps/largePasses, float64(refCS.voluntary)/reps, float64(refCS.involuntary)/reps)
		if d.note != "" {
			r.note = d.note + "; " + r.note
		}
		rows = append(rows, r)
	}
	if o.largeProfile != "" {
		if err := largeProfile(e, o, all, log); err != nil {
			return nil, err
		}
		if err := scalingSweep(e, o, log); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// scalingSweep logs, for 1, 2, 4, 8, 12, 16, ... threads up to the CPU
// count, local-task with that many worker groups against the C loop on as
// many threads (medians of o.repetitions alternating calls): where the two
// part ways is where the runtime stops scaling, and where the C loop
// flattens is the memory system's limit.
func scalingSweep(e *env, o *options, log io.Writer) error {
	bytes := int64(3 * 4 * o.largeN)
	cpus := min(runtime.NumCPU(), task.MaxWorkers)
	var counts []int
	for _, k := range []int{1, 2, 4, 8, 12, 16, 24, 32, 48, 64} {
		if k < cpus {
			counts = append(counts, k)
		}
	}
	counts = append(counts, cpus)
	for _, k := range counts {
		c, err := newCaller(e.module, "local-task", k, o.largeN)
		if err != nil {
			return err
		}
		var ours, refs []time.Duration
		for i := 0; i < o.repetitions+1; i++ {
			t0 := time.Now()
			err := c.call()
			d := time.Since(t0)
			if err != nil {
				c.close()
				return err
			}
			ref, err := e.harnessRun("large", o.largeN, k, 3)
			if err != nil {
				c.close()
				return err
			}
			if i > 0 { // the first call touches the result's pages
				ours, refs = append(ours, d), append(refs, ref)
			}
		}
		c.close()
		mo, mr := median(ours), median(refs)
		fmt.Fprintf(log, "cpu-large/scaling: %2d threads: local-task %6.2f GB/s (%s), C %6.2f GB/s (%s), ratio %.3f\n",
			k, gbps(bytes, mo), fmtDur(mo), gbps(bytes, mr), fmtDur(mr), float64(mr)/float64(max(mo, 1)))
	}
	return nil
}

// switches are context-switch counts (getrusage's ru_nvcsw and ru_nivcsw:
// what perf stat's context-switches counts, split into the ones the
// threads asked for by blocking and the ones the kernel forced).
type switches struct{ voluntary, involuntary int64 }

func (a switches) add(b switches) switches {
	return switches{a.voluntary + b.voluntary, a.involuntary + b.involuntary}
}

func (a switches) sub(b switches) switches {
	return switches{a.voluntary - b.voluntary, a.involuntary - b.involuntary}
}

func rusageSwitches(who int) switches {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return switches{}
	}
	return switches{int64(ru.Nvcsw), int64(ru.Nivcsw)}
}

// selfSwitches counts this process's context switches, all threads.
func selfSwitches() switches { return rusageSwitches(syscall.RUSAGE_SELF) }

// childSwitches counts the context switches of the waited-for children.
func childSwitches() switches { return rusageSwitches(syscall.RUSAGE_CHILDREN) }

// largeProfile calls simple_mul over o.largeN f32 on local-task with
// groups worker groups for o.largeProfileTime under a pprof CPU profile
// written to o.largeProfile, and logs the calls' wall and CPU time, their
// context switches and the process's OS threads: what a 16-core host's
// local-task row spends its time on (go tool pprof -top <binary> <file>).
func largeProfile(e *env, o *options, groups int, log io.Writer) error {
	c, err := newCaller(e.module, "local-task", groups, o.largeN)
	if err != nil {
		return err
	}
	defer c.close()
	for i := 0; i < 3; i++ { // warm up: first-touch of the result pages
		if err := c.call(); err != nil {
			return err
		}
	}
	f, err := os.Create(o.largeProfile)
	if err != nil {
		return fmt.Errorf("creating the cpu-large profile: %w", err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return fmt.Errorf("starting the cpu-large profile: %w", err)
	}
	var walls []time.Duration
	s0, c0, t0 := selfSwitches(), processCPU(), time.Now()
	for time.Since(t0) < o.largeProfileTime {
		t := time.Now()
		if err := c.call(); err != nil {
			pprof.StopCPUProfile()
			return err
		}
		walls = append(walls, time.Since(t))
	}
	wall, cpu, cs := time.Since(t0), processCPU()-c0, selfSwitches().sub(s0)
	pprof.StopCPUProfile()
	n := int64(len(walls))
	fmt.Fprintf(log, "cpu-large/profile: local-task, %d groups, %d calls of %d f32 in %s: median %s a call (%.2f GB/s), CPU %s a call (%.1f CPUs busy), context switches %d voluntary and %d involuntary a call, %d OS threads; profile in %s\n",
		groups, n, o.largeN, fmtDur(wall), fmtDur(median(walls)), gbps(int64(12*o.largeN), median(walls)), fmtDur(cpu/time.Duration(n)),
		cpu.Seconds()/wall.Seconds(), cs.voluntary/n, cs.involuntary/n, osThreads(), o.largeProfile)
	return nil
}

// osThreads is the process's OS thread count (/proc/self/status), or -1.
func osThreads() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Threads:"); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return n
			}
		}
	}
	return -1
}

// smallRows measures the time per call of simple_mul on one workgroup.
func smallRows(e *env, o *options, log io.Writer) ([]row, error) {
	var rows []row
	for _, d := range []struct {
		device string
		max    time.Duration
	}{{"local-sync", 2 * time.Microsecond}, {"local-task", 5 * time.Microsecond}} {
		fmt.Fprintf(log, "cpu-small/%s: %d calls × %d ...\n", d.device, o.smallCalls, o.repetitions)
		c, err := newCaller(e.module, d.device, 0, 64)
		if err != nil {
			return nil, err
		}
		if err := c.check(); err != nil {
			c.close()
			return nil, err
		}
		var per, cpu, refs []time.Duration
		var ms0, ms1 runtime.MemStats
		var mallocs uint64
		for r := 0; r < o.repetitions; r++ {
			// The reference runs between our measurements (same load).
			ref, err := e.harnessRun("small", 64, o.smallCalls*10, 3)
			if err != nil {
				c.close()
				return nil, err
			}
			refs = append(refs, ref)
			runtime.ReadMemStats(&ms0)
			c0 := processCPU()
			t0 := time.Now()
			for i := 0; i < o.smallCalls; i++ {
				if err := c.call(); err != nil {
					c.close()
					return nil, err
				}
			}
			per = append(per, time.Since(t0)/time.Duration(o.smallCalls))
			cpu = append(cpu, (processCPU()-c0)/time.Duration(o.smallCalls))
			runtime.ReadMemStats(&ms1)
			mallocs += ms1.Mallocs - ms0.Mallocs
		}
		c.close()
		allocs := float64(mallocs) / float64(o.repetitions*o.smallCalls)
		ours, ref := median(per), median(refs)
		rows = append(rows, row{
			name:   "cpu-small/" + d.device,
			ours:   fmt.Sprintf("%s per dispatch (CPU %s, %.1f allocs)", fmtDur(ours), fmtDur(median(cpu)), allocs),
			ref:    fmtDur(ref) + " (direct C call)",
			ratio:  float64(ours) / float64(max(ref, 1)),
			target: "ours ≤ " + fmtDur(d.max),
			met:    ours <= d.max,
			note:   "ratio is ours / direct call (the floor); the target is the absolute wall time; CPU is the process CPU time (all threads) per call",
		})
	}
	return rows, nil
}

// processCPU returns the CPU time (user + system) of the whole process.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bufferBytes is the size of the buffers row (SPEC §4: 64 MB).
const bufferBytes = 64 << 20

// writeAll stores to every byte of b, eight at a time.
func writeAll(b []byte, v uint64) {
	words := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
	for i := range words {
		words[i] = v
	}
}

// bufferRow compares a 64 MB allocate-write-release through the HAL host
// allocator with rewriting a reused slice and writing a fresh one.
func bufferRow(o *options, log io.Writer) row {
	fmt.Fprintf(log, "buffers: 64 MB × %d ...\n", max(o.repetitions, 9))
	var fresh, reused, ours []time.Duration
	keep := make([]byte, bufferBytes)
	writeAll(keep, 1)
	alloc := hal.NewHostAllocator(-1)
	var errText string
	// Warm up: the first allocation is fresh memory; later ones should come
	// from the allocator's cache, which is what the row measures.
	if buf, err := alloc.AllocateBuffer(hal.BufferParams{}, bufferBytes); err == nil {
		err = buf.Release()
		if err != nil {
			errText = err.Error()
		}
	} else {
		errText = err.Error()
	}
	for i := 0; i < max(o.repetitions, 9); i++ {
		t0 := time.Now()
		b := make([]byte, bufferBytes)
		writeAll(b, uint64(i))
		fresh = append(fresh, time.Since(t0))
		runtime.KeepAlive(b)

		t0 = time.Now()
		writeAll(keep, uint64(i))
		reused = append(reused, time.Since(t0))

		t0 = time.Now()
		buf, err := alloc.AllocateBuffer(hal.BufferParams{}, bufferBytes)
		if err == nil {
			var hb []byte
			if hb, err = buf.HostBytes(); err == nil {
				writeAll(hb, uint64(i))
				err = buf.Release()
			}
		}
		ours = append(ours, time.Since(t0))
		if err != nil && errText == "" {
			errText = err.Error()
		}
	}
	mo, mr, mf := median(ours), median(reused), median(fresh)
	r := row{
		name:   "buffers",
		ours:   fmtDur(mo) + " (HAL allocate+write+release)",
		ref:    fmtDur(mr) + " reused / " + fmtDur(mf) + " fresh",
		ratio:  float64(mo) / float64(max(mr, 1)),
		target: "ratio ≤ 1.25 (of reused)",
	}
	r.met = r.ratio <= 1.25 && errText == ""
	if errText != "" {
		r.note = "allocator error: " + errText
	}
	return r
}
