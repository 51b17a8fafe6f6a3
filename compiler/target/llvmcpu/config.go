package llvmcpu

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// ConfigSection is the ELF section in which a generated library records
// the configuration of each generated entry point: a non-allocated
// section (never mapped, so it costs the loaded library nothing) that
// tools read without running the library (runtime/tooling/exeinfo). It
// holds one line per entry, "<export name> <configuration>\n", the
// configuration in IREE's spelling (kernelconfig.Config.String). The CPU
// export table's tags would be IREE's place for per-export strings, but
// reading them means running the library's query function, which
// iree-dump-module --load_executables=false must not do.
const ConfigSection = kernelconfig.ELFSection

// The pipelines of generated llvm-cpu entry points:
//
//	CPUElementwise   generated elementwise kernels: [[tile]], the
//	                 elements of a workgroup.
//	CPUDefault       loop nests: [[tile]] of the first parallel loop, the
//	                 iterations a workgroup owns (its loops then run in
//	                 order, reductions in chunks that clang vectorizes).
//	CPURowGroup      row groups (group.go): [[tile]] over the last stage's
//	                 loops, the rows a workgroup owns on the last row
//	                 loop (1 on the others) and whole rows beyond them.
//	CPUMatmulPacked  f32 matmuls on the packed micro-kernel (matmul.go):
//	                 blocks of [0, BN] (rows are cut at dispatch time, to
//	                 about as many blocks as workgroups), MR x NR register
//	                 tiles and KC-deep slices of the reduction. MR, NR and
//	                 BN follow the CPU clang compiles for, so the library
//	                 records the configuration of the variant it was
//	                 compiled to (matmulTiles).
const (
	pipelineElementwise = "CPUElementwise"
	pipelineDefault     = "CPUDefault"
	pipelineMatmul      = "CPUMatmulPacked"
	pipelineRowGroup    = "CPURowGroup"
)

// matmulTile is one register tile of the matmul micro-kernel and the
// preprocessor condition under which matmulHelper chooses it ("" for the
// fallback).
type matmulTile struct {
	cond   string
	mr, nr int
}

// matmulTiles are matmulHelper's register tiles in its #if order:
// config_test.go checks that they agree with its GI_MR and GI_NR.
var matmulTiles = []matmulTile{
	{"defined(__AVX512F__)", 8, 32},
	{"defined(__AVX__)", 4, 24},
	{"", 4, 12},
}

// bn is the width of a matmul block for the tile: GI_BN, matmulBN
// rounded down to a multiple of NR.
func (t matmulTile) bn() int { return matmulBN / t.nr * t.nr }

// entryConfig is the configuration of one generated entry: one Config,
// or for a matmul one per matmulTiles entry.
type entryConfig struct {
	configs []kernelconfig.Config
}

// kernelConfig is the configuration of the entry GenerateC writes for fn
// with the export's workgroup size, or nil for a function it does not
// generate (a hand-written shim).
func (g *cgen) kernelConfig(fn *ir.Operation, workgroup [3]uint32) *entryConfig {
	for i, n := range workgroup {
		if n == 0 {
			workgroup[i] = 1
		}
	}
	if d, ok := fn.Attr(ElementwiseAttr).(*ir.DictAttr); ok {
		tile := int64(DefaultTileSize)
		if t, ok := d.Get("tile_size").(ir.IntegerAttr); ok && t.Value > 0 {
			tile = t.Value
		}
		return &entryConfig{[]kernelconfig.Config{{Pipeline: pipelineElementwise, WorkgroupSize: workgroup, TileSizes: [][]int64{{tile}}}}}
	}
	if d, ok := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr); ok {
		grp, err := loopnest.DecodeGroup(d)
		if err != nil {
			return nil
		}
		// A workgroup owns Tile rows, numbered with the last row loop
		// fastest, and whole rows: the tile goes on the last row loop,
		// the other row loops take 1 and the rest of the last stage's
		// loops their full ranges.
		block := slices.Clone(grp.Stages[len(grp.Stages)-1].Ranges)
		for l := range grp.Rows {
			block[l] = 1
		}
		block[grp.Rows-1] = grp.Tile
		return &entryConfig{[]kernelconfig.Config{{Pipeline: pipelineRowGroup, WorkgroupSize: workgroup, TileSizes: [][]int64{block}}}}
	}
	d, ok := fn.Attr(loopnest.Attr).(*ir.DictAttr)
	if !ok {
		return nil
	}
	k, err := loopnest.DecodeIndexed(d)
	if err != nil {
		return nil
	}
	n := len(k.Ranges)
	if m, ok := matchMatmul(k, g.funcs[k.Body]); ok {
		var out []kernelconfig.Config
		for _, t := range matmulTiles {
			block, reg, slice := make([]int64, n), make([]int64, n), make([]int64, n)
			if m.batch >= 0 {
				block[m.batch] = 1
			}
			block[m.j] = int64(t.bn())
			reg[m.i], reg[m.j] = int64(t.mr), int64(t.nr)
			slice[m.k] = matmulKC
			out = append(out, kernelconfig.Config{Pipeline: pipelineMatmul, WorkgroupSize: workgroup, TileSizes: [][]int64{block, reg, slice}})
		}
		return &entryConfig{out}
	}
	block := make([]int64, n)
	if outer := k.OuterParallel(); outer >= 0 {
		block[outer] = k.Tile
	}
	return &entryConfig{[]kernelconfig.Config{{Pipeline: pipelineDefault, WorkgroupSize: workgroup, TileSizes: [][]int64{block}}}}
}

// configSection returns the C that puts the exports' configurations in
// ConfigSection: top-level assembly, under the preprocessor conditions of
// matmulTiles where an export's configuration depends on them. Export
// names and configurations are identifiers, digits, spaces and
// punctuation without quotes or backslashes (an entry with any other
// character is left out rather than escaped).
func configSection(exports []Export) string {
	// lines is the section's text for variant i of each configuration,
	// with C and assembler escapes: \\n in C is \n to the assembler.
	lines := func(i int) string {
		var b strings.Builder
		for _, e := range exports {
			if e.config == nil {
				continue
			}
			c := e.config.configs[min(i, len(e.config.configs)-1)]
			line := e.Name + " " + c.String()
			if strings.ContainsAny(line, "\"\\\n") {
				continue
			}
			b.WriteString(line + `\\n`)
		}
		if b.Len() == 0 {
			return ""
		}
		return `__asm__(".pushsection ` + ConfigSection + `,\"\",@progbits\n.ascii \"` + b.String() + `\"\n.popsection");` + "\n"
	}
	depends := false
	for _, e := range exports {
		if e.config != nil && len(e.config.configs) > 1 {
			depends = true
		}
	}
	if !depends {
		return lines(0)
	}
	var b strings.Builder
	for i, t := range matmulTiles {
		switch {
		case i == 0:
			fmt.Fprintf(&b, "#if %s\n", t.cond)
		case t.cond != "":
			fmt.Fprintf(&b, "#elif %s\n", t.cond)
		default:
			b.WriteString("#else\n")
		}
		b.WriteString(lines(i))
	}
	b.WriteString("#endif\n")
	return b.String()
}
