package cuda_test

import (
	"fmt"
	"math"
	"strings"
	"sync"
)

// The PTX interpreter's (ptxsim_test.go) warp-level and asynchronous
// instructions, which the tensor-core matmul uses: ldmatrix and mma.sync,
// whose lanes exchange values, and cp.async with its groups. A lane reaching ldmatrix or
// mma.sync waits there, as at a shuffle, until every lane of its warp has
// (the interpreter runs a block's threads one at a time); then warpMore
// runs the instruction once for the warp, from the lanes' registers and
// shared memory at that moment, as the hardware does. mma.sync and
// ldmatrix are .aligned: every lane must reach the same one.
//
// cp.async copies read global memory when issued and write shared memory
// either then (simAsyncEarly) or only when a cp.async.wait_group retires
// their group, the latest the hardware may: a kernel that reads a stage
// before waiting for it, or refills a stage another warp may still be
// reading, computes wrong values under one of the two orders.

// simCopy is a cp.async copy not yet written to shared memory.
type simCopy struct {
	dst  int
	data []byte
}

// simBlockState is the cp.async state of the block a kernel is running
// (blocks run one after another) and its shared memory.
type simBlockState struct {
	shared  []byte
	pending map[int][]simCopy   // per thread: copies since its last commit
	groups  map[int][][]simCopy // per thread: committed groups, oldest first
}

var simWarp = struct {
	sync.Mutex
	blocks map[*simKernel]*simBlockState
	early  map[*simKernel]bool
}{blocks: map[*simKernel]*simBlockState{}, early: map[*simKernel]bool{}}

// simAsyncEarly sets whether k's cp.async copies write shared memory
// when issued (else at the wait that retires them).
func simAsyncEarly(k *simKernel, early bool) {
	simWarp.Lock()
	defer simWarp.Unlock()
	simWarp.early[k] = early
}

// asyncState returns the state of the block whose shared memory is shared,
// starting a new one when the kernel has moved on to another block.
func (k *simKernel) asyncState(shared []byte) *simBlockState {
	st := simWarp.blocks[k]
	if st == nil || len(shared) > 0 && (len(st.shared) == 0 || &st.shared[0] != &shared[0]) {
		st = &simBlockState{shared: shared, pending: map[int][]simCopy{}, groups: map[int][][]simCopy{}}
		simWarp.blocks[k] = st
	}
	return st
}

// stepMore runs the instructions of this file for thread tid but for
// the warp instructions, for which it returns warp: the thread waits
// there for its warp, and warpMore runs the instruction.
func (k *simKernel) stepMore(tid int, in simInst, r []uint64, shared []byte, global func(uint64, int) ([]byte, error)) (warp bool, err error) {
	simWarp.Lock()
	defer simWarp.Unlock()
	if strings.HasPrefix(in.op, "ldmatrix.") || strings.HasPrefix(in.op, "mma.") {
		k.asyncState(shared)
		return true, nil
	}
	a := in.args
	val := func(o simOperand) uint64 {
		switch {
		case o.kind == simReg && o.neg:
			return r[o.reg] ^ 1
		case o.kind == simReg:
			return r[o.reg]
		case o.sym != "":
			return uint64(k.shared[o.sym])
		}
		return o.imm
	}
	sharedAddr := func(o simOperand) int {
		if o.reg >= 0 {
			return int(uint32(r[o.reg])) + int(o.off)
		}
		return k.shared[o.sym] + int(o.off)
	}
	sharedAt := func(addr, n int) ([]byte, error) {
		if addr < 0 || addr+n > len(shared) {
			return nil, fmt.Errorf("%s: shared access of %d bytes at %d outside %d bytes", in.text, n, addr, len(shared))
		}
		if addr%min(n, 16) != 0 {
			return nil, fmt.Errorf("%s: misaligned shared access of %d bytes at %d", in.text, n, addr)
		}
		return shared[addr : addr+n], nil
	}
	switch op := in.op; op {
	case "cvt.rna.tf32.f32":
		// To 10 significand bits, ties away from zero: add half of the
		// dropped part's range to the magnitude; Inf and NaN stay.
		b := uint32(val(a[1]))
		if b&0x7f800000 != 0x7f800000 {
			b = (b + 0x1000) &^ 0x1fff
		}
		r[a[0].reg] = uint64(b)
	case "cp.async.cg.shared.global", "cp.async.ca.shared.global":
		dst, n, size := sharedAddr(a[0]), int(val(a[2])), int(val(a[2]))
		if len(a) > 3 {
			size = int(val(a[3]))
		}
		if n != 4 && n != 8 && n != 16 || op == "cp.async.cg.shared.global" && n != 16 || size > n {
			return false, fmt.Errorf("%s: copy of %d bytes with source size %d", in.text, n, size)
		}
		if _, err := sharedAt(dst, n); err != nil {
			return false, err
		}
		src := r[a[1].reg] + uint64(a[1].off)
		if src%uint64(n) != 0 {
			return false, fmt.Errorf("%s: misaligned global source %#x of a %d-byte copy", in.text, src, n)
		}
		data := make([]byte, n) // zeros past the source size
		if size > 0 {
			b, err := global(src, size)
			if err != nil {
				return false, fmt.Errorf("%s: %v", in.text, err)
			}
			copy(data, b)
		}
		st := k.asyncState(shared)
		if simWarp.early[k] {
			copy(shared[dst:], data)
		} else {
			st.pending[tid] = append(st.pending[tid], simCopy{dst, data})
		}
	case "cp.async.commit_group":
		st := k.asyncState(shared)
		st.groups[tid] = append(st.groups[tid], st.pending[tid])
		st.pending[tid] = nil
	case "cp.async.wait_group", "cp.async.wait_all":
		st := k.asyncState(shared)
		keep := 0
		if op == "cp.async.wait_group" {
			keep = int(val(a[0]))
		} else {
			st.groups[tid] = append(st.groups[tid], st.pending[tid])
			st.pending[tid] = nil
		}
		gs := st.groups[tid]
		for len(gs) > keep {
			for _, c := range gs[0] {
				copy(shared[c.dst:], c.data)
			}
			gs = gs[1:]
		}
		st.groups[tid] = gs
	default:
		return false, fmt.Errorf("%s: instruction not learnt by the interpreter", in.text)
	}
	return false, nil
}

// warpMore runs the warp instruction in (ldmatrix or mma.sync) for the
// lanes of a warp, whose registers are regs, once all are at it.
func (k *simKernel) warpMore(in simInst, regs []*[]uint64) error {
	simWarp.Lock()
	defer simWarp.Unlock()
	st := simWarp.blocks[k]
	if st == nil {
		return fmt.Errorf("%s: no block state", in.text)
	}
	shared := st.shared
	a := in.args
	if len(regs) != 32 {
		return fmt.Errorf("%s: a warp of %d lanes", in.text, len(regs))
	}
	// reg is the operand registers of a register or vector operand.
	reg := func(o simOperand) []int {
		if o.kind == simVec {
			return o.vec
		}
		return []int{o.reg}
	}
	switch in.op {
	case "ldmatrix.sync.aligned.m8n8.x1.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
		"ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16":
		trans := in.parts[5] == "trans"
		dst := reg(a[0])
		nm := map[string]int{"x1": 1, "x2": 2, "x4": 4}[in.parts[4]]
		if len(dst) != nm {
			return fmt.Errorf("%s: %d destination registers for %d matrices", in.text, len(dst), nm)
		}
		// Matrix j's rows are 16 bytes each at the addresses of lanes
		// 8j to 8j+7.
		var m [4][8][8]uint16
		for j := 0; j < nm; j++ {
			for row := 0; row < 8; row++ {
				o := a[1]
				addr := int(o.off)
				if o.reg >= 0 {
					addr += int(uint32((*regs[8*j+row])[o.reg]))
				} else {
					addr += k.shared[o.sym]
				}
				if addr < 0 || addr+16 > len(shared) || addr%16 != 0 {
					return fmt.Errorf("%s: lane %d's row at %d is misaligned or outside %d bytes of shared memory", in.text, 8*j+row, addr, len(shared))
				}
				for c := 0; c < 8; c++ {
					m[j][row][c] = uint16(shared[addr+2*c]) | uint16(shared[addr+2*c+1])<<8
				}
			}
		}
		for l, r := range regs {
			for j := 0; j < nm; j++ {
				// Lane l gets row l/4, columns 2(l%4) and the next
				// (transposed: column l/4, rows 2(l%4) and the next).
				r0, c0, r1, c1 := l/4, 2*(l%4), l/4, 2*(l%4)+1
				if trans {
					r0, c0, r1, c1 = c0, r0, c1, r1
				}
				(*r)[dst[j]] = uint64(m[j][r0][c0]) | uint64(m[j][r1][c1])<<16
			}
		}
	case "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32":
		if len(a) != 4 || len(reg(a[0])) != 4 || len(reg(a[1])) != 4 || len(reg(a[2])) != 2 || len(reg(a[3])) != 4 {
			return fmt.Errorf("%s: operands are not {d x4}, {a x4}, {b x2}, {c x4}", in.text)
		}
		half := func(b uint16) float64 { return simHalfValue(in.parts[7], b) }
		var A [16][16]float64
		var B [16][8]float64
		var C [16][8]float64
		// groupID g = lane/4, t = lane%4: A's element i (of register
		// i/2, the low half first) is at row g + 8*(i/2%2), column 2t +
		// i%2 + 8*(i/4); B's element i at row 2t + i%2 + 8*(i/2), column
		// g; C's and D's element i at row g + 8*(i/2), column 2t + i%2.
		for l, r := range regs {
			g, t := l/4, l%4
			ra, rb, rc := reg(a[1]), reg(a[2]), reg(a[3])
			for i := 0; i < 8; i++ {
				A[g+8*(i/2%2)][2*t+i%2+8*(i/4)] = half(uint16((*r)[ra[i/2]] >> (16 * (i % 2))))
			}
			for i := 0; i < 4; i++ {
				B[2*t+i%2+8*(i/2)][g] = half(uint16((*r)[rb[i/2]] >> (16 * (i % 2))))
			}
			for i := 0; i < 4; i++ {
				C[g+8*(i/2)][2*t+i%2] = float64(math.Float32frombits(uint32((*r)[rc[i]])))
			}
		}
		// The products of 16-bit values are exact in float64, and so
		// is their sum unless it spans more than 53 bits; rounded once.
		for l, r := range regs {
			g, t := l/4, l%4
			for i, d := range reg(a[0]) {
				row, col := g+8*(i/2), 2*t+i%2
				v := C[row][col]
				for kk := 0; kk < 16; kk++ {
					v += A[row][kk] * B[kk][col]
				}
				(*r)[d] = uint64(math.Float32bits(float32(v)))
			}
		}
	case "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32":
		if len(a) != 4 || len(reg(a[0])) != 4 || len(reg(a[1])) != 4 || len(reg(a[2])) != 2 || len(reg(a[3])) != 4 {
			return fmt.Errorf("%s: operands are not {d x4}, {a x4}, {b x2}, {c x4}", in.text)
		}
		// The tensor core reads a TF32 register's upper 19 bits.
		tf32 := func(b uint64) float64 { return float64(math.Float32frombits(uint32(b) &^ 0x1fff)) }
		var A [16][8]float64
		var B [8][8]float64
		var C [16][8]float64
		// A's element i (register i) is at row g + 8*(i%2), column t +
		// 4*(i/2); B's element i at row t + 4*i, column g; C as for
		// m16n8k16.
		for l, r := range regs {
			g, t := l/4, l%4
			ra, rb, rc := reg(a[1]), reg(a[2]), reg(a[3])
			for i := 0; i < 4; i++ {
				A[g+8*(i%2)][t+4*(i/2)] = tf32((*r)[ra[i]])
			}
			for i := 0; i < 2; i++ {
				B[t+4*i][g] = tf32((*r)[rb[i]])
			}
			for i := 0; i < 4; i++ {
				C[g+8*(i/2)][2*t+i%2] = float64(math.Float32frombits(uint32((*r)[rc[i]])))
			}
		}
		// Products of 11-bit significands are exact in float64.
		for l, r := range regs {
			g, t := l/4, l%4
			for i, d := range reg(a[0]) {
				row, col := g+8*(i/2), 2*t+i%2
				v := C[row][col]
				for kk := 0; kk < 8; kk++ {
					v += A[row][kk] * B[kk][col]
				}
				(*r)[d] = uint64(math.Float32bits(float32(v)))
			}
		}
	default:
		return fmt.Errorf("%s: warp instruction not learnt by the interpreter", in.text)
	}
	return nil
}

// simHalfValue is the value of the f16 or bf16 (typ) bits h.
func simHalfValue(typ string, h uint16) float64 {
	if typ == "bf16" {
		return float64(math.Float32frombits(uint32(h) << 16))
	}
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	e, m := int(h>>10&0x1f), float64(h&0x3ff)
	switch e {
	case 0:
		return sign * math.Ldexp(m, -24)
	case 31:
		if m != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1024+m, e-25)
}

// simHalfBits rounds the float32 v to f16 or bf16 (typ) bits: to
// nearest, ties to even, overflowing to infinity, with subnormals.
func simHalfBits(typ string, v float32) uint16 {
	if typ == "bf16" {
		b := math.Float32bits(v)
		if v != v {
			return uint16(b>>16) | 0x40
		}
		b += 0x7fff + (b>>16)&1
		return uint16(b >> 16)
	}
	x := float64(v)
	var sign uint16
	if math.Signbit(x) {
		sign, x = 0x8000, -x
	}
	switch {
	case math.IsNaN(x):
		return 0x7e00
	case math.IsInf(x, 0):
		return sign | 0x7c00
	case x == 0:
		return sign
	}
	_, e := math.Frexp(x) // x = f * 2^e, f in [0.5, 1)
	e = max(e-1, -14)     // the binade's exponent; subnormals share -14's quantum
	q := math.RoundToEven(math.Ldexp(x, 10-e))
	// q's 1024 is the implicit bit (or a carry into the next binade);
	// a subnormal's q is below 1024 and its exponent field 0.
	bits := uint64(e+14)<<10 + uint64(q)
	if bits >= 0x7c00 {
		return sign | 0x7c00
	}
	return sign | uint16(bits)
}
