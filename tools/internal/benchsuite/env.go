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

// env holds what the rows share: the tools, the work directory, the
// compiled benchmark module and the reference harness.
type env struct {
	clang, lld string
	dir        string
	temp       bool
	objDir     string // holds functions_x86_64.o
	module     []byte // testdata/simple_mul.mlir compiled
	harness    string // the reference harness binary
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
	if err := os.MkdirAll(e.objDir, 0o755); err != nil {
		return nil, fmt.Errorf("creating object directory: %w", err)
	}
	src := filepath.Join(e.dir, "functions.c")
	if err := os.WriteFile(src, kernelSource, 0o644); err != nil {
		return nil, fmt.Errorf("writing kernel source: %w", err)
	}
	obj := filepath.Join(e.objDir, "functions_x86_64.o")
	if err := e.buildObject(src, obj); err != nil {
		return nil, err
	}
	if e.module, err = e.compile("simple_mul.mlir", benchProgram, e.objDir, clang, lld); err != nil {
		return nil, fmt.Errorf("compiling the benchmark program: %w", err)
	}
	hsrc := filepath.Join(e.dir, "harness.c")
	if err := os.WriteFile(hsrc, harnessSource, 0o644); err != nil {
		return nil, fmt.Errorf("writing harness source: %w", err)
	}
	e.harness = filepath.Join(e.dir, "harness")
	if out, err := exec.Command(clang, "-std=c17", "-O2", "-pthread", "-o", e.harness, hsrc, obj).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("building the reference harness: %v\n%s", err, out)
	}
	ok = true
	return e, nil
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
