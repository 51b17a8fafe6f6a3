package main

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

//go:embed testdata/functions.c
var kernelSource []byte

//go:embed testdata/harness.c
var harnessSource []byte

//go:embed testdata/simple_mul.mlir
var benchProgram []byte

//go:embed testdata/simple_mul.cu
var cudaKernelSource []byte

//go:embed testdata/simple_mul_cuda.mlir
var cudaProgram []byte

//go:embed testdata/simple_mul.glsl
var vulkanShaderSource []byte

//go:embed testdata/simple_mul_vulkan.mlir
var vulkanProgram []byte

//go:embed testdata/simple_mul_probe.glsl
var probeShaderSource []byte

// probeShaders are the --vulkan_probe variants of simple_mul.glsl: file
// name in the work directory and the glslc define that selects each.
var probeShaders = []struct{ file, define string }{
	{"gpu/probe_scalar.spv", "SCALAR"},
	{"gpu/probe_stride.spv", "STRIDE"},
}

// Files of the work directory (--work_dir); --build_only writes them and
// --prebuilt reads them instead of building.
const (
	cpuObjectFile    = "objects/functions_x86_64.o"
	harnessFile      = "harness"
	cpuModuleFile    = "modules/simple_mul_cpu.vmfb"
	ptxFile          = "gpu/simple_mul_sm_90.ptx"
	spirvFile        = "gpu/simple_mul.spv"
	cudaModuleFile   = "modules/simple_mul_cuda.vmfb"
	vulkanModuleFile = "modules/simple_mul_vulkan.vmfb"
)

// env holds what the rows share: the tools, the work directory, the
// compiled benchmark modules and the reference harness.
type env struct {
	clang, lld string // empty in a prebuilt run without them
	dir        string
	temp       bool
	prebuilt   bool
	objDir     string // holds functions_x86_64.o
	module     []byte // testdata/simple_mul.mlir compiled
	harness    string // the reference harness binary
	gpu        gpuBuild
	user       userBuild
	codegen    codegenBuild
}

// gpuBuild holds the GPU benchmark programs, or why each is missing.
type gpuBuild struct {
	ptx       []byte // simple_mul.cu as PTX
	cuda      []byte // testdata/simple_mul_cuda.mlir compiled
	cudaWhy   string
	vulkan    []byte // testdata/simple_mul_vulkan.mlir compiled
	vulkanWhy string
	// spirv holds the SPIR-V of simple_mul.glsl and of the probe
	// variants, by work directory file name.
	spirv map[string][]byte
}

// findTool returns flagValue or the first of names found on PATH.
func findTool(flagValue string, names ...string) (string, error) {
	if flagValue != "" {
		return exec.LookPath(flagValue)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("none of %s found on PATH", strings.Join(names, ", "))
}

func newEnv(o *options) (*env, error) {
	if o.prebuilt {
		return prebuiltEnv(o)
	}
	clang, err := findTool(o.clang, "clang-16", "clang")
	if err != nil {
		return nil, fmt.Errorf("finding clang: %w", err)
	}
	lld, err := findTool(o.lld, "ld.lld-16", "ld.lld")
	if err != nil {
		return nil, fmt.Errorf("finding ld.lld: %w", err)
	}
	e := &env{clang: clang, lld: lld, dir: o.workDir}
	if e.dir == "" {
		if e.dir, err = os.MkdirTemp("", "benchsuite-"); err != nil {
			return nil, fmt.Errorf("creating work directory: %w", err)
		}
		e.temp = true
	}
	ok := false
	defer func() {
		if !ok {
			e.close()
		}
	}()
	e.objDir = filepath.Join(e.dir, "objects")
	for _, d := range []string{e.objDir, filepath.Join(e.dir, "modules"), filepath.Join(e.dir, "gpu")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("creating work directory: %w", err)
		}
	}
	src := filepath.Join(e.dir, "functions.c")
	if err := os.WriteFile(src, kernelSource, 0o644); err != nil {
		return nil, fmt.Errorf("writing kernel source: %w", err)
	}
	obj := filepath.Join(e.dir, cpuObjectFile)
	if err := e.buildObject(src, obj); err != nil {
		return nil, err
	}
	if e.module, err = e.compile("simple_mul.mlir", benchProgram, e.objDir, clang, lld); err != nil {
		return nil, fmt.Errorf("compiling the benchmark program: %w", err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, cpuModuleFile), e.module, 0o644); err != nil {
		return nil, fmt.Errorf("writing the benchmark module: %w", err)
	}
	hsrc := filepath.Join(e.dir, "harness.c")
	if err := os.WriteFile(hsrc, harnessSource, 0o644); err != nil {
		return nil, fmt.Errorf("writing harness source: %w", err)
	}
	e.harness = filepath.Join(e.dir, harnessFile)
	if out, err := exec.Command(clang, "-std=c17", "-O2", "-pthread", "-o", e.harness, hsrc, obj).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the reference harness: %v\n%s", err, out)
	}
	e.buildGPU(o)
	e.buildUser(o)
	e.buildCodegen(o)
	ok = true
	return e, nil
}

// buildGPU builds the CUDA and Vulkan benchmark programs; a missing tool
// or a failed build is recorded as the reason their rows are skipped.
func (e *env) buildGPU(o *options) {
	g := &e.gpu
	ptx := filepath.Join(e.dir, ptxFile)
	csrc := filepath.Join(e.dir, "simple_mul.cu")
	if err := os.WriteFile(csrc, cudaKernelSource, 0o644); err != nil {
		g.cudaWhy = "writing simple_mul.cu: " + err.Error()
	} else if out, err := exec.Command(e.clang, "-x", "cuda", "--cuda-device-only", "-nocudainc", "-nocudalib",
		"--cuda-gpu-arch=sm_90", "-O2", "-S", "-Wno-unknown-cuda-version", "-o", ptx, csrc).CombinedOutput(); err != nil {
		g.cudaWhy = fmt.Sprintf("%s could not build simple_mul.cu to PTX: %v: %s", filepath.Base(e.clang), err, firstLine(out))
	} else if g.ptx, err = os.ReadFile(ptx); err != nil {
		g.cudaWhy = "reading the PTX: " + err.Error()
	} else if g.cuda, err = e.compile("simple_mul_cuda.mlir", cudaProgram, filepath.Dir(ptx), e.clang, e.lld); err != nil {
		g.cuda, g.cudaWhy = nil, "compiling simple_mul_cuda.mlir: "+err.Error()
	} else if err := os.WriteFile(filepath.Join(e.dir, cudaModuleFile), g.cuda, 0o644); err != nil {
		g.cudaWhy = "writing the CUDA module: " + err.Error()
	}
	glslc, err := findTool(o.glslc, "glslc")
	if err != nil {
		g.vulkanWhy = "no glslc to build simple_mul.glsl: " + err.Error()
		return
	}
	spv := filepath.Join(e.dir, spirvFile)
	gsrc := filepath.Join(e.dir, "simple_mul.glsl")
	if err := os.WriteFile(gsrc, vulkanShaderSource, 0o644); err != nil {
		g.vulkanWhy = "writing simple_mul.glsl: " + err.Error()
	} else if out, err := exec.Command(glslc, "-fshader-stage=compute", "-o", spv, gsrc).CombinedOutput(); err != nil {
		g.vulkanWhy = fmt.Sprintf("glslc could not build simple_mul.glsl: %v: %s", err, firstLine(out))
	} else if g.vulkan, err = e.compile("simple_mul_vulkan.mlir", vulkanProgram, filepath.Dir(spv), e.clang, e.lld); err != nil {
		g.vulkan, g.vulkanWhy = nil, "compiling simple_mul_vulkan.mlir: "+err.Error()
	} else if err := os.WriteFile(filepath.Join(e.dir, vulkanModuleFile), g.vulkan, 0o644); err != nil {
		g.vulkanWhy = "writing the Vulkan module: " + err.Error()
	}
	if g.vulkanWhy != "" {
		return
	}
	// The probe variants; a failure only leaves them out of the probe.
	psrc := filepath.Join(e.dir, "simple_mul_probe.glsl")
	if err := os.WriteFile(psrc, probeShaderSource, 0o644); err != nil {
		return
	}
	for _, p := range probeShaders {
		exec.Command(glslc, "-fshader-stage=compute", "-D"+p.define, "-o", filepath.Join(e.dir, p.file), psrc).Run()
	}
	g.readSPIRV(e.dir)
}

// readSPIRV reads the SPIR-V files of the work directory that exist.
func (g *gpuBuild) readSPIRV(dir string) {
	g.spirv = map[string][]byte{}
	for _, f := range append([]string{spirvFile}, probeFiles()...) {
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			g.spirv[f] = b
		}
	}
}

func probeFiles() []string {
	var out []string
	for _, p := range probeShaders {
		out = append(out, p.file)
	}
	return out
}

// prebuiltEnv takes the objects, modules and harness that an earlier
// --build_only run left in --work_dir. clang and lld are optional there:
// without them the compiler rows are skipped.
func prebuiltEnv(o *options) (*env, error) {
	if o.workDir == "" {
		return nil, fmt.Errorf("--prebuilt needs --work_dir (the directory a --build_only run filled)")
	}
	e := &env{dir: o.workDir, prebuilt: true, objDir: filepath.Join(o.workDir, "objects"), harness: filepath.Join(o.workDir, harnessFile)}
	e.clang, _ = findTool(o.clang, "clang-16", "clang")
	e.lld, _ = findTool(o.lld, "ld.lld-16", "ld.lld")
	var err error
	if e.module, err = os.ReadFile(filepath.Join(e.dir, cpuModuleFile)); err != nil {
		return nil, fmt.Errorf("prebuilt work directory: %w", err)
	}
	if _, err := os.Stat(e.harness); err != nil {
		return nil, fmt.Errorf("prebuilt work directory: %w", err)
	}
	read := func(name string, why *string) []byte {
		b, err := os.ReadFile(filepath.Join(e.dir, name))
		if err != nil {
			*why = "not in the prebuilt work directory: " + err.Error()
			return nil
		}
		return b
	}
	g := &e.gpu
	if g.ptx = read(ptxFile, &g.cudaWhy); g.ptx != nil {
		g.cuda = read(cudaModuleFile, &g.cudaWhy)
	}
	g.vulkan = read(vulkanModuleFile, &g.vulkanWhy)
	g.readSPIRV(e.dir)
	e.user.read(e.dir)
	e.readCodegen(o)
	return e, nil
}

// firstLine returns the first line of a tool's output.
func firstLine(out []byte) string {
	s := strings.TrimSpace(string(out))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}

// buildObject compiles a kernel source the way the samples do.
func (e *env) buildObject(src, obj string) error {
	args := []string{"-target", "x86_64-unknown-unknown-eabi-elf", "-std=c17", "-ffreestanding", "-fPIC", "-O2",
		"-fvisibility=hidden", "-c", "-o", obj, src}
	if out, err := exec.Command(e.clang, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("compiling %s: %v\n%s", filepath.Base(src), err, out)
	}
	return nil
}

// compile runs iree-compile's phases in process: the front end, then the
// back end with the given clang and lld.
func (e *env) compile(name string, src []byte, objDir, clang, lld string) ([]byte, error) {
	s, err := pipeline.Compile(name, src, pipeline.Options{ObjectSearchPaths: []string{objDir}}, "")
	if err != nil {
		return nil, err
	}
	return backend.Compile(s.Module.Op, backend.Options{
		Registry: s.Registry,
		Targets:  s.Targets,
		LLVMCPU:  llvmcpu.Options{ClangPath: clang, LinkerPath: lld, Objects: s.Resolver},
	})
}

func (e *env) close() {
	if e.temp {
		os.RemoveAll(e.dir)
	}
}
