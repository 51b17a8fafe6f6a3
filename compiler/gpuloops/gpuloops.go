// Package gpuloops holds what the GPU targets (vulkan-spirv, cuda) decide
// alike about mapping a loop-nest kernel (the loopnest.Attr contract) onto
// workgroups: which kernels are row reductions that a workgroup's threads
// may share, which are matmul-shaped and can be tiled in shared memory, and
// the thread layout of such a tile. Each target writes its own code from
// these decisions.
package gpuloops

import (
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Combiners are the ops whose reductions may be reassociated: exact for
// integers, min and max, while float sums and products round differently
// in another order, as they do in IREE's GPU reductions.
var Combiners = map[string]bool{
	"arith.addf": true, "arith.mulf": true, "arith.addi": true, "arith.muli": true,
	"arith.maximumf": true, "arith.minimumf": true, "arith.maxnumf": true, "arith.minnumf": true,
	"arith.maxsi": true, "arith.minsi": true, "arith.maxui": true, "arith.minui": true,
	"arith.andi": true, "arith.ori": true, "arith.xori": true,
}

// MinSharedReduction is the shortest static reduction worth sharing among
// the threads of a workgroup: shorter ones cost more in barriers than the
// sequential loop does.
const MinSharedReduction = 64

// RowReduction returns the reduction loop of a kernel that reduces rows
// (one tensor input whose last index is the only reduction loop, one
// output, at least MinSharedReduction long or dynamic) with a body that
// only combines the element into the accumulator with one of Combiners;
// -1 otherwise. The threads of a workgroup may share such a reduction,
// combining their parts in any order.
func RowReduction(k *loopnest.Kernel, body *ir.Operation) int {
	red := -1
	for i, it := range k.Iterators {
		if it == "reduction" {
			if red >= 0 {
				return -1
			}
			red = i
		}
	}
	if red < 0 || len(k.Inputs) != 1 || k.Inputs[0].Scalar != nil || len(k.Outputs) != 1 {
		return -1
	}
	if r := k.Ranges[red]; r != ir.Dynamic && r < MinSharedReduction {
		return -1
	}
	m := k.Inputs[0].Map.Results
	if len(m) == 0 || m[len(m)-1].Kind != ir.AffineDim || m[len(m)-1].Pos != red {
		return -1
	}
	if body == nil || body.Body() == nil || len(body.Body().Args) != len(k.Ranges)+2 {
		return -1
	}
	ops := body.Body().Ops
	if len(ops) != 2 || !Combiners[ops[0].Name] || ops[1].Name != "func.return" || len(ops[0].Operands) != 2 ||
		len(ops[1].Operands) != 1 || ops[1].Operands[0] != ops[0].Results[0] {
		return -1
	}
	args := body.Body().Args
	in, acc := args[len(k.Ranges)], args[len(k.Ranges)+1]
	a, b := ops[0].Operands[0], ops[0].Operands[1]
	if !(a == in && b == acc || a == acc && b == in) {
		return -1
	}
	return red
}

// Matmul is a loop nest that multiplies matrices: inputs A indexed
// (batch..., I, R) and B indexed (batch..., R, J), output (batch..., I,
// J), with I and J the last two parallel loops, R the only reduction loop
// and the same batch loops leading every map. Its body may be anything:
// a tiled kernel still gives each output element its reduction in order.
type Matmul struct {
	I, J, R int
	Batch   []int
}

// MatmulOf recognizes a matmul-shaped kernel, or returns nil. A kernel
// with an epilogue or an accumulator of another type than its output is
// not one: the tiled kernels store their accumulators as they are.
func MatmulOf(k *loopnest.Kernel) *Matmul {
	if k.Epilogue != "" || len(k.Outputs) == 1 && k.Outputs[0].Acc != nil {
		return nil
	}
	var pars, reds []int
	for l, it := range k.Iterators {
		if it == "parallel" {
			pars = append(pars, l)
		} else {
			reds = append(reds, l)
		}
	}
	if len(reds) != 1 || len(pars) < 2 || len(k.Inputs) != 2 || len(k.Outputs) != 1 || k.Inputs[0].Scalar != nil || k.Inputs[1].Scalar != nil {
		return nil
	}
	m := &Matmul{I: pars[len(pars)-2], J: pars[len(pars)-1], R: reds[0], Batch: pars[:len(pars)-2]}
	want := func(o loopnest.Operand, x, y int) bool {
		res := o.Map.Results
		if len(res) != len(m.Batch)+2 {
			return false
		}
		for n, b := range m.Batch {
			if res[n].Kind != ir.AffineDim || res[n].Pos != b {
				return false
			}
		}
		last := res[len(res)-2:]
		return last[0].Kind == ir.AffineDim && last[0].Pos == x && last[1].Kind == ir.AffineDim && last[1].Pos == y
	}
	if !want(k.Inputs[0], m.I, m.R) || !want(k.Inputs[1], m.R, m.J) || !want(k.Outputs[0], m.I, m.J) {
		return nil
	}
	return m
}

// Layout is how a workgroup computes a block of a tiled matmul: TR x TC
// threads, each with RM x RN accumulators held in registers, cover TM() x
// TN() outputs, over TK-long steps of the reduction staged in shared
// memory. A thread's rows come in runs of VM() consecutive rows, one run
// per TR*VM() rows of the block (RowOf), and its columns likewise in runs
// of VN(): a run is one 16-byte vector load from the shared tiles, and
// neighbouring threads hold neighbouring runs, so that their global
// stores are contiguous and their shared loads free of bank conflicts.
type Layout struct {
	TR, TC, RM, RN, TK int
}

// Threads is the number of threads of the workgroup.
func (l Layout) Threads() int { return l.TR * l.TC }

// TM is the block's rows.
func (l Layout) TM() int { return l.TR * l.RM }

// TN is the block's columns.
func (l Layout) TN() int { return l.TC * l.RN }

// VM is the length of a thread's runs of rows: up to 4.
func (l Layout) VM() int { return min(4, l.RM) }

// VN is the length of a thread's runs of columns: up to 4.
func (l Layout) VN() int { return min(4, l.RN) }

// RowOf is the row of a thread's accumulator row a (0 <= a < RM) within
// the block, less the thread's first row tr*VM().
func (l Layout) RowOf(a int) int { return a/l.VM()*l.TR*l.VM() + a%l.VM() }

// ColOf is the column of a thread's accumulator column b (0 <= b < RN)
// within the block, less the thread's first column tc*VN().
func (l Layout) ColOf(b int) int { return b/l.VN()*l.TC*l.VN() + b%l.VN() }

// APitch is the distance between the rows of the shared A tile, which is
// held transposed (TK rows of TM elements, a row per step of the
// reduction, so that a thread's run of rows is one vector load): TM
// rounded up to a multiple of 4, so that every row starts 16-byte
// aligned, and 4 elements of padding, which send the transposing stores
// of one global vector load, 4 steps apart, to different banks.
func (l Layout) APitch() int { return (l.TM()+3)/4*4 + 4 }

// ATile is the number of elements of one shared A tile.
func (l Layout) ATile() int { return l.TK * l.APitch() }

// BTile is the number of elements of one shared B tile.
func (l Layout) BTile() int { return l.TK * l.TN() }

// SharedElements is the number of elements the shared tiles hold: two of
// each, so that a step's copies go to one pair while the threads compute
// from the other, with one barrier a step.
func (l Layout) SharedElements() int { return 2 * (l.ATile() + l.BTile()) }

// Layout picks the block layout for threads threads per workgroup (a power
// of two, at least 16) whose shared tiles hold at most shared elements. A
// workgroup owns the kernel's tile of the first parallel loop: rows of I
// when that is I, else whole matrices of a batch. With at least
// MatmulRows rows, blocks are 128 rows of 16 threads with 8 each, by 8
// columns a thread (128 columns for 256 threads, 64 for 128), in steps of
// 8: each step of a thread loads 16 elements from shared memory, as four
// vectors, for 64 multiply-adds. With fewer rows, as many thread rows as
// there are rows (a power of two up to 16) and up to 8 rows each, the
// columns spread over more threads, and shorter steps where the wider B
// tile would not fit.
func (m *Matmul) Layout(k *loopnest.Kernel, threads, shared int) Layout {
	rows := k.Tile
	if len(m.Batch) > 0 {
		rows = k.Ranges[m.I]
		if rows == ir.Dynamic {
			rows = MatmulRows
		}
	}
	l := Layout{TR: 1, RM: 1, TK: 8}
	for int64(l.TR*2) <= rows && l.TR < 16 && l.TR*2 <= threads {
		l.TR *= 2
	}
	for int64(l.TR*l.RM*2) <= rows && l.RM < 8 {
		l.RM *= 2
	}
	l.TC = threads / l.TR
	l.RN = 4
	if l.TC <= 32 {
		l.RN = 8
	}
	for l.SharedElements() > shared && l.TK > 1 {
		l.TK /= 2
	}
	return l
}

// wideBlocks is the layout of 256 threads in 128 x 128 blocks, at full
// step length.
var wideBlocks = Layout{TR: 16, TC: 16, RM: 8, RN: 8, TK: 8}

// MatmulThreads is the number of threads a tiled matmul's workgroup gets
// on a device whose workgroups run up to maxThreads threads with shared
// elements of shared memory: 256, whose blocks of 128 x 128 outputs (as
// on cuda) copy two thirds as many elements from global into shared
// memory per multiply-add as 128 x 64 ones, where the device allows that
// many threads and their tiles at full step length; else 128, which
// every Vulkan device runs.
func MatmulThreads(maxThreads, shared int) int {
	if maxThreads >= wideBlocks.Threads() && wideBlocks.SharedElements() <= shared {
		return wideBlocks.Threads()
	}
	return 128
}

// MatmulShared is the shared memory, in elements, that a tiled matmul's
// tiles may take on a device with shared elements of it: no more than
// the 128 x 128 blocks' tiles at full step length (4,160 elements, 16.25
// KiB of 4-byte ones), however much the device has. Matmuls of few rows,
// whose blocks are wider, shorten their steps rather than take more, so
// that every layout for a device fits any device that runs the 128 x 128
// blocks (lavapipe's and mobile GPUs' 32 KiB among them, where a module
// tuned for a 48 KiB NVIDIA GPU then runs) and leaves room for other
// workgroups on a multiprocessor.
func MatmulShared(shared int) int { return min(shared, wideBlocks.SharedElements()) }

// Workgroups is the GPU targets' budget of workgroups per loop-nest
// dispatch (target.Target.LoopNestWorkgroups): enough for a large GPU's
// multiprocessors (132 on an H200) to hold many each, so that a reduction
// over 8192 rows gets a workgroup per row rather than 128 rows each.
const Workgroups = 8192

// GridLimit is the largest x count of a loop-nest grid on the GPU targets
// (target.Target.LoopNestGridLimit): 65,535 is the least
// maxComputeWorkGroupCount[0] Vulkan allows and CUDA's limit in y, so a
// grid split at it launches everywhere.
const GridLimit = 65535

// MatmulRows is the tile of rows a matmul-shaped kernel's workgroup wants
// at least: the Layout's 128-row blocks.
const MatmulRows = 128

// MinTile is the GPU targets' target.Target.LoopNestMinTile for a
// matmul-shaped kernel tiled over its rows (no batch loops), whose blocks
// would otherwise shrink to a row: MatmulRows, or for fewer static rows
// the largest power of two not above them, so that a workgroup's threads
// share the B tile among as many rows as the matrix has. 1 for any other
// kernel.
func MinTile(d *ir.DictAttr) int64 {
	k, err := loopnest.Decode(d)
	if err != nil {
		return 1
	}
	m := MatmulOf(k)
	if m == nil || len(m.Batch) > 0 || k.OuterParallel() != m.I {
		return 1
	}
	t := int64(MatmulRows)
	if n := k.Ranges[m.I]; n != ir.Dynamic {
		for t > 1 && t > n {
			t /= 2
		}
	}
	return t
}

// DynamicColumnGroups is how many workgroups share a tile of rows of a
// matmul whose columns are dynamic: enough to fill a large GPU's
// multiprocessors with the row tiles of a few hundred rows.
const DynamicColumnGroups = 16

// ColumnGroups is how many workgroups share each tile of a matmul (the
// grid's z count, target.Target.LoopNestSplit): one per block of l.TN()
// columns when the columns are static (at most GridLimit), else
// DynamicColumnGroups. Workgroup z takes column blocks z, z + count, ...
// so that each block of the output has one workgroup and a matmul of
// 4096 x 4096 gets 128 x 32 of them, not 128 each walking 32 blocks.
func (m *Matmul) ColumnGroups(k *loopnest.Kernel, l Layout) int64 {
	n := k.Ranges[m.J]
	if n == ir.Dynamic {
		return DynamicColumnGroups
	}
	tn := int64(l.TN())
	return max(1, min((n+tn-1)/tn, GridLimit))
}
