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

	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/cuda"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
)

// The gpu-codegen rows time programs whose every kernel the compiler
// generates (linalg ops, no user kernel), written as users write them,
// compiled for cuda and vulkan-spirv and called through the whole stack
// (VM → hal module → driver) the way iree-benchmark-module calls them,
// with each call's device time (CUDA events, Vulkan timestamps) beside its
// wall time:
//
//   - matmul-<n>: linalg.matmul of two n x n f32 onto a zero fill
//     (--gpu_matmul_n, 4096), against torch.matmul with TF32 off;
//     target ≥ 0.5 of torch.
//   - matmul-f16-<n>: the same with f16 operands accumulated into f32,
//     against torch.matmul in f16 (cuBLAS on tensor cores); target ≥ 0.3.
//     A vulkan-only row, matmul-f16-nv2-<n>, runs it compiled with
//     --iree-vulkan-cooperative-matrix=nv2 against the same cuda row.
//   - softmax-<n>: linalg.softmax along the rows of n x n f32
//     (--gpu_softmax_n, 8192), against torch.softmax; target ≥ 0.8.
//   - dense-<n>: a dense layer, matmul then a bias broadcast and relu in a
//     linalg.generic, against torch.relu(a @ b + bias); target ≥ 0.5.
//
// The cuda rows' reference is torch on the same GPU in the same run
// (testdata/torch_codegen.py); each vulkan row's is the cuda row of the
// same program (target ≥ 0.7), compiled for the GPU the rows run on
// (--gpu_vulkan_target, default h200: the benchmark machine's, whose
// Vulkan limits let the matmuls take cuda's 256-thread 128 x 128 blocks). Inputs are all ones, so every element of
// a correct result is known exactly; one call is checked before timing.

//go:embed testdata/torch_codegen.py
var torchCodegenScript []byte

// codegenProgram is one program of the gpu-codegen rows.
type codegenProgram struct {
	figure string // matmul, matmul-f16, softmax, dense (the torch figure)
	fn     string
	src    string
	inputs []string
	want   float32 // every element of the result
	minTo  float64 // target ratio of torch
	// flops is the arithmetic of one call (0: a bandwidth row), bytes
	// the least traffic of one call (inputs read once, result written
	// once).
	flops, bytes int64
	// vulkanCoop, when set, makes a vulkan-only row of the program
	// compiled with --iree-vulkan-cooperative-matrix=vulkanCoop, whose
	// reference is the cuda row of figure cudaOf.
	vulkanCoop, cudaOf string
}

func codegenPrograms(mn, sn int) []codegenProgram {
	m, s := strconv.Itoa(mn), strconv.Itoa(sn)
	mat := func(elem string) string { return "tensor<" + m + "x" + m + "x" + elem + ">" }
	t32, t16 := mat("f32"), mat("f16")
	matmul := func(in, fn string) string {
		return "func.func @" + fn + "(%a: " + in + ", %b: " + in + ") -> " + t32 + " {\n" +
			"  %z = arith.constant 0.0 : f32\n" +
			"  %e = tensor.empty() : " + t32 + "\n" +
			"  %f = linalg.fill ins(%z : f32) outs(%e : " + t32 + ") -> " + t32 + "\n" +
			"  %r = linalg.matmul ins(%a, %b : " + in + ", " + in + ") outs(%f : " + t32 + ") -> " + t32 + "\n" +
			"  return %r : " + t32 + "\n}\n"
	}
	dense := "#rows = affine_map<(i, j) -> (i, j)>\n#bias = affine_map<(i, j) -> (j)>\n" +
		"func.func @dense(%x: " + t32 + ", %w: " + t32 + ", %b: tensor<" + m + "xf32>) -> " + t32 + " {\n" +
		"  %zero = arith.constant 0.0 : f32\n" +
		"  %empty = tensor.empty() : " + t32 + "\n" +
		"  %init = linalg.fill ins(%zero : f32) outs(%empty : " + t32 + ") -> " + t32 + "\n" +
		"  %mm = linalg.matmul ins(%x, %w : " + t32 + ", " + t32 + ") outs(%init : " + t32 + ") -> " + t32 + "\n" +
		"  %y = linalg.generic {indexing_maps = [#rows, #bias, #rows], iterator_types = [\"parallel\", \"parallel\"]}\n" +
		"      ins(%mm, %b : " + t32 + ", tensor<" + m + "xf32>) outs(%empty : " + t32 + ") {\n" +
		"  ^bb0(%v: f32, %bv: f32, %o: f32):\n" +
		"    %s = arith.addf %v, %bv : f32\n" +
		"    %r = arith.maximumf %s, %zero : f32\n" +
		"    linalg.yield %r : f32\n" +
		"  } -> " + t32 + "\n" +
		"  return %y : " + t32 + "\n}\n"
	ts := "tensor<" + s + "x" + s + "xf32>"
	softmax := "func.func @softmax(%x: " + ts + ") -> " + ts + " {\n" +
		"  %e = tensor.empty() : " + ts + "\n" +
		"  %r = linalg.softmax dimension(1) ins(%x : " + ts + ") outs(%e : " + ts + ") -> " + ts + "\n" +
		"  return %r : " + ts + "\n}\n"
	mm, nn := int64(mn), int64(sn)
	ones := func(t string) string { return strings.TrimSuffix(strings.TrimPrefix(t, "tensor<"), ">") + "=1" }
	return []codegenProgram{
		{figure: "matmul", fn: "matmul", src: matmul(t32, "matmul"), inputs: []string{ones(t32), ones(t32)}, want: float32(mn), minTo: 0.5, flops: 2 * mm * mm * mm, bytes: 12 * mm * mm},
		{figure: "matmul-f16", fn: "matmul_f16", src: matmul(t16, "matmul_f16"), inputs: []string{ones(t16), ones(t16)}, want: float32(mn), minTo: 0.3, flops: 2 * mm * mm * mm, bytes: 8 * mm * mm},
		// The same on VK_NV_cooperative_matrix2's workgroup-scope
		// matrices, where the driver offers them (NVIDIA's).
		{figure: "matmul-f16-nv2", fn: "matmul_f16", src: matmul(t16, "matmul_f16"), inputs: []string{ones(t16), ones(t16)}, want: float32(mn), flops: 2 * mm * mm * mm, bytes: 8 * mm * mm,
			vulkanCoop: "nv2", cudaOf: "matmul-f16"},
		{figure: "softmax", fn: "softmax", src: softmax, inputs: []string{ones(ts)}, want: 1 / float32(sn), minTo: 0.8, bytes: 8 * nn * nn},
		{figure: "dense", fn: "dense", src: dense, inputs: []string{ones(t32), ones(t32), m + "xf32=1"}, want: float32(mn + 1), minTo: 0.5, flops: 2*mm*mm*mm + 2*mm*mm, bytes: 12*mm*mm + 4*mm},
	}
}

// cudaFigure is the figure of the cuda row a program's vulkan row is
// compared with: cudaOf where set, else its own.
func (p codegenProgram) cudaFigure() string {
	if p.cudaOf != "" {
		return p.cudaOf
	}
	return p.figure
}

// size names the program's problem size in row names.
func (p codegenProgram) size(mn, sn int) int {
	if p.figure == "softmax" {
		return sn
	}
	return mn
}

// Backends of the gpu-codegen rows, by row prefix.
var codegenBackends = []struct{ prefix, backend string }{{"cuda", "cuda"}, {"vulkan", "vulkan-spirv"}}

// codegenFile is a compiled program's file in the work directory.
func codegenFile(figure, backend string) string {
	return filepath.Join("modules", "codegen_"+figure+"_"+backend+".vmfb")
}

// codegenBuild holds the compiled gpu-codegen modules, or why each is
// missing, by codegenFile.
type codegenBuild struct {
	modules map[string][]byte
	why     map[string]string
}

// buildCodegen compiles every gpu-codegen program for both GPU targets
// (no GPU is needed to compile); a failure is kept as the row's reason.
func (e *env) buildCodegen(o *options) {
	e.codegen = codegenBuild{modules: map[string][]byte{}, why: map[string]string{}}
	for _, p := range codegenPrograms(o.gpuMatmulN, o.gpuSoftmaxN) {
		for _, b := range codegenBackends {
			if p.vulkanCoop != "" && b.backend != "vulkan-spirv" {
				continue
			}
			file := codegenFile(p.figure, b.backend)
			opts := pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{b.backend}}}
			if b.backend == "vulkan-spirv" {
				opts.TargetFlags = map[string]string{"iree-vulkan-target": o.gpuVulkanTarget}
				if p.vulkanCoop != "" {
					opts.TargetFlags["iree-vulkan-cooperative-matrix"] = p.vulkanCoop
				}
			}
			s, err := pipeline.Compile(p.figure+".mlir", []byte(p.src), opts, "end")
			if err != nil {
				e.codegen.why[file] = fmt.Sprintf("compiling %s for %s: %v", p.figure, b.backend, firstLineOf(err.Error()))
				continue
			}
			if err := os.WriteFile(filepath.Join(e.dir, file), s.Output, 0o644); err != nil {
				e.codegen.why[file] = "writing " + file + ": " + err.Error()
				continue
			}
			e.codegen.modules[file] = s.Output
		}
	}
}

// readCodegen reads the gpu-codegen modules of a prebuilt work directory.
func (e *env) readCodegen(o *options) {
	e.codegen = codegenBuild{modules: map[string][]byte{}, why: map[string]string{}}
	for _, p := range codegenPrograms(o.gpuMatmulN, o.gpuSoftmaxN) {
		for _, b := range codegenBackends {
			file := codegenFile(p.figure, b.backend)
			m, err := os.ReadFile(filepath.Join(e.dir, file))
			if err != nil {
				e.codegen.why[file] = "not in the prebuilt work directory (the build could not compile it, or an older build): " + err.Error()
				continue
			}
			e.codegen.modules[file] = m
		}
	}
}

// firstLineOf returns the first line of a multi-line message.
func firstLineOf(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// torchFigure is one figure of torch_codegen.py.
type torchFigure struct{ wall, dev time.Duration }

// runTorchCodegen runs testdata/torch_codegen.py and returns its figures
// and the device name, or why torch is not there.
func runTorchCodegen(e *env, o *options, reps int) (map[string]torchFigure, string, error) {
	python, err := exec.LookPath(o.python)
	if err != nil {
		return nil, "", fmt.Errorf("no %s: %w", o.python, err)
	}
	script := filepath.Join(e.dir, "torch_codegen.py")
	if err := os.WriteFile(script, torchCodegenScript, 0o644); err != nil {
		return nil, "", fmt.Errorf("writing torch_codegen.py: %w", err)
	}
	out, err := exec.Command(python, script, strconv.Itoa(o.gpuMatmulN), strconv.Itoa(o.gpuSoftmaxN), strconv.Itoa(reps)).CombinedOutput()
	if err != nil {
		return nil, "", fmt.Errorf("torch_codegen.py: %v: %s", err, lastLine(out))
	}
	return parseTorchCodegen(string(out))
}

// parseTorchCodegen reads torch_codegen.py's output.
func parseTorchCodegen(out string) (map[string]torchFigure, string, error) {
	figs := map[string]torchFigure{}
	device := ""
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		l = strings.TrimSpace(l)
		if d, ok := strings.CutPrefix(l, "device="); ok {
			device = d
			continue
		}
		f := strings.Fields(l)
		if len(f) != 3 || !strings.HasPrefix(f[0], "figure=") {
			continue // torch's own warnings
		}
		var tf torchFigure
		for _, kv := range f[1:] {
			k, v, _ := strings.Cut(kv, "=")
			s, err := strconv.ParseFloat(v, 64)
			if err != nil || s <= 0 {
				return nil, "", fmt.Errorf("torch_codegen.py printed %q", l)
			}
			switch k {
			case "wall_s":
				tf.wall = time.Duration(s * 1e9)
			case "dev_s":
				tf.dev = time.Duration(s * 1e9)
			default:
				return nil, "", fmt.Errorf("torch_codegen.py printed %q", l)
			}
		}
		if tf.wall == 0 || tf.dev == 0 {
			return nil, "", fmt.Errorf("torch_codegen.py printed %q", l)
		}
		figs[strings.TrimPrefix(f[0], "figure=")] = tf
	}
	if device == "" || len(figs) == 0 {
		return nil, "", fmt.Errorf("torch_codegen.py printed no figures: %q", lastLine([]byte(out)))
	}
	return figs, device, nil
}

// codegenMeasure is what one program measured on one device.
type codegenMeasure struct {
	times      callTimes
	dispatches int
	device     string
}

// rate describes a time as the program's throughput.
func (p codegenProgram) rate(d time.Duration) string {
	if p.flops > 0 {
		f := float64(p.flops) / d.Seconds()
		if f < 1e12 {
			return fmt.Sprintf("%.3g GFLOP/s", f/1e9)
		}
		return fmt.Sprintf("%.3g TFLOP/s", f/1e12)
	}
	return fmt.Sprintf("%.3g GB/s", gbps(p.bytes, d))
}

// measureCodegen checks one call of the program on dev and times reps
// calls with device times from devTime (nil: none).
func measureCodegen(p codegenProgram, module []byte, dev hal.Device, devTime func() time.Duration, reps int) (codegenMeasure, error) {
	var m codegenMeasure
	qt := &queueTimer{Device: dev, capture: true}
	c, err := newCallerInputs(qt, module, p.fn, p.inputs)
	if err != nil {
		return m, err
	}
	defer c.close()
	c.want, c.tol = p.want, 1e-5
	if err := c.check(); err != nil {
		return m, err
	}
	qt.capture = false
	_, m.dispatches = dispatchBytes(qt.last)
	qt.last = nil
	if _, _, m.times, err = timedCalls(c, reps, devTime); err != nil {
		return m, err
	}
	return m, nil
}

// codegenRows measures every gpu-codegen program on cuda and then on
// vulkan.
func codegenRows(e *env, o *options, want func(string) bool, log io.Writer) []row {
	progs := codegenPrograms(o.gpuMatmulN, o.gpuSoftmaxN)
	type names struct{ cuda, vulkan string }
	nm := make([]names, len(progs))
	anyCUDA, anyVulkan := false, false
	for i, p := range progs {
		s := strconv.Itoa(p.size(o.gpuMatmulN, o.gpuSoftmaxN))
		nm[i] = names{"cuda/codegen-" + p.cudaFigure() + "-" + s, "vulkan/codegen-" + p.figure + "-" + s}
		anyCUDA = anyCUDA || want(nm[i].cuda) || want(nm[i].vulkan)
		anyVulkan = anyVulkan || want(nm[i].vulkan)
	}
	if !anyCUDA && !anyVulkan {
		return nil
	}
	reps := gpuReps(o)
	cudaWhy := ""
	if err := cuda.Available(); err != nil {
		cudaWhy = "no CUDA device: " + reason(err)
	}
	var torch map[string]torchFigure
	var torchDevice string
	var torchErr error
	if cudaWhy == "" {
		fmt.Fprintf(log, "gpu-codegen: torch references (matmul %d, softmax %d) ...\n", o.gpuMatmulN, o.gpuSoftmaxN)
		torch, torchDevice, torchErr = runTorchCodegen(e, o, reps)
	}
	cudaTimes := map[string]time.Duration{} // by figure
	var rows []row
	for i, p := range progs {
		if p.vulkanCoop != "" {
			continue
		}
		name := nm[i].cuda
		target := fmt.Sprintf("ratio ≥ %.2f (of torch)", p.minTo)
		file := codegenFile(p.figure, "cuda")
		// The row is measured when it or a vulkan row it is the
		// reference of is wanted.
		needed := want(name)
		for j, q := range progs {
			needed = needed || q.cudaFigure() == p.figure && want(nm[j].vulkan)
		}
		if !needed {
			continue
		}
		var r row
		switch {
		case e.codegen.why[file] != "":
			r = skipped(name, target, e.codegen.why[file])
		case cudaWhy != "":
			r = skipped(name, target, cudaWhy)
		default:
			fmt.Fprintf(log, "%s: %d calls ...\n", name, reps)
			r = cudaCodegenRow(p, name, target, e.codegen.modules[file], reps, torch, torchDevice, torchErr)
			cudaTimes[p.figure] = r.oursTime
		}
		if want(name) {
			rows = append(rows, r)
		}
	}
	for i, p := range progs {
		name := nm[i].vulkan
		if !want(name) {
			continue
		}
		target := fmt.Sprintf("ratio ≥ %.2f (of our cuda)", 0.7)
		file := codegenFile(p.figure, "vulkan-spirv")
		if why := e.codegen.why[file]; why != "" {
			rows = append(rows, skipped(name, target, why))
			continue
		}
		rows = append(rows, vulkanCodegenRow(o, p, name, target, e.codegen.modules[file], reps, cudaTimes[p.cudaFigure()], log))
	}
	return rows
}

func cudaCodegenRow(p codegenProgram, name, target string, module []byte, reps int, torch map[string]torchFigure, torchDevice string, torchErr error) row {
	dev, err := cuda.NewDevice(0)
	if err != nil {
		return failed(name, target, err)
	}
	if err := dev.SetTiming(true); err != nil {
		dev.Close()
		return failed(name, target, err)
	}
	m, err := measureCodegen(p, module, dev, dev.LastDeviceTime, reps)
	if err != nil {
		return failed(name, target, err)
	}
	w, d := m.times.wall, m.times.device
	r := row{name: name, ours: fmt.Sprintf("%s (%s)", fmtDur(w), p.rate(w)), target: target, oursTime: w}
	how := fmt.Sprintf("%d dispatches a call; wall per call median of %d; device time (CUDA events) %s (%s); %s", m.dispatches, reps, fmtDur(d), p.rate(d), m.times.breakdown())
	tf, ok := torch[p.figure]
	switch {
	case torchErr != nil:
		r.ref, r.ratio, r.skip, r.note = "torch absent", nan(), "torch not measured: "+torchErr.Error(), how
		return r
	case !ok:
		r.ref, r.ratio, r.skip, r.note = "torch absent", nan(), "torch_codegen.py printed no "+p.figure+" figure", how
		return r
	}
	r.ref = fmt.Sprintf("%s (%s, torch)", fmtDur(tf.wall), p.rate(tf.wall))
	r.ratio = float64(tf.wall) / float64(w)
	r.met = r.ratio >= p.minTo
	r.note = fmt.Sprintf("%s; torch on %s, TF32 off, timed like ours: device time %s, ratio by device times %.3f", how, torchDevice, fmtDur(tf.dev), float64(tf.dev)/float64(max(d, 1)))
	return r
}

func vulkanCodegenRow(o *options, p codegenProgram, name, target string, module []byte, reps int, cudaWall time.Duration, log io.Writer) row {
	devName, skip, err := vulkanDevice0(o)
	switch {
	case err != nil:
		return failed(name, target, err)
	case skip != "":
		return skipped(name, target, skip)
	}
	fmt.Fprintf(log, "%s: %d calls on %s ...\n", name, reps, devName)
	dev, err := vulkan.NewDevice(0)
	if err != nil {
		return failed(name, target, err)
	}
	var devTime func() time.Duration
	if dev.SetTiming(true) == nil {
		devTime = dev.LastDeviceTime
	}
	m, err := measureCodegen(p, module, dev, devTime, reps)
	if err != nil {
		return failed(name, target, err)
	}
	w := m.times.wall
	r := row{name: name, ours: fmt.Sprintf("%s (%s)", fmtDur(w), p.rate(w)), target: target, oursTime: w}
	r.note = fmt.Sprintf("%d dispatches a call on %s; wall per call median of %d", m.dispatches, devName, reps)
	if m.times.device > 0 {
		r.note += fmt.Sprintf("; device time (timestamps) %s (%s)", fmtDur(m.times.device), p.rate(m.times.device))
	}
	r.note += "; " + m.times.breakdown()
	if cudaWall == 0 {
		r.ref, r.ratio, r.skip = "-", nan(), "no cuda figure of this program in the run to compare with"
		return r
	}
	r.ref = fmt.Sprintf("%s (our cuda)", fmtDur(cudaWall))
	r.ratio = float64(cudaWall) / float64(w)
	r.met = r.ratio >= 0.7
	return r
}
