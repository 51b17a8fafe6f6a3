// Package objects resolves and loads the user objects that executable
// variants reference through #hal.executable.object, compiles the kernel
// sources among them (.c, .cu, .glsl, .comp; see package kernelsrc) for
// each variant's target, and checks the rules IREE applies to external
// variants.
package objects

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelsrc"
)

// Resolver finds object files: an absolute path must exist as given; a
// relative path is tried in the working directory, then under each search
// path in order.
type Resolver struct {
	// SearchPaths are the --iree-hal-executable-object-search-path values.
	SearchPaths []string
	// FS, when set, replaces the operating system for lookups (tests).
	Stat func(name string) (fs.FileInfo, error)
	// ReadFile, when set, replaces os.ReadFile.
	ReadFile func(name string) ([]byte, error)
	// Sources compiles kernel sources named by objects; nil means a
	// compiler with the default tools (on PATH) and cache directory.
	Sources *kernelsrc.Compiler
}

// NotFoundError reports an object that is on no path.
type NotFoundError struct {
	Object *hal.ExecutableObjectAttr
	Tried  []string
}

// Error uses IREE's wording and lists every path tried.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: %s (tried: %s)",
		ir.AttrString(e.Object), strings.Join(e.Tried, ", "))
}

func (r *Resolver) stat(name string) (fs.FileInfo, error) {
	if r.Stat != nil {
		return r.Stat(name)
	}
	return os.Stat(name)
}

func (r *Resolver) read(name string) ([]byte, error) {
	if r.ReadFile != nil {
		return r.ReadFile(name)
	}
	return os.ReadFile(name)
}

func (r *Resolver) exists(name string) bool {
	fi, err := r.stat(name)
	return err == nil && !fi.IsDir()
}

// Find returns the path at which the object's file exists.
func (r *Resolver) Find(obj *hal.ExecutableObjectAttr) (string, error) {
	if !obj.HasPath {
		return "", fmt.Errorf("object %s has no path", ir.AttrString(obj))
	}
	p := obj.Path
	tried := []string{p}
	if filepath.IsAbs(p) {
		if r.exists(p) {
			return p, nil
		}
		return "", &NotFoundError{Object: obj, Tried: tried}
	}
	if r.exists(p) {
		return p, nil
	}
	for _, sp := range r.SearchPaths {
		c := filepath.Join(sp, p)
		tried = append(tried, c)
		if r.exists(c) {
			return c, nil
		}
	}
	return "", &NotFoundError{Object: obj, Tried: tried}
}

// Load returns the object's bytes: its embedded data when present,
// otherwise the contents of the file it resolves to.
func (r *Resolver) Load(obj *hal.ExecutableObjectAttr) ([]byte, error) {
	data, has, err := obj.DataBytes()
	if err != nil {
		return nil, fmt.Errorf("object %s: %w", ir.AttrString(obj), err)
	}
	if has {
		return data, nil
	}
	path, err := r.Find(obj)
	if err != nil {
		return nil, err
	}
	b, err := r.read(path)
	if err != nil {
		return nil, fmt.Errorf("reading object %s: %w", path, err)
	}
	return b, nil
}

// defaultSources is the compiler of Resolvers without Sources: tools on
// PATH, the default cache. One for the process, so that Resolvers shared
// between goroutines need no lock of their own.
var defaultSources = sync.OnceValue(func() *kernelsrc.Compiler { return kernelsrc.New(kernelsrc.Options{}) })

// compiledFrom maps the outputs of compiled kernel sources (paths in the
// kernel cache) to their sources, so that diagnostics about an object name
// the file the user wrote.
var compiledFrom sync.Map

// Name returns a printable name for the object: its path (for a compiled
// kernel source, the source's path), or "<embedded data>".
func Name(obj *hal.ExecutableObjectAttr) string {
	if obj.HasPath {
		if src, ok := compiledFrom.Load(obj.Path); ok {
			return src.(string)
		}
		return obj.Path
	}
	return "<embedded data>"
}

// ResolvePaths rewrites every path object of a variant to the path it was
// found at; a kernel source is compiled for the variant's target and
// replaced by its output (a file in the kernel cache, or embedded data when
// there is no usable cache). Data objects are left as they are.
func (r *Resolver) ResolvePaths(variant *ir.Operation) error {
	arr, ok := variant.Attr("objects").(*ir.ArrayAttr)
	if !ok {
		return nil
	}
	out := &ir.ArrayAttr{}
	for _, e := range arr.Elems {
		obj, ok := e.(*hal.ExecutableObjectAttr)
		if !ok {
			return ir.OpErrorf(variant, "objects must be #hal.executable.object attributes, found %s", ir.AttrString(e))
		}
		if obj.HasPath && obj.Data == nil {
			found, err := r.Find(obj)
			if err != nil {
				return ir.OpErrorf(variant, "%v", err)
			}
			obj = &hal.ExecutableObjectAttr{Path: found, HasPath: true}
			if lang, ok := kernelsrc.LanguageOf(found); ok {
				compiled, err := r.compileSource(variant, found, lang)
				if err != nil {
					// Located where the program names the object (the
					// variant, or the op it was materialised from); a
					// tool's diagnostics follow on their own lines.
					return ir.Errorf(variant.Pos, "%v", err)
				}
				obj = compiled
			}
		}
		out.Elems = append(out.Elems, obj)
	}
	variant.SetAttr("objects", out)
	return nil
}

// IsExternalBackend reports whether a backend embeds an external variant's
// single object verbatim (CUDA, Vulkan, ROCm).
func IsExternalBackend(backend string) bool {
	switch backend {
	case "cuda", "vulkan", "vulkan-spirv", "rocm", "hip":
		return true
	}
	return false
}

// IsSPIRV reports whether a target produces SPIR-V.
func IsSPIRV(t *hal.ExecutableTargetAttr) bool {
	return strings.HasPrefix(t.Backend, "vulkan") || strings.Contains(t.Format, "spirv")
}

// CheckExternalVariant applies IREE's rules to a variant without a
// builtin.module: exactly one object, and for SPIR-V a size that is a
// multiple of 4 bytes.
func (r *Resolver) CheckExternalVariant(variant *ir.Operation) error {
	t := hal.VariantTarget(variant)
	if t == nil || hal.InnerModule(variant) != nil || !IsExternalBackend(t.Backend) {
		return nil
	}
	objs := hal.VariantObjects(variant)
	switch {
	case len(objs) == 0:
		return ir.OpErrorf(variant, "no objects defined for external variant")
	case len(objs) > 1:
		return ir.OpErrorf(variant, "only one object reference is supported for external variants")
	}
	if IsSPIRV(t) {
		data, err := r.Load(objs[0])
		if err != nil {
			return ir.OpErrorf(variant, "%v", err)
		}
		if len(data)%4 != 0 {
			return ir.OpErrorf(variant, "object file is not 4-byte aligned as expected for SPIR-V (%s is %d bytes)", Name(objs[0]), len(data))
		}
	}
	return nil
}

// compileSource compiles the kernel source at path for the variant's
// target and returns the object that replaces it.
func (r *Resolver) compileSource(variant *ir.Operation, path string, lang kernelsrc.Language) (*hal.ExecutableObjectAttr, error) {
	t := hal.VariantTarget(variant)
	if t == nil {
		return nil, fmt.Errorf("kernel source %s: the variant has no target", path)
	}
	target, err := SourceTarget(t, path, lang)
	if err != nil {
		return nil, err
	}
	sources := r.Sources
	if sources == nil {
		sources = defaultSources()
	}
	res, err := sources.Compile(path, lang, target)
	if err != nil {
		return nil, err
	}
	if res.Path != "" {
		compiledFrom.Store(res.Path, path)
		return &hal.ExecutableObjectAttr{Path: res.Path, HasPath: true}, nil
	}
	// No usable cache: the output is embedded, and the source's path stays
	// beside it (as IREE keeps a path on an object it has embedded) so that
	// diagnostics still name the file the user wrote.
	data := &ir.DenseAttr{Type: &ir.TensorType{Shape: []int64{int64(len(res.Data))}, Elem: ir.I8}, Hex: res.Data, IsHex: true}
	return &hal.ExecutableObjectAttr{Path: path, HasPath: true, Data: data}, nil
}

// cpuTriples maps the architecture of an embedded-elf format to the
// triple the samples' kernels are built for.
var cpuTriples = map[string]string{
	"x86_64": "x86_64-unknown-unknown-eabi-elf",
	"arm_64": "aarch64-unknown-unknown-eabi-elf",
}

// SourceTarget derives what a kernel source in lang is compiled for from
// an executable target: C for llvm-cpu (its target_triple, else the
// embedded triple of its format's architecture), CUDA for cuda (its
// target_arch), GLSL for SPIR-V targets. A language the target cannot run
// is an error naming both.
func SourceTarget(t *hal.ExecutableTargetAttr, path string, lang kernelsrc.Language) (kernelsrc.Target, error) {
	mismatch := func() error {
		return fmt.Errorf("kernel source %s is %v, which cannot be compiled for a %s target (C is for llvm-cpu, CUDA for cuda, GLSL for vulkan-spirv)", path, lang, t.Backend)
	}
	switch lang {
	case kernelsrc.C:
		if t.Backend != "llvm-cpu" {
			return kernelsrc.Target{}, mismatch()
		}
		if s, ok := t.Config.Get("target_triple").(ir.StringAttr); ok && s.Value != "" {
			return kernelsrc.Target{Triple: s.Value}, nil
		}
		arch := t.Format
		for _, p := range []string{"embedded-elf-", "system-elf-"} {
			arch = strings.TrimPrefix(arch, p)
		}
		if tr, ok := cpuTriples[arch]; ok {
			return kernelsrc.Target{Triple: tr}, nil
		}
		return kernelsrc.Target{}, fmt.Errorf("kernel source %s: target %s has no target_triple and its format names no known architecture", path, ir.AttrString(t))
	case kernelsrc.CUDA:
		if t.Backend != "cuda" {
			return kernelsrc.Target{}, mismatch()
		}
		if s, ok := t.Config.Get("target_arch").(ir.StringAttr); ok && s.Value != "" {
			return kernelsrc.Target{Arch: s.Value}, nil
		}
		return kernelsrc.Target{}, fmt.Errorf("kernel source %s: target %s has no target_arch (sm_XX) to compile for", path, ir.AttrString(t))
	case kernelsrc.GLSL:
		if !IsSPIRV(t) {
			return kernelsrc.Target{}, mismatch()
		}
		return kernelsrc.Target{}, nil
	}
	return kernelsrc.Target{}, mismatch()
}
