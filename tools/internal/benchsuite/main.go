// Command benchsuite measures every figure of SPEC §4 beside the reference
// it is judged against, in one run, and prints one table row per figure:
// ours, the reference, their ratio and the target. Run it from the tools
// module:
//
//	cd tools && go run ./internal/benchsuite [--repetitions=5] [--large_n=16777216] [--only=cuda]
//
// It needs clang-16 (or clang) and ld.lld-16 (or ld.lld). It builds the
// benchmark kernel (testdata/functions.c) into functions_x86_64.o, compiles
// testdata/simple_mul.mlir around it, and builds a C reference harness
// (testdata/harness.c, pthreads) that links the very same object. For the
// GPU rows it builds testdata/simple_mul.cu to PTX (clang, sm_90) and
// testdata/simple_mul.glsl to SPIR-V (glslc), and compiles
// testdata/simple_mul_cuda.mlir and testdata/simple_mul_vulkan.mlir around
// them; these are bandwidth kernels of the suite's own (float4 / vec4
// accesses, 256 threads per block), brought as #hal.executable.object. The
// rows:
//
//   - cpu-large/local-sync and cpu-large/local-task: one call of simple_mul
//     over --large_n f32 through the whole stack (VM, hal module, device),
//     as bandwidth (3 × 4 × n bytes per call), against the harness calling
//     the kernel tile by tile on one thread and on one thread per CPU;
//     local-task runs one worker group per CPU, as many threads as the
//     reference. Target: ≥ 95% and ≥ 90% of the reference. Where the CPUs
//     outnumber the default topology's groups (8, IREE's default cap),
//     cpu-large/local-task-default measures the default against the C loop
//     on as many threads.
//   - buffers: allocating, writing and releasing a 64 MB buffer through the
//     HAL host allocator against rewriting one reused Go slice (and, for
//     scale, a fresh Go slice per write). Target: within 1.25× of reuse.
//   - cpu-small/local-sync and cpu-small/local-task: time per call of
//     simple_mul on 64 f32 (one workgroup, one dispatch) through the whole
//     stack, against one direct call of the kernel from C. Target: ≤ 2 µs
//     and ≤ 5 µs.
//   - cuda/dispatch: host time per dispatch of the HAL path (record
//     --dispatches dispatches of one block, replay, wait) against a raw
//     cuLaunchKernel loop in C over the same kernel and arguments (the cuda
//     driver's RawLaunchLoop). Target: ≤ 1.3×.
//   - cuda/hand-tuned-float4-<n> and cuda/hand-tuned-float4-<n>-torch: one
//     call of simple_mul (the suite's hand-tuned float4 kernel: the device's
//     ceiling, not a user's program) over --gpu_n f32 (256M) through the
//     whole stack on CUDA,
//     wall time per call, against a device-to-device copy moving the same
//     bytes through the driver (target ≥ 85%) and against torch.mul timed
//     the same way by testdata/torch_mul.py (--python; target ≥ 100%; the
//     row says so when torch is absent). The notes give device times (CUDA
//     events) and where a call's time goes.
//   - vulkan/hand-tuned-vec4-<n>: the same call (a vec4 shader) on Vulkan
//     device 0 against the CUDA row of the same run. Target: ≥ 80%. CPU implementations
//     (lavapipe) are skipped unless --vulkan_cpu; --vulkan_probe (and a
//     miss) logs what bounds the row (shader variants, copy, fill per queue
//     family and memory type, wall and timestamp bandwidth).
//   - cuda/user-<n>, cuda/user-<n>-torch and vulkan/user-<n>, for each
//     --user_n size (16M and 256M): a user's program, testdata/
//     user_program_{cuda,vulkan}.mlir: the user's scalar kernel
//     (user_program.cu / user_program.glsl: one element per invocation,
//     64-wide workgroups, 3 push constants) followed by elementwise ops
//     the compiler generates code for, called the way iree-benchmark-module
//     calls it (inputs made by functionio on the device's allocator, each
//     result released). The reference is the bound: the bytes the call's
//     recorded dispatches move (every binding once) ÷ the device-to-device
//     copy bandwidth measured in the run (CUDA: through the driver; Vulkan:
//     the faster of vkCmdCopyBuffer and the CUDA copy of this run), and
//     torch eager running the same math (testdata/torch_user.py). Targets:
//     CUDA ≥ 80% of the bound and ≥ 100% of torch eager; Vulkan ≥ 70% of
//     the bound.
//   - cpu-linalg/matmul-1024 and cpu-linalg/softmax-4096: programs whose
//     code the compiler generates (linalg.matmul, linalg.softmax), compiled
//     for the host CPU and run on local-task, against numpy in the same
//     run (linalg.go). Targets: ≥ 0.5 × numpy's speed, and faster.
//   - cuda/codegen-* and vulkan/codegen-*: programs whose every kernel the
//     compiler generates for the GPU (matmul and an f16 matmul 4096³, row
//     softmax 8192², a dense layer with bias and relu), with device time
//     beside wall time, against torch on the same GPU (TF32 off) and
//     Vulkan against our CUDA (codegen.go). Targets: matmul ≥ 0.5 of
//     torch, f16 matmul ≥ 0.3, softmax ≥ 0.8, dense ≥ 0.5; Vulkan ≥ 0.7.
//   - compiler: in-process iree-compile (front end and back end, clang and
//     lld included) of --sample, against the time spent in clang and lld;
//     target ≤ 0.3 s with most of it in clang/lld; and whether --compiles
//     compiles produce byte-identical modules.
//
// GPU rows without a device, a driver library or a tool are printed as
// skipped with the reason in a note; a failure on the device becomes a
// failed row and the other rows still run. --build_only fills --work_dir
// with everything built, and --prebuilt runs from such a directory without
// building (the GPU machine has no compiler: see
// build_tools/scripts/gpu/bench.sh); without clang there the compiler rows
// are skipped.
//
// Every figure is the median of --repetitions measurements (GPU bandwidth
// rows: of max(4 × --repetitions, 20) calls after 200 ms of warm-up calls);
// the machine may be shared, so
// medians and the reference measured in the same run are what to read.
// --cpuprofile writes a pprof CPU profile of the small-call loops (go tool
// pprof -top <binary> <file>); --large_profile one of local-task calls
// over --large_n after the cpu-large rows, whose notes and log also give
// context switches per call (getrusage: the GPU machine has no perf), and
// then logs a sweep of local-task against the C loop at 1, 2, 4, 8, ...
// threads up to the CPU count (cpu-large/scaling lines).
package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// options are the suite's flags.
type options struct {
	repetitions int
	largeN      int
	smallCalls  int
	compiles    int
	sample      string
	clang, lld  string
	cpuProfile  string
	// largeProfile and largeProfileTime: --large_profile, --large_profile_time.
	largeProfile     string
	largeProfileTime time.Duration
	only             string
	workDir          string
	glslc            string
	gpuN             int
	userN            string
	dispatches       int
	prebuilt         bool
	buildOnly        bool
	vulkanCPU        bool
	python           string
	vulkanProbe      bool
	// matmulN and softmaxN size the cpu-linalg rows, gpuMatmulN and
	// gpuSoftmaxN the gpu-codegen rows.
	matmulN, softmaxN       int
	gpuMatmulN, gpuSoftmaxN int
	// gpuVulkanTarget is the --iree-vulkan-target of the gpu-codegen
	// vulkan rows.
	gpuVulkanTarget string
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := flag.NewFlagSet("benchsuite", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.repetitions, "repetitions", 5, "measurements per figure (the median is reported)")
	fs.IntVar(&o.largeN, "large_n", 16<<20, "elements of the large simple_mul (SPEC: at least 16M)")
	fs.IntVar(&o.smallCalls, "small_calls", 20000, "calls per measurement of the small dispatch")
	fs.IntVar(&o.compiles, "compiles", 5, "compiles of the sample (timed, and compared byte for byte)")
	fs.StringVar(&o.sample, "sample", "", "program for the compiler row (default: ../compiler/e2e/testdata/cpu_hal.mlir when run from tools/, else testdata/simple_mul.mlir)")
	fs.StringVar(&o.clang, "clang", "", "clang binary (default: clang-16 or clang on PATH)")
	fs.StringVar(&o.lld, "lld", "", "ld.lld binary (default: ld.lld-16 or ld.lld on PATH)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the small-dispatch loops to this file")
	fs.StringVar(&o.largeProfile, "large_profile", "", "after the cpu-large rows, write a CPU profile of local-task calls (one worker group per CPU) to this file, log their context switches, and log local-task against the C loop at 1, 2, 4, 8, ... threads")
	fs.DurationVar(&o.largeProfileTime, "large_profile_time", 3*time.Second, "how long --large_profile calls local-task")
	fs.StringVar(&o.only, "only", "", "run only the rows whose name contains this text")
	fs.StringVar(&o.workDir, "work_dir", "", "directory for built objects (default: a temporary directory, removed afterwards)")
	fs.StringVar(&o.glslc, "glslc", "", "glslc binary for the Vulkan shader (default: glslc on PATH)")
	fs.IntVar(&o.gpuN, "gpu_n", 256<<20, "elements of the GPU simple_mul rows (SPEC: 256M)")
	fs.StringVar(&o.userN, "user_n", "16777216,268435456", "element counts of the user-program rows, separated by commas (SPEC: 16M and 256M)")
	fs.IntVar(&o.dispatches, "dispatches", 20000, "dispatches per measurement of the cuda/dispatch row")
	fs.BoolVar(&o.prebuilt, "prebuilt", false, "take the objects, modules and harness from --work_dir (filled by --build_only) instead of building them; without clang the compiler rows are skipped")
	fs.BoolVar(&o.buildOnly, "build_only", false, "build the objects, modules and harness into --work_dir and stop")
	fs.BoolVar(&o.vulkanCPU, "vulkan_cpu", false, "run the Vulkan row on a CPU implementation (lavapipe) too")
	fs.StringVar(&o.python, "python", "python3", "python with torch for the torch.mul reference")
	fs.BoolVar(&o.vulkanProbe, "vulkan_probe", false, "with the Vulkan row, log device and wall bandwidth of simple_mul variants, a copy and a fill for each queue family choice and memory type (what bounds the row)")
	fs.IntVar(&o.matmulN, "matmul_n", 1024, "size of the cpu-linalg matmul (n x n times n x n f32)")
	fs.IntVar(&o.softmaxN, "softmax_n", 4096, "size of the cpu-linalg softmax (n x n f32, along the rows)")
	fs.IntVar(&o.gpuMatmulN, "gpu_matmul_n", 4096, "size of the gpu-codegen matmuls and dense layer (n x n times n x n)")
	fs.IntVar(&o.gpuSoftmaxN, "gpu_softmax_n", 8192, "size of the gpu-codegen softmax (n x n f32, along the rows)")
	fs.StringVar(&o.gpuVulkanTarget, "gpu_vulkan_target", "h200", "--iree-vulkan-target of the gpu-codegen vulkan rows: the GPU the rows run on, as a user who knows it compiles for it (llvmpipe with --vulkan_cpu on lavapipe, which has no cooperative matrices for the f16 row; empty: Vulkan's least limits, which every device meets)")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "benchsuite: unexpected arguments %q\n", fs.Args())
		return 2
	}
	rows, err := suite(&o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "benchsuite: %v\n", err)
		return 1
	}
	if !o.buildOnly {
		printTable(stdout, rows)
	}
	return 0
}

// suite builds what the rows need and measures them.
func suite(o *options, log io.Writer) ([]row, error) {
	if o.matmulN < 1 || o.softmaxN < 1 || o.gpuMatmulN < 1 || o.gpuSoftmaxN < 1 {
		return nil, fmt.Errorf("--matmul_n, --softmax_n, --gpu_matmul_n and --gpu_softmax_n must be ≥ 1")
	}
	if o.repetitions < 1 || o.largeN < 64 || o.smallCalls < 1 || o.compiles < 2 || o.gpuN < 1 || o.gpuN > math.MaxInt32 || o.dispatches < 1 {
		return nil, fmt.Errorf("--repetitions, --small_calls, --dispatches must be ≥ 1, --large_n ≥ 64, --compiles ≥ 2 and --gpu_n in [1, 2^31)")
	}
	if _, err := parseSizes(o.userN); err != nil {
		return nil, err
	}
	if o.buildOnly && (o.workDir == "" || o.prebuilt) {
		return nil, fmt.Errorf("--build_only needs --work_dir and excludes --prebuilt")
	}
	env, err := newEnv(o)
	if err != nil {
		return nil, err
	}
	defer env.close()
	if o.buildOnly {
		fmt.Fprintf(log, "built into %s", env.dir)
		whys := []string{env.gpu.cudaWhy, env.gpu.vulkanWhy, env.user.cudaWhy, env.user.vulkanWhy}
		for _, file := range slices.Sorted(maps.Keys(env.codegen.why)) {
			whys = append(whys, env.codegen.why[file])
		}
		for _, why := range whys {
			if why != "" {
				fmt.Fprintf(log, "; %s", why)
			}
		}
		fmt.Fprintln(log)
		return nil, nil
	}
	want := func(name string) bool { return o.only == "" || strings.Contains(name, o.only) }
	var rows []row
	if want("cpu-large") {
		r, err := largeRows(env, o, log)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	if want("buffers") {
		rows = append(rows, bufferRow(o, log))
	}
	if want("cpu-small") {
		if o.cpuProfile != "" {
			f, err := os.Create(o.cpuProfile)
			if err != nil {
				return nil, fmt.Errorf("creating CPU profile: %w", err)
			}
			if err := pprof.StartCPUProfile(f); err != nil {
				f.Close()
				return nil, fmt.Errorf("starting CPU profile: %w", err)
			}
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
		r, err := smallRows(env, o, log)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	rows = append(rows, linalgRows(env, o, want, log)...)
	r, err := gpuRows(env, o, want, log)
	if err != nil {
		return nil, err
	}
	rows = append(rows, r...)
	rows = append(rows, codegenRows(env, o, want, log)...)
	if want("compiler") {
		r, err := compilerRows(env, o, log)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r...)
	}
	return rows, nil
}
