package vulkan

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/gpuloops"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// The pipelines of generated vulkan-spirv shaders, as recorded in the
// payload (SpirVExecutableDef.configs) and printed by iree-dump-module.
// Tile sizes are given per loop of the kernel (an elementwise shader has
// one loop, over its elements), 0 where a level does not tile the loop:
//
//	SPIRVElementwise                 generated elementwise shaders:
//	                                 [[tile], [1]].
//	SPIRVBaseDistribute              loop nests, one invocation per
//	                                 parallel iteration: [[workgroup],
//	                                 [invocation]] and, with reduction
//	                                 loops, [reduction] of 1 (in order).
//	SPIRVBaseVectorize               loop nests without reductions,
//	                                 ElementwiseUnroll iterations per
//	                                 invocation and step.
//	SPIRVSubgroupReduce              shared reductions combined with
//	                                 subgroup shuffles (SPIRVSharedReduce
//	                                 through shared memory alone, with
//	                                 --iree-vulkan-subgroups=false): the
//	                                 reduction loop's invocation level is
//	                                 ReductionUnroll loads, and, when the
//	                                 whole workgroup shares a row, its
//	                                 reduction level the elements it
//	                                 covers per step (a subgroup per row
//	                                 steps by the device's subgroup size,
//	                                 which the shader does not fix).
//	SPIRVRowGroup                    row groups (group.go): over the
//	                                 last stage's loops, a workgroup
//	                                 level of 1 on the row loops but
//	                                 the last, T (the group's tile, the
//	                                 rows a workgroup owns) on that, and
//	                                 an invocation level of
//	                                 ElementwiseUnroll on the last loop
//	                                 beyond the rows.
//	SPIRVMatmulPromoteVectorize      tiled matmuls (matmul.go): workgroup
//	                                 TM x TN, invocation RM x RN, steps of
//	                                 TK, sized by the target's device.
//	SPIRVCooperativeMatrixVectorize  cooperative-matrix matmuls
//	                                 (coopmatmul.go): workgroup 128 x 256,
//	                                 subgroup 64 x 64, steps of 32, and
//	                                 the 16 x 16 x 16 matrix shape.
//	SPIRVCooperativeMatrixWorkgroup  the same on workgroup-scope matrices
//	                                 (--iree-vulkan-cooperative-matrix=nv2):
//	                                 workgroup 128 x 256, steps of 64, and
//	                                 the 128 x 256 x 64 matrix shape.
//
// The workgroup level of a loop nest's first parallel loop is its tile
// (loopnest.Kernel.Tile); a tiled matmul's workgroup walks it in blocks
// of the I and J sizes given.
const (
	pipelineElementwise = "SPIRVElementwise"
	pipelineDistribute  = "SPIRVBaseDistribute"
	pipelineVectorize   = "SPIRVBaseVectorize"
	pipelineSubgroup    = "SPIRVSubgroupReduce"
	pipelineShared      = "SPIRVSharedReduce"
	pipelinePromote     = "SPIRVMatmulPromoteVectorize"
	pipelineCoop        = "SPIRVCooperativeMatrixVectorize"
	// pipelineCoopWorkgroup is goiree's own name (IREE has no
	// VK_NV_cooperative_matrix2 pipeline): workgroup-scope matrices.
	pipelineCoopWorkgroup = "SPIRVCooperativeMatrixWorkgroup"
	pipelineRowGroup      = "SPIRVRowGroup"
)

// coopSubgroup is the subgroup size the cooperative-matrix kernel is
// written for (coopOf requires it of the device).
const coopSubgroup = 32

// kernelConfig is the configuration of the shader GenerateGLSLWith writes
// for entry, from the same decisions generateLoopNest takes in the same
// order (a tiled matmul, on cooperative matrices where the device has
// them, unless a binding is 64-bit; a shared reduction; the unrolled loop
// of a nest without reductions; one invocation per parallel iteration).
// It is the zero Config for a function GenerateGLSLWith would refuse.
func kernelConfig(module *ir.Operation, entry string, opts GLSLOptions) kernelconfig.Config {
	funcs := map[string]*ir.Operation{}
	if b := module.Body(); b != nil {
		for _, op := range b.Ops {
			if op.Name == "func.func" {
				funcs[op.SymName()] = op
			}
		}
	}
	fn := funcs[entry]
	if fn == nil {
		return kernelconfig.Config{}
	}
	if d, ok := fn.Attr(elementwiseAttr).(*ir.DictAttr); ok {
		tile := int64(DefaultTileSize)
		if t, ok := d.Get("tile_size").(ir.IntegerAttr); ok && t.Value > 0 {
			tile = t.Value
		}
		return kernelconfig.Config{Pipeline: pipelineElementwise, WorkgroupSize: [3]uint32{WorkgroupSize, 1, 1}, TileSizes: [][]int64{{tile}, {1}}}
	}
	if d, ok := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr); ok {
		grp, err := loopnest.DecodeGroup(d)
		if err != nil {
			return kernelconfig.Config{}
		}
		return groupConfig(grp, opts.Device)
	}
	d, ok := fn.Attr(loopnest.Attr).(*ir.DictAttr)
	if !ok {
		return kernelconfig.Config{}
	}
	k, err := loopnest.DecodeIndexed(d)
	if err != nil || len(k.Outputs) == 0 {
		return kernelconfig.Config{}
	}
	return loopNestConfig(k, funcs[k.Body], opts)
}

// loopNestConfig is kernelConfig for a decoded loop nest.
func loopNestConfig(k *loopnest.Kernel, body *ir.Operation, opts GLSLOptions) kernelconfig.Config {
	n := len(k.Ranges)
	level := func() []int64 { return make([]int64, n) }
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
	mm := matmulOf(k, body, opts)
	for _, b := range k.Bindings() {
		if kind, err := loopNestKind(b.Type.Elem); err == nil && kind.bits == 64 {
			mm = nil // the tiles hold 32-bit vec4s
		}
	}
	if mm != nil {
		for _, b := range mm.Batch {
			if b != outer {
				block[b] = 1
			}
		}
		thread, step := level(), level()
		if mm.whole {
			// One workgroup-scope matrix product a block and step: the
			// driver divides it among the subgroups.
			c := kernelconfig.Config{Pipeline: pipelineCoopWorkgroup, WorkgroupSize: [3]uint32{coopThreads, 1, 1}, SubgroupSize: coopSubgroup}
			block[mm.I], block[mm.J] = coopBlock, coopBlockN
			step := level()
			step[mm.R] = wgStep
			shape := level()
			shape[mm.I], shape[mm.J], shape[mm.R] = coopBlock, coopBlockN, wgStep
			c.TileSizes = [][]int64{block, step, shape}
			return c
		}
		if mm.coop {
			c := kernelconfig.Config{Pipeline: pipelineCoop, WorkgroupSize: [3]uint32{coopThreads, 1, 1}, SubgroupSize: coopSubgroup}
			block[mm.I], block[mm.J] = coopBlock, coopBlockN
			thread[mm.I], thread[mm.J] = 16*coopRows, 16*coopCols // a subgroup's 64 x 64
			step[mm.R] = coopStep
			shape := level()
			shape[mm.I], shape[mm.J], shape[mm.R] = 16, 16, 16
			c.TileSizes = [][]int64{block, thread, step, shape}
			return c
		}
		c := kernelconfig.Config{Pipeline: pipelinePromote, WorkgroupSize: [3]uint32{uint32(mm.Threads()), 1, 1}}
		block[mm.I], block[mm.J] = int64(mm.TM()), int64(mm.TN())
		thread[mm.I], thread[mm.J] = int64(mm.RM), int64(mm.RN)
		step[mm.R] = int64(mm.TK)
		c.TileSizes = [][]int64{block, thread, step}
		return c
	}
	c := kernelconfig.Config{WorkgroupSize: [3]uint32{LoopNestWorkgroupSize, 1, 1}}
	if red := reductionOf(k, body); red != nil {
		c.Pipeline = pipelineSubgroup
		if opts.NoSubgroups {
			c.Pipeline = pipelineShared
		}
		thread := level()
		thread[red.Loop] = ReductionUnroll
		c.TileSizes = [][]int64{block, thread}
		if opts.NoSubgroups || !gpuloops.WarpRows(k, LoopNestWorkgroupSize/32) {
			step := level()
			step[red.Loop] = ReductionUnroll * LoopNestWorkgroupSize
			c.TileSizes = append(c.TileSizes, step)
		}
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

// generatedConfig is the configuration of the shader generate compiled
// for export e into code. The workgroup size it records must be the
// LocalSize of the code's entry point: a mismatch would record a size the
// shader does not run with, so it is reported as an internal error.
func generatedConfig(variant, inner *ir.Operation, e export, opts Options, code []uint32) (kernelconfig.Config, error) {
	dev, err := DeviceOf(hal.VariantTarget(variant))
	if err != nil {
		return kernelconfig.Config{}, ir.OpErrorf(variant, "%v", err)
	}
	c := kernelConfig(inner, e.name, opts.glsl(dev))
	ls, ok := localSize(code, e.name)
	if c.IsZero() || !ok || ls != c.WorkgroupSize {
		return c, ir.OpErrorf(e.op, "internal error: the shader of @%s has local size %v (found %v) but its recorded configuration is %q", e.name, ls, ok, c.String())
	}
	return c, nil
}

// localSize returns the LocalSize execution mode of the entry point name
// in a SPIR-V module.
func localSize(code []uint32, name string) ([3]uint32, bool) {
	const opEntryPoint, opExecutionMode, modeLocalSize = 15, 16, 17
	var id uint32
	found := false
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			break
		}
		switch op := code[i] & 0xffff; {
		case op == opEntryPoint && n >= 4:
			if s, _ := literalString(code[i+3 : i+n]); s == name {
				id, found = code[i+2], true
			}
		case op == opExecutionMode && n == 6 && found && code[i+1] == id && code[i+2] == modeLocalSize:
			return [3]uint32{code[i+3], code[i+4], code[i+5]}, true
		}
		i += n
	}
	return [3]uint32{}, false
}

// ExportConfigs returns the configuration of each generated shader of a
// vulkan-spirv variant for the device its target describes, by export
// name, without generating it; external variants and functions
// GenerateGLSLWith would refuse have none. It lets the
// executable-configurations phase show on each export what the build
// will record (pipeline.AnnotateExportConfigs).
func (b Builder) ExportConfigs(variant *ir.Operation) (map[string]kernelconfig.Config, error) {
	inner := hal.InnerModule(variant)
	if inner == nil || !Supports(variant) {
		return nil, nil
	}
	dev, err := DeviceOf(hal.VariantTarget(variant))
	if err != nil {
		return nil, ir.OpErrorf(variant, "%v", err)
	}
	out := map[string]kernelconfig.Config{}
	for _, o := range variant.Body().Ops {
		if o.Name != "hal.executable.export" {
			continue
		}
		if c := kernelConfig(inner, o.SymName(), b.Options.glsl(dev)); !c.IsZero() {
			out[o.SymName()] = c
		}
	}
	return out, nil
}

// groupConfig is kernelConfig for a decoded row group (see
// pipelineRowGroup).
func groupConfig(grp *loopnest.Group, dev Device) kernelconfig.Config {
	last := grp.Stages[len(grp.Stages)-1]
	block := make([]int64, len(last.Ranges))
	thread := make([]int64, len(last.Ranges))
	for l := range grp.Rows {
		block[l] = 1
	}
	block[grp.Rows-1] = grp.Tile
	if n := len(thread); n > grp.Rows {
		thread[n-1] = ElementwiseUnroll
	}
	return kernelconfig.Config{Pipeline: pipelineRowGroup, WorkgroupSize: [3]uint32{uint32(groupThreads(dev)), 1, 1}, TileSizes: [][]int64{block, thread}}
}
