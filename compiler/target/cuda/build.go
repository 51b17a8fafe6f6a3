package cuda

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelabi"
	"github.com/goiree/goiree/compiler/objects"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
)

// Backend is the target backend name this package builds.
const Backend = "cuda"

// Format is the executable format of the payloads it produces.
const Format = "cuda-nvptx-fb"

// DefaultArch is the architecture generated code targets when the
// executable target names none (target_arch).
const DefaultArch = "sm_80"

// ObjectLoader returns the bytes of an executable object (its embedded
// data, or the file its path resolves to). *objects.Resolver implements it.
type ObjectLoader interface {
	Load(obj *hal.ExecutableObjectAttr) ([]byte, error)
}

// Options configure the cuda target.
type Options struct {
	// Objects loads external variants' .ptx objects. When nil, path
	// objects are read as written and data objects are used as embedded.
	Objects ObjectLoader
	// DumpSourcesTo and DumpBinariesTo, when set, are directories that
	// receive the generated PTX and the serialized executables.
	DumpSourcesTo, DumpBinariesTo string
}

// Builder builds cuda variants; it implements vmgen.ExecutableBuilder.
type Builder struct {
	Options Options
}

// Build implements vmgen.ExecutableBuilder.
func (b Builder) Build(variant *ir.Operation) ([]byte, error) { return Build(variant, b.Options) }

// Arch returns the target architecture of a cuda executable target: its
// target_arch, or DefaultArch.
func Arch(t *hal.ExecutableTargetAttr) string {
	if t != nil && t.Config != nil {
		if s, ok := t.Config.Get("target_arch").(ir.StringAttr); ok && s.Value != "" {
			return s.Value
		}
	}
	return DefaultArch
}

// Build serializes a cuda variant into a "cuda-nvptx-fb" payload: an
// external variant's single .ptx object is embedded with the exports'
// names, block sizes (workgroup_size) and layout counts; a variant with a
// builtin.module of generated elementwise kernels is compiled to PTX.
func Build(variant *ir.Operation, opts Options) ([]byte, error) {
	t := hal.VariantTarget(variant)
	if t == nil {
		return nil, ir.OpErrorf(variant, "variant has no target")
	}
	if t.Backend != Backend {
		return nil, ir.OpErrorf(variant, "target backend %q is not cuda", t.Backend)
	}
	if t.Format != Format {
		return nil, ir.OpErrorf(variant, "executable format %q is not supported by the cuda target (supported: %s)", t.Format, Format)
	}
	name := variant.SymName()
	if exe := variant.ParentOp(); exe != nil && exe.SymName() != "" {
		name = exe.SymName() + "_" + name
	}
	name = sanitize(name)
	var exe *cudafb.Executable
	if hal.InnerModule(variant) == nil {
		e, err := external(variant, opts)
		if err != nil {
			return nil, err
		}
		exe = e
	} else {
		m, err := GeneratePTX(variant, Arch(t))
		if err != nil {
			return nil, err
		}
		if opts.DumpSourcesTo != "" {
			if err := dump(opts.DumpSourcesTo, name+".ptx", []byte(m.PTX)); err != nil {
				return nil, err
			}
		}
		exe = &cudafb.Executable{PTX: m.PTX}
		for _, k := range m.Kernels {
			exe.EntryPoints = append(exe.EntryPoints, cudafb.EntryPoint{
				Name: k.Name, BlockSize: k.BlockSize,
				ConstantCount: uint32(k.ConstantCount), BindingCount: uint32(k.BindingCount),
			})
		}
	}
	data := exe.Marshal()
	if opts.DumpBinariesTo != "" {
		if err := dump(opts.DumpBinariesTo, name+".cudafb", data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// exportInfo is what an export contributes to the executable.
type exportInfo struct {
	op       *ir.Operation
	ordinal  int
	entry    cudafb.EntryPoint
	bindings int
	consts   int
}

func exportsOf(variant *ir.Operation) ([]exportInfo, error) {
	var exports []*ir.Operation
	for _, o := range variant.Body().Ops {
		if o.Name == "hal.executable.export" {
			exports = append(exports, o)
		}
	}
	if len(exports) == 0 {
		return nil, ir.OpErrorf(variant, "variant has no hal.executable.export")
	}
	out := make([]exportInfo, len(exports))
	seen := make([]bool, len(exports))
	for i, ex := range exports {
		ord := i
		if n, ok := ex.IntAttr("ordinal"); ok {
			ord = int(n)
		}
		if ord < 0 || ord >= len(exports) || seen[ord] {
			return nil, ir.OpErrorf(ex, "export ordinals must be dense and unique in [0, %d); found %d", len(exports), ord)
		}
		seen[ord] = true
		e := exportInfo{op: ex, ordinal: ord}
		e.entry.Name = ex.SymName()
		ws, err := workgroupSize(ex)
		if err != nil {
			return nil, err
		}
		e.entry.BlockSize = ws
		if n, ok := ex.IntAttr("workgroup_local_memory"); ok {
			if n < 0 || n > 1<<32-1 {
				return nil, ir.OpErrorf(ex, "workgroup_local_memory %d out of range", n)
			}
			e.entry.SharedMemorySize = uint32(n)
		}
		if l := hal.ExportLayout(ex); l != nil {
			e.bindings, e.consts = len(l.AllBindings()), int(l.ConstantCount())
		}
		e.entry.BindingCount, e.entry.ConstantCount = uint32(e.bindings), uint32(e.consts)
		out[ord] = e
	}
	return out, nil
}

// workgroupSize reads an export's workgroup_size (missing dimensions are
// 1; CUDA's default block size of one thread is almost never intended, so
// an absent attribute is an error).
func workgroupSize(ex *ir.Operation) ([3]uint32, error) {
	arr, ok := ex.Attr("workgroup_size").(*ir.ArrayAttr)
	if !ok {
		return [3]uint32{}, ir.OpErrorf(ex, "cuda export @%s needs a workgroup_size (the CUDA block size), e.g. workgroup_size = [64 : index, 1 : index, 1 : index]", ex.SymName())
	}
	ws := [3]uint32{1, 1, 1}
	if len(arr.Elems) == 0 || len(arr.Elems) > 3 {
		return ws, ir.OpErrorf(ex, "workgroup_size must have 1 to 3 entries, found %d", len(arr.Elems))
	}
	total := uint64(1)
	for i, e := range arr.Elems {
		v, ok := e.(ir.IntegerAttr)
		if !ok || v.Value <= 0 || v.Value > 1024 {
			return ws, ir.OpErrorf(ex, "workgroup_size entry %d must be an integer in [1, 1024], found %s", i, ir.AttrString(e))
		}
		ws[i] = uint32(v.Value)
		total *= uint64(v.Value)
	}
	if total > 1024 {
		return ws, ir.OpErrorf(ex, "workgroup_size %v is %d threads, over CUDA's 1024 per block", ws, total)
	}
	return ws, nil
}

// external builds the executable of a variant without a builtin.module
// from its single .ptx object.
func external(variant *ir.Operation, opts Options) (*cudafb.Executable, error) {
	objs := hal.VariantObjects(variant)
	switch {
	case len(objs) == 0:
		return nil, ir.OpErrorf(variant, "no objects defined for external variant")
	case len(objs) > 1:
		return nil, ir.OpErrorf(variant, "only one object reference is supported for external variants")
	}
	ptx, err := loadObject(objs[0], opts.Objects)
	if err != nil {
		return nil, ir.OpErrorf(variant, "%v", err)
	}
	exports, err := exportsOf(variant)
	if err != nil {
		return nil, err
	}
	var ifaces []kernelabi.KernelInterface
	for _, e := range exports {
		if hal.ExportLayout(e.op) != nil {
			ifaces = append(ifaces, kernelabi.KernelInterface{Export: e.entry.Name, Bindings: e.bindings, Constants: e.consts})
		}
	}
	if err := kernelabi.CheckPTX(objects.Name(objs[0]), string(ptx), ifaces); err != nil {
		return nil, ir.OpErrorf(variant, "%v", err)
	}
	exe := &cudafb.Executable{PTX: string(ptx)}
	for _, e := range exports {
		exe.EntryPoints = append(exe.EntryPoints, e.entry)
	}
	return exe, nil
}

func loadObject(o *hal.ExecutableObjectAttr, loader ObjectLoader) ([]byte, error) {
	if loader != nil {
		return loader.Load(o)
	}
	if data, ok, err := o.DataBytes(); err != nil {
		return nil, err
	} else if ok {
		return data, nil
	}
	if !o.HasPath {
		return nil, fmt.Errorf("object has neither a path nor data")
	}
	b, err := os.ReadFile(o.Path)
	if err != nil {
		return nil, fmt.Errorf("reading object %s: %w", o.Path, err)
	}
	return b, nil
}

func dump(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating dump directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		return fmt.Errorf("dumping %s: %w", name, err)
	}
	return nil
}
