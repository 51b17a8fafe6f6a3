package spirv

import (
	"fmt"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// buildConfigs writes configs as a vector of KernelConfig tables, or
// returns 0 (the field left out) when there are none.
func buildConfigs(b *flatbuffers.Builder, configs []kernelconfig.Config) flatbuffers.UOffsetT {
	if len(configs) == 0 {
		return 0
	}
	tables := make([]flatbuffers.UOffsetT, len(configs))
	for i, c := range configs {
		levels := make([]flatbuffers.UOffsetT, len(c.TileSizes))
		for l, sizes := range c.TileSizes {
			TileLevelStartSizesVector(b, len(sizes))
			for j := len(sizes) - 1; j >= 0; j-- {
				b.PrependInt64(sizes[j])
			}
			v := b.EndVector(len(sizes))
			TileLevelStart(b)
			TileLevelAddSizes(b, v)
			levels[l] = TileLevelEnd(b)
		}
		KernelConfigStartTileSizesVector(b, len(levels))
		for l := len(levels) - 1; l >= 0; l-- {
			b.PrependUOffsetT(levels[l])
		}
		tiles := b.EndVector(len(levels))
		KernelConfigStartWorkgroupSizeVector(b, 3)
		for j := 2; j >= 0; j-- {
			b.PrependUint32(c.WorkgroupSize[j])
		}
		ws := b.EndVector(3)
		pipeline := b.CreateString(c.Pipeline)
		KernelConfigStart(b)
		KernelConfigAddPipeline(b, pipeline)
		KernelConfigAddWorkgroupSize(b, ws)
		if c.SubgroupSize != 0 {
			KernelConfigAddSubgroupSize(b, c.SubgroupSize)
		}
		KernelConfigAddTileSizes(b, tiles)
		tables[i] = KernelConfigEnd(b)
	}
	b.StartVector(4, len(tables), 4)
	for i := len(tables) - 1; i >= 0; i-- {
		b.PrependUOffsetT(tables[i])
	}
	return b.EndVector(len(tables))
}

// readConfig decodes one verified KernelConfig table and validates it
// (kernelconfig.Config.Validate).
func readConfig(t *KernelConfig) (kernelconfig.Config, error) {
	c := kernelconfig.Config{Pipeline: string(t.Pipeline()), SubgroupSize: t.SubgroupSize()}
	if n := t.WorkgroupSizeLength(); n != 3 {
		return c, fmt.Errorf("workgroup_size has %d entries, want 3", n)
	}
	for j := range c.WorkgroupSize {
		c.WorkgroupSize[j] = t.WorkgroupSize(j)
	}
	if n := t.TileSizesLength(); n > kernelconfig.MaxLevels {
		return c, fmt.Errorf("%d tiling levels (at most %d)", n, kernelconfig.MaxLevels)
	}
	var level TileLevel
	for l := 0; l < t.TileSizesLength(); l++ {
		t.TileSizes(&level, l)
		n := level.SizesLength()
		if n > kernelconfig.MaxLoops {
			return c, fmt.Errorf("tiling level %d has %d sizes (at most %d)", l, n, kernelconfig.MaxLoops)
		}
		sizes := make([]int64, n)
		for j := range sizes {
			sizes[j] = level.Sizes(j)
		}
		c.TileSizes = append(c.TileSizes, sizes)
	}
	if err := c.Validate(); err != nil {
		return c, err
	}
	return c, nil
}
