package kernelconfig

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"
)

// The cuda and spirv executable schemas declare the same two tables,
// each in its own namespace:
//
//	table TileLevel { sizes:[int64]; }
//	table KernelConfig { pipeline:string; workgroup_size:[uint32]; subgroup_size:uint32; tile_sizes:[TileLevel]; }
//
// BuildTables and ReadTable write and read them by their field slots, so
// that both payloads share one encoder and one validating decoder (the
// generated accessors of each namespace stay for other readers).

// Field slots of KernelConfig and TileLevel, and their vtable offsets.
const (
	slotPipeline, slotWorkgroupSize, slotSubgroupSize, slotTileSizes = 0, 1, 2, 3
	slotSizes                                                        = 0
)

func vtableOffset(slot int) flatbuffers.VOffsetT { return flatbuffers.VOffsetT(4 + 2*slot) }

// BuildTables writes configs as a vector of KernelConfig tables, or
// returns 0 (the field left out) when there are none.
func BuildTables(b *flatbuffers.Builder, configs []Config) flatbuffers.UOffsetT {
	if len(configs) == 0 {
		return 0
	}
	tables := make([]flatbuffers.UOffsetT, len(configs))
	for i, c := range configs {
		levels := make([]flatbuffers.UOffsetT, len(c.TileSizes))
		for l, sizes := range c.TileSizes {
			b.StartVector(8, len(sizes), 8)
			for j := len(sizes) - 1; j >= 0; j-- {
				b.PrependInt64(sizes[j])
			}
			v := b.EndVector(len(sizes))
			b.StartObject(1)
			b.PrependUOffsetTSlot(slotSizes, v, 0)
			levels[l] = b.EndObject()
		}
		b.StartVector(4, len(levels), 4)
		for l := len(levels) - 1; l >= 0; l-- {
			b.PrependUOffsetT(levels[l])
		}
		tiles := b.EndVector(len(levels))
		b.StartVector(4, 3, 4)
		for j := 2; j >= 0; j-- {
			b.PrependUint32(c.WorkgroupSize[j])
		}
		ws := b.EndVector(3)
		pipeline := b.CreateString(c.Pipeline)
		b.StartObject(4)
		b.PrependUOffsetTSlot(slotPipeline, pipeline, 0)
		b.PrependUOffsetTSlot(slotWorkgroupSize, ws, 0)
		b.PrependUint32Slot(slotSubgroupSize, c.SubgroupSize, 0)
		b.PrependUOffsetTSlot(slotTileSizes, tiles, 0)
		tables[i] = b.EndObject()
	}
	b.StartVector(4, len(tables), 4)
	for i := len(tables) - 1; i >= 0; i-- {
		b.PrependUOffsetT(tables[i])
	}
	return b.EndVector(len(tables))
}

// ReadTable decodes one KernelConfig table, already checked by the
// payload's verifier, and validates it (Config.Validate).
func ReadTable(t flatbuffers.Table) (Config, error) {
	var c Config
	if o := flatbuffers.UOffsetT(t.Offset(vtableOffset(slotPipeline))); o != 0 {
		c.Pipeline = string(t.ByteVector(o + t.Pos))
	}
	if o := flatbuffers.UOffsetT(t.Offset(vtableOffset(slotSubgroupSize))); o != 0 {
		c.SubgroupSize = t.GetUint32(o + t.Pos)
	}
	n := 0
	o := flatbuffers.UOffsetT(t.Offset(vtableOffset(slotWorkgroupSize)))
	if o != 0 {
		n = t.VectorLen(o)
	}
	if n != 3 {
		return c, fmt.Errorf("workgroup_size has %d entries, want 3", n)
	}
	for j, a := 0, t.Vector(o); j < 3; j++ {
		c.WorkgroupSize[j] = t.GetUint32(a + flatbuffers.UOffsetT(4*j))
	}
	if o := flatbuffers.UOffsetT(t.Offset(vtableOffset(slotTileSizes))); o != 0 {
		levels := t.VectorLen(o)
		if levels > MaxLevels {
			return c, fmt.Errorf("%d tiling levels (at most %d)", levels, MaxLevels)
		}
		for l, a := 0, t.Vector(o); l < levels; l++ {
			level := flatbuffers.Table{Bytes: t.Bytes, Pos: t.Indirect(a + flatbuffers.UOffsetT(4*l))}
			var sizes []int64
			if so := flatbuffers.UOffsetT(level.Offset(vtableOffset(slotSizes))); so != 0 {
				m := level.VectorLen(so)
				if m > MaxLoops {
					return c, fmt.Errorf("tiling level %d has %d sizes (at most %d)", l, m, MaxLoops)
				}
				sizes = make([]int64, m)
				for j, sa := 0, level.Vector(so); j < m; j++ {
					sizes[j] = level.GetInt64(sa + flatbuffers.UOffsetT(8*j))
				}
			} else {
				sizes = []int64{}
			}
			c.TileSizes = append(c.TileSizes, sizes)
		}
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}
