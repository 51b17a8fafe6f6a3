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

// MatmulOf recognizes a matmul-shaped kernel, or returns nil.
func MatmulOf(k *loopnest.Kernel) *Matmul {
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
// threads, each with RM x RN accumulators, cover TM() x TN() outputs, over
// TK-long steps of the reduction staged in shared memory. Thread (tr, tc)
// owns rows tr + TR*a and columns tc + TC*b, so that neighbouring threads
// write neighbouring columns.
type Layout struct {
	TR, TC, RM, RN, TK int
}

// TM is the block's rows and TN its columns.
func (l Layout) TM() int { return l.TR * l.RM }

// TN is the block's columns.
func (l Layout) TN() int { return l.TC * l.RN }

// SharedElements is the number of elements the A and B tiles hold.
func (l Layout) SharedElements() int { return l.TM()*l.TK + l.TK*l.TN() }

// Layout picks the block layout for threads threads per workgroup (a power
// of two, at least 16). A workgroup owns the kernel's tile of the first
// parallel loop: rows of I when that is I, else whole matrices of a batch.
// With at least 32 rows available, blocks are 32 rows x 4*threads/8
// columns, 4 x 4 per thread, in steps of 16; with fewer, as many rows as
// there are (a power of two up to 8), one per thread row, and wider
// column blocks. A and B tiles of 4-byte elements stay within 8 KiB of the
// 16 KiB of shared memory every Vulkan device has (and CUDA's 48 KiB).
func (m *Matmul) Layout(k *loopnest.Kernel, threads int) Layout {
	rows := k.Tile
	if len(m.Batch) > 0 {
		rows = k.Ranges[m.I]
		if rows == ir.Dynamic {
			rows = 32
		}
	}
	var l Layout
	if rows >= 32 {
		l = Layout{TR: 8, TC: threads / 8, RM: 4, RN: 4, TK: 16}
	} else {
		l = Layout{TR: 1, RM: 1, RN: 2, TK: 16}
		for l.TR*2 <= int(rows) && l.TR < 8 {
			l.TR *= 2
		}
		l.TC = threads / l.TR
		if l.TC <= 16 {
			l.RN = 4
		}
	}
	for 4*l.SharedElements() > 8192 && l.TK > 1 {
		l.TK /= 2
	}
	return l
}

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
// at least: the Layout's 32-row blocks.
const MatmulRows = 32

// MinTile is the GPU targets' target.Target.LoopNestMinTile: MatmulRows
// for a matmul-shaped kernel tiled over its rows (no batch loops), whose
// blocks would otherwise shrink to a row; 1 for any other kernel.
func MinTile(d *ir.DictAttr) int64 {
	k, err := loopnest.Decode(d)
	if err != nil {
		return 1
	}
	if m := MatmulOf(k); m != nil && len(m.Batch) == 0 && k.OuterParallel() == m.I {
		return MatmulRows
	}
	return 1
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
