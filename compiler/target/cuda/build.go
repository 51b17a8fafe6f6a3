package cuda

import (
	"fmt"
	"os"
	"sort"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/kernelabi"
	"github.com/goiree/goiree/compiler/objects"
	"github.com/goiree/goiree/compiler/target"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
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

// Build serializes a cuda variant into a "cuda-nvptx-fb" payload that
// holds one PTX image for every cuda variant of the variant's executable
// (one per sm_XX; see Images), so every variant of one executable builds to
// the same bytes, which vmgen embeds once, and the runtime's driver loads
// the image of the newest architecture the device can run. Only the first
// of those variants writes the dumps.
func Build(variant *ir.Operation, opts Options) ([]byte, error) {
	if err := checkTarget(variant); err != nil {
		return nil, err
	}
	group := Siblings(variant)
	exeName := ""
	if exe := variant.ParentOp(); exe != nil {
		exeName = exe.SymName()
	}
	exe, sources, err := Images(group, opts)
	if err != nil {
		return nil, err
	}
	exe.Name = exeName
	data := exe.Marshal()
	if group[0] != variant {
		return data, nil
	}
	base := exeName
	if base == "" {
		base = variant.SymName()
	}
	base = sanitize(base)
	if opts.DumpSourcesTo != "" {
		for i, src := range sources {
			if src == "" {
				continue
			}
			if err := target.Dump(opts.DumpSourcesTo, base+"_"+sanitize(group[i].SymName())+".ptx", []byte(src)); err != nil {
				return nil, err
			}
		}
	}
	if opts.DumpBinariesTo != "" {
		if err := target.Dump(opts.DumpBinariesTo, base+".cudafb", data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

func checkTarget(variant *ir.Operation) error {
	t := hal.VariantTarget(variant)
	if t == nil {
		return ir.OpErrorf(variant, "variant has no target")
	}
	if t.Backend != Backend {
		return ir.OpErrorf(variant, "target backend %q is not cuda", t.Backend)
	}
	if t.Format != Format {
		return ir.OpErrorf(variant, "executable format %q is not supported by the cuda target (supported: %s)", t.Format, Format)
	}
	return nil
}

// Siblings returns the cuda variants of variant's executable that share
// its payload (backend cuda, format cuda-nvptx-fb, no
// hal.executable.condition), in module order; variant is among them. A
// variant with a condition is chosen by host code, so it keeps a payload
// of its own.
func Siblings(variant *ir.Operation) []*ir.Operation {
	exe := variant.ParentOp()
	if exe == nil || exe.Body() == nil || hasCondition(variant) {
		return []*ir.Operation{variant}
	}
	var out []*ir.Operation
	for _, o := range exe.Body().Ops {
		if o.Name != "hal.executable.variant" {
			continue
		}
		if t := hal.VariantTarget(o); o == variant || t != nil && t.Backend == Backend && t.Format == Format && !hasCondition(o) {
			out = append(out, o)
		}
	}
	return out
}

func hasCondition(variant *ir.Operation) bool {
	if variant.Body() == nil {
		return false
	}
	for _, o := range variant.Body().Ops {
		if o.Name == "hal.executable.condition" {
			return true
		}
	}
	return false
}

// Images builds the payload of cuda variants of one executable: one PTX
// image per variant, keyed by its target_arch (an external variant without
// one is keyed by its PTX's .target), sorted by architecture, and the
// entry points, which every variant must declare alike (names, block
// sizes, shared memory, layout counts per ordinal). It also returns the
// generated PTX of each variant ("" for external ones). Two variants for
// one architecture are an error.
func Images(variants []*ir.Operation, opts Options) (*cudafb.Executable, []string, error) {
	exe := &cudafb.Executable{}
	sources := make([]string, len(variants))
	archOf := map[string]*ir.Operation{}
	for i, v := range variants {
		if err := checkTarget(v); err != nil {
			return nil, nil, err
		}
		img, entries, src, err := image(v, opts)
		if err != nil {
			return nil, nil, err
		}
		sources[i] = src
		if prev, ok := archOf[img.Arch]; ok {
			return nil, nil, ir.OpErrorf(v, "variants @%s and @%s both target %s; an executable has one cuda variant per architecture", prev.SymName(), v.SymName(), img.Arch)
		}
		archOf[img.Arch] = v
		if i == 0 {
			exe.EntryPoints = entries
		} else if err := sameEntries(variants[0], v, exe.EntryPoints, entries); err != nil {
			return nil, nil, err
		}
		exe.Images = append(exe.Images, img)
	}
	sort.SliceStable(exe.Images, func(i, j int) bool {
		a, _ := cudafb.ParseArch(exe.Images[i].Arch)
		b, _ := cudafb.ParseArch(exe.Images[j].Arch)
		if a.Number() != b.Number() {
			return a.Number() < b.Number()
		}
		return exe.Images[i].Arch < exe.Images[j].Arch
	})
	return exe, sources, nil
}

// image builds one variant's PTX image and entry points; src is the
// generated PTX ("" for an external variant). A generated image records
// each kernel's configuration (config.go).
func image(v *ir.Operation, opts Options) (img cudafb.Image, entries []cudafb.EntryPoint, src string, err error) {
	t := hal.VariantTarget(v)
	if hal.InnerModule(v) == nil {
		return external(v, opts)
	}
	arch := Arch(t)
	m, err := GeneratePTX(v, arch)
	if err != nil {
		return img, nil, "", err
	}
	var configs []kernelconfig.Config
	for _, k := range m.Kernels {
		entries = append(entries, cudafb.EntryPoint{
			Name: k.Name, BlockSize: k.BlockSize,
			ConstantCount: uint32(k.ConstantCount), BindingCount: uint32(k.BindingCount),
		})
		if k.Config.IsZero() || k.Config.WorkgroupSize != k.BlockSize {
			// Either would record what the kernel does not do.
			return img, nil, "", ir.OpErrorf(v, "internal error: kernel @%s has block size %v but its recorded configuration %q", k.Name, k.BlockSize, k.Config.String())
		}
		configs = append(configs, k.Config)
	}
	a, _ := cudafb.ParseArch(arch) // GeneratePTX checked it
	return cudafb.Image{Arch: a.String(), PTX: m.PTX, Configs: configs}, entries, m.PTX, nil
}

// sameEntries checks that variant v declares the entry points of the
// first variant.
func sameEntries(first, v *ir.Operation, want, got []cudafb.EntryPoint) error {
	describe := func(e cudafb.EntryPoint) string {
		return fmt.Sprintf("@%s (block %dx%dx%d, shared memory %d, %d constants, %d bindings)",
			e.Name, e.BlockSize[0], e.BlockSize[1], e.BlockSize[2], e.SharedMemorySize, e.ConstantCount, e.BindingCount)
	}
	if len(want) != len(got) {
		return ir.OpErrorf(v, "cuda variant @%s has %d exports but @%s has %d; the cuda variants of one executable share one payload and must export the same kernels", v.SymName(), len(got), first.SymName(), len(want))
	}
	for i := range want {
		if want[i] != got[i] {
			return ir.OpErrorf(v, "cuda variant @%s exports %s at ordinal %d but @%s exports %s; the cuda variants of one executable share one payload and must export the same kernels", v.SymName(), describe(got[i]), i, first.SymName(), describe(want[i]))
		}
	}
	return nil
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

// external builds the image of a variant without a builtin.module from
// its single .ptx object. The image's arch is the variant's target_arch,
// else the PTX's .target, else DefaultArch; PTX whose .target is newer
// than the variant's arch is refused, since it would not load on devices
// of that arch.
func external(variant *ir.Operation, opts Options) (cudafb.Image, []cudafb.EntryPoint, string, error) {
	var img cudafb.Image
	objs := hal.VariantObjects(variant)
	switch {
	case len(objs) == 0:
		return img, nil, "", ir.OpErrorf(variant, "no objects defined for external variant")
	case len(objs) > 1:
		return img, nil, "", ir.OpErrorf(variant, "only one object reference is supported for external variants")
	}
	ptx, err := loadObject(objs[0], opts.Objects)
	if err != nil {
		return img, nil, "", ir.OpErrorf(variant, "%v", err)
	}
	exports, err := exportsOf(variant)
	if err != nil {
		return img, nil, "", err
	}
	var ifaces []kernelabi.KernelInterface
	for _, e := range exports {
		if hal.ExportLayout(e.op) != nil {
			ifaces = append(ifaces, kernelabi.KernelInterface{Export: e.entry.Name, Bindings: e.bindings, Constants: e.consts})
		}
	}
	if err := kernelabi.CheckPTX(objects.Name(objs[0]), string(ptx), ifaces); err != nil {
		return img, nil, "", ir.OpErrorf(variant, "%v", err)
	}
	arch, err := externalArch(variant, objects.Name(objs[0]), string(ptx))
	if err != nil {
		return img, nil, "", err
	}
	var entries []cudafb.EntryPoint
	for _, e := range exports {
		entries = append(entries, e.entry)
	}
	return cudafb.Image{Arch: arch, PTX: string(ptx)}, entries, "", nil
}

// externalArch is the architecture an external variant's PTX is keyed by.
func externalArch(variant *ir.Operation, object, ptx string) (string, error) {
	t := hal.VariantTarget(variant)
	declared := ""
	if t.Config != nil {
		if s, ok := t.Config.Get("target_arch").(ir.StringAttr); ok {
			declared = s.Value
		}
	}
	target := cudafb.PTXTarget(ptx)
	var tgt cudafb.Arch
	tgtOK := false
	if target != "" {
		a, err := cudafb.ParseArch(target)
		tgt, tgtOK = a, err == nil
	}
	if declared == "" {
		if tgtOK {
			return tgt.String(), nil
		}
		declared = DefaultArch
	}
	a, err := cudafb.ParseArch(declared)
	if err != nil {
		return "", ir.OpErrorf(variant, "cuda target_arch %q is not of the form sm_XY (e.g. sm_52, sm_80, sm_90a)", declared)
	}
	if tgtOK && !tgt.RunsOn(a) {
		return "", ir.OpErrorf(variant, "object %s is PTX for %s (its .target) but variant @%s targets %s: it would not load on %s devices", object, target, variant.SymName(), a, a)
	}
	return a.String(), nil
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
