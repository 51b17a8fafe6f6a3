package spirv

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/fbverify"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// Magic is the first word of every SPIR-V module.
const Magic = 0x07230203

// EntryPoint describes one compute entry point of a SPIR-V executable.
type EntryPoint struct {
	// Name is the OpEntryPoint name.
	Name string
	// SubgroupSize is the required subgroup size, or 0 for none.
	SubgroupSize uint32
	// ConstantCount is the number of 32-bit push constants and
	// BindingCount the number of storage buffers in set 0 (0 when
	// unknown).
	ConstantCount, BindingCount uint32
	// Config is the code generation configuration the compiler chose
	// (zero for SPIR-V it did not generate and in payloads written before
	// configs existed).
	Config kernelconfig.Config
}

// Executable is a decoded "vulkan-spirv-fb" payload.
type Executable struct {
	EntryPoints []EntryPoint
	// Code is the SPIR-V module as 32-bit words.
	Code []uint32
}

// Marshal encodes the executable as a FlatBuffer with identifier "SPVE".
// The entry points' configs are written when every entry point has one.
// The output is deterministic.
func (e *Executable) Marshal() []byte {
	b := flatbuffers.NewBuilder(4*len(e.Code) + 256)
	SpirVExecutableDefStartCodeVector(b, len(e.Code))
	for i := len(e.Code) - 1; i >= 0; i-- {
		b.PrependUint32(e.Code[i])
	}
	code := b.EndVector(len(e.Code))
	names := make([]flatbuffers.UOffsetT, len(e.EntryPoints))
	for i, ep := range e.EntryPoints {
		names[i] = b.CreateString(ep.Name)
	}
	SpirVExecutableDefStartEntryPointsVector(b, len(names))
	for i := len(names) - 1; i >= 0; i-- {
		b.PrependUOffsetT(names[i])
	}
	entries := b.EndVector(len(names))
	u32s := func(start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT, get func(EntryPoint) uint32) flatbuffers.UOffsetT {
		start(b, len(e.EntryPoints))
		for i := len(e.EntryPoints) - 1; i >= 0; i-- {
			b.PrependUint32(get(e.EntryPoints[i]))
		}
		return b.EndVector(len(e.EntryPoints))
	}
	subgroups := u32s(SpirVExecutableDefStartSubgroupSizesVector, func(ep EntryPoint) uint32 { return ep.SubgroupSize })
	consts := u32s(SpirVExecutableDefStartConstantCountsVector, func(ep EntryPoint) uint32 { return ep.ConstantCount })
	binds := u32s(SpirVExecutableDefStartBindingCountsVector, func(ep EntryPoint) uint32 { return ep.BindingCount })
	var list []kernelconfig.Config
	for _, ep := range e.EntryPoints {
		if ep.Config.IsZero() {
			list = nil
			break
		}
		list = append(list, ep.Config)
	}
	configs := kernelconfig.BuildTables(b, list)
	SpirVExecutableDefStart(b)
	SpirVExecutableDefAddEntryPoints(b, entries)
	SpirVExecutableDefAddSubgroupSizes(b, subgroups)
	SpirVExecutableDefAddCode(b, code)
	SpirVExecutableDefAddConstantCounts(b, consts)
	SpirVExecutableDefAddBindingCounts(b, binds)
	if configs != 0 {
		SpirVExecutableDefAddConfigs(b, configs)
	}
	b.FinishWithFileIdentifier(SpirVExecutableDefEnd(b), []byte(FileIdentifier))
	return append([]byte(nil), b.FinishedBytes()...)
}

// Unmarshal verifies and decodes a "vulkan-spirv-fb" payload: the code
// must start with the SPIR-V magic number and the per-entry vectors must be
// empty or have one entry per entry point (configs each valid,
// kernelconfig.Config.Validate).
func Unmarshal(data []byte) (*Executable, error) {
	if err := fbverify.SpirVExecutableDef(data); err != nil {
		return nil, fmt.Errorf("decoding SPIR-V executable: %w", err)
	}
	def := GetRootAsSpirVExecutableDef(data, 0)
	n := def.EntryPointsLength()
	if n == 0 {
		return nil, fmt.Errorf("decoding SPIR-V executable: no entry points")
	}
	if def.CodeLength() < 5 || def.Code(0) != Magic {
		return nil, fmt.Errorf("decoding SPIR-V executable: code of %d words is not a SPIR-V module (bad magic number)", def.CodeLength())
	}
	for _, v := range []struct {
		name string
		len  int
	}{{"subgroup_sizes", def.SubgroupSizesLength()}, {"constant_counts", def.ConstantCountsLength()}, {"binding_counts", def.BindingCountsLength()}, {"configs", def.ConfigsLength()}} {
		if v.len != 0 && v.len != n {
			return nil, fmt.Errorf("decoding SPIR-V executable: %s has %d entries for %d entry points", v.name, v.len, n)
		}
	}
	e := &Executable{EntryPoints: make([]EntryPoint, n), Code: make([]uint32, def.CodeLength())}
	for i := range e.Code {
		e.Code[i] = def.Code(i)
	}
	for i := range e.EntryPoints {
		ep := &e.EntryPoints[i]
		ep.Name = string(def.EntryPoints(i))
		if def.SubgroupSizesLength() > 0 {
			ep.SubgroupSize = def.SubgroupSizes(i)
		}
		if def.ConstantCountsLength() > 0 {
			ep.ConstantCount = def.ConstantCounts(i)
		}
		if def.BindingCountsLength() > 0 {
			ep.BindingCount = def.BindingCounts(i)
		}
		if def.ConfigsLength() > 0 {
			var kc KernelConfig
			def.Configs(&kc, i)
			c, err := kernelconfig.ReadTable(kc.Table())
			if err != nil {
				return nil, fmt.Errorf("decoding SPIR-V executable: config of entry point %d (%s): %w", i, ep.Name, err)
			}
			ep.Config = c
		}
	}
	return e, nil
}
