package main

import (
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/cuda"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
)

//go:embed testdata/torch_mul.py
var torchScript []byte

// SPEC §4 targets of the GPU rows.
const (
	dispatchMaxRatio = 1.3  // HAL host time per dispatch over the raw loop
	copyMinRatio     = 0.85 // simple_mul bandwidth over D2D copy bandwidth
	torchMinRatio    = 1.0  // simple_mul bandwidth over torch.mul's
	vulkanMinRatio   = 0.80 // Vulkan simple_mul bandwidth over CUDA's
)

// sizeName prints an element count as 256M, 4K or 1000.
func sizeName(n int) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dM", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dK", n>>10)
	}
	return strconv.Itoa(n)
}

// GPU bandwidth rows call for at least gpuWarmup before measuring, and
// then, where the device times its calls, until the device time has
// settled (the median of the last settleCalls within 10% of the fastest),
// for at most gpuWarmupMax. On the H200 the SM clock dips to 465–855 MHz
// for a few hundred milliseconds of renewed load once the GPU has entered
// its idle state (nvidia-smi: clocks_event_reasons GPU idle, about 1.4 s
// without work and without a CUDA context), and simple_mul then takes
// 1.4–1.8 ms instead of 0.74 ms: the Vulkan row's setup (parsing and
// writing its two inputs) keeps the GPU idle for seconds right after the
// CUDA rows' context is gone (device runs 5 and 6, gpu/bench.md).
const (
	gpuWarmup    = time.Second
	gpuWarmupMax = 4 * time.Second
	settleCalls  = 16
)

// gpuReps is how many calls a GPU bandwidth figure is the median of: GPU
// calls take about a millisecond, so more than the CPU rows make.
func gpuReps(o *options) int { return max(4*o.repetitions, 20) }

// reason is err's message without its status code.
func reason(err error) string {
	var se *status.Error
	if errors.As(err, &se) {
		return se.Message
	}
	return err.Error()
}

// failed is the row of a figure whose measurement failed.
func failed(name, target string, err error) row {
	return row{name: name, ours: "failed", ref: "-", ratio: nan(), target: target, note: "error: " + err.Error()}
}

// gpuRows measures the CUDA and Vulkan figures the filter asks for. A
// missing device or tool skips a row with the reason; a failure on the
// device becomes a failed row, so that the other rows still print.
func gpuRows(e *env, o *options, want func(string) bool, log io.Writer) ([]row, error) {
	// The hand-tuned kernels' rows (simple_mul.cu: float4 accesses, 256
	// threads a block; simple_mul.glsl: vec4): the device's ceiling, not a
	// user's program (the user-program rows are that).
	size := sizeName(o.gpuN)
	dispatchName, cudaName, torchName, vulkanName := "cuda/dispatch", "cuda/hand-tuned-float4-"+size, "cuda/hand-tuned-float4-"+size+"-torch", "vulkan/hand-tuned-vec4-"+size
	dispatchTarget := fmt.Sprintf("ratio ≤ %.2f", dispatchMaxRatio)
	cudaTarget := fmt.Sprintf("ratio ≥ %.2f (of D2D copy)", copyMinRatio)
	torchTarget := fmt.Sprintf("ratio ≥ %.2f (of torch.mul)", torchMinRatio)
	vulkanTarget := fmt.Sprintf("ratio ≥ %.2f (of the CUDA path)", vulkanMinRatio)
	cudaWhy := e.gpu.cudaWhy
	if cudaWhy == "" {
		if err := cuda.Available(); err != nil {
			cudaWhy = "no CUDA device: " + reason(err)
		}
	}
	// The user-program rows need only a device and their own module.
	userCUDAWhy := ""
	if err := cuda.Available(); err != nil {
		userCUDAWhy = "no CUDA device: " + reason(err)
	}
	var rows []row
	if want(dispatchName) {
		if cudaWhy != "" {
			rows = append(rows, skipped(dispatchName, dispatchTarget, cudaWhy))
		} else {
			rows = append(rows, cudaDispatchRow(e, o, dispatchName, dispatchTarget, log))
		}
	}
	// The CUDA figure is also the Vulkan row's reference.
	var cudaWall time.Duration
	wantCUDA := want(cudaName) || want(torchName)
	if wantCUDA || want(vulkanName) {
		switch {
		case cudaWhy != "":
			if wantCUDA {
				rows = append(rows, skipped(cudaName, cudaTarget, cudaWhy), skipped(torchName, torchTarget, cudaWhy))
			}
		default:
			r, wall, err := cudaMulRows(e, o, cudaName, torchName, log)
			if err != nil {
				r = []row{failed(cudaName, cudaTarget, err)}
				cudaWhy = "the CUDA row failed"
			}
			cudaWall = wall
			if wantCUDA {
				rows = append(rows, r...)
			}
		}
	}
	if want(vulkanName) {
		r := vulkanRow(e, o, vulkanName, vulkanTarget, cudaWall, cudaWhy, log)
		rows = append(rows, r)
		// A miss is followed by the probe, so that the log says what bounds it.
		measured := r.ours != "skipped" && r.ours != "failed"
		if measured && (o.vulkanProbe || (r.skip == "" && !r.met)) {
			vulkanProbe(e, o, log)
		}
	}
	rows = append(rows, userRows(e, o, want, userCUDAWhy, log)...)
	return rows, nil
}

// cudaDispatchRow measures the host time per dispatch of the HAL path
// (record a command buffer of --dispatches dispatches, replay it on the
// stream, wait) against the raw cuLaunchKernel loop over the same kernel
// and arguments, on one block of 256 threads.
func cudaDispatchRow(e *env, o *options, name, target string, log io.Writer) row {
	const n = 1024 // one block of simple_mul
	fmt.Fprintf(log, "%s: %d dispatches × %d ...\n", name, o.dispatches, o.repetitions)
	dev, err := cuda.NewDevice(0)
	if err != nil {
		return failed(name, target, err)
	}
	defer dev.Close()
	payload := (&cudafb.Executable{Images: []cudafb.Image{{Arch: "sm_90", PTX: string(e.gpu.ptx)}}, EntryPoints: []cudafb.EntryPoint{
		{Name: "simple_mul", BlockSize: [3]uint32{256, 1, 1}, ConstantCount: 1, BindingCount: 3},
	}}).Marshal()
	cache, err := dev.CreateExecutableCache("benchsuite")
	if err != nil {
		return failed(name, target, err)
	}
	exe, err := cache.PrepareExecutable(hal.ExecutableParams{Format: cuda.Format, Data: payload})
	if err != nil {
		return failed(name, target, err)
	}
	defer exe.Release()
	var binds []hal.Binding
	for i := 0; i < 3; i++ {
		b, err := dev.Allocator().AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, 4*n)
		if err != nil {
			return failed(name, target, err)
		}
		defer b.Release()
		binds = append(binds, hal.Binding{Ordinal: i, Buffer: b, Length: 4 * n})
	}
	wg, consts := [3]uint32{1, 1, 1}, []uint32{n}
	// halRun returns the time of the whole HAL path and of its recording.
	halRun := func(k int) (time.Duration, time.Duration, error) {
		t0 := time.Now()
		cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
		if err != nil {
			return 0, 0, err
		}
		if err := cb.Begin(); err != nil {
			return 0, 0, err
		}
		for i := 0; i < k; i++ {
			if err := cb.DispatchWith(exe, 0, wg, consts, binds); err != nil {
				return 0, 0, err
			}
		}
		if err := cb.End(); err != nil {
			return 0, 0, err
		}
		rec := time.Since(t0)
		err = hal.SubmitAndWait(dev, cb)
		return time.Since(t0), rec, err
	}
	// Warm up both paths.
	if _, _, err := halRun(100); err != nil {
		return failed(name, target, err)
	}
	if _, err := dev.RawLaunchLoop(exe, 0, wg, consts, binds, 100); err != nil {
		return failed(name, target, err)
	}
	var ours, recs, refs []time.Duration
	for r := 0; r < o.repetitions; r++ {
		raw, err := dev.RawLaunchLoop(exe, 0, wg, consts, binds, o.dispatches)
		if err != nil {
			return failed(name, target, err)
		}
		refs = append(refs, raw/time.Duration(o.dispatches))
		h, rec, err := halRun(o.dispatches)
		if err != nil {
			return failed(name, target, err)
		}
		ours = append(ours, h/time.Duration(o.dispatches))
		recs = append(recs, rec/time.Duration(o.dispatches))
	}
	mo, mr := median(ours), median(refs)
	rw := row{
		name:   name,
		ours:   fmtDur(mo) + " per dispatch (HAL record+replay+wait)",
		ref:    fmtDur(mr) + " (raw cuLaunchKernel loop in C)",
		ratio:  float64(mo) / float64(max(mr, 1)),
		target: target,
	}
	rw.met = rw.ratio <= dispatchMaxRatio
	rw.note = fmt.Sprintf("%d dispatches of simple_mul over one block of 256 threads per measurement, median of %d; of ours, recording (hal.CommandBuffer) %s per dispatch, the rest replay and wait",
		o.dispatches, o.repetitions, fmtDur(median(recs)))
	if trip, raw, err := roundTrips(e, dev, exe, wg, consts, binds); err == nil {
		rw.note += fmt.Sprintf("; round trip of one call through the whole stack (VM → hal module → cuda, %d f32, wait): %s, raw launch + stream sync: %s", n, fmtDur(trip), fmtDur(raw))
	} else {
		rw.note += "; round trip not measured: " + err.Error()
	}
	return rw
}

// roundTrips times one call of simple_mul through the whole stack on 1024
// f32 against one raw launch followed by a stream synchronize.
func roundTrips(e *env, dev *cuda.Device, exe hal.Executable, wg [3]uint32, consts []uint32, binds []hal.Binding) (time.Duration, time.Duration, error) {
	const trips = 2000
	var raw time.Duration
	for i := 0; i < trips; i++ {
		d, err := dev.RawLaunchLoop(exe, 0, wg, consts, binds, 1)
		if err != nil {
			return 0, 0, err
		}
		raw += d
	}
	d2, err := cuda.NewDevice(0)
	if err != nil {
		return 0, 0, err
	}
	c, err := newCallerOn(d2, e.gpu.cuda, "simple_mul", int(consts[0]))
	if err != nil {
		return 0, 0, err
	}
	defer c.close()
	if err := c.check(); err != nil {
		return 0, 0, err
	}
	t0 := time.Now()
	for i := 0; i < trips; i++ {
		if err := c.call(); err != nil {
			return 0, 0, err
		}
	}
	return time.Since(t0) / trips, raw / trips, nil
}

// queueTimer wraps a device to time its QueueExecute calls: both GPU
// drivers run a submission to its end inside QueueExecute, so the rest of
// a call's wall time is the VM, the hal module, allocation and recording.
type queueTimer struct {
	hal.Device
	total time.Duration
	// alloc times the device allocator's AllocateBuffer calls (made
	// outside QueueExecute) into allocTotal.
	alloc      *allocTimer
	allocTotal time.Duration
	// capture, when set, makes QueueExecute keep the commands of each
	// submission in last (the Vulkan cross-check replays them).
	capture bool
	last    []hal.Command
}

// QueueExecute implements hal.Device.
func (q *queueTimer) QueueExecute(wait, signal *hal.Fence, cbs []*hal.CommandBuffer) error {
	if q.capture {
		q.last = q.last[:0]
		for _, cb := range cbs {
			q.last = append(q.last, cb.Commands()...)
		}
	}
	t0 := time.Now()
	err := q.Device.QueueExecute(wait, signal, cbs)
	q.total += time.Since(t0)
	return err
}

// Allocator implements hal.Device: the device's allocator, its
// AllocateBuffer timed (the same wrapper on every call, so that the hal
// module sees one allocator).
func (q *queueTimer) Allocator() hal.Allocator {
	if a := q.Device.Allocator(); q.alloc == nil || q.alloc.Allocator != a {
		q.alloc = &allocTimer{Allocator: a, q: q}
	}
	return q.alloc
}

// allocTimer times AllocateBuffer into its queueTimer's allocTotal.
type allocTimer struct {
	hal.Allocator
	q *queueTimer
}

// AllocateBuffer implements hal.Allocator.
func (a *allocTimer) AllocateBuffer(params hal.BufferParams, size int64) (*hal.Buffer, error) {
	t0 := time.Now()
	b, err := a.Allocator.AllocateBuffer(params, size)
	a.q.allocTotal += time.Since(t0)
	return b, err
}

// callTimes are per-call medians of timedCalls.
type callTimes struct {
	wall, queue, device time.Duration // device is 0 without device timing
	alloc               time.Duration // in AllocateBuffer (0: not timed)
	// warmup holds the device time of each warm-up call (with device
	// timing), to show whether the device time settles or drifts.
	warmup []time.Duration
}

// breakdown describes where a call's wall time goes.
func (t callTimes) breakdown() string {
	s := fmt.Sprintf("per call %s wall: %s outside QueueExecute (VM, hal module, allocation, recording", fmtDur(t.wall), fmtDur(t.wall-t.queue))
	if t.alloc > 0 {
		s += fmt.Sprintf("; %s of it in AllocateBuffer", fmtDur(t.alloc))
	}
	s += fmt.Sprintf("), %s in it", fmtDur(t.queue))
	if t.device > 0 {
		s += fmt.Sprintf(" of which %s on the device", fmtDur(t.device))
	}
	return s
}

// settled reports whether the median of the last settleCalls device times
// is within 10% of the fastest of them all.
func settled(ds []time.Duration) bool {
	if len(ds) < settleCalls {
		return false
	}
	fastest := slices.Min(ds)
	return median(ds[len(ds)-settleCalls:]) <= fastest+fastest/10
}

// timedCalls makes reps calls and returns their wall times, the device
// times devTime reports after each (nil: none) and the medians, with the
// time in QueueExecute when the caller's device is a queueTimer.
func timedCalls(c *caller, reps int, devTime func() time.Duration) (walls, devs []time.Duration, med callTimes, err error) {
	// Warm up for at least gpuWarmup and 3 calls, then until the device
	// time settles: the device's clocks and the allocator's cache settle
	// before the measured calls.
	for t0, i := time.Now(), 0; i < 3 || time.Since(t0) < gpuWarmup || (devTime != nil && !settled(med.warmup) && time.Since(t0) < gpuWarmupMax); i++ {
		if err := c.call(); err != nil {
			return nil, nil, med, err
		}
		if devTime != nil {
			med.warmup = append(med.warmup, devTime())
		}
	}
	qt, _ := c.dev.(*queueTimer)
	var queues, allocs []time.Duration
	for i := 0; i < reps; i++ {
		var q0, a0 time.Duration
		if qt != nil {
			q0, a0 = qt.total, qt.allocTotal
		}
		t0 := time.Now()
		if err := c.call(); err != nil {
			return nil, nil, med, err
		}
		walls = append(walls, time.Since(t0))
		if qt != nil {
			queues = append(queues, qt.total-q0)
			allocs = append(allocs, qt.allocTotal-a0)
		}
		if devTime != nil {
			devs = append(devs, devTime())
		}
	}
	med.wall, med.queue, med.device, med.alloc = median(walls), median(queues), median(devs), median(allocs)
	return walls, devs, med, nil
}

// cudaMulRows measures simple_mul over --gpu_n f32 through the whole stack
// (VM → hal module → cuda driver; each call allocates its result, records
// a command buffer, submits it and waits) against a device-to-device copy
// moving the same bytes through the driver and against torch.mul. It
// returns the rows and our median wall time per call.
func cudaMulRows(e *env, o *options, name, torchName string, log io.Writer) ([]row, time.Duration, error) {
	n, reps := o.gpuN, gpuReps(o)
	bytes := int64(12) * int64(n)
	fmt.Fprintf(log, "%s: %d f32 × %d calls ...\n", name, n, reps)
	dev, err := cuda.NewDevice(0)
	if err != nil {
		return nil, 0, err
	}
	c, err := newCallerOn(&queueTimer{Device: dev}, e.gpu.cuda, "simple_mul", n)
	if err != nil {
		return nil, 0, err
	}
	defer c.close()
	if err := c.check(); err != nil {
		return nil, 0, err
	}
	if err := dev.SetTiming(true); err != nil {
		return nil, 0, err
	}
	walls, devs, times, err := timedCalls(c, reps, dev.LastDeviceTime)
	if err != nil {
		return nil, 0, err
	}
	// The four-float4s-per-thread variant, as a tuning probe.
	var probe string
	if c.fn, err = c.ctx.LookupFunction("simple_mul_x4"); err == nil {
		if err = c.check(); err == nil {
			var w1, d1 []time.Duration
			if w1, d1, _, err = timedCalls(c, reps, dev.LastDeviceTime); err == nil {
				probe = fmt.Sprintf("; simple_mul_x4 (four float4s per thread): %.0f GB/s wall, %.0f GB/s device", gbps(bytes, median(w1)), gbps(bytes, median(d1)))
			}
		}
	}
	if err != nil {
		probe = "; simple_mul_x4 failed: " + err.Error()
	}
	// Device-to-device copy of 6n bytes (12n bytes read and written)
	// through the driver, recorded, submitted and waited for per call.
	cw, cd, err := copyCalls(dev, dev.LastDeviceTime, 6*int64(n), reps)
	if err != nil {
		return nil, 0, fmt.Errorf("D2D copy: %w", err)
	}
	mw, md, mcw, mcd := median(walls), median(devs), median(cw), median(cd)
	r := bandwidthRow(name, bytes, mw, mcw, "D2D copy through the driver", copyMinRatio)
	r.target = fmt.Sprintf("ratio ≥ %.2f (of D2D copy)", copyMinRatio)
	r.note = fmt.Sprintf("hand-tuned float4 kernel (simple_mul.cu), not a user's program; wall per call, median of %d; device time (CUDA events): simple_mul %.0f GB/s, copy %.0f GB/s, ratio %.3f%s; buffers %v; %s",
		reps, gbps(bytes, md), gbps(bytes, mcd), float64(mcd)/float64(max(md, 1)), probe, c.argType(), times.breakdown())
	rows := []row{r}
	fmt.Fprintf(log, "%s: torch.mul ...\n", torchName)
	tr, err := runTorch(e, o, n, reps)
	if err != nil {
		rows = append(rows, row{
			name: torchName, ours: fmt.Sprintf("%.2f GB/s (%s)", gbps(bytes, mw), fmtDur(mw)), ref: "torch absent",
			ratio: nan(), target: fmt.Sprintf("ratio ≥ %.2f (of torch.mul)", torchMinRatio), skip: "torch.mul not measured: " + err.Error(),
		})
		return rows, mw, nil
	}
	t := bandwidthRow(torchName, bytes, mw, tr.mul, "torch.mul", torchMinRatio)
	t.target = fmt.Sprintf("ratio ≥ %.2f (of torch.mul)", torchMinRatio)
	t.note = fmt.Sprintf("torch %s on %s, timed like ours (call, synchronize; median of %d): torch.mul device time %.0f GB/s, torch D2D copy_ of the same bytes %.0f GB/s",
		tr.version, tr.device, reps, gbps(bytes, tr.mulDev), gbps(bytes, tr.copy))
	rows = append(rows, t)
	return rows, mw, nil
}

// copyCalls times reps device-to-device copies of size bytes between two
// device-only buffers, each recorded, submitted and waited for, with the
// device time of each from devTime (none when nil).
func copyCalls(dev hal.Device, devTime func() time.Duration, size int64, reps int) (walls, devs []time.Duration, err error) {
	src, err := dev.Allocator().AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, size)
	if err != nil {
		return nil, nil, err
	}
	defer src.Release()
	dst, err := dev.Allocator().AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, size)
	if err != nil {
		return nil, nil, err
	}
	defer dst.Release()
	one := func() (time.Duration, error) {
		t0 := time.Now()
		cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
		if err != nil {
			return 0, err
		}
		if err := cb.Begin(); err != nil {
			return 0, err
		}
		if err := cb.CopyBuffer(src, 0, dst, 0, size); err != nil {
			return 0, err
		}
		if err := cb.End(); err != nil {
			return 0, err
		}
		err = hal.SubmitAndWait(dev, cb)
		return time.Since(t0), err
	}
	for i := 0; i < 3+reps; i++ {
		d, err := one()
		if err != nil {
			return nil, nil, err
		}
		if i >= 3 {
			walls = append(walls, d)
			if devTime != nil {
				devs = append(devs, devTime())
			}
		}
	}
	return walls, devs, nil
}

// torchResult is what testdata/torch_mul.py reports.
type torchResult struct {
	mul, copy, mulDev time.Duration
	device, version   string
}

// runTorch runs testdata/torch_mul.py with --python, or says why torch is
// not there.
func runTorch(e *env, o *options, n, reps int) (torchResult, error) {
	var tr torchResult
	python, err := exec.LookPath(o.python)
	if err != nil {
		return tr, fmt.Errorf("no %s: %w", o.python, err)
	}
	out, err := exec.Command(python, "-c", "import torch; print(torch.__version__)").CombinedOutput()
	if err != nil {
		return tr, fmt.Errorf("%s cannot import torch: %s", o.python, lastLine(out))
	}
	tr.version = lastLine(out)
	script := filepath.Join(e.dir, "torch_mul.py")
	if err := os.WriteFile(script, torchScript, 0o644); err != nil {
		return tr, fmt.Errorf("writing torch_mul.py: %w", err)
	}
	out, err = exec.Command(python, script, strconv.Itoa(n), strconv.Itoa(reps)).CombinedOutput()
	if err != nil {
		return tr, fmt.Errorf("torch_mul.py: %v: %s", err, lastLine(out))
	}
	return parseTorch(tr.version, lastLine(out))
}

// parseTorch reads torch_mul.py's line "torch mul_s=… copy_s=… mul_dev_s=…
// device=<name>".
func parseTorch(version, line string) (torchResult, error) {
	tr := torchResult{version: version}
	rest, ok := strings.CutPrefix(line, "torch ")
	if !ok {
		return tr, fmt.Errorf("torch_mul.py printed %q", line)
	}
	rest, device, ok := strings.Cut(rest, " device=")
	if !ok || device == "" {
		return tr, fmt.Errorf("torch_mul.py printed no device: %q", line)
	}
	tr.device = device
	seen := 0
	for _, f := range strings.Fields(rest) {
		k, v, _ := strings.Cut(f, "=")
		s, err := strconv.ParseFloat(v, 64)
		if err != nil || s <= 0 {
			return tr, fmt.Errorf("torch_mul.py printed %q", line)
		}
		d := time.Duration(s * 1e9)
		switch k {
		case "mul_s":
			tr.mul = d
		case "copy_s":
			tr.copy = d
		case "mul_dev_s":
			tr.mulDev = d
		default:
			return tr, fmt.Errorf("torch_mul.py printed %q", line)
		}
		seen++
	}
	if seen != 3 {
		return tr, fmt.Errorf("torch_mul.py printed %q", line)
	}
	return tr, nil
}

// lastLine returns the last non-empty line of a tool's output.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// vulkanRow measures simple_mul over --gpu_n f32 through the whole stack
// on Vulkan device 0, against the CUDA path's figure of the same run.
func vulkanRow(e *env, o *options, name, target string, cudaWall time.Duration, cudaWhy string, log io.Writer) row {
	if e.gpu.vulkanWhy != "" {
		return skipped(name, target, e.gpu.vulkanWhy)
	}
	devName, skip, err := vulkanDevice0(o)
	switch {
	case err != nil:
		return failed(name, target, err)
	case skip != "":
		return skipped(name, target, skip)
	}
	n, reps := o.gpuN, gpuReps(o)
	bytes := int64(12) * int64(n)
	fmt.Fprintf(log, "%s: %d f32 × %d calls on %s ...\n", name, n, reps, devName)
	dev, err := vulkan.NewDevice(0)
	if err != nil {
		return failed(name, target, err)
	}
	fmt.Fprintf(log, "%s: memory of %s:\n%s", name, dev.Name(), dev.MemoryReport())
	qt := &queueTimer{Device: dev}
	c, err := newCallerOn(qt, e.gpu.vulkan, "simple_mul", n)
	if err != nil {
		return failed(name, target, err)
	}
	defer c.close()
	if err := c.check(); err != nil {
		return failed(name, target, err)
	}
	var devTime func() time.Duration
	if dev.SetTiming(true) == nil {
		devTime = dev.LastDeviceTime
	}
	walls, devs, times, err := timedCalls(c, reps, devTime)
	if err != nil {
		return failed(name, target, err)
	}
	mw := median(walls)
	note := fmt.Sprintf("hand-tuned vec4 shader (simple_mul.glsl), not a user's program; wall per call through the whole stack (VM → hal module → vulkan), median of %d after %d warm-up calls, on %s, queue %s; buffers %v", reps, len(times.warmup), dev.Name(), dev.QueueFamily(), c.argType())
	if devs != nil {
		note += fmt.Sprintf("; device time (timestamps) %.0f GB/s", gbps(bytes, median(devs)))
	}
	note += "; " + times.breakdown()
	var r row
	if cudaWall <= 0 {
		r = row{name: name, ours: fmt.Sprintf("%.2f GB/s (%s)", gbps(bytes, mw), fmtDur(mw)), ref: "-", ratio: nan(), target: target,
			skip: "no CUDA figure to compare with (" + cudaWhy + ")", note: note}
	} else {
		r = bandwidthRow(name, bytes, mw, cudaWall, "the CUDA path", vulkanMinRatio)
		r.target = target
		r.note = note
	}
	if o.vulkanProbe || (r.skip == "" && !r.met) {
		// While the row's device, executable and buffers live: cross them
		// with the probe's (see vulkanCross).
		vulkanCross(e, o, dev, c, qt, times, log)
	}
	return r
}

// argType is the memory type of the first argument's buffer.
func (c *caller) argType() hal.MemoryType {
	if len(c.args) == 0 {
		return 0
	}
	v, err := halmodule.BufferViewOf(c.args[0])
	if err != nil {
		return 0
	}
	return v.Buffer().MemoryType()
}

// vulkanDevice0 names Vulkan device 0, where the Vulkan rows run, or says
// why they are skipped (skip) or failed (err): no loader, no physical
// device, or a CPU implementation without --vulkan_cpu.
func vulkanDevice0(o *options) (name, skip string, err error) {
	if err := vulkan.Available(); err != nil {
		return "", "no Vulkan: " + reason(err), nil
	}
	infos, err := vulkan.NewDriver().Devices()
	if err != nil {
		return "", "", err
	}
	if len(infos) == 0 {
		return "", "the Vulkan loader lists no physical device", nil
	}
	if strings.Contains(infos[0].Name, "(CPU,") && !o.vulkanCPU {
		return "", fmt.Sprintf("vulkan://0 is a CPU implementation (%s); --vulkan_cpu runs the row there", infos[0].Name), nil
	}
	return infos[0].Name, "", nil
}
