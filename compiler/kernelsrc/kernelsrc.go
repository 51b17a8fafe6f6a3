// Package kernelsrc compiles the kernel sources that executable objects
// may name instead of prebuilt objects: C for CPU variants (clang, the
// freestanding flags of the samples' iree_c_object rule, the variant's
// target triple), CUDA for cuda variants (clang --cuda-device-only to PTX
// for the variant's sm_XX, no CUDA SDK needed) and GLSL compute shaders for
// Vulkan variants (glslc to SPIR-V).
//
// Outputs are cached by content: the key hashes the source's bytes and
// absolute path, the tool's identity (resolved path and version text) and
// every flag. Each entry also records the files the source included, with
// their hashes, so an edited header recompiles. Entries are written
// atomically (a temporary file renamed into place), so concurrent compilers
// sharing a cache never see a partial file.
package kernelsrc

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// Flag names of iree-compile that set the tools and the cache; errors name
// them so a user knows what to pass.
const (
	ClangFlag    = "--iree-hal-clang-path"
	GlslcFlag    = "--iree-hal-glslc-path"
	CacheDirFlag = "--iree-hal-kernel-cache-dir"
)

// Language is a kernel source language.
type Language int

// The languages a kernel source may be written in.
const (
	C    Language = iota + 1 // .c: CPU kernels, compiled to an ELF object
	CUDA                     // .cu: CUDA kernels, compiled to PTX
	GLSL                     // .glsl, .comp: Vulkan compute shaders, compiled to SPIR-V
)

// String names the language as users write it.
func (l Language) String() string {
	switch l {
	case C:
		return "C"
	case CUDA:
		return "CUDA"
	case GLSL:
		return "GLSL"
	}
	return fmt.Sprintf("Language(%d)", int(l))
}

// outputExt is the extension of the compiled file; the back ends and the
// kernel ABI checks recognise objects by it.
func (l Language) outputExt() string {
	switch l {
	case C:
		return ".o"
	case CUDA:
		return ".ptx"
	}
	return ".spv"
}

// LanguageOf returns the language of a source path by its extension; ok is
// false for anything else (prebuilt objects, PTX, SPIR-V).
func LanguageOf(path string) (Language, bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".c":
		return C, true
	case ".cu":
		return CUDA, true
	case ".glsl", ".comp":
		return GLSL, true
	}
	return 0, false
}

// Target says what to compile for.
type Target struct {
	// Triple is the LLVM target triple of a C kernel, for example
	// x86_64-unknown-unknown-eabi-elf.
	Triple string
	// Arch is the GPU architecture of a CUDA kernel, sm_XX.
	Arch string
}

// EmbeddedCFlags are the flags C kernels are compiled with after
// `-target <triple>`: no host OS or C library, nothing exported but what
// the executable's shims call, one section per function so the linker can
// drop what is unused. They equal EMBEDDED_KERNEL_COPTS of the Bazel rule
// iree_c_object (build_tools/bazel/kernels.bzl).
var EmbeddedCFlags = []string{
	"-std=c17",
	"-ffreestanding",
	"-fvisibility=hidden",
	"-fno-plt",
	"-fno-rtti",
	"-fno-exceptions",
	"-fdata-sections",
	"-ffunction-sections",
	"-O2",
}

// cudaFlags are the flags of the Bazel rule iree_cuda_ptx with clang, with
// its prelude (build_tools/bazel/cuda_prelude.h) given as definitions: a
// device-only compile with no CUDA SDK needs the space qualifiers spelled
// as clang attributes, and clang's own header supplies threadIdx and
// friends.
var cudaFlags = []string{
	"-x", "cuda",
	"--cuda-device-only",
	"-nocudainc",
	"-nocudalib",
	"-O2",
	"-S",
	"-D__host__=__attribute__((host))",
	"-D__device__=__attribute__((device))",
	"-D__global__=__attribute__((global))",
	"-D__shared__=__attribute__((shared))",
	"-D__constant__=__attribute__((constant))",
	"-D__forceinline__=__inline__ __attribute__((always_inline))",
	"-D__noinline__=__attribute__((noinline))",
	"-D__syncthreads()=__nvvm_bar_sync(0)",
	"-include", "__clang_cuda_builtin_vars.h",
}

// Options configure a Compiler.
type Options struct {
	// ClangPath is the clang for C and CUDA sources; empty means clang-16,
	// then clang, on PATH.
	ClangPath string
	// GlslcPath is the glslc for GLSL sources; empty means glslc on PATH.
	GlslcPath string
	// CacheDir holds compiled outputs; empty means DefaultCacheDir().
	CacheDir string
	// LookPath, when set, replaces exec.LookPath (tests).
	LookPath func(file string) (string, error)
}

// DefaultCacheDir is os.UserCacheDir()/goiree/kernels, or "" when the
// system has no user cache directory.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "goiree", "kernels")
}

// Compiler compiles kernel sources through the cache. It is safe for
// concurrent use.
type Compiler struct {
	opts  Options
	mu    sync.Mutex
	tools map[string]*tool // by the name or path asked for
}

// New returns a Compiler with the given options.
func New(opts Options) *Compiler {
	return &Compiler{opts: opts, tools: map[string]*tool{}}
}

// tool is a resolved executable with the identity that enters cache keys.
type tool struct {
	path     string // as run
	identity string // resolved path and version text
}

// ToolNotFoundError reports a compiler that is neither configured nor on
// PATH.
type ToolNotFoundError struct {
	Source string   // the kernel source that needs the tool
	Tool   string   // clang or glslc
	Tried  []string // the names or paths looked for
	Flag   string   // the iree-compile flag that sets the tool
	Err    error
}

// Error is one line naming the tool, where it was looked for and the flag
// that sets it.
func (e *ToolNotFoundError) Error() string {
	return fmt.Sprintf("compiling kernel source %s needs %s, which was not found (tried %s); install it or pass %s=<path>",
		e.Source, e.Tool, strings.Join(e.Tried, ", "), e.Flag)
}

// Unwrap returns the lookup error.
func (e *ToolNotFoundError) Unwrap() error { return e.Err }

// CompileError reports a tool that failed on a source. Diagnostics is the
// tool's output as it printed it, so its `file:line:col: error:` lines
// name the place in the source.
type CompileError struct {
	Source      string
	Tool        string
	Target      string // what it was compiled for, in words
	Err         error  // the exit status
	Diagnostics string
}

// Error is a header line followed by the tool's diagnostics.
func (e *CompileError) Error() string {
	msg := fmt.Sprintf("compiling kernel source %s for %s: %s failed (%v)", e.Source, e.Target, filepath.Base(e.Tool), e.Err)
	if d := strings.TrimRight(e.Diagnostics, "\n"); d != "" {
		msg += ":\n" + d
	}
	return msg
}

// Unwrap returns the tool's exit error.
func (e *CompileError) Unwrap() error { return e.Err }

func (c *Compiler) lookPath(file string) (string, error) {
	if c.opts.LookPath != nil {
		return c.opts.LookPath(file)
	}
	return exec.LookPath(file)
}

// findTool resolves a tool: the configured path, else the first default
// name found on PATH. Results are remembered for the Compiler's lifetime.
func (c *Compiler) findTool(source, name, configured, flag string, defaults []string) (*tool, error) {
	candidates := defaults
	if configured != "" {
		candidates = []string{configured}
	}
	key := strings.Join(candidates, "\x00")
	c.mu.Lock()
	t, ok := c.tools[key]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	var lastErr error
	for _, cand := range candidates {
		p, err := c.lookPath(cand)
		if err != nil {
			lastErr = err
			continue
		}
		t := &tool{path: p, identity: identify(p)}
		c.mu.Lock()
		c.tools[key] = t
		c.mu.Unlock()
		return t, nil
	}
	tried := candidates
	if configured == "" {
		tried = nil
		for _, d := range defaults {
			tried = append(tried, d+" on PATH")
		}
	}
	return nil, &ToolNotFoundError{Source: source, Tool: name, Tried: tried, Flag: flag, Err: lastErr}
}

// identify describes a tool for cache keys: its resolved path, size and
// modification time, and what `--version` prints. A tool replaced in place
// (an upgrade) changes at least one of them.
func identify(path string) string {
	var b strings.Builder
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = path
	}
	b.WriteString(real)
	if fi, err := os.Stat(real); err == nil {
		fmt.Fprintf(&b, " %d %d", fi.Size(), fi.ModTime().UnixNano())
	}
	if out, err := exec.Command(path, "--version").Output(); err == nil {
		b.WriteString("\n")
		b.Write(out)
	}
	return b.String()
}

// Result is a compiled source.
type Result struct {
	// Path is the compiled file in the cache; empty when the cache could
	// not be used, and Data holds the output instead.
	Path string
	// Data is the output when Path is empty.
	Data []byte
	// Cached reports that the output came from the cache.
	Cached bool
}

// plan is one tool invocation: args with the placeholders for the output
// and dependency files filled in per run.
type plan struct {
	tool   *tool
	target string   // in words, for errors
	flags  []string // everything but the source and the output/dependency files
	depArg bool     // the tool writes a make-style dependency file with -MD -MF
}

func (c *Compiler) plan(src string, lang Language, t Target) (*plan, error) {
	switch lang {
	case C:
		if t.Triple == "" {
			return nil, fmt.Errorf("compiling kernel source %s: the target has no target triple", src)
		}
		tl, err := c.findTool(src, "clang", c.opts.ClangPath, ClangFlag, []string{"clang-16", "clang"})
		if err != nil {
			return nil, err
		}
		flags := append([]string{"-target", t.Triple}, EmbeddedCFlags...)
		return &plan{tool: tl, target: t.Triple, flags: append(flags, "-c"), depArg: true}, nil
	case CUDA:
		if !validArch(t.Arch) {
			return nil, fmt.Errorf("compiling kernel source %s: the target's GPU architecture %q is not of the form sm_XX", src, t.Arch)
		}
		tl, err := c.findTool(src, "clang", c.opts.ClangPath, ClangFlag, []string{"clang-16", "clang"})
		if err != nil {
			return nil, err
		}
		flags := append([]string{"--cuda-gpu-arch=" + t.Arch}, cudaFlags...)
		return &plan{tool: tl, target: t.Arch, flags: flags, depArg: true}, nil
	case GLSL:
		tl, err := c.findTool(src, "glslc", c.opts.GlslcPath, GlslcFlag, []string{"glslc"})
		if err != nil {
			return nil, err
		}
		return &plan{tool: tl, target: "SPIR-V", flags: []string{"-fshader-stage=compute"}, depArg: true}, nil
	}
	return nil, fmt.Errorf("compiling kernel source %s: unknown language %v", src, lang)
}

func validArch(a string) bool {
	if !strings.HasPrefix(a, "sm_") || len(a) < 5 {
		return false
	}
	for _, r := range a[3:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// key hashes everything the output depends on except included files,
// which the entry's manifest checks.
func (p *plan) key(lang Language, absSrc string, content []byte) string {
	h := sha256.New()
	fmt.Fprintf(h, "goiree-kernelsrc 1\x00%d\x00%s\x00%s\x00", lang, absSrc, p.tool.identity)
	for _, f := range p.flags {
		fmt.Fprintf(h, "%s\x00", f)
	}
	fmt.Fprintf(h, "%d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// Compile compiles the source at path (as the resolver found it; the
// tool's diagnostics name it so) for target, through the cache.
func (c *Compiler) Compile(path string, lang Language, t Target) (*Result, error) {
	content, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading kernel source: %w", err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("kernel source %s: %w", path, err)
	}
	p, err := c.plan(path, lang, t)
	if err != nil {
		return nil, err
	}
	key := p.key(lang, abs, content)
	dir := c.opts.CacheDir
	if dir == "" {
		dir = DefaultCacheDir()
	}
	if dir != "" {
		sub := filepath.Join(dir, key[:2])
		out := filepath.Join(sub, key+lang.outputExt())
		manifest := filepath.Join(sub, key+".deps")
		if depsCurrent(manifest) && fileExists(out) {
			return &Result{Path: out, Cached: true}, nil
		}
		if err := os.MkdirAll(sub, 0o755); err == nil {
			if r, usable, err := c.compileInto(p, path, sub, out, manifest); usable {
				return r, err
			}
		}
	}
	// No usable cache (no home directory, a read-only file system as in
	// some build sandboxes): compile in a temporary directory and hand the
	// bytes back.
	tmp, err := os.MkdirTemp("", "goiree-kernel-*")
	if err != nil {
		return nil, fmt.Errorf("compiling kernel source %s: %w", path, err)
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "out"+lang.outputExt())
	if err := c.run(p, path, out, filepath.Join(tmp, "out.d")); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("compiling kernel source %s: reading the output: %w", path, err)
	}
	return &Result{Data: data}, nil
}

// compileInto compiles into the cache directory sub. usable is false when
// the directory cannot be written, so the caller falls back to a
// temporary directory; a failing tool is reported as it is.
func (c *Compiler) compileInto(p *plan, src, sub, out, manifest string) (r *Result, usable bool, err error) {
	f, err := os.CreateTemp(sub, ".tmp-*"+filepath.Ext(out))
	if err != nil {
		return nil, false, nil
	}
	tmpOut := f.Name()
	f.Close()
	tmpDeps := tmpOut + ".d"
	defer os.Remove(tmpOut)
	defer os.Remove(tmpDeps)
	if err := c.run(p, src, tmpOut, tmpDeps); err != nil {
		return nil, true, err
	}
	deps, err := readDepFile(tmpDeps, src)
	if err != nil {
		return nil, true, fmt.Errorf("compiling kernel source %s: %w", src, err)
	}
	text, err := manifestText(deps)
	if err != nil {
		return nil, true, fmt.Errorf("compiling kernel source %s: %w", src, err)
	}
	// The manifest goes first: an output without its manifest is never
	// used, while a manifest without its output is simply a miss.
	if err := writeAtomic(manifest, []byte(text)); err != nil {
		return nil, false, nil
	}
	if err := os.Rename(tmpOut, out); err != nil {
		return nil, false, nil
	}
	return &Result{Path: out}, true, nil
}

// run invokes the tool on src, writing out (and the dependency file).
func (c *Compiler) run(p *plan, src, out, deps string) error {
	args := append([]string(nil), p.flags...)
	if p.depArg {
		args = append(args, "-MD", "-MF", deps)
	}
	args = append(args, src, "-o", out)
	cmd := exec.Command(p.tool.path, args...)
	var diag bytes.Buffer
	cmd.Stdout = &diag
	cmd.Stderr = &diag
	if err := cmd.Run(); err != nil {
		return &CompileError{Source: src, Tool: p.tool.path, Target: p.target, Err: err, Diagnostics: diag.String()}
	}
	return nil
}

// readDepFile parses a make-style dependency file (`out: a b \` lines,
// spaces in names escaped with '\') and returns the absolute paths of the
// prerequisites other than src itself.
func readDepFile(path, src string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("reading the dependency file: %w", err)
	}
	text := strings.ReplaceAll(string(b), "\\\r\n", " ")
	text = strings.ReplaceAll(text, "\\\n", " ")
	absSrc, _ := filepath.Abs(src)
	var out []string
	seen := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		// The target ends at the first unescaped ": ".
		i := strings.Index(line, ": ")
		if i < 0 {
			continue // blank, or a target without prerequisites
		}
		for _, name := range splitEscaped(line[i+2:]) {
			abs, err := filepath.Abs(name)
			if err != nil || abs == absSrc || seen[abs] {
				continue
			}
			seen[abs] = true
			out = append(out, abs)
		}
	}
	return out, nil
}

// splitEscaped splits at unescaped blanks and removes the escapes.
func splitEscaped(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case ch == '\\' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '#'):
			cur.WriteByte(s[i+1])
			i++
		case ch == '$' && i+1 < len(s) && s[i+1] == '$':
			cur.WriteByte('$')
			i++
		case ch == ' ' || ch == '\t':
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteByte(ch)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// manifestText lists each included file with the SHA-256 of its contents,
// one `<hex> <path>` line each.
func manifestText(deps []string) (string, error) {
	var b strings.Builder
	for _, d := range deps {
		sum, err := fileHash(d)
		if err != nil {
			return "", fmt.Errorf("hashing included file: %w", err)
		}
		fmt.Fprintf(&b, "%s %s\n", sum, d)
	}
	return b.String(), nil
}

func fileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// depsCurrent reports whether a manifest exists and every file it lists
// still has the recorded contents.
func depsCurrent(manifest string) bool {
	f, err := os.Open(manifest)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		sum, path, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return false
		}
		got, err := fileHash(path)
		if err != nil || got != sum {
			return false
		}
	}
	return sc.Err() == nil
}

func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// writeAtomic writes data to path through a temporary file in the same
// directory renamed into place.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	name := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(name)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}
