package cuda

import (
	"slices"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// The pipelines of generated cuda kernels, as recorded in the payload
// (PTXImage.configs) and printed by iree-dump-module. Tile sizes are
// given per loop of the kernel (an elementwise kernel has one loop, over
// its elements), 0 where a level does not tile the loop:
//
//	CUDAElementwise       generated elementwise kernels: [[tile], [1]], a
//	                      block's elements and a thread's per step.
//	CUDADistribute        loop nests, one thread per parallel iteration:
//	                      [[block], [thread]] and, with reduction loops,
//	                      [reduction] of 1 (each runs in order).
//	CUDAVectorize         loop nests without reductions, ElementwiseUnroll
//	                      iterations per thread and step.
//	CUDAWarpReduction     shared reductions (shared.go): the reduction
//	                      loop's thread level is ReductionUnroll loads and
//	                      its reduction level the elements the block (or a
//	                      warp, one output each) covers per step.
//	CUDAMatmulSimt        tiled matmuls (matmul.go): block TM x TN, thread
//	                      RM x RN, steps of TK.
//	CUDAMatmulTensorCore  mma.sync matmuls (mma.go): block 128 x 128, warp
//	                      64 x 32, steps of 32 (16 in TF32), and a fourth
//	                      level, the mma.sync shape m16n8k16 (m16n8k8).
//	CUDARowGroup          row groups (group.go), by the last stage's loops:
//	                      [[1, ..., T, row...]]: a block owns T rows (the
//	                      last row loop's level) and all of each row; then
//	                      [[0, ..., 0, 1, ..., U]]: a thread's iterations per
//	                      step, ElementwiseUnroll of the last loop.
//
// The block level of a loop nest's first parallel loop is its tile
// (loopnest.Kernel.Tile), the iterations a block owns; a tiled matmul's
// block then walks them in blocks of the I and J sizes given.
const (
	pipelineElementwise = "CUDAElementwise"
	pipelineDistribute  = "CUDADistribute"
	pipelineVectorize   = "CUDAVectorize"
	pipelineReduction   = "CUDAWarpReduction"
	pipelineSimt        = "CUDAMatmulSimt"
	pipelineTensorCore  = "CUDAMatmulTensorCore"
	pipelineRowGroup    = "CUDARowGroup"
)

// warpSize is the subgroup size kernels that use warp shuffles or
// warp-level matrix instructions are written for.
const warpSize = 32

// elementwiseConfig is the configuration of a generated elementwise
// kernel whose blocks take tile elements each.
func elementwiseConfig(tile int64) kernelconfig.Config {
	return kernelconfig.Config{
		Pipeline:      pipelineElementwise,
		WorkgroupSize: [3]uint32{ElementwiseBlockSize, 1, 1},
		TileSizes:     [][]int64{{tile}, {1}},
	}
}

// loopNestConfig is the configuration loopNest chooses for a loop-nest
// kernel, from the same decisions in the same order: a shared reduction
// (reductionOf), a tiled matmul (tiledMatmulOf) on tensor cores where
// mmaOf allows, the unrolled loop of a nest without reductions, or one
// thread per parallel iteration. It only reads the kernel; loopNest has
// already refused what it cannot compile.
func (g *ptxgen) loopNestConfig(k *loopnest.Kernel, body *ir.Operation) kernelconfig.Config {
	n := len(k.Ranges)
	level := func() []int64 { return make([]int64, n) }
	c := kernelconfig.Config{WorkgroupSize: [3]uint32{LoopNestBlockSize, 1, 1}}
	outer := k.OuterParallel()
	block := level()
	if outer >= 0 {
		block[outer] = k.Tile
	}
	var pars, reds []int
	for l, it := range k.Iterators {
		if it == "parallel" {
			pars = append(pars, l)
		} else {
			reds = append(reds, l)
		}
	}
	outKind, err := loopNestKind(k.Outputs[0].Type.Elem)
	if err == nil {
		if red := reductionOf(k, body, outKind); red != nil {
			c.Pipeline, c.SubgroupSize = pipelineReduction, warpSize
			thread, step := level(), level()
			thread[red.Loop] = ReductionUnroll
			step[red.Loop] = ReductionUnroll * LoopNestBlockSize
			if gpuloops.WarpRows(k, LoopNestBlockSize/warpSize) {
				step[red.Loop] = ReductionUnroll * warpSize
			}
			c.TileSizes = [][]int64{block, thread, step}
			return c
		}
	}
	if m := tiledMatmulOf(k); m != nil {
		thread, step := level(), level()
		for _, b := range m.Batch {
			if b != outer { // the outer loop's is the kernel's tile
				block[b] = 1
			}
		}
		if s, why := mmaOf(g.arch.Number(), k, body, mmaAllowed(body)); why == "" {
			c.Pipeline, c.SubgroupSize = pipelineTensorCore, warpSize
			block[m.I], block[m.J] = mmaBM, mmaBN
			thread[m.I], thread[m.J] = mmaBM/2, mmaBN/4 // 2 x 4 warps of 64 x 32
			step[m.R] = int64(s.bk())
			shape := level()
			shape[m.I], shape[m.J], shape[m.R] = 16, 8, int64(s.kmma())
			c.TileSizes = [][]int64{block, thread, step, shape}
			return c
		}
		l := matmulLayout(m, k)
		c.Pipeline = pipelineSimt
		block[m.I], block[m.J] = int64(l.TM()), int64(l.TN())
		thread[m.I], thread[m.J] = int64(l.RM), int64(l.RN)
		step[m.R] = int64(l.TK)
		c.TileSizes = [][]int64{block, thread, step}
		return c
	}
	thread := level()
	c.Pipeline = pipelineDistribute
	if len(pars) > 0 {
		thread[pars[len(pars)-1]] = 1
		if len(reds) == 0 && outer >= 0 {
			c.Pipeline = pipelineVectorize
			thread[pars[len(pars)-1]] = ElementwiseUnroll
		}
	}
	c.TileSizes = [][]int64{block, thread}
	if len(reds) > 0 {
		step := level()
		for _, r := range reds {
			step[r] = 1
		}
		c.TileSizes = append(c.TileSizes, step)
	}
	return c
}

// kernelConfig is the configuration of the kernel GeneratePTX wrote for
// fn (a loop nest or a generated elementwise kernel), or none for a
// function it could not have compiled.
func (g *ptxgen) kernelConfig(fn *ir.Operation) kernelconfig.Config {
	if d, ok := fn.Attr(loopnest.Attr).(*ir.DictAttr); ok {
		k, err := loopnest.DecodeIndexed(d)
		if err != nil || len(k.Outputs) == 0 {
			return kernelconfig.Config{}
		}
		return g.loopNestConfig(k, g.funcs[k.Body])
	}
	if d, ok := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr); ok {
		grp, err := loopnest.DecodeGroup(d)
		if err != nil {
			return kernelconfig.Config{}
		}
		return groupConfig(grp)
	}
	if d, ok := fn.Attr(elementwise.Attr).(*ir.DictAttr); ok {
		tile := int64(elementwise.DefaultTileSize)
		if t, ok := d.Get("tile_size").(ir.IntegerAttr); ok && t.Value > 0 {
			tile = t.Value
		}
		return elementwiseConfig(tile)
	}
	return kernelconfig.Config{}
}

// ExportConfigs returns the configuration of each generated kernel of a
// cuda variant for its target_arch, by export name, without generating
// its PTX; external variants and kernels GeneratePTX would refuse have
// none. It lets the executable-configurations phase show on each export
// what the build will record (pipeline.AnnotateExportConfigs).
func (b Builder) ExportConfigs(variant *ir.Operation) (map[string]kernelconfig.Config, error) {
	mod := hal.InnerModule(variant)
	if mod == nil {
		return nil, nil
	}
	a, isa, err := targetArch(Arch(hal.VariantTarget(variant)))
	if err != nil {
		return nil, variantError(variant, err)
	}
	g := &ptxgen{arch: a, isa: isa, funcs: map[string]*ir.Operation{}}
	for _, o := range mod.Body().Ops {
		if o.Name == "func.func" {
			g.funcs[o.SymName()] = o
		}
	}
	out := map[string]kernelconfig.Config{}
	for _, o := range variant.Body().Ops {
		if o.Name != "hal.executable.export" {
			continue
		}
		if fn := g.funcs[o.SymName()]; fn != nil {
			if c := g.kernelConfig(fn); !c.IsZero() {
				out[o.SymName()] = c
			}
		}
	}
	return out, nil
}

// groupConfig is the configuration loopGroup uses for a row group.
func groupConfig(grp *loopnest.Group) kernelconfig.Config {
	last := grp.Stages[len(grp.Stages)-1]
	block := slices.Clone(last.Ranges)
	thread := make([]int64, len(block))
	for l := range grp.Rows {
		block[l] = 1
	}
	block[grp.Rows-1] = grp.Tile
	if n := len(thread); n > grp.Rows {
		thread[n-1] = ElementwiseUnroll
	}
	return kernelconfig.Config{
		Pipeline:      pipelineRowGroup,
		WorkgroupSize: [3]uint32{LoopNestBlockSize, 1, 1},
		SubgroupSize:  warpSize,
		TileSizes:     [][]int64{block, thread},
	}
}
