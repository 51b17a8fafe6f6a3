package cuda

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/fbverify"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// EntryPoint describes one kernel of a CUDA executable.
type EntryPoint struct {
	// Name is the PTX .entry name.
	Name string
	// BlockSize is the thread block size (x, y, z) used at launch.
	BlockSize [3]uint32
	// SharedMemorySize is the dynamic shared memory in bytes.
	SharedMemorySize uint32
	// ConstantCount and BindingCount are the kernel's push constant and
	// buffer binding counts (0 when unknown).
	ConstantCount, BindingCount uint32
}

// Image is the PTX text of an executable for one target architecture.
type Image struct {
	// Arch is the architecture the PTX was generated for ("sm_80", see
	// ParseArch); "" only for a payload written before per-arch images
	// whose PTX names no .target.
	Arch string
	// PTX is the module text.
	PTX string
	// Configs is the code generation configuration of each entry point on
	// this architecture, in entry point order, or empty (PTX the compiler
	// did not generate, payloads written before configs existed).
	Configs []kernelconfig.Config
}

// Executable is a decoded "cuda-nvptx-fb" payload: the kernels and one PTX
// image per architecture, each image defining every entry point.
type Executable struct {
	// Name is the executable's symbol in the program ("" when unknown).
	Name        string
	EntryPoints []EntryPoint
	Images      []Image
}

// Archs lists the images' architectures in payload order ("?" for an
// image without one).
func (e *Executable) Archs() []string {
	out := make([]string, len(e.Images))
	for i, im := range e.Images {
		out[i] = im.Arch
		if out[i] == "" {
			out[i] = "?"
		}
	}
	return out
}

// Marshal encodes the executable as a FlatBuffer with identifier "CUDA",
// the images in ptx_images (ptx_image stays empty), each with its Configs
// (one per entry point, or none). The output is
// deterministic.
func (e *Executable) Marshal() []byte {
	size := 256
	for _, im := range e.Images {
		size += len(im.PTX) + len(im.Arch) + 32
	}
	b := flatbuffers.NewBuilder(size)
	images := make([]flatbuffers.UOffsetT, len(e.Images))
	for i, im := range e.Images {
		configs := kernelconfig.BuildTables(b, im.Configs)
		ptx := b.CreateString(im.PTX)
		arch := b.CreateString(im.Arch)
		PTXImageStart(b)
		PTXImageAddArch(b, arch)
		PTXImageAddPtx(b, ptx)
		if configs != 0 {
			PTXImageAddConfigs(b, configs)
		}
		images[i] = PTXImageEnd(b)
	}
	CUDAExecutableDefStartPtxImagesVector(b, len(images))
	for i := len(images) - 1; i >= 0; i-- {
		b.PrependUOffsetT(images[i])
	}
	imageVec := b.EndVector(len(images))
	var name flatbuffers.UOffsetT
	if e.Name != "" {
		name = b.CreateString(e.Name)
	}
	names := make([]flatbuffers.UOffsetT, len(e.EntryPoints))
	for i, ep := range e.EntryPoints {
		names[i] = b.CreateString(ep.Name)
	}
	CUDAExecutableDefStartEntryPointsVector(b, len(names))
	for i := len(names) - 1; i >= 0; i-- {
		b.PrependUOffsetT(names[i])
	}
	entries := b.EndVector(len(names))
	CUDAExecutableDefStartBlockSizesVector(b, len(e.EntryPoints))
	for i := len(e.EntryPoints) - 1; i >= 0; i-- {
		bs := e.EntryPoints[i].BlockSize
		CreateBlockSize(b, bs[0], bs[1], bs[2])
	}
	blocks := b.EndVector(len(e.EntryPoints))
	u32s := func(start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT, get func(EntryPoint) uint32) flatbuffers.UOffsetT {
		start(b, len(e.EntryPoints))
		for i := len(e.EntryPoints) - 1; i >= 0; i-- {
			b.PrependUint32(get(e.EntryPoints[i]))
		}
		return b.EndVector(len(e.EntryPoints))
	}
	shared := u32s(CUDAExecutableDefStartSharedMemorySizeVector, func(ep EntryPoint) uint32 { return ep.SharedMemorySize })
	consts := u32s(CUDAExecutableDefStartConstantCountsVector, func(ep EntryPoint) uint32 { return ep.ConstantCount })
	binds := u32s(CUDAExecutableDefStartBindingCountsVector, func(ep EntryPoint) uint32 { return ep.BindingCount })
	CUDAExecutableDefStart(b)
	CUDAExecutableDefAddEntryPoints(b, entries)
	CUDAExecutableDefAddBlockSizes(b, blocks)
	CUDAExecutableDefAddSharedMemorySize(b, shared)
	CUDAExecutableDefAddConstantCounts(b, consts)
	CUDAExecutableDefAddBindingCounts(b, binds)
	CUDAExecutableDefAddPtxImages(b, imageVec)
	if e.Name != "" {
		CUDAExecutableDefAddName(b, name)
	}
	b.FinishWithFileIdentifier(CUDAExecutableDefEnd(b), []byte(FileIdentifier))
	return append([]byte(nil), b.FinishedBytes()...)
}

// Unmarshal verifies and decodes a "cuda-nvptx-fb" payload. block_sizes
// must have one entry per entry point; the other per-entry vectors must be
// empty or have one entry per entry point. The PTX is either ptx_images
// (each with a valid, distinct arch and non-empty PTX) or, in payloads
// written before those existed, ptx_image, which becomes one image whose
// arch is its .target ("" when it has none). An image's configs must be
// empty or one per entry point, each valid (kernelconfig.Config.Validate).
func Unmarshal(data []byte) (*Executable, error) {
	if err := fbverify.CUDAExecutableDef(data); err != nil {
		return nil, fmt.Errorf("decoding CUDA executable: %w", err)
	}
	def := GetRootAsCUDAExecutableDef(data, 0)
	n := def.EntryPointsLength()
	if n == 0 {
		return nil, fmt.Errorf("decoding CUDA executable: no entry points")
	}
	if def.BlockSizesLength() != n {
		return nil, fmt.Errorf("decoding CUDA executable: %d block sizes for %d entry points", def.BlockSizesLength(), n)
	}
	for _, v := range []struct {
		name string
		len  int
	}{{"shared_memory_size", def.SharedMemorySizeLength()}, {"constant_counts", def.ConstantCountsLength()}, {"binding_counts", def.BindingCountsLength()}} {
		if v.len != 0 && v.len != n {
			return nil, fmt.Errorf("decoding CUDA executable: %s has %d entries for %d entry points", v.name, v.len, n)
		}
	}
	e := &Executable{Name: string(def.Name()), EntryPoints: make([]EntryPoint, n)}
	legacy := string(def.PtxImage())
	switch m := def.PtxImagesLength(); {
	case m > 0 && legacy != "":
		return nil, fmt.Errorf("decoding CUDA executable: both ptx_image and ptx_images are set")
	case m > 0:
		seen := map[string]bool{}
		var im PTXImage
		for i := 0; i < m; i++ {
			def.PtxImages(&im, i)
			img := Image{Arch: string(im.Arch()), PTX: string(im.Ptx())}
			a, err := ParseArch(img.Arch)
			if err != nil {
				return nil, fmt.Errorf("decoding CUDA executable: PTX image %d: %w", i, err)
			}
			if img.PTX == "" {
				return nil, fmt.Errorf("decoding CUDA executable: PTX image %d (%s) is empty", i, img.Arch)
			}
			if seen[a.String()] {
				return nil, fmt.Errorf("decoding CUDA executable: two PTX images for %s", a)
			}
			seen[a.String()] = true
			if c := im.ConfigsLength(); c != 0 && c != n {
				return nil, fmt.Errorf("decoding CUDA executable: PTX image %d (%s) has %d configs for %d entry points", i, img.Arch, c, n)
			}
			var kc KernelConfig
			for j := 0; j < im.ConfigsLength(); j++ {
				im.Configs(&kc, j)
				c, err := kernelconfig.ReadTable(kc.Table())
				if err != nil {
					return nil, fmt.Errorf("decoding CUDA executable: PTX image %d (%s): config %d: %w", i, img.Arch, j, err)
				}
				img.Configs = append(img.Configs, c)
			}
			e.Images = append(e.Images, img)
		}
	case legacy != "":
		e.Images = []Image{{Arch: PTXTarget(legacy), PTX: legacy}}
		if e.Images[0].Arch != "" {
			if _, err := ParseArch(e.Images[0].Arch); err != nil {
				e.Images[0].Arch = "" // a .target we cannot rank; the JIT decides
			}
		}
	default:
		return nil, fmt.Errorf("decoding CUDA executable: no PTX image")
	}
	var bs BlockSize
	for i := range e.EntryPoints {
		ep := &e.EntryPoints[i]
		ep.Name = string(def.EntryPoints(i))
		def.BlockSizes(&bs, i)
		ep.BlockSize = [3]uint32{bs.X(), bs.Y(), bs.Z()}
		if def.SharedMemorySizeLength() > 0 {
			ep.SharedMemorySize = def.SharedMemorySize(i)
		}
		if def.ConstantCountsLength() > 0 {
			ep.ConstantCount = def.ConstantCounts(i)
		}
		if def.BindingCountsLength() > 0 {
			ep.BindingCount = def.BindingCounts(i)
		}
	}
	return e, nil
}
