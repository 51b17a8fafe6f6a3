// Package demomodule builds the runtime's demonstration program: a module,
// assembled with the VM builder API, whose exported function
//
//	simple_mul(a: hal.buffer_view, b: hal.buffer_view) -> hal.buffer_view
//
// checks that a and b are 1-D f32 views of one length n, allocates the
// result buffer, prepares the embedded CPU executable (kernel/simple_mul.c
// compiled by clang and linked by ld.lld into an embedded-elf-x86_64
// library), records a command buffer with push constants, a push
// descriptor set and a dispatch of ceil(n/64) workgroups, submits it with a
// fence, waits, and returns the result as an n-element f32 view.
//
// The gendemo command writes the module to a file for iree-run-module.
package demomodule

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/vm"
)

// KernelSource is the C source of the demonstration kernel.
//
//go:embed kernel/simple_mul.c
var KernelSource string

// Function is the name of the exported function.
const Function = "simple_mul"

// Format is the executable format the module embeds.
const Format = "embedded-elf-x86_64"

// Tile is the number of elements one workgroup handles.
const Tile = 64

// CompileFlags and LinkFlags build the kernel as a freestanding shared
// object, as the toolkit's CPU backend does.
var (
	CompileFlags = []string{
		"-target", "x86_64-unknown-unknown-eabi-elf", "-std=c11", "-O2", "-ffreestanding", "-fPIC",
		"-fvisibility=hidden", "-fno-stack-protector", "-ffunction-sections", "-fdata-sections", "-c",
	}
	LinkFlags = []string{
		"-shared", "-nostdlib", "-static", "--no-undefined", "--build-id=none", "--gc-sections",
		"-z", "now", "-z", "relro", "--hash-style=sysv",
	}
)

// FindTools locates clang and ld.lld, preferring the versioned names
// (clang-16, ld.lld-16).
func FindTools() (clang, lld string, err error) {
	find := func(names ...string) string {
		for _, n := range names {
			if p, err := exec.LookPath(n); err == nil {
				return p
			}
		}
		return ""
	}
	if clang = find("clang-16", "clang"); clang == "" {
		return "", "", errors.New("clang-16 (or clang) not found on PATH")
	}
	if lld = find("ld.lld-16", "ld.lld"); lld == "" {
		return "", "", errors.New("ld.lld-16 (or ld.lld) not found on PATH")
	}
	return clang, lld, nil
}

// BuildKernel compiles and links KernelSource in dir (a scratch directory)
// and returns the shared object's bytes.
func BuildKernel(clang, lld, dir string) ([]byte, error) {
	if err := os.WriteFile(filepath.Join(dir, "executable_library.h"), []byte(local.ABIHeader), 0o644); err != nil {
		return nil, err
	}
	src := filepath.Join(dir, "simple_mul.c")
	if err := os.WriteFile(src, []byte(KernelSource), 0o644); err != nil {
		return nil, err
	}
	obj := filepath.Join(dir, "simple_mul.o")
	so := filepath.Join(dir, "simple_mul.so")
	args := append(append([]string{}, CompileFlags...), "-I", dir, "-o", obj, src)
	if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("compiling the kernel: %v\n%s", err, out)
	}
	args = append(append([]string{}, LinkFlags...), "-o", so, obj)
	if out, err := exec.Command(lld, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("linking the kernel: %v\n%s", err, out)
	}
	return os.ReadFile(so)
}

// Build assembles the demonstration module around the kernel library elf
// and returns the .vmfb bytes.
func Build(elf []byte) ([]byte, error) {
	b := vm.NewModuleBuilder("demo")
	b.AddAttr("description", "dispatches simple_mul (c = a * b) from a clang-built CPU kernel")
	imp := func(name, cc string) vm.ImportRef { return b.Import("hal."+name, cc) }
	devicesGet := imp("devices.get", "0i_r")
	viewAssert := imp("buffer_view.assert", "0rriiCID_v")
	viewDim := imp("buffer_view.dim", "0ri_I")
	viewBuffer := imp("buffer_view.buffer", "0r_r")
	viewCreate := imp("buffer_view.create", "0rIIiiCID_r")
	deviceAllocator := imp("device.allocator", "0r_r")
	allocate := imp("allocator.allocate", "0rIiiI_r")
	exeCreate := imp("executable.create", "0rIrrr_r")
	cbCreate := imp("command_buffer.create", "0riiIi_r")
	pushConstants := imp("command_buffer.push_constants", "0riCiD_v")
	pushDescriptors := imp("command_buffer.push_descriptor_set", "0riCirIID_v")
	dispatch := imp("command_buffer.dispatch", "0rriiii_v")
	barrier := imp("command_buffer.execution_barrier", "0riiI_v")
	cbEnd := imp("command_buffer.end", "0r_v")
	fenceCreate := imp("fence.create", "0rI_r")
	queueExecute := imp("device.queue.execute", "0rIrrCrD_v")
	fenceAwait := imp("fence.await", "0iCrD_i")

	formatData := b.Rodata([]byte(Format), "text/plain")
	kernel := b.Rodata(elf, "application/x-elf")
	messageA := b.Rodata([]byte("input 0"), "text/plain")
	messageB := b.Rodata([]byte("input 1"), "text/plain")

	f := b.Function(Function, "0rr_r")
	a, bv := f.Arg(0), f.Arg(1)
	i32 := func(v int32) vm.Reg { r := f.NewI32(); f.ConstI32(r, v); return r }
	i64 := func(v int64) vm.Reg { r := f.NewI64(); f.ConstI64(r, v); return r }
	ref := func() vm.Reg { return f.NewRefReg() }
	rodata := func(r vm.RodataRef) vm.Reg { x := ref(); f.Emit(vm.OpConstRefRodata, x, r); return x }

	zero32, one32, f32, dense := i32(0), i32(1), i32(int32(hal.ElementTypeF32)), i32(int32(hal.EncodingDenseRowMajor))
	anyAffinity, whole, zero64 := i64(-1), i64(hal.WholeBuffer), i64(0)

	// n = dim(a, 0); both inputs must be n-element f32 vectors.
	n := f.NewI64()
	f.CallImport(viewDim, []vm.Reg{a, zero32}, []vm.Reg{n})
	f.CallImportVariadic(viewAssert, []int{1}, []vm.Reg{a, rodata(messageA), f32, dense, n}, nil)
	f.CallImportVariadic(viewAssert, []int{1}, []vm.Reg{bv, rodata(messageB), f32, dense, n}, nil)
	n32 := f.NewI32()
	f.Emit(vm.OpTruncI64I32, n32, n)

	dev := ref()
	f.CallImport(devicesGet, []vm.Reg{zero32}, []vm.Reg{dev})
	exe := ref()
	noConstants := ref()
	f.Emit(vm.OpConstRefZero, noConstants)
	f.CallImport(exeCreate, []vm.Reg{dev, anyAffinity, rodata(formatData), rodata(kernel), noConstants}, []vm.Reg{exe})

	// Buffers: the inputs' and a fresh n*4-byte result.
	bufA, bufB := ref(), ref()
	f.CallImport(viewBuffer, []vm.Reg{a}, []vm.Reg{bufA})
	f.CallImport(viewBuffer, []vm.Reg{bv}, []vm.Reg{bufB})
	alloc := ref()
	f.CallImport(deviceAllocator, []vm.Reg{dev}, []vm.Reg{alloc})
	size := f.NewI64()
	f.Emit(vm.OpMulI64, size, n, i64(4))
	out := ref()
	f.CallImport(allocate, []vm.Reg{alloc, anyAffinity, zero32, zero32, size}, []vm.Reg{out})

	// Record: constants, bindings, dispatch over ceil(n/64) workgroups.
	cb := ref()
	f.CallImport(cbCreate, []vm.Reg{dev, one32, zero32, anyAffinity, zero32}, []vm.Reg{cb})
	f.CallImportVariadic(pushConstants, []int{1}, []vm.Reg{cb, zero32, n32}, nil)
	f.CallImportVariadic(pushDescriptors, []int{3}, []vm.Reg{
		cb, zero32,
		i32(0), bufA, zero64, whole,
		i32(1), bufB, zero64, whole,
		i32(2), out, zero64, whole,
	}, nil)
	groups := f.NewI32()
	f.Emit(vm.OpCeilDivI32U, groups, n32, i32(Tile))
	f.CallImport(dispatch, []vm.Reg{cb, exe, zero32, groups, one32, one32}, nil)
	f.CallImport(barrier, []vm.Reg{cb, zero32, zero32, zero64}, nil)
	f.CallImport(cbEnd, []vm.Reg{cb}, nil)

	// Submit with a signal fence and wait for it.
	fence, noFence := ref(), ref()
	f.Emit(vm.OpConstRefZero, noFence)
	f.CallImport(fenceCreate, []vm.Reg{dev, zero64}, []vm.Reg{fence})
	f.CallImportVariadic(queueExecute, []int{1}, []vm.Reg{dev, anyAffinity, noFence, fence, cb}, nil)
	st := f.NewI32()
	f.CallImportVariadic(fenceAwait, []int{1}, []vm.Reg{i32(-1), fence}, []vm.Reg{st})
	failed := f.NewI32()
	f.Emit(vm.OpCmpNzI32, failed, st)
	ok, bad := f.NewLabel(), f.NewLabel()
	f.CondBr(failed, bad, ok)
	f.Bind(bad)
	f.Fail(st, "waiting for the dispatch failed")

	f.Bind(ok)
	result := ref()
	f.CallImportVariadic(viewCreate, []int{1}, []vm.Reg{out, zero64, whole, f32, dense, n}, []vm.Reg{result})
	f.Return(result)
	b.Export(Function, f, vm.Attr{Key: "iree.abi.declaration", Value: "sync func @simple_mul(%input0: tensor<?xf32>, %input1: tensor<?xf32>) -> (%output0: tensor<?xf32>)"})
	return b.Build()
}
