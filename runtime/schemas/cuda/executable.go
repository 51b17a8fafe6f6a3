package cuda

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/fbverify"
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

// Executable is a decoded "cuda-nvptx-fb" payload.
type Executable struct {
	EntryPoints []EntryPoint
	PTX         string
}

// Marshal encodes the executable as a FlatBuffer with identifier "CUDA".
// The output is deterministic.
func (e *Executable) Marshal() []byte {
	b := flatbuffers.NewBuilder(len(e.PTX) + 256)
	ptx := b.CreateString(e.PTX)
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
	CUDAExecutableDefAddPtxImage(b, ptx)
	CUDAExecutableDefAddConstantCounts(b, consts)
	CUDAExecutableDefAddBindingCounts(b, binds)
	b.FinishWithFileIdentifier(CUDAExecutableDefEnd(b), []byte(FileIdentifier))
	return append([]byte(nil), b.FinishedBytes()...)
}

// Unmarshal verifies and decodes a "cuda-nvptx-fb" payload. block_sizes
// must have one entry per entry point; the other per-entry vectors must be
// empty or have one entry per entry point.
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
	e := &Executable{PTX: string(def.PtxImage()), EntryPoints: make([]EntryPoint, n)}
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
