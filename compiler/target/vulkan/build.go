package vulkan

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

// GlslcPathFlag is the iree-compile flag that sets the glslc binary.
const GlslcPathFlag = "--iree-vulkan-glslc-path="

// Format is the executable format the target produces.
const Format = spirv.Format

// Backends are the target backend names this package builds.
var Backends = []string{"vulkan-spirv", "vulkan"}

// ObjectLoader returns the bytes of an executable object (its embedded
// data, or the file its path resolves to). *objects.Resolver implements it.
type ObjectLoader interface {
	Load(obj *hal.ExecutableObjectAttr) ([]byte, error)
}

// Options configure SPIR-V code generation.
type Options struct {
	// GlslcPath is the glslc binary; empty means glslc on PATH.
	GlslcPath string
	// Objects loads external variants' objects. When nil, embedded data is
	// used and paths are read as written.
	Objects ObjectLoader
	// DumpSourcesTo and DumpBinariesTo, when set, are directories that
	// receive the generated GLSL and the SPIR-V of every variant.
	DumpSourcesTo, DumpBinariesTo string
	// NoSubgroups generates shaders without subgroup operations
	// (GLSLOptions.NoSubgroups).
	NoSubgroups bool
	// CoopMatrixNV keeps cooperative-matrix matmuls on
	// VK_NV_cooperative_matrix instead of rewriting them to
	// VK_KHR_cooperative_matrix (coopkhr.go).
	CoopMatrixNV bool
	// WorkgroupMatrices lets cooperative-matrix matmuls multiply whole
	// blocks as workgroup-scope matrices (GLSLOptions.WorkgroupMatrices).
	WorkgroupMatrices bool
	// flagErr is a bad flag value the builder reports when it builds.
	flagErr error
}

// Builder builds vulkan-spirv variants; it implements
// vmgen.ExecutableBuilder.
type Builder struct {
	Options Options
}

// Build implements vmgen.ExecutableBuilder.
func (b Builder) Build(variant *ir.Operation) ([]byte, error) { return Build(variant, b.Options) }

// FindGlslc returns the glslc binary the options select.
func (o Options) FindGlslc() (string, error) {
	if o.GlslcPath != "" {
		if p, err := exec.LookPath(o.GlslcPath); err == nil {
			return p, nil
		}
		return "", fmt.Errorf("glslc %s not found or not executable (set %s<path>)", o.GlslcPath, GlslcPathFlag)
	}
	p, err := exec.LookPath("glslc")
	if err != nil {
		return "", fmt.Errorf("glslc not found on PATH; install it (Debian: glslc) or set %s<path>", GlslcPathFlag)
	}
	return p, nil
}

// Supports reports whether a variant is handled by this target.
func Supports(variant *ir.Operation) bool {
	t := hal.VariantTarget(variant)
	if t == nil {
		return false
	}
	for _, b := range Backends {
		if t.Backend == b {
			return t.Format == Format
		}
	}
	return false
}

// export is one hal.executable.export of a variant.
type export struct {
	op      *ir.Operation
	name    string
	ordinal int64
	layout  *hal.PipelineLayoutAttr
}

func exports(variant *ir.Operation) ([]export, error) {
	var out []export
	if b := variant.Body(); b != nil {
		for _, op := range b.Ops {
			if op.Name != "hal.executable.export" {
				continue
			}
			ord, _ := op.IntAttr("ordinal")
			out = append(out, export{op: op, name: op.SymName(), ordinal: ord, layout: hal.ExportLayout(op)})
		}
	}
	if len(out) == 0 {
		return nil, ir.OpErrorf(variant, "variant has no exports")
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ordinal < out[j].ordinal })
	for i, e := range out {
		if e.ordinal != int64(i) {
			return nil, ir.OpErrorf(e.op, "export ordinals must be 0..%d, found %d", len(out)-1, e.ordinal)
		}
	}
	return out, nil
}

// entryPoint describes an export for the runtime: name and layout counts.
// Vulkan dispatches bind set 0 with dense bindings, so every layout must
// have that shape.
func entryPoint(e export) (spirv.EntryPoint, error) {
	if e.layout == nil {
		return spirv.EntryPoint{}, ir.OpErrorf(e.op, "export @%s has no layout", e.name)
	}
	bs := e.layout.AllBindings()
	for i, sb := range bs {
		if sb.Set != 0 || sb.Binding.Ordinal != int64(i) {
			return spirv.EntryPoint{}, ir.OpErrorf(e.op, "export @%s: vulkan-spirv needs its bindings in set 0 numbered 0..%d, found set %d binding %d at position %d", e.name, len(bs)-1, sb.Set, sb.Binding.Ordinal, i)
		}
	}
	return spirv.EntryPoint{Name: e.name, ConstantCount: uint32(e.layout.ConstantCount()), BindingCount: uint32(len(bs))}, nil
}

// Build returns the "vulkan-spirv-fb" executable of a variant.
func Build(variant *ir.Operation, opts Options) ([]byte, error) {
	if opts.flagErr != nil {
		return nil, opts.flagErr
	}
	if !Supports(variant) {
		t := hal.VariantTarget(variant)
		if t == nil {
			return nil, ir.OpErrorf(variant, "variant has no target")
		}
		return nil, ir.OpErrorf(variant, "target %q/%q is not built by vulkan-spirv code generation (backend vulkan-spirv, format %s)", t.Backend, t.Format, Format)
	}
	exps, err := exports(variant)
	if err != nil {
		return nil, err
	}
	exe := &spirv.Executable{}
	for _, e := range exps {
		ep, err := entryPoint(e)
		if err != nil {
			return nil, err
		}
		exe.EntryPoints = append(exe.EntryPoints, ep)
	}
	objs := hal.VariantObjects(variant)
	inner := hal.InnerModule(variant)
	switch {
	case inner == nil:
		if len(objs) == 0 {
			return nil, ir.OpErrorf(variant, "no objects defined for external variant")
		}
		if len(objs) > 1 {
			return nil, ir.OpErrorf(variant, "only one object reference is supported for external variants")
		}
		data, err := loadObject(objs[0], opts.Objects)
		if err != nil {
			return nil, ir.OpErrorf(variant, "loading SPIR-V object: %v", err)
		}
		exe.Code, err = words(data)
		if err != nil {
			return nil, ir.OpErrorf(variant, "SPIR-V object %s: %v", objectName(objs[0]), err)
		}
	default:
		if len(objs) > 0 {
			return nil, ir.OpErrorf(variant, "vulkan-spirv variants with a builtin.module cannot link objects; use an external variant with one .spv object")
		}
		if len(exps) != 1 {
			return nil, ir.OpErrorf(variant, "generated vulkan-spirv variants have one export, found %d", len(exps))
		}
		exe.Code, err = generate(variant, inner, exps[0], opts)
		if err != nil {
			return nil, err
		}
		if exe.EntryPoints[0].Config, err = generatedConfig(variant, inner, exps[0], opts, exe.Code); err != nil {
			return nil, err
		}
	}
	if opts.DumpBinariesTo != "" {
		if err := target.Dump(opts.DumpBinariesTo, dumpName(variant)+".spv", wordBytes(exe.Code)); err != nil {
			return nil, err
		}
	}
	return exe.Marshal(), nil
}

func objectName(o *hal.ExecutableObjectAttr) string {
	if o.HasPath {
		return o.Path
	}
	return "(embedded data)"
}

func loadObject(o *hal.ExecutableObjectAttr, loader ObjectLoader) ([]byte, error) {
	if loader != nil {
		return loader.Load(o)
	}
	data, ok, err := o.DataBytes()
	if err != nil {
		return nil, err
	}
	if ok {
		return data, nil
	}
	if !o.HasPath {
		return nil, fmt.Errorf("object has neither a path nor data")
	}
	return os.ReadFile(o.Path)
}

// words converts a little-endian SPIR-V binary to words.
func words(data []byte) ([]uint32, error) {
	if len(data)%4 != 0 {
		return nil, fmt.Errorf("size %d is not a multiple of 4", len(data))
	}
	if len(data) < 20 || binary.LittleEndian.Uint32(data) != spirv.Magic {
		return nil, fmt.Errorf("not a little-endian SPIR-V module (bad magic number)")
	}
	w := make([]uint32, len(data)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(data[4*i:])
	}
	return w, nil
}

func wordBytes(w []uint32) []byte {
	b := make([]byte, 4*len(w))
	for i, v := range w {
		binary.LittleEndian.PutUint32(b[4*i:], v)
	}
	return b
}

func dumpName(variant *ir.Operation) string {
	name := variant.SymName()
	if p := variant.ParentOp(); p != nil && p.SymName() != "" {
		name = p.SymName() + "_" + name
	}
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
}

// generate emits the GLSL of a generated elementwise variant and compiles
// it with glslc.
func generate(variant, inner *ir.Operation, e export, opts Options) ([]uint32, error) {
	dev, err := DeviceOf(hal.VariantTarget(variant))
	if err != nil {
		return nil, ir.OpErrorf(variant, "%v", err)
	}
	src, err := GenerateGLSLWith(inner, e.name, opts.glsl(dev))
	if err != nil {
		return nil, err
	}
	base := dumpName(variant)
	if opts.DumpSourcesTo != "" {
		if err := target.Dump(opts.DumpSourcesTo, base+".glsl", []byte(src)); err != nil {
			return nil, err
		}
	}
	glslc, err := opts.FindGlslc()
	if err != nil {
		return nil, ir.OpErrorf(variant, "%v", err)
	}
	code, err := CompileGLSL(glslc, src)
	if err != nil {
		return nil, ir.OpErrorf(variant, "compiling the generated shader of @%s: %v", e.name, err)
	}
	if !opts.CoopMatrixNV && usesNVCoopMatrix(code) {
		if code, err = coopKHR(code); err != nil {
			return nil, ir.OpErrorf(variant, "rewriting the cooperative matrices of @%s to VK_KHR_cooperative_matrix: %v", e.name, err)
		}
	}
	return RenameEntryPoint(code, "main", e.name)
}

// glsl returns the shader generator's options for device dev.
func (o Options) glsl(dev Device) GLSLOptions {
	return GLSLOptions{NoSubgroups: o.NoSubgroups, Device: dev, WorkgroupMatrices: o.WorkgroupMatrices}
}

// CompileGLSL compiles a GLSL compute shader with glslc to SPIR-V words.
func CompileGLSL(glslc, src string) ([]uint32, error) {
	dir, err := os.MkdirTemp("", "goiree-spirv-")
	if err != nil {
		return nil, fmt.Errorf("creating a temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "shader.comp"), filepath.Join(dir, "shader.spv")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		return nil, fmt.Errorf("writing shader source: %w", err)
	}
	var stderr bytes.Buffer
	cmd := exec.Command(glslc, "-fshader-stage=compute", "--target-env=vulkan1.1", "-O", "-o", out, in)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v\n%s", glslc, err, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("reading glslc output: %w", err)
	}
	return words(data)
}

// RenameEntryPoint rewrites the name of the OpEntryPoint called from.
func RenameEntryPoint(code []uint32, from, to string) ([]uint32, error) {
	const opEntryPoint = 15
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			return nil, fmt.Errorf("SPIR-V instruction at word %d has bad length %d", i, n)
		}
		if code[i]&0xffff == opEntryPoint && n >= 4 {
			name, used := literalString(code[i+3 : i+n])
			if name == from {
				repl := append([]uint32{0, code[i+1], code[i+2]}, stringWords(to)...)
				repl = append(repl, code[i+3+used:i+n]...)
				repl[0] = uint32(len(repl))<<16 | opEntryPoint
				out := append(append(append([]uint32(nil), code[:i]...), repl...), code[i+n:]...)
				return out, nil
			}
		}
		i += n
	}
	return nil, fmt.Errorf("SPIR-V module has no entry point %q", from)
}

// literalString decodes a SPIR-V literal string and the words it used.
func literalString(w []uint32) (string, int) {
	var b []byte
	for i, v := range w {
		for k := 0; k < 4; k++ {
			c := byte(v >> (8 * k))
			if c == 0 {
				return string(b), i + 1
			}
			b = append(b, c)
		}
	}
	return string(b), len(w)
}

func stringWords(s string) []uint32 {
	b := append([]byte(s), 0)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	w := make([]uint32, len(b)/4)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return w
}

// elementwiseAttr is the attribute package elementwise puts on generated
// entry functions.
const elementwiseAttr = elementwise.Attr
