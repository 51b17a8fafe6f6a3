package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	mathbits "math/bits"
	"regexp"
	"strconv"
	"strings"
)

// A small PTX interpreter for the instructions generated loop-nest
// kernels use, so that kernels can run here, where there is no GPU: a
// block's threads run one at a time up to each bar.sync (every thread of
// a block reaches the same barriers), with the block's shared memory and
// the bindings' global memory checked on every access. It knows the
// instructions by their full spelling and refuses any other, so a kernel
// that starts using a new one fails its test here until the interpreter
// learns it.

// simOperand is one decoded operand.
type simOperand struct {
	kind int // simReg, simImm, simVec, simMem
	reg  int // register index (simReg, simMem base; -1 when the base is a symbol)
	imm  uint64
	vec  []int  // registers of a vector operand
	off  int64  // simMem: byte offset
	sym  string // simMem or simImm of a symbol: parameter or shared array name
	neg  bool   // a negated predicate operand (!%p)
}

const (
	simReg = iota
	simImm
	simVec
	simMem
	simSpecial
)

type simInst struct {
	guard    int // predicate register, or -1
	negGuard bool
	op       string
	parts    []string // op split at dots
	typ      string   // the last part: the type
	bits     int      // 32 or 64: the width of integer arithmetic
	args     []simOperand
	text     string
}

// simSize is the size of a memory access's elements by type.
var simSize = map[string]int{"f32": 4, "u32": 4, "s32": 4, "b32": 4, "f64": 8, "u64": 8, "s64": 8, "b64": 8, "u8": 1, "s8": 1,
	"u16": 2, "s16": 2, "b16": 2, "f16": 2, "bf16": 2}

// simKernel is one decoded .entry.
type simKernel struct {
	name   string
	params []string
	block  int
	insts  []simInst
	labels map[string]int
	regs   map[string]int
	shared map[string]int // array name -> byte offset
	smem   int
	// executed counts the instructions run (not skipped by their
	// guard), by opcode.
	executed map[string]int
}

var (
	simEntry    = regexp.MustCompile(`(?s)\.visible \.entry (\w+)\(\n(.*?)\n\)\n\.maxntid (\d+), 1, 1\n(?:\.\w+ [\d, ]+\n)*\{\n(.*?)\n\}\n`)
	simParam    = regexp.MustCompile(`\.param \.\w+ (\w+)`)
	simShared   = regexp.MustCompile(`^\.shared \.align \d+ \.b8 (\w+)\[(\d+)\];$`)
	simSpecials = map[string]bool{"%tid.x": true, "%ctaid.x": true, "%ctaid.y": true, "%ctaid.z": true,
		"%nctaid.x": true, "%nctaid.y": true, "%nctaid.z": true, "%ntid.x": true}
)

// parseSimKernel decodes the entry named name of a PTX module.
func parseSimKernel(ptx, name string) (*simKernel, error) {
	for _, m := range simEntry.FindAllStringSubmatch(ptx, -1) {
		if m[1] != name {
			continue
		}
		k := &simKernel{name: name, labels: map[string]int{}, regs: map[string]int{}, shared: map[string]int{}, executed: map[string]int{}}
		for _, p := range simParam.FindAllStringSubmatch(m[2], -1) {
			k.params = append(k.params, p[1])
		}
		k.block, _ = strconv.Atoi(m[3])
		for _, line := range strings.Split(m[4], "\n") {
			line = strings.TrimSpace(line)
			switch {
			case line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, ".reg"):
				continue
			case strings.HasPrefix(line, ".shared"):
				sm := simShared.FindStringSubmatch(line)
				if sm == nil {
					return nil, fmt.Errorf("cannot read %q", line)
				}
				n, _ := strconv.Atoi(sm[2])
				k.smem = (k.smem + 15) &^ 15
				k.shared[sm[1]] = k.smem
				k.smem += n
				continue
			case strings.HasSuffix(line, ":"):
				k.labels[strings.TrimSuffix(line, ":")] = len(k.insts)
				continue
			}
			in, err := k.decode(line)
			if err != nil {
				return nil, fmt.Errorf("%q: %v", line, err)
			}
			k.insts = append(k.insts, in)
		}
		return k, nil
	}
	return nil, fmt.Errorf("no entry %s", name)
}

func (k *simKernel) reg(name string) int {
	if i, ok := k.regs[name]; ok {
		return i
	}
	k.regs[name] = len(k.regs)
	return k.regs[name]
}

// decode reads one instruction line (without its label).
func (k *simKernel) decode(line string) (simInst, error) {
	in := simInst{guard: -1, text: line}
	line = strings.TrimSuffix(line, ";")
	if strings.HasPrefix(line, "@") {
		sp := strings.IndexAny(line, " \t")
		g := line[1:sp]
		if strings.HasPrefix(g, "!") {
			in.negGuard, g = true, g[1:]
		}
		in.guard = k.reg(g)
		line = strings.TrimSpace(line[sp:])
	}
	sp := strings.IndexAny(line, " \t")
	if sp < 0 {
		sp = len(line)
	}
	in.op = line[:sp]
	in.parts = strings.Split(in.op, ".")
	in.typ = in.parts[len(in.parts)-1]
	in.bits = 64
	switch {
	case strings.HasSuffix(in.typ, "32"):
		in.bits = 32
	case strings.HasSuffix(in.typ, "16"):
		in.bits = 16
	}
	if sp == len(line) {
		return in, nil
	}
	rest := strings.TrimSpace(line[sp:])
	// Split at commas outside braces and brackets.
	var parts []string
	depth, start := 0, 0
	for i, c := range rest {
		switch c {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, strings.TrimSpace(rest[start:i]))
				start = i + 1
			}
		}
	}
	parts = append(parts, strings.TrimSpace(rest[start:]))
	for _, p := range parts {
		o, err := k.operand(p)
		if err != nil {
			return in, err
		}
		in.args = append(in.args, o)
	}
	return in, nil
}

func (k *simKernel) operand(p string) (simOperand, error) {
	switch {
	case simSpecials[p]:
		return simOperand{kind: simSpecial, sym: p}, nil
	case strings.HasPrefix(p, "{"):
		var o simOperand
		o.kind = simVec
		for _, r := range strings.Split(strings.Trim(p, "{}"), ",") {
			o.vec = append(o.vec, k.reg(strings.TrimSpace(r)))
		}
		return o, nil
	case strings.HasPrefix(p, "["):
		in := strings.Trim(p, "[]")
		o := simOperand{kind: simMem, reg: -1}
		if i := strings.IndexByte(in, '+'); i >= 0 {
			off, err := strconv.ParseInt(in[i+1:], 10, 64)
			if err != nil {
				return o, err
			}
			o.off, in = off, in[:i]
		}
		if strings.HasPrefix(in, "%") {
			o.reg = k.reg(in)
		} else {
			o.sym = in
		}
		return o, nil
	case strings.HasPrefix(p, "!%"):
		return simOperand{kind: simReg, reg: k.reg(p[1:]), neg: true}, nil
	case strings.HasPrefix(p, "%"):
		return simOperand{kind: simReg, reg: k.reg(p)}, nil
	case strings.HasPrefix(p, "0f") && len(p) == 10:
		v, err := strconv.ParseUint(p[2:], 16, 32)
		return simOperand{kind: simImm, imm: v}, err
	case strings.HasPrefix(p, "0d") && len(p) == 18:
		v, err := strconv.ParseUint(p[2:], 16, 64)
		return simOperand{kind: simImm, imm: v}, err
	case strings.HasPrefix(p, "$"):
		return simOperand{kind: simImm, sym: p}, nil
	}
	if v, err := strconv.ParseInt(p, 0, 64); err == nil {
		return simOperand{kind: simImm, imm: uint64(v)}, nil
	}
	if v, err := strconv.ParseUint(p, 0, 64); err == nil { // beyond int64: PTX's .u64 literals
		return simOperand{kind: simImm, imm: v}, nil
	}
	if _, ok := k.shared[p]; ok {
		return simOperand{kind: simImm, sym: p}, nil
	}
	return simOperand{}, fmt.Errorf("cannot read operand %q", p)
}

// simBuffer is a binding's global memory at a device address.
type simBuffer struct {
	addr uint64
	data []byte
}

// simLaunch runs a kernel over a grid: params are the parameters' values
// (pointers as the buffers' addresses, constants as uint32).
func (k *simKernel) run(grid [3]int, params []uint64, bufs []*simBuffer) error {
	if len(params) != len(k.params) {
		return fmt.Errorf("%d parameters, the kernel takes %d", len(params), len(k.params))
	}
	param := map[string]uint64{}
	for i, p := range k.params {
		param[p] = params[i]
	}
	global := func(addr uint64, n int) ([]byte, error) {
		for _, b := range bufs {
			if addr >= b.addr && addr+uint64(n) <= b.addr+uint64(len(b.data)) {
				return b.data[addr-b.addr : addr-b.addr+uint64(n)], nil
			}
		}
		return nil, fmt.Errorf("global access of %d bytes at %#x is outside every binding", n, addr)
	}
	for z := 0; z < grid[2]; z++ {
		for y := 0; y < grid[1]; y++ {
			for x := 0; x < grid[0]; x++ {
				shared := make([]byte, k.smem)
				type thread struct {
					r    []uint64
					pc   int
					done bool
				}
				ts := make([]*thread, k.block)
				for i := range ts {
					ts[i] = &thread{r: make([]uint64, len(k.regs))}
				}
				// A thread runs until it ends, passes a barrier, where
				// it waits until every thread that has not ended is
				// there, or reaches a shuffle, which runs once every
				// lane of its warp is at it.
				wait := make([]int, k.block)
				special := func(tid int, s string) uint64 {
					return map[string]uint64{"%tid.x": uint64(tid), "%ntid.x": uint64(k.block),
						"%ctaid.x": uint64(x), "%ctaid.y": uint64(y), "%ctaid.z": uint64(z),
						"%nctaid.x": uint64(grid[0]), "%nctaid.y": uint64(grid[1]), "%nctaid.z": uint64(grid[2])}[s]
				}
				for {
					live, barrier := 0, 0
					for tid, t := range ts {
						if !t.done && wait[tid] == simRunning {
							if err := k.step(tid, &t.r, &t.pc, &t.done, &wait[tid], shared, global, param, special); err != nil {
								return fmt.Errorf("block (%d,%d,%d) thread %d: %v", x, y, z, tid, err)
							}
						}
						if !t.done {
							live++
						}
						if !t.done && wait[tid] == simAtBarrier {
							barrier++
						}
					}
					if live == 0 {
						break
					}
					if barrier == live {
						clear(wait)
						continue
					}
					shuffled := false
					for w := 0; w*32 < k.block; w++ {
						lanes := ts[w*32 : min(w*32+32, k.block)]
						waiting := 0
						for l, t := range lanes {
							if wait[w*32+l] == simAtShuffle {
								waiting++
								if t.pc != lanes[0].pc {
									return fmt.Errorf("block (%d,%d,%d) warp %d: lanes at different shuffles", x, y, z, w)
								}
							}
						}
						if waiting == 0 {
							continue
						}
						if waiting != len(lanes) {
							return fmt.Errorf("block (%d,%d,%d) warp %d: %d of its lanes reach a shuffle whose mask names all", x, y, z, w, waiting)
						}
						regs := make([]*[]uint64, len(lanes))
						for l, t := range lanes {
							regs[l] = &t.r
						}
						if err := k.shuffle(k.insts[lanes[0].pc], regs); err != nil {
							return err
						}
						for l, t := range lanes {
							t.pc++
							wait[w*32+l] = simRunning
						}
						shuffled = true
					}
					if !shuffled {
						return fmt.Errorf("block (%d,%d,%d): %d of %d threads wait at a barrier, the others at shuffles that cannot run", x, y, z, barrier, live)
					}
				}
			}
		}
	}
	return nil
}

// Where a thread waits.
const (
	simRunning = iota
	simAtBarrier
	simAtShuffle
)

// shuffle runs the shuffle in (shfl.sync.bfly.b32 with every lane in its
// mask) for the lanes of a warp, whose registers are regs.
func (k *simKernel) shuffle(in simInst, regs []*[]uint64) error {
	if !strings.HasPrefix(in.op, "shfl.") {
		return k.warpMore(in, regs) // ptxsim_mma_test.go
	}
	if len(in.args) != 5 || in.args[2].kind != simImm || in.args[3].kind != simImm || in.args[4].kind != simImm || int32(in.args[4].imm) != -1 {
		return fmt.Errorf("%s: not learnt", in.text)
	}
	if len(regs) != 32 {
		return fmt.Errorf("%s: a warp of %d lanes", in.text, len(regs))
	}
	val := func(l int) uint64 {
		if o := in.args[1]; o.kind == simReg {
			return (*regs[l])[o.reg]
		}
		return in.args[1].imm
	}
	out := make([]uint64, len(regs))
	for l := range regs {
		out[l] = val(l^int(in.args[2].imm)) & 0xffffffff
	}
	for l, r := range regs {
		(*r)[in.args[0].reg] = out[l]
	}
	return nil
}

// step runs one thread up to its next barrier (past it), shuffle (before
// it) or its end.
func (k *simKernel) step(tid int, regs *[]uint64, pc *int, done *bool, wait *int, shared []byte,
	global func(uint64, int) ([]byte, error), param map[string]uint64, special func(int, string) uint64) error {
	r := *regs
	val := func(o simOperand) uint64 {
		switch o.kind {
		case simReg:
			if o.neg {
				return r[o.reg] ^ 1
			}
			return r[o.reg]
		case simSpecial:
			return special(tid, o.sym)
		}
		if o.sym != "" {
			return uint64(k.shared[o.sym])
		}
		return o.imm
	}
	for steps := 0; ; steps++ {
		if steps > 50_000_000 {
			return fmt.Errorf("no barrier or end after %d instructions", steps)
		}
		if *pc >= len(k.insts) {
			return fmt.Errorf("ran past the end")
		}
		in := k.insts[*pc]
		*pc++
		if in.guard >= 0 && (r[in.guard] != 0) == in.negGuard {
			continue
		}
		k.executed[in.op]++
		op, a, parts, typ, bits := in.op, in.args, in.parts, in.typ, in.bits
		mask := func(v uint64) uint64 {
			if bits < 64 {
				return v & (1<<bits - 1)
			}
			return v
		}
		sext := func(v uint64) int64 {
			if bits < 64 {
				return int64(v<<(64-bits)) >> (64 - bits)
			}
			return int64(v)
		}
		set := func(v uint64) { r[a[0].reg] = mask(v) }
		f32 := func(o simOperand) float32 { return math.Float32frombits(uint32(val(o))) }
		setf := func(v float32) { r[a[0].reg] = uint64(math.Float32bits(v)) }
		// mem resolves a memory operand to its bytes.
		mem := func(o simOperand, space string, n int) ([]byte, error) {
			switch space {
			case "shared":
				addr := o.off
				if o.reg >= 0 {
					addr += int64(uint32(r[o.reg]))
				} else {
					addr += int64(k.shared[o.sym])
				}
				if addr < 0 || int(addr)+n > len(shared) {
					return nil, fmt.Errorf("%s: shared access of %d bytes at %d outside %d bytes", in.text, n, addr, len(shared))
				}
				if addr%int64(n) != 0 {
					return nil, fmt.Errorf("%s: misaligned shared access of %d bytes at %d", in.text, n, addr)
				}
				return shared[addr : int(addr)+n], nil
			case "global":
				addr := r[o.reg] + uint64(o.off)
				if addr%uint64(n) != 0 {
					return nil, fmt.Errorf("%s: misaligned global access of %d bytes at %#x", in.text, n, addr)
				}
				b, err := global(addr, n)
				if err != nil {
					return nil, fmt.Errorf("%s: %v", in.text, err)
				}
				return b, nil
			}
			return nil, fmt.Errorf("%s: unknown state space", in.text)
		}
		switch {
		case op == "ret":
			*done = true
			return nil
		case op == "bar.sync":
			*wait = simAtBarrier
			return nil
		case op == "shfl.sync.bfly.b32":
			*pc-- // it runs when the warp's lanes are all here
			*wait = simAtShuffle
			return nil
		case op == "bra" || op == "bra.uni":
			pcn, ok := k.labels[a[0].sym]
			if !ok {
				return fmt.Errorf("%s: no label", in.text)
			}
			*pc = pcn
		case strings.HasPrefix(op, "ld.param."):
			v, ok := param[a[1].sym]
			if !ok {
				return fmt.Errorf("%s: no parameter", in.text)
			}
			set(v)
		case op == "cvta.to.global.u64":
			set(val(a[1]))
		case strings.HasPrefix(op, "ld.") || strings.HasPrefix(op, "st."):
			space := parts[1]
			n := simSize[typ]
			var regs []int
			memArg, regArg := a[1], a[0]
			if parts[0] == "st" {
				memArg, regArg = a[0], a[1]
			}
			if regArg.kind == simVec {
				regs = regArg.vec
			} else {
				regs = []int{regArg.reg}
			}
			b, err := mem(memArg, space, n*len(regs))
			if err != nil {
				return err
			}
			for i, reg := range regs {
				e := b[i*n : (i+1)*n]
				if parts[0] == "ld" {
					switch n {
					case 1:
						r[reg] = uint64(e[0])
						if typ == "s8" {
							r[reg] = uint64(int64(int8(e[0])))
						}
					case 2:
						r[reg] = uint64(binary.LittleEndian.Uint16(e))
						if typ == "s16" {
							r[reg] = uint64(int64(int16(r[reg])))
						}
					case 4:
						r[reg] = uint64(binary.LittleEndian.Uint32(e))
						if typ == "s32" {
							r[reg] = uint64(int64(int32(r[reg])))
						}
					case 8:
						r[reg] = binary.LittleEndian.Uint64(e)
					default:
						return fmt.Errorf("%s: not learnt", in.text)
					}
					continue
				}
				switch n {
				case 1:
					e[0] = byte(r[reg])
				case 2:
					binary.LittleEndian.PutUint16(e, uint16(r[reg]))
				case 4:
					binary.LittleEndian.PutUint32(e, uint32(r[reg]))
				case 8:
					binary.LittleEndian.PutUint64(e, r[reg])
				default:
					return fmt.Errorf("%s: not learnt", in.text)
				}
			}
		case strings.HasPrefix(op, "mov."):
			set(val(a[1]))
		case op == "cvt.u64.u32":
			r[a[0].reg] = uint64(uint32(val(a[1])))
		case op == "cvt.s64.s32":
			r[a[0].reg] = uint64(int64(int32(val(a[1]))))
		case op == "cvt.u32.u64":
			r[a[0].reg] = uint64(uint32(val(a[1])))
		case op == "add.s32" || op == "add.u32" || op == "add.s64" || op == "add.u64":
			set(val(a[1]) + val(a[2]))
		case op == "sub.s32" || op == "sub.s64":
			set(val(a[1]) - val(a[2]))
		case op == "mul.lo.s32" || op == "mul.lo.u32" || op == "mul.lo.s64" || op == "mul.lo.u64":
			set(val(a[1]) * val(a[2]))
		case op == "mad.lo.s32" || op == "mad.lo.u32" || op == "mad.lo.s64":
			set(val(a[1])*val(a[2]) + val(a[3]))
		case op == "mul.hi.u64":
			hi, _ := mathbits.Mul64(val(a[1]), val(a[2]))
			set(hi)
		case op == "neg.s32":
			set(-val(a[1]))
		case op == "xor.pred":
			r[a[0].reg] = (val(a[1]) ^ val(a[2])) & 1
		case op == "mul.wide.u32":
			r[a[0].reg] = uint64(uint32(val(a[1]))) * uint64(uint32(val(a[2])))
		case op == "div.u32" || op == "div.u64" || op == "rem.u32" || op == "rem.u64":
			d := mask(val(a[2]))
			if d == 0 {
				return fmt.Errorf("%s: division by zero", in.text)
			}
			if parts[0] == "div" {
				set(mask(val(a[1])) / d)
			} else {
				set(mask(val(a[1])) % d)
			}
		case op == "div.s32" || op == "div.s64" || op == "rem.s32" || op == "rem.s64":
			// PTX leaves both cases below machine-specific; generated
			// code must never reach them.
			x, d := sext(val(a[1])), sext(val(a[2]))
			if d == 0 {
				return fmt.Errorf("%s: division by zero", in.text)
			}
			if d == -1 && x == sext(uint64(1)<<(bits-1)) {
				return fmt.Errorf("%s: the most negative value divided by -1 overflows", in.text)
			}
			if parts[0] == "div" {
				set(uint64(x / d))
			} else {
				set(uint64(x % d))
			}
		case op == "neg.s64":
			set(-val(a[1]))
		case op == "min.u64" || op == "max.u64" || op == "min.u32" || op == "max.u32":
			x, y := mask(val(a[1])), mask(val(a[2]))
			if (parts[0] == "min") == (x < y) {
				set(x)
			} else {
				set(y)
			}
		case op == "min.s32" || op == "max.s32" || op == "min.s64" || op == "max.s64":
			x, y := sext(val(a[1])), sext(val(a[2]))
			if (parts[0] == "min") == (x < y) {
				set(uint64(x))
			} else {
				set(uint64(y))
			}
		case op == "shl.b32" || op == "shl.b64":
			set(val(a[1]) << val(a[2]))
		case op == "shr.u32" || op == "shr.u64":
			set(mask(val(a[1])) >> val(a[2]))
		case op == "and.b32" || op == "and.b64":
			set(val(a[1]) & val(a[2]))
		case op == "xor.b32" || op == "xor.b64":
			set(val(a[1]) ^ val(a[2]))
		case op == "and.pred":
			r[a[0].reg] = val(a[1]) & val(a[2]) & 1
		case strings.HasPrefix(op, "setp.") && simFloatTypes[typ]:
			r[a[0].reg] = 0
			if simCompare(parts[1], simFloat(typ, val(a[1])), simFloat(typ, val(a[2]))) {
				r[a[0].reg] = 1
			}
		case strings.HasPrefix(op, "setp."):
			var c bool
			x, y := mask(val(a[1])), mask(val(a[2]))
			sx, sy := sext(x), sext(y)
			signed := typ[0] == 's'
			switch parts[1] {
			case "lt":
				c = x < y
				if signed {
					c = sx < sy
				}
			case "le":
				c = x <= y
				if signed {
					c = sx <= sy
				}
			case "gt":
				c = x > y
				if signed {
					c = sx > sy
				}
			case "ge":
				c = x >= y
				if signed {
					c = sx >= sy
				}
			case "eq":
				c = x == y
			case "ne":
				c = x != y
			default:
				return fmt.Errorf("%s: not learnt", in.text)
			}
			r[a[0].reg] = 0
			if c {
				r[a[0].reg] = 1
			}
		case op == "fma.rn.f32":
			setf(float32(math.FMA(float64(f32(a[1])), float64(f32(a[2])), float64(f32(a[3])))))
		case op == "mul.rn.f32":
			setf(f32(a[1]) * f32(a[2]))
		case op == "add.rn.f32":
			setf(f32(a[1]) + f32(a[2]))
		case simFloatTypes[typ] && len(parts) == 3 && parts[1] == "rn" && simArith[parts[0]] != nil:
			// add, sub, mul, div in float64, rounded once to the type:
			// exact for f64; for the narrower types float64 has more
			// than twice their precision plus two bits, so the double
			// rounding of a quotient or an inexact sum cannot differ
			// from a single one.
			r[a[0].reg] = simFloatBits(typ, simArith[parts[0]](simFloat(typ, val(a[1])), simFloat(typ, val(a[2]))))
		case (op == "fma.rn.f16" || op == "fma.rn.bf16" || op == "fma.rn.f64"):
			r[a[0].reg] = simFMA(typ, simFloat(typ, val(a[1])), simFloat(typ, val(a[2])), simFloat(typ, val(a[3])))
		case op == "ex2.approx.f32" || op == "lg2.approx.f32" || op == "sin.approx.f32" || op == "cos.approx.f32":
			// The exact function: the hardware's is within 2 ulps of
			// it (ex2) or a small absolute error (lg2, sin, cos).
			fn := map[string]func(float64) float64{"ex2": math.Exp2, "lg2": math.Log2, "sin": math.Sin, "cos": math.Cos}[parts[0]]
			setf(float32(fn(float64(f32(a[1])))))
		case op == "neg.f32" || op == "neg.f64":
			r[a[0].reg] = simFloatBits(typ, -simFloat(typ, val(a[1])))
		case op == "or.pred":
			r[a[0].reg] = (val(a[1]) | val(a[2])) & 1
		case op == "not.pred":
			r[a[0].reg] = val(a[1]) ^ 1
		case op == "abs.f32" || op == "abs.f64":
			r[a[0].reg] = simFloatBits(typ, math.Abs(simFloat(typ, val(a[1]))))
		case op == "copysign.f32" || op == "copysign.f64":
			// The sign of the first source on the second.
			r[a[0].reg] = simFloatBits(typ, math.Copysign(simFloat(typ, val(a[2])), simFloat(typ, val(a[1]))))
		case op == "testp.finite.f32" || op == "testp.finite.f64":
			v := simFloat(typ, val(a[1]))
			r[a[0].reg] = 0
			if !math.IsInf(v, 0) && !math.IsNaN(v) {
				r[a[0].reg] = 1
			}
		case op == "popc.b32" || op == "popc.b64":
			r[a[0].reg] = uint64(mathbits.OnesCount64(mask(val(a[1]))))
		case op == "clz.b32":
			r[a[0].reg] = uint64(mathbits.LeadingZeros32(uint32(val(a[1]))))
		case op == "clz.b64":
			r[a[0].reg] = uint64(mathbits.LeadingZeros64(val(a[1])))
		case op == "sqrt.rn.f32" || op == "sqrt.rn.f64":
			r[a[0].reg] = simFloatBits(typ, math.Sqrt(simFloat(typ, val(a[1]))))
		case (parts[0] == "max" || parts[0] == "min") && simFloatTypes[typ]:
			r[a[0].reg] = simMinMax(typ, parts[0] == "max", len(parts) == 3 && parts[1] == "NaN", val(a[1]), val(a[2]))
		case strings.HasPrefix(op, "cvt.") && len(parts) >= 3 && simSize[typ] > 0 && simSize[parts[len(parts)-2]] > 0:
			v, err := simCvt(parts, val(a[1]))
			if err != nil {
				return fmt.Errorf("%s: %v", in.text, err)
			}
			r[a[0].reg] = v
		case strings.HasPrefix(op, "selp."):
			if val(a[3])&1 != 0 {
				set(val(a[1]))
			} else {
				set(val(a[2]))
			}
		case op == "and.b16" || op == "or.b16" || op == "or.b32" || op == "or.b64" || op == "xor.b16":
			switch parts[0] {
			case "and":
				set(val(a[1]) & val(a[2]))
			case "or":
				set(val(a[1]) | val(a[2]))
			default:
				set(val(a[1]) ^ val(a[2]))
			}
		case op == "bfe.s32" && a[2].kind == simImm && a[3].kind == simImm:
			// The len bits from pos, sign-extended.
			pos, n := val(a[2]), val(a[3])
			set(uint64(int64(val(a[1])<<(64-pos-n)) >> (64 - n)))
		case op == "shr.s32" || op == "shr.s64":
			set(uint64(sext(val(a[1])) >> val(a[2])))
		default:
			// The tensor-core matmul's instructions (ptxsim_mma_test.go);
			// its warp instructions run as shuffles do.
			warp, err := k.stepMore(tid, in, r, shared, global)
			if err != nil {
				return err
			}
			if warp {
				*pc--
				*wait = simAtShuffle
				return nil
			}
		}
	}
}

// simFloatTypes are the float types the interpreter computes in.
var simFloatTypes = map[string]bool{"f16": true, "bf16": true, "f32": true, "f64": true}

// simArith are the float operations that round once, by opcode.
var simArith = map[string]func(x, y float64) float64{
	"add": func(x, y float64) float64 { return x + y },
	"sub": func(x, y float64) float64 { return x - y },
	"mul": func(x, y float64) float64 { return x * y },
	"div": func(x, y float64) float64 { return x / y },
}

// simFloat is the value of a register holding a float of type typ.
func simFloat(typ string, b uint64) float64 {
	switch typ {
	case "f16":
		return f16Format.value(uint16(b))
	case "bf16":
		return bf16Format.value(uint16(b))
	case "f32":
		return float64(math.Float32frombits(uint32(b)))
	}
	return math.Float64frombits(b)
}

// simFloatBits rounds v to typ (nearest, ties to even) and returns the
// register's bits.
func simFloatBits(typ string, v float64) uint64 {
	switch typ {
	case "f16":
		return uint64(f16Format.round(v))
	case "bf16":
		return uint64(bf16Format.round(v))
	case "f32":
		return uint64(math.Float32bits(float32(v)))
	}
	return math.Float64bits(v)
}

// simCompare is setp's comparison cmp of two floats: the plain ones are
// false when either is NaN, the ...u ones true.
func simCompare(cmp string, x, y float64) bool {
	nan := math.IsNaN(x) || math.IsNaN(y)
	switch cmp {
	case "num":
		return !nan
	case "nan":
		return nan
	}
	unordered := strings.HasSuffix(cmp, "u")
	if nan {
		return unordered
	}
	switch strings.TrimSuffix(cmp, "u") {
	case "eq":
		return x == y
	case "ne":
		return x != y
	case "lt":
		return x < y
	case "le":
		return x <= y
	case "gt":
		return x > y
	case "ge":
		return x >= y
	}
	panic("setp comparison " + cmp + " not learnt")
}

// simMinMax is max or min (nan: max.NaN, min.NaN) of two floats of typ
// by their bits: -0 is below +0; a NaN operand gives the other (both
// NaN: NaN), or with nan a NaN.
func simMinMax(typ string, isMax, nan bool, xb, yb uint64) uint64 {
	x, y := simFloat(typ, xb), simFloat(typ, yb)
	switch {
	case math.IsNaN(x) && math.IsNaN(y) || nan && (math.IsNaN(x) || math.IsNaN(y)):
		return simFloatBits(typ, math.NaN())
	case math.IsNaN(x):
		return yb
	case math.IsNaN(y):
		return xb
	}
	if isMax {
		if math.Max(x, y) == x && (x != y || !math.Signbit(x)) {
			return xb
		}
		return yb
	}
	if math.Min(x, y) == x && (x != y || math.Signbit(x)) {
		return xb
	}
	return yb
}

// simExact rounds the exact value x to typ with rounding mode "rn" or
// "rz"; x is finite.
func simExact(typ, mode string, x *big.Float) uint64 {
	// Round to odd at 53 bits (toward zero, the last bit set when that
	// was inexact), which a second rounding to nearest at 24 bits or
	// fewer leaves correct; to zero directly.
	t := new(big.Float).SetMode(big.ToZero).SetPrec(53).Set(x)
	v, _ := t.Float64()
	if t.Cmp(x) != 0 && mode == "rn" {
		v = math.Float64frombits(math.Float64bits(v) | 1)
	}
	if typ == "f64" {
		if mode == "rn" {
			v, _ = x.Float64()
		}
		return math.Float64bits(v)
	}
	if mode == "rz" {
		if typ != "f32" {
			panic("rz to " + typ + " not learnt")
		}
		f := float32(v)
		if math.Abs(float64(f)) > math.Abs(v) {
			f = math.Nextafter32(f, 0)
		}
		return uint64(math.Float32bits(f))
	}
	return simFloatBits(typ, v)
}

// simFMA is fma.rn of floats of typ, rounded once from the exact value.
func simFMA(typ string, x, y, z float64) uint64 {
	if math.IsNaN(x) || math.IsNaN(y) || math.IsNaN(z) || math.IsInf(x, 0) || math.IsInf(y, 0) || math.IsInf(z, 0) {
		return simFloatBits(typ, x*y+z)
	}
	p := new(big.Float).SetPrec(4096).SetFloat64(x)
	p.Mul(p, new(big.Float).SetFloat64(y))
	p.Add(p, new(big.Float).SetFloat64(z))
	if p.Sign() == 0 {
		return simFloatBits(typ, x*y+z) // the sign of an exact zero
	}
	return simExact(typ, "rn", p)
}

// simCvt is cvt[.rnd].dst.src of a register's bits.
func simCvt(parts []string, b uint64) (uint64, error) {
	dst, src := parts[len(parts)-2], parts[len(parts)-1]
	mode := ""
	if len(parts) == 4 {
		mode = parts[1]
	}
	var x *big.Float
	switch src {
	case "s16", "s32", "s64":
		w := simWidth(src)
		x = new(big.Float).SetInt64(int64(b<<(64-w)) >> (64 - w))
	case "u16", "u32", "u64":
		w := simWidth(src)
		x = new(big.Float).SetUint64(b << (64 - w) >> (64 - w))
	default:
		f := simFloat(src, b)
		if simFloatTypes[dst] && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return simFloatBits(dst, f), nil
		}
		if !simFloatTypes[dst] {
			// To an integer: toward zero, saturating, NaN to 0.
			if mode != "rzi" {
				return 0, fmt.Errorf("rounding %q to an integer not learnt", mode)
			}
			w := simWidth(dst)
			t := math.Trunc(f)
			if math.IsNaN(f) {
				t = 0
			}
			if dst[0] == 's' {
				lo, hi := -math.Ldexp(1, w-1), math.Ldexp(1, w-1)-1
				return uint64(int64(math.Max(lo, math.Min(hi, t)))) & (1<<w - 1 | (1<<w-1)*0), nil
			}
			return uint64(math.Max(0, math.Min(math.Ldexp(1, w)-1, t))), nil
		}
		x = new(big.Float).SetFloat64(f)
	}
	if !simFloatTypes[dst] {
		// Between integers: the low bits, sign- or zero-extended from
		// the narrower of the two.
		w := min(simWidth(src), simWidth(dst))
		v := b << (64 - w) >> (64 - w)
		if src[0] == 's' {
			v = uint64(int64(b<<(64-w)) >> (64 - w))
		}
		return v & (1<<simWidth(dst) - 1), nil
	}
	if integral, ok := map[string]func(float64) float64{"rmi": math.Floor, "rpi": math.Ceil, "rzi": math.Trunc, "rni": math.RoundToEven}[mode]; ok {
		// To an integral value in a float type.
		f, _ := x.Float64()
		return simFloatBits(dst, integral(f)), nil
	}
	if mode == "" {
		mode = "rn" // exact conversions (wider destinations)
	}
	if mode != "rn" && mode != "rz" {
		return 0, fmt.Errorf("rounding %q not learnt", mode)
	}
	if x.Sign() == 0 {
		f, _ := x.Float64()
		return simFloatBits(dst, f), nil
	}
	return simExact(dst, mode, x), nil
}

// simWidth is the width in bits of an integer type.
func simWidth(typ string) int {
	w, _ := strconv.Atoi(typ[1:])
	return w
}
