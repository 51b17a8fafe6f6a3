package llvmcpu

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// Flag names for the tool paths, used in error messages.
const (
	ClangPathFlag  = "--iree-llvmcpu-clang-path="
	LinkerPathFlag = "--iree-llvmcpu-embedded-linker-path="
)

// ObjectLoader returns the bytes of an executable object (its embedded
// data, or the file its path resolves to). *objects.Resolver implements it.
type ObjectLoader interface {
	Load(obj *hal.ExecutableObjectAttr) ([]byte, error)
}

// PathFinder is implemented by loaders that can also say where a path
// object lives, so that lld reads it in place and names it in errors.
type PathFinder interface {
	Find(obj *hal.ExecutableObjectAttr) (string, error)
}

// Options configure CPU code generation.
type Options struct {
	// ClangPath and LinkerPath are the clang and ld.lld binaries; empty
	// means clang-16/clang and ld.lld-16/ld.lld on PATH.
	ClangPath, LinkerPath string
	// Objects loads the variant's #hal.executable.object entries. When nil,
	// path objects are used as written and data objects are embedded.
	Objects ObjectLoader
	// DumpSourcesTo and DumpBinariesTo, when set, are directories that
	// receive the generated C and the linked library.
	DumpSourcesTo, DumpBinariesTo string
	// ExtraCFlags are appended to the clang command line.
	ExtraCFlags []string
	// CPU and CPUFeatures select the target CPU ("host" for the machine
	// compiling, or a clang CPU name such as "skylake-avx512") and extra
	// features ("+avx2,+fma"), as IREE's --iree-llvmcpu-target-cpu and
	// --iree-llvmcpu-target-cpu-features do. A variant whose target
	// configuration has "cpu" or "cpu_features" uses those instead. Empty
	// means the triple's baseline (portable x86-64).
	CPU, CPUFeatures string
}

// cpuFlags returns the clang flags selecting a variant's CPU and
// features: its target configuration's cpu and cpu_features, else the
// options'.
func cpuFlags(t *hal.ExecutableTargetAttr, o Options) ([]string, error) {
	cpu, features := o.CPU, o.CPUFeatures
	if t.Config != nil {
		if s, ok := t.Config.Get("cpu").(ir.StringAttr); ok {
			cpu = s.Value
		}
		if s, ok := t.Config.Get("cpu_features").(ir.StringAttr); ok {
			features = s.Value
		}
	}
	var flags []string
	switch {
	case cpu == "" || cpu == "generic":
	case cpu == "host":
		// The host is only a CPU for its own architecture.
		if hostFormat := "embedded-elf-" + map[string]string{"amd64": "x86_64", "arm64": "arm_64"}[runtime.GOARCH]; hostFormat != t.Format {
			return nil, fmt.Errorf("cpu \"host\" (%s) cannot be used for %s", runtime.GOARCH, t.Format)
		}
		flags = append(flags, "-march=native")
	case strings.Trim(cpu, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "":
		return nil, fmt.Errorf("invalid CPU name %q", cpu)
	case strings.HasPrefix(t.Format, "embedded-elf-x86"):
		flags = append(flags, "-march="+cpu)
	default:
		flags = append(flags, "-mcpu="+cpu)
	}
	if len(flags) > 0 && strings.HasPrefix(t.Format, "embedded-elf-x86") {
		// clang would split 512-bit vectors into 256-bit halves on CPUs
		// that prefer them, which leaves the matmul tile in memory.
		flags = append(flags, "-mprefer-vector-width=512")
	}
	for _, f := range strings.Split(features, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if (f[0] != '+' && f[0] != '-') || len(f) < 2 || strings.Trim(f[1:], "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" {
			return nil, fmt.Errorf("invalid CPU feature %q (want +name or -name, comma separated)", f)
		}
		flags = append(flags, "-Xclang", "-target-feature", "-Xclang", f)
	}
	return flags, nil
}

// Triples maps the supported executable formats to clang target triples.
var Triples = map[string]string{
	"embedded-elf-x86_64": "x86_64-unknown-unknown-eabi-elf",
	"embedded-elf-arm_64": "aarch64-unknown-unknown-eabi-elf",
}

// CFlags are the clang flags every generated library is compiled with
// (after "-target <triple>").
var CFlags = []string{
	"-std=c17", "-ffreestanding", "-fPIC", "-O2",
	"-fvisibility=hidden", "-fno-stack-protector", "-fno-math-errno", "-fno-builtin",
	"-ffunction-sections", "-fdata-sections", "-fno-asynchronous-unwind-tables", "-fno-unwind-tables",
	"-nostdlib", "-w", "-c",
}

// LinkFlags are the ld.lld flags every library is linked with.
var LinkFlags = []string{
	"-shared", "--no-undefined", "--no-allow-shlib-undefined", "-nostdlib", "-static",
	"-z", "now", "-z", "relro", "--gc-sections", "--build-id=none", "--hash-style=sysv",
	"--discard-all", "--strip-debug",
}

func findTool(explicit, flag string, names ...string) (string, error) {
	if explicit != "" {
		if p, err := exec.LookPath(explicit); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("%s not found or not executable (set %s<path>)", explicit, flag)
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH; install it or set %s<path>", strings.Join(names, " or "), flag)
}

// FindClang returns the clang binary the options select.
func (o Options) FindClang() (string, error) {
	return findTool(o.ClangPath, ClangPathFlag, "clang-16", "clang")
}

// FindLinker returns the ld.lld binary the options select.
func (o Options) FindLinker() (string, error) {
	return findTool(o.LinkerPath, LinkerPathFlag, "ld.lld-16", "ld.lld")
}

// Format returns the executable format a llvm-cpu target produces.
func Format(t *hal.ExecutableTargetAttr) string { return t.Format }

// Supports reports whether a variant is handled by this back end.
func Supports(variant *ir.Operation) bool {
	t := hal.VariantTarget(variant)
	return t != nil && t.Backend == "llvm-cpu" && Triples[t.Format] != ""
}

// Build generates, compiles and links the library of a llvm-cpu variant,
// returning the bytes of the freestanding shared ELF.
func Build(variant *ir.Operation, opts Options) ([]byte, error) {
	t := hal.VariantTarget(variant)
	if t == nil {
		return nil, ir.OpErrorf(variant, "variant has no target")
	}
	if t.Backend != "llvm-cpu" {
		return nil, ir.OpErrorf(variant, "target backend %q is not llvm-cpu", t.Backend)
	}
	triple := Triples[t.Format]
	if triple == "" {
		return nil, ir.OpErrorf(variant, "executable format %q is not supported by llvm-cpu code generation (supported: embedded-elf-arm_64, embedded-elf-x86_64)", t.Format)
	}
	lib, err := GenerateC(variant)
	if err != nil {
		return nil, err
	}
	clang, err := opts.FindClang()
	if err != nil {
		return nil, err
	}
	lld, err := opts.FindLinker()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "goiree-llvmcpu-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	base := sanitize(lib.Name)
	src := filepath.Join(dir, base+".c")
	if err := os.WriteFile(src, []byte(lib.Source), 0o644); err != nil {
		return nil, fmt.Errorf("writing generated source: %w", err)
	}
	if opts.DumpSourcesTo != "" {
		if err := target.Dump(opts.DumpSourcesTo, base+".c", []byte(lib.Source)); err != nil {
			return nil, err
		}
	}
	obj := filepath.Join(dir, base+".o")
	cpu, err := cpuFlags(t, opts)
	if err != nil {
		return nil, ir.OpErrorf(variant, "%v", err)
	}
	args := append(append(append(append([]string{"-target", triple}, CFlags...), cpu...), opts.ExtraCFlags...), "-o", obj, src)
	if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("compiling the generated code of %s with %s: %v\n%s", lib.Name, clang, err, out)
	}
	inputs := []string{obj}
	names := map[string]string{obj: "generated code of " + lib.Name}
	for i, o := range hal.VariantObjects(variant) {
		p, name, err := objectFile(o, opts.Objects, dir, base, i)
		if err != nil {
			return nil, ir.OpErrorf(variant, "%v", err)
		}
		inputs = append(inputs, p)
		names[p] = name
	}
	so := filepath.Join(dir, base+".so")
	largs := append(append([]string{}, LinkFlags...), "-o", so)
	largs = append(largs, inputs...)
	if out, err := exec.Command(lld, largs...).CombinedOutput(); err != nil {
		return nil, ir.OpErrorf(variant, "%s", linkError(out, err, lib, names))
	}
	elf, err := os.ReadFile(so)
	if err != nil {
		return nil, fmt.Errorf("reading linked library: %w", err)
	}
	if opts.DumpBinariesTo != "" {
		if err := target.Dump(opts.DumpBinariesTo, base+".so", elf); err != nil {
			return nil, err
		}
	}
	return elf, nil
}

// objectFile returns a path lld can read for an object: the resolved file
// of a path object, or a temporary file holding a data object.
func objectFile(o *hal.ExecutableObjectAttr, loader ObjectLoader, dir, base string, i int) (path, name string, err error) {
	_, hasData, derr := o.DataBytes()
	if derr != nil {
		return "", "", derr
	}
	if o.HasPath && !hasData {
		if f, ok := loader.(PathFinder); ok {
			p, err := f.Find(o)
			if err != nil {
				return "", "", err
			}
			return p, p, nil
		}
		if loader == nil {
			if _, err := os.Stat(o.Path); err != nil {
				return "", "", fmt.Errorf("object %s: %w", o.Path, err)
			}
			return o.Path, o.Path, nil
		}
	}
	var data []byte
	if loader != nil {
		data, err = loader.Load(o)
	} else {
		data, _, err = o.DataBytes()
	}
	if err != nil {
		return "", "", err
	}
	p := filepath.Join(dir, fmt.Sprintf("%s_object_%d.o", base, i))
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return "", "", fmt.Errorf("writing object %d: %w", i, err)
	}
	name = fmt.Sprintf("embedded object #%d", i)
	if o.HasPath {
		name = o.Path
	}
	return p, name, nil
}

var undefinedRE = regexp.MustCompile(`undefined (?:hidden )?symbol: ([^\s]+)`)

// linkError turns lld's output into one clear message: undefined symbols
// are named together with the objects that should have defined them.
func linkError(out []byte, err error, lib *Library, names map[string]string) string {
	var objs []string
	for _, n := range names {
		if !strings.HasPrefix(n, "generated code") {
			objs = append(objs, n)
		}
	}
	sort.Strings(objs)
	var missing []string
	seen := map[string]bool{}
	for _, m := range undefinedRE.FindAllSubmatch(out, -1) {
		s := string(m[1])
		if !seen[s] {
			seen[s] = true
			missing = append(missing, s)
		}
	}
	if len(missing) > 0 {
		where := "no objects are linked"
		if len(objs) > 0 {
			where = "not defined by " + strings.Join(objs, ", ")
		}
		return fmt.Sprintf("linking %s: undefined symbol%s %s (%s); the objects must define every hal.import.static function the shims call",
			lib.Name, plural(len(missing)), strings.Join(missing, ", "), where)
	}
	msg := string(bytes.TrimSpace(out))
	for p, n := range names {
		msg = strings.ReplaceAll(msg, p, n)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && msg != "" {
		return fmt.Sprintf("linking %s failed: %s", lib.Name, msg)
	}
	return fmt.Sprintf("linking %s failed: %v %s", lib.Name, err, msg)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Builder builds variants with fixed options; it satisfies the
// executable-builder interface of package vmgen.
type Builder struct{ Options Options }

// Build implements vmgen.ExecutableBuilder.
func (b Builder) Build(variant *ir.Operation) ([]byte, error) { return Build(variant, b.Options) }
