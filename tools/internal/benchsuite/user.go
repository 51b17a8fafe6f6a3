package main

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/cuda"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
)

//go:embed testdata/user_program.cu
var userKernelSource []byte

//go:embed testdata/user_program.glsl
var userShaderSource []byte

//go:embed testdata/user_program_cuda.mlir
var userCUDAProgram []byte

//go:embed testdata/user_program_vulkan.mlir
var userVulkanProgram []byte

//go:embed testdata/torch_user.py
var torchUserScript []byte

// Files of the user-program rows in the work directory.
const (
	userPTXFile          = "gpu/user_program_sm_90.ptx"
	userSPIRVFile        = "gpu/user_program.spv"
	userCUDAModuleFile   = "modules/user_program_cuda.vmfb"
	userVulkanModuleFile = "modules/user_program_vulkan.vmfb"
)

// SPEC §6 targets of the user-program rows.
const (
	userCUDABound   = 0.80 // CUDA bandwidth over the bound (bytes ÷ D2D copy bandwidth)
	userVulkanBound = 0.70 // Vulkan bandwidth over the bound
	userTorchRatio  = 1.0  // CUDA bandwidth over torch eager's
)

// maxCopy bounds the buffers of the user rows' copy (1 GiB, the size of one
// 256M-element binding).
const maxCopy = 1 << 30

// The user's kernel (the export that is not generated code) in the user
// programs: scaled_mul in the PTX, the SPIR-V entry point main.
const (
	userCUDAExport   = "scaled_mul"
	userVulkanExport = "main"
)

// userFunction is the exported function of the user programs, and
// userResult what it returns for inputs 2 and 4: p = 2*4*0.5 + 1 = 5,
// (p + 4) * p = 45.
const (
	userFunction = "user_program"
	userResult   = 45
)

// userBuild holds the user-program modules, or why each is missing.
type userBuild struct {
	cuda, vulkan       []byte
	cudaWhy, vulkanWhy string
}

// buildUser builds the user programs: the user's kernel to PTX with clang
// and the user's shader to SPIR-V with glslc, each compiled into its
// module. A missing tool or a failed build is recorded as the reason the
// rows are skipped.
func (e *env) buildUser(o *options) {
	u := &e.user
	ptx := filepath.Join(e.dir, userPTXFile)
	src := filepath.Join(e.dir, "user_program.cu")
	var err error
	if err = os.WriteFile(src, userKernelSource, 0o644); err != nil {
		u.cudaWhy = "writing user_program.cu: " + err.Error()
	} else if out, err := exec.Command(e.clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch=sm_90", "-O2", "-S", "-Wno-unknown-cuda-version", "-o", ptx, src).CombinedOutput(); err != nil {
		u.cudaWhy = fmt.Sprintf("%s could not build user_program.cu to PTX: %v: %s", filepath.Base(e.clang), err, firstLine(out))
	} else if u.cuda, err = e.compile("user_program_cuda.mlir", userCUDAProgram, filepath.Dir(ptx), e.clang, e.lld); err != nil {
		u.cuda, u.cudaWhy = nil, "compiling user_program_cuda.mlir: "+err.Error()
	} else if err := os.WriteFile(filepath.Join(e.dir, userCUDAModuleFile), u.cuda, 0o644); err != nil {
		u.cudaWhy = "writing the CUDA user-program module: " + err.Error()
	}
	glslc, err := findTool(o.glslc, "glslc")
	if err != nil {
		u.vulkanWhy = "no glslc to build user_program.glsl: " + err.Error()
		return
	}
	spv := filepath.Join(e.dir, userSPIRVFile)
	gsrc := filepath.Join(e.dir, "user_program.glsl")
	if err := os.WriteFile(gsrc, userShaderSource, 0o644); err != nil {
		u.vulkanWhy = "writing user_program.glsl: " + err.Error()
	} else if out, err := exec.Command(glslc, "-fshader-stage=compute", "-o", spv, gsrc).CombinedOutput(); err != nil {
		u.vulkanWhy = fmt.Sprintf("glslc could not build user_program.glsl: %v: %s", err, firstLine(out))
	} else if u.vulkan, err = e.compile("user_program_vulkan.mlir", userVulkanProgram, filepath.Dir(spv), e.clang, e.lld); err != nil {
		u.vulkan, u.vulkanWhy = nil, "compiling user_program_vulkan.mlir: "+err.Error()
	} else if err := os.WriteFile(filepath.Join(e.dir, userVulkanModuleFile), u.vulkan, 0o644); err != nil {
		u.vulkanWhy = "writing the Vulkan user-program module: " + err.Error()
	}
}

// readUser reads the user-program modules of a prebuilt work directory.
func (u *userBuild) read(dir string) {
	var err error
	if u.cuda, err = os.ReadFile(filepath.Join(dir, userCUDAModuleFile)); err != nil {
		u.cudaWhy = "not in the prebuilt work directory: " + err.Error()
	}
	if u.vulkan, err = os.ReadFile(filepath.Join(dir, userVulkanModuleFile)); err != nil {
		u.vulkanWhy = "not in the prebuilt work directory: " + err.Error()
	}
}

// parseSizes reads --user_n: a comma-separated list of element counts.
func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n >= 1<<31 {
			return nil, fmt.Errorf("--user_n=%q: want element counts in [1, 2^31) separated by commas", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// userNames are the row names of one size.
type userNames struct{ cuda, torch, cudaAchievable, vulkan, vulkanAchievable string }

func userRowNames(n int) userNames {
	s := sizeName(n)
	return userNames{
		cuda: "cuda/user-" + s, torch: "cuda/user-" + s + "-torch", cudaAchievable: "cuda/user-" + s + "-achievable",
		vulkan: "vulkan/user-" + s, vulkanAchievable: "vulkan/user-" + s + "-achievable",
	}
}

var (
	userCUDATarget   = fmt.Sprintf("ratio ≥ %.2f (of the copy bound)", userCUDABound)
	userTorchTarget  = fmt.Sprintf("ratio ≥ %.2f (of torch eager)", userTorchRatio)
	userVulkanTarget = fmt.Sprintf("ratio ≥ %.2f (of the copy bound)", userVulkanBound)
	// The achievable-bound rows hold ours to the same fractions of the
	// best any runtime can do with the user's kernel as it is written.
	userCUDAAchievableTarget   = fmt.Sprintf("ratio ≥ %.2f (of the achievable bound)", userCUDABound)
	userVulkanAchievableTarget = fmt.Sprintf("ratio ≥ %.2f (of the achievable bound)", userVulkanBound)
)

// dispatchBytes is what the dispatches of one submission must move: every
// binding of every dispatch read or written once. An in-place binding
// (read and written) is counted once, so the bound is never too loose.
func dispatchBytes(cmds []hal.Command) (bytes int64, dispatches int) {
	for _, c := range cmds {
		if d, ok := c.(*hal.DispatchCommand); ok {
			dispatches++
			for _, b := range d.Bindings {
				bytes += b.Length
			}
		}
	}
	return bytes, dispatches
}

// userMeasure is what one user-program row measured.
type userMeasure struct {
	bytes      int64 // the dispatches' bytes per call
	dispatches int
	times      callTimes
	copyBW     float64 // D2D copy bandwidth in the run (bytes read and written per second, wall)
	copyDevBW  float64 // the same from device times (0 without them)
	argType    hal.MemoryType
	// split separates the user's kernel from the generated dispatches;
	// alone is the device time of the user's kernel launched alone with
	// the program's grid, block and constants (median), and aloneErr why
	// it was not measured.
	split    userSplit
	export   string
	alone    time.Duration
	aloneErr error
}

// userSplit is one call's dispatches split into the user's kernel and the
// code the compiler generated.
type userSplit struct {
	user                *hal.DispatchCommand
	userBytes, genBytes int64
}

// splitUser finds the dispatch of export in cmds (the user's kernel, which
// must occur once) and counts the bytes of the other dispatches.
func splitUser(cmds []hal.Command, export string) (userSplit, error) {
	var sp userSplit
	for _, c := range cmds {
		d, ok := c.(*hal.DispatchCommand)
		if !ok {
			continue
		}
		var bytes int64
		for _, b := range d.Bindings {
			bytes += b.Length
		}
		exports := d.Executable.Exports()
		if d.Ordinal >= 0 && d.Ordinal < len(exports) && exports[d.Ordinal].Name == export {
			if sp.user != nil {
				return sp, fmt.Errorf("one call dispatched %q twice; the achievable bound assumes once", export)
			}
			sp.user, sp.userBytes = d, bytes
			continue
		}
		sp.genBytes += bytes
	}
	if sp.user == nil {
		return sp, fmt.Errorf("one call dispatched no %q", export)
	}
	return sp, nil
}

// aloneFunc runs one dispatch like d over bindings on the device, nothing
// else in its timing, and returns its device time.
type aloneFunc func(d *hal.DispatchCommand, bindings []hal.Binding) (time.Duration, error)

// timeAlone times the user's dispatch alone reps times (after 3 warm-up
// runs) over fresh device-local buffers of its bindings' sizes, filled
// with 2.0f (the call's own transients are released by now), and returns
// the median device time.
func timeAlone(dev hal.Device, d *hal.DispatchCommand, reps int, alone aloneFunc) (time.Duration, error) {
	cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
	if err != nil {
		return 0, err
	}
	if err := cb.Begin(); err != nil {
		return 0, err
	}
	binds := make([]hal.Binding, len(d.Bindings))
	defer func() {
		for _, b := range binds {
			if b.Buffer != nil {
				b.Buffer.Release()
			}
		}
	}()
	for i, r := range d.Bindings {
		size := (r.Length + 3) &^ 3
		buf, err := dev.Allocator().AllocateBuffer(hal.BufferParams{Type: hal.MemoryTypeDeviceLocal}, size)
		if err != nil {
			return 0, fmt.Errorf("binding %d of %d bytes: %w", i, r.Length, err)
		}
		binds[i] = hal.Binding{Ordinal: i, Buffer: buf, Length: r.Length}
		if err := cb.FillBuffer(buf, 0, size, []byte{0, 0, 0, 0x40}); err != nil {
			return 0, err
		}
	}
	if err := cb.End(); err != nil {
		return 0, err
	}
	if err := hal.SubmitAndWait(dev, cb); err != nil {
		return 0, fmt.Errorf("filling the bindings: %w", err)
	}
	var devs []time.Duration
	for i := 0; i < 3+reps; i++ {
		t, err := alone(d, binds)
		if err != nil {
			return 0, err
		}
		if i >= 3 {
			devs = append(devs, t)
		}
	}
	return median(devs), nil
}

// measureUser calls the user program on dev (wrapped in a queueTimer) over
// n f32 the way iree-benchmark-module does (inputs made by functionio on
// the device's allocator, each call's result released), after checking one
// call's result, and times a device-to-device copy on the same device that
// reads and writes as many bytes as the call's dispatches move (at most
// maxCopy each way).
//
// It also splits the call's dispatches into the user's kernel (the
// dispatch of export) and generated code and, with alone set, times the
// user's kernel alone with alone (see timeAlone); a failure there is kept
// in aloneErr.
func measureUser(module []byte, dev hal.Device, devTime func() time.Duration, n, reps int, export string, alone aloneFunc) (userMeasure, error) {
	var m userMeasure
	qt := &queueTimer{Device: dev, capture: true}
	c, err := newCallerOn(qt, module, userFunction, n)
	if err != nil {
		return m, err
	}
	defer c.close()
	c.want = userResult
	if err := c.check(); err != nil {
		return m, err
	}
	qt.capture = false
	m.bytes, m.dispatches = dispatchBytes(qt.last)
	if min := int64(12) * int64(n); m.bytes < min {
		return m, fmt.Errorf("one call recorded %d dispatches moving %d bytes, less than its inputs and result (%d bytes)", m.dispatches, m.bytes, min)
	}
	m.argType = c.argType()
	m.split, m.aloneErr = splitUser(qt.last, export)
	m.export = export
	qt.last = nil
	if _, _, m.times, err = timedCalls(c, reps, devTime); err != nil {
		return m, err
	}
	// The copy moves as many bytes as the call's dispatches (half read,
	// half written), so that the bound is the time of one such copy, up to
	// maxCopy: larger buffers than the row's own are not needed for the
	// bandwidth, and a Vulkan allocation may be limited to 4 GiB.
	size := min(m.bytes/2, maxCopy)
	cw, cd, err := copyCalls(dev, devTime, size, reps)
	if err != nil {
		return m, fmt.Errorf("D2D copy of %d bytes: %w", size, err)
	}
	m.copyBW = float64(2*size) / median(cw).Seconds()
	if devTime != nil {
		m.copyDevBW = float64(2*size) / median(cd).Seconds()
	}
	switch {
	case alone == nil:
		if m.aloneErr == nil {
			m.aloneErr = fmt.Errorf("no device timing to time the user's kernel alone")
		}
	case m.aloneErr == nil:
		m.alone, m.aloneErr = timeAlone(dev, m.split.user, reps, alone)
	}
	return m, nil
}

// achievableRow judges a measured call against the achievable bound: the
// user's kernel alone (its device time, launched with the program's grid,
// block and constants and nothing else) plus the generated dispatches'
// bytes ÷ the copy bandwidth. No runtime can run the user's kernel faster
// than the kernel runs alone, so this is the best the program can do as
// the user wrote it; the copy bound also assumes the user's kernel moves
// its bytes at copy speed, which a one-element-per-thread kernel in small
// blocks does not.
func achievableRow(name, target string, min float64, m userMeasure, bw float64, how string) row {
	if m.aloneErr != nil {
		return skipped(name, target, "the user's kernel alone was not timed: "+m.aloneErr.Error())
	}
	gen := time.Duration(float64(m.split.genBytes) / bw * 1e9)
	bound := m.alone + gen
	r := row{
		name:   name,
		ours:   fmt.Sprintf("%.2f GB/s (%s)", gbps(m.bytes, m.times.wall), fmtDur(m.times.wall)),
		ref:    fmt.Sprintf("%s bound (user's kernel alone %s + generated %s)", fmtDur(bound), fmtDur(m.alone), fmtDur(gen)),
		ratio:  float64(bound) / float64(max(m.times.wall, 1)),
		target: target,
	}
	r.met = r.ratio >= min
	userAtCopy := time.Duration(float64(m.split.userBytes) / bw * 1e9)
	r.note = fmt.Sprintf("achievable bound: the user's kernel %s alone (%s; median of its device times) plus the generated dispatches' %d bytes at the copy bound's %.0f GB/s; "+
		"%s alone takes %.2f× the %s its %d bytes need at that bandwidth (the copy bound's premise)",
		m.export, how, m.split.genBytes, bw/1e9, m.export, float64(m.alone)/float64(max(userAtCopy, 1)), fmtDur(userAtCopy), m.split.userBytes)
	if best := float64(m.bytes) / bw * 1e9 / float64(max(bound, 1)); best < 0.95 {
		r.note += fmt.Sprintf(", so with this kernel the copy bound cannot be reached whatever the runtime does: at best %.3f of it", best)
	}
	if m.times.device > 0 {
		r.note += fmt.Sprintf("; by device time ours is %s, %.3f of the achievable bound", fmtDur(m.times.device), float64(bound)/float64(m.times.device))
	}
	return r
}

// copyBoundWhy explains, in a copy-bound row's note, what bounds the user
// program when the user's kernel alone was timed.
func copyBoundWhy(m userMeasure, bw float64) string {
	if m.aloneErr != nil {
		return "; the user's kernel alone was not timed: " + m.aloneErr.Error()
	}
	bound := m.alone + time.Duration(float64(m.split.genBytes)/bw*1e9)
	best := float64(m.bytes) / bw * 1e9 / float64(max(bound, 1))
	s := fmt.Sprintf("; the user's kernel alone takes %s (its %d bytes at the copy bandwidth would take %s); the achievable bound (see the -achievable row) is %s, %.3f of the copy bound",
		fmtDur(m.alone), m.split.userBytes, fmtDur(time.Duration(float64(m.split.userBytes)/bw*1e9)), fmtDur(bound), best)
	if best < 0.95 {
		s += ": the copy bound is out of reach of the user's kernel as written, whatever the runtime does"
	}
	return s
}

// boundRow judges a measured call against the bandwidth bound: the
// dispatches' bytes ÷ the copy bandwidth.
func boundRow(name, target string, min float64, m userMeasure, bw float64, refName string) row {
	bound := time.Duration(float64(m.bytes) / bw * 1e9)
	r := row{
		name:   name,
		ours:   fmt.Sprintf("%.2f GB/s (%s)", gbps(m.bytes, m.times.wall), fmtDur(m.times.wall)),
		ref:    fmt.Sprintf("%s bound (%.0f GB/s %s)", fmtDur(bound), bw/1e9, refName),
		ratio:  float64(bound) / float64(max(m.times.wall, 1)),
		target: target,
	}
	r.met = r.ratio >= min
	return r
}

// userRows measures the user-program rows the filter asks for, at each
// --user_n size: CUDA against the copy bound and torch eager, Vulkan
// against the copy bound (the faster of its own vkCmdCopyBuffer and the
// CUDA D2D copy of the same GPU in this run).
func userRows(e *env, o *options, want func(string) bool, cudaWhy string, log io.Writer) []row {
	sizes, err := parseSizes(o.userN)
	if err != nil {
		return []row{failed("user", "-", err)}
	}
	reps := gpuReps(o)
	if cudaWhy == "" {
		cudaWhy = e.user.cudaWhy
	}
	var rows []row
	cudaCopy := map[int]float64{} // D2D copy bandwidth per size, for the Vulkan bound
	var torchSizes []int
	cudaRow := map[int]int{} // index of each size's CUDA row in rows
	// wallBytes holds our median wall time and bytes per size, for the torch rows.
	wallBytes := map[int]struct {
		wall  time.Duration
		bytes int64
	}{}
	for _, n := range sizes {
		nm := userRowNames(n)
		wantCUDA := want(nm.cuda) || want(nm.torch) || want(nm.cudaAchievable)
		if !wantCUDA && !want(nm.vulkan) && !want(nm.vulkanAchievable) {
			continue
		}
		if cudaWhy != "" {
			if wantCUDA {
				rows = append(rows, skipped(nm.cuda, userCUDATarget, cudaWhy), skipped(nm.torch, userTorchTarget, cudaWhy),
					skipped(nm.cudaAchievable, userCUDAAchievableTarget, cudaWhy))
			}
			continue
		}
		fmt.Fprintf(log, "%s: the user's scalar kernel and generated code over %d f32 × %d calls ...\n", nm.cuda, n, reps)
		m, err := func() (userMeasure, error) {
			dev, err := cuda.NewDevice(0)
			if err != nil {
				return userMeasure{}, err
			}
			if err := dev.SetTiming(true); err != nil {
				dev.Close()
				return userMeasure{}, err
			}
			// The user's kernel alone: one raw cuLaunchKernel between two
			// CUDA events, with the program's grid, block and constants.
			alone := func(d *hal.DispatchCommand, binds []hal.Binding) (time.Duration, error) {
				_, t, err := dev.RawLaunchTimed(d.Executable, d.Ordinal, d.Workgroups, d.Constants, binds, 1)
				return t, err
			}
			return measureUser(e.user.cuda, dev, dev.LastDeviceTime, n, reps, userCUDAExport, alone)
		}()
		if err != nil {
			fmt.Fprintf(log, "%s: failed: %v\n", nm.cuda, err)
			if wantCUDA {
				rows = append(rows, failed(nm.cuda, userCUDATarget, err))
			}
			continue
		}
		cudaCopy[n] = m.copyBW
		if !wantCUDA {
			continue
		}
		r := boundRow(nm.cuda, userCUDATarget, userCUDABound, m, m.copyBW, "D2D copy, cuMemcpyDtoD")
		r.note = fmt.Sprintf("user_program.cu (scalar, 64 threads a block, 3 push constants) then a generated dispatch for (p + rhs) * p: %d dispatches moving %d bytes a call; "+
			"wall per call through the whole stack (VM → hal module → cuda, inputs %v made as iree-benchmark-module makes them), median of %d after %d warm-up calls; "+
			"device time (CUDA events) %.0f GB/s, copy %.0f GB/s device, %.0f GB/s wall (ratio by device times %.3f); %s",
			m.dispatches, m.bytes, m.argType, reps, len(m.times.warmup),
			gbps(m.bytes, m.times.device), m.copyDevBW/1e9, m.copyBW/1e9, float64(m.bytes)*1e9/max(m.copyDevBW*float64(m.times.device), 1), m.times.breakdown())
		r.note += copyBoundWhy(m, m.copyBW)
		cudaRow[n] = len(rows)
		wallBytes[n] = struct {
			wall  time.Duration
			bytes int64
		}{m.times.wall, m.bytes}
		rows = append(rows, r)
		torchSizes = append(torchSizes, n)
		rows = append(rows, row{name: nm.torch, ours: fmt.Sprintf("%.2f GB/s (%s)", gbps(m.bytes, m.times.wall), fmtDur(m.times.wall)), ratio: nan(), target: userTorchTarget})
		rows = append(rows, achievableRow(nm.cudaAchievable, userCUDAAchievableTarget, userCUDABound, m, m.copyBW,
			"one raw cuLaunchKernel between two CUDA events, the program's grid, block and constants"))
	}
	if len(torchSizes) > 0 {
		fmt.Fprintf(log, "cuda/user-*-torch: torch eager at %v f32 ...\n", torchSizes)
		trs, terr := runTorchUser(e, o, torchSizes, reps)
		for _, n := range torchSizes {
			i := cudaRow[n] + 1
			r := &rows[i]
			if terr != nil {
				r.ref, r.skip = "torch absent", "torch eager not measured: "+terr.Error()
				continue
			}
			tr, ok := trs[n]
			if !ok {
				r.ref, r.skip = "-", fmt.Sprintf("torch_user.py printed no line for %d elements", n)
				continue
			}
			kern := ""
			if tr.kernels > 0 {
				kern = fmt.Sprintf(", %d kernels", tr.kernels)
			}
			r.ref = fmt.Sprintf("%.2f GB/s (%s, torch eager%s)", gbps(wallBytes[n].bytes, tr.wall), fmtDur(tr.wall), kern)
			r.ratio = float64(tr.wall) / float64(max(wallBytes[n].wall, 1))
			r.met = r.ratio >= userTorchRatio
			r.note = fmt.Sprintf("torch %s on %s, p = x * y * 0.5 + 1; r = (p + y) * p in eager mode, timed like ours (call, synchronize; median of %d); device time %s",
				tr.version, tr.device, reps, fmtDur(tr.dev))
		}
	}
	for _, n := range sizes {
		nm := userRowNames(n)
		if want(nm.vulkan) || want(nm.vulkanAchievable) {
			rows = append(rows, userVulkanRows(e, o, nm, n, reps, cudaCopy[n], log)...)
		}
	}
	return rows
}

// userVulkanRows measures the Vulkan user program over n f32 on Vulkan
// device 0 against the copy bound: the faster of vkCmdCopyBuffer on the
// same device and the CUDA D2D copy of this run (cudaCopy, 0 when not
// measured). On the H200 vkCmdCopyBuffer runs at about 850 GB/s (a copy
// engine, gpu/bench.md), which would make a loose bound; the CUDA copy of
// the same GPU keeps it honest. The second row holds the program to the
// achievable bound: the user's shader alone (one vkCmdDispatch between
// two timestamps) plus the generated dispatch's bytes at that bandwidth.
func userVulkanRows(e *env, o *options, nm userNames, n, reps int, cudaCopy float64, log io.Writer) []row {
	name := nm.vulkan
	both := func(r row, why string) []row {
		if why != "" {
			return []row{r, skipped(nm.vulkanAchievable, userVulkanAchievableTarget, why)}
		}
		return []row{r, skipped(nm.vulkanAchievable, userVulkanAchievableTarget, "not measured: "+name+" failed")}
	}
	skip := func(why string) []row { return both(skipped(name, userVulkanTarget, why), why) }
	if e.user.vulkanWhy != "" {
		return skip(e.user.vulkanWhy)
	}
	devName, why, err := vulkanDevice0(o)
	switch {
	case err != nil:
		return both(failed(name, userVulkanTarget, err), "")
	case why != "":
		return skip(why)
	}
	fmt.Fprintf(log, "%s: the user's scalar shader and generated code over %d f32 × %d calls on %s ...\n", name, n, reps, devName)
	dev, err := vulkan.NewDevice(0)
	if err != nil {
		return both(failed(name, userVulkanTarget, err), "")
	}
	var devTime func() time.Duration
	var alone aloneFunc
	if dev.SetTiming(true) == nil {
		devTime = dev.LastDeviceTime
		// The user's shader alone: one vkCmdDispatch in a command buffer
		// of its own, between the submission's two timestamps.
		alone = func(d *hal.DispatchCommand, binds []hal.Binding) (time.Duration, error) {
			cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
			if err != nil {
				return 0, err
			}
			if err := cb.Begin(); err != nil {
				return 0, err
			}
			if err := cb.DispatchWith(d.Executable, d.Ordinal, d.Workgroups, d.Constants, binds); err != nil {
				return 0, err
			}
			if err := cb.End(); err != nil {
				return 0, err
			}
			if err := hal.SubmitAndWait(dev, cb); err != nil {
				return 0, err
			}
			return dev.LastDeviceTime(), nil
		}
	}
	queue := dev.QueueFamily()
	m, err := measureUser(e.user.vulkan, dev, devTime, n, reps, userVulkanExport, alone)
	if err != nil {
		return both(failed(name, userVulkanTarget, err), "")
	}
	bw, refName := m.copyBW, "vkCmdCopyBuffer"
	if cudaCopy > bw {
		bw, refName = cudaCopy, "D2D copy, cuMemcpyDtoD on the same GPU"
	}
	r := boundRow(name, userVulkanTarget, userVulkanBound, m, bw, refName)
	r.note = fmt.Sprintf("user_program.glsl (scalar, 64 invocations a workgroup, 3 push constants) then a generated dispatch for (p + rhs) * p: %d dispatches moving %d bytes a call; "+
		"wall per call through the whole stack (VM → hal module → vulkan, inputs %v made as iree-benchmark-module makes them), median of %d after %d warm-up calls, queue %s; "+
		"copies: vkCmdCopyBuffer %.0f GB/s wall, %s",
		m.dispatches, m.bytes, m.argType, reps, len(m.times.warmup), queue, m.copyBW/1e9, cudaCopyText(cudaCopy))
	if devTime != nil {
		r.note += fmt.Sprintf("; device time (timestamps) %.0f GB/s, vkCmdCopyBuffer %.0f GB/s device", gbps(m.bytes, m.times.device), m.copyDevBW/1e9)
	}
	r.note += "; " + m.times.breakdown() + copyBoundWhy(m, bw)
	return []row{r, achievableRow(nm.vulkanAchievable, userVulkanAchievableTarget, userVulkanBound, m, bw,
		"one vkCmdDispatch between two timestamps, the program's workgroup count and push constants")}
}

// torchUser is what testdata/torch_user.py reports for one size.
type torchUser struct {
	wall, dev       time.Duration
	kernels         int
	device, version string
}

// runTorchUser runs testdata/torch_user.py with --python over the sizes, or
// says why torch is not there.
func runTorchUser(e *env, o *options, sizes []int, reps int) (map[int]torchUser, error) {
	python, err := exec.LookPath(o.python)
	if err != nil {
		return nil, fmt.Errorf("no %s: %w", o.python, err)
	}
	out, err := exec.Command(python, "-c", "import torch; print(torch.__version__)").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%s cannot import torch: %s", o.python, lastLine(out))
	}
	version := lastLine(out)
	script := filepath.Join(e.dir, "torch_user.py")
	if err := os.WriteFile(script, torchUserScript, 0o644); err != nil {
		return nil, fmt.Errorf("writing torch_user.py: %w", err)
	}
	args := []string{script, strconv.Itoa(reps)}
	for _, n := range sizes {
		args = append(args, strconv.Itoa(n))
	}
	out, err = exec.Command(python, args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("torch_user.py: %v: %s", err, lastLine(out))
	}
	return parseTorchUser(version, string(out))
}

// parseTorchUser reads torch_user.py's lines "torch_user n=<n> wall_s=<s>
// dev_s=<s> kernels=<k> device=<name>"; other lines are ignored.
func parseTorchUser(version, out string) (map[int]torchUser, error) {
	res := map[int]torchUser{}
	for _, line := range strings.Split(out, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "torch_user ")
		if !ok {
			continue
		}
		rest, device, ok := strings.Cut(rest, " device=")
		if !ok || device == "" {
			return nil, fmt.Errorf("torch_user.py printed no device: %q", line)
		}
		tu := torchUser{device: device, version: version}
		n, seen := 0, 0
		for _, f := range strings.Fields(rest) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "n", "kernels":
				x, err := strconv.Atoi(v)
				if err != nil || x < 0 || (k == "n" && x == 0) {
					return nil, fmt.Errorf("torch_user.py printed %q", line)
				}
				if k == "n" {
					n = x
				} else {
					tu.kernels = x
				}
			case "wall_s", "dev_s":
				s, err := strconv.ParseFloat(v, 64)
				if err != nil || s <= 0 {
					return nil, fmt.Errorf("torch_user.py printed %q", line)
				}
				if k == "wall_s" {
					tu.wall = time.Duration(s * 1e9)
				} else {
					tu.dev = time.Duration(s * 1e9)
				}
			default:
				return nil, fmt.Errorf("torch_user.py printed %q", line)
			}
			seen++
		}
		if seen != 4 {
			return nil, fmt.Errorf("torch_user.py printed %q", line)
		}
		res[n] = tu
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("torch_user.py printed no result: %q", lastLine([]byte(out)))
	}
	return res, nil
}

// cudaCopyText describes the CUDA copy bandwidth a Vulkan row was offered.
func cudaCopyText(bw float64) string {
	if bw <= 0 {
		return "cuMemcpyDtoD not measured in this run (no CUDA row at this size)"
	}
	return fmt.Sprintf("cuMemcpyDtoD %.0f GB/s wall", bw/1e9)
}
