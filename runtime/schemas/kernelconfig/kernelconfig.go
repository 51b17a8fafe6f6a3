// Package kernelconfig is the code generation configuration the compiler
// records for each entry point it generates: the kernel's pipeline (the
// strategy that wrote it), its workgroup size, its subgroup size when the
// kernel depends on one, and the tile sizes it chose per tiling level.
// The GPU payloads (runtime/schemas/cuda, runtime/schemas/spirv) carry it
// in their KernelConfig tables; iree-dump-module prints it, and the
// compiler attaches it to exports, in IREE's spelling:
//
//	#iree_codegen.translation_info<pipeline = CUDAMatmulTensorCore workgroup_size = [256, 1, 1] subgroup_size = 32>
//	#iree_codegen.lowering_config<tile_sizes = [[128, 128, 0], [64, 32, 0], [0, 0, 32]]>
//
// The pipeline names are goiree's own (each target's package doc lists
// them), spelled as bare identifiers as IREE spelled its pipelines
// (LLVMGPUMatmulTensorCore, SPIRVSubgroupReduce) before they became
// attributes: goiree's kernels are not IREE's pipelines, so borrowing
// IREE's current #iree_gpu.pipeline<...> names would claim more than is
// true. Tile sizes are, as in IREE, one list per level with a size per
// loop of the kernel in loop order, 0 where that level does not tile the
// loop; what each level means is the target's (its package doc says).
package kernelconfig

import (
	"fmt"
	"strconv"
	"strings"
)

// ELFSection is the section in which llvm-cpu libraries record their
// entries' configurations: not allocated (never mapped), one line per
// entry, "<export name> <String()>\n".
const ELFSection = ".goiree.config"

// MaxLevels and MaxLoops bound what a payload may record: decoders refuse
// more, so that a corrupt payload cannot make a tool print without end.
const (
	MaxLevels = 8
	MaxLoops  = 64
)

// Config is one entry point's code generation configuration.
type Config struct {
	// Pipeline names the strategy that generated the kernel, an
	// identifier such as "CUDAMatmulSimt".
	Pipeline string
	// WorkgroupSize is the number of threads of a workgroup in x, y, z.
	WorkgroupSize [3]uint32
	// SubgroupSize is the subgroup (warp) size the kernel is written for,
	// or 0 when it does not depend on one.
	SubgroupSize uint32
	// TileSizes holds one list per tiling level, outermost (workgroup)
	// first, each with a size per loop of the kernel.
	TileSizes [][]int64
}

// IsZero reports whether c records nothing (no pipeline).
func (c Config) IsZero() bool { return c.Pipeline == "" }

// Equal reports whether a and b record the same configuration.
func Equal(a, b Config) bool {
	if a.Pipeline != b.Pipeline || a.WorkgroupSize != b.WorkgroupSize || a.SubgroupSize != b.SubgroupSize || len(a.TileSizes) != len(b.TileSizes) {
		return false
	}
	for i := range a.TileSizes {
		if len(a.TileSizes[i]) != len(b.TileSizes[i]) {
			return false
		}
		for j := range a.TileSizes[i] {
			if a.TileSizes[i][j] != b.TileSizes[i][j] {
				return false
			}
		}
	}
	return true
}

// Validate checks what a decoder relies on: a pipeline that is an
// identifier, a workgroup size of at least one thread in each dimension,
// at most MaxLevels levels of at most MaxLoops non-negative sizes.
func (c Config) Validate() error {
	if !isIdent(c.Pipeline) {
		return fmt.Errorf("pipeline %q is not an identifier", c.Pipeline)
	}
	for i, n := range c.WorkgroupSize {
		if n == 0 {
			return fmt.Errorf("workgroup size %v has no threads in dimension %d", c.WorkgroupSize, i)
		}
	}
	if len(c.TileSizes) > MaxLevels {
		return fmt.Errorf("%d tiling levels (at most %d)", len(c.TileSizes), MaxLevels)
	}
	for l, level := range c.TileSizes {
		if len(level) > MaxLoops {
			return fmt.Errorf("tiling level %d has %d sizes (at most %d)", l, len(level), MaxLoops)
		}
		for _, s := range level {
			if s < 0 {
				return fmt.Errorf("tiling level %d has negative size %d", l, s)
			}
		}
	}
	return nil
}

func isIdent(s string) bool {
	if s == "" || len(s) > 128 {
		return false
	}
	for i, r := range s {
		switch {
		case r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z', r == '_':
		case i > 0 && (r >= '0' && r <= '9' || r == '.'):
		default:
			return false
		}
	}
	return true
}

// TranslationInfo is the body of c's #iree_codegen.translation_info
// attribute: "pipeline = P workgroup_size = [x, y, z]" and
// " subgroup_size = N" when c has one.
func (c Config) TranslationInfo() string {
	s := fmt.Sprintf("pipeline = %s workgroup_size = [%d, %d, %d]", c.Pipeline, c.WorkgroupSize[0], c.WorkgroupSize[1], c.WorkgroupSize[2])
	if c.SubgroupSize != 0 {
		s += fmt.Sprintf(" subgroup_size = %d", c.SubgroupSize)
	}
	return s
}

// LoweringConfig is the body of c's #iree_codegen.lowering_config
// attribute, "tile_sizes = [[...], ...]", or "" when c records no tiles.
func (c Config) LoweringConfig() string {
	if len(c.TileSizes) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("tile_sizes = [")
	for l, level := range c.TileSizes {
		if l > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('[')
		for i, s := range level {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(s, 10))
		}
		b.WriteByte(']')
	}
	b.WriteByte(']')
	return b.String()
}

// String is c's two attributes as IREE prints them, the lowering_config
// left out when c records no tiles.
func (c Config) String() string {
	s := "#iree_codegen.translation_info<" + c.TranslationInfo() + ">"
	if lc := c.LoweringConfig(); lc != "" {
		s += " #iree_codegen.lowering_config<" + lc + ">"
	}
	return s
}
