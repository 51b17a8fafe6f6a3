package stablehlotolinalg

import (
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/ir"
)

// rng_bit_generator is lowered to counter-based generators evaluated
// element by element: every element of the result finds the block of
// random words it belongs to from its index (linalg.index), computes that
// block from the key and the block's counter with integer arith ops, and
// keeps its own word. No op depends on another element, so the kernel is
// an ordinary parallel linalg.generic on every target.
//
// The state operand holds a 64-bit key and a 64-bit counter:
//
//   - i64[2]: key, counter (XLA's ThreeFry state);
//   - i64[3]: key, counter low and high 64 bits (XLA's Philox state, a
//     128-bit counter);
//   - i32[4]: key low and high 32 bits, then the counter's high and low
//     32 bits (the word order IREE's lowering reads).
//
// The new state is the old one with the counter advanced past the blocks
// used (in the layout it was read from, so the state can be fed back).
//
// THREE_FRY is Threefry-2x32 with 20 rounds, keyed by the key's two
// words; its input is the counter plus the block's number, as two words
// (low, high). For 32-bit results the shape is halved as XLA does: the
// first dimension of even size (else the first largest one) is split in
// pairs, block (..., i, ...) of the halved shape gives elements
// (..., 2i, ...) and (..., 2i+1, ...). For 64-bit results each element is
// one block, its words joined (low, high).
//
// PHILOX (and DEFAULT, which XLA's CPU and GPU backends take as Philox)
// is Philox-4x32 with 10 rounds; its 128-bit input is the counter plus the
// block's number in the low two words and, above them, the high counter
// word of an i64[3] state or else the key (as IREE does). Elements in
// row-major order take the four words of block 0, then of block 1, ...;
// 64-bit elements two words each (low, high).
//
// Results of f32 and f64 are the random bits reinterpreted (bitcast).

// Threefry-2x32 rotation distances and key-schedule parity constant.
var threefryRotations = [8]int64{13, 15, 26, 6, 17, 29, 16, 24}

const threefryParity = 0x1BD11BDA

// Philox-4x32 multipliers and key increments (Weyl sequence).
const (
	philoxM0, philoxM1 = 0xD2511F53, 0xCD9E8D57
	philoxW0, philoxW1 = 0x9E3779B9, 0xBB67AE85
)

// arith.cmpi predicate ult.
const cmpiULT = 6

// rngState says where an rng_bit_generator state keeps its words.
type rngState struct {
	t     *ir.TensorType
	words int // 4 (i32[4]), 2 (i64[2]) or 3 (i64[3])
}

// rngWords is the state read in a kernel body: the key's two 32-bit
// words, the 64-bit counter and, for Philox, the 64 bits above it.
type rngWords struct {
	k0, k1, ctr, hi *ir.Value
}

var i32Type, i64Type = ir.IntegerType{Width: 32}, ir.IntegerType{Width: 64}

func (x builder) i32(v uint32) *ir.Value { return x.constant(i32Type, int64(int32(v))) }
func (x builder) i64(v int64) *ir.Value  { return x.constant(i64Type, v) }

func (x builder) trunc32(v *ir.Value) *ir.Value { return x.op("arith.trunci", []*ir.Value{v}, i32Type) }
func (x builder) ext64(v *ir.Value) *ir.Value   { return x.op("arith.extui", []*ir.Value{v}, i64Type) }

// hi32 returns the upper 32 bits of an i64.
func (x builder) hi32(v *ir.Value) *ir.Value {
	return x.trunc32(x.bin("arith.shrui", v, x.i64(32)))
}

// join returns lo | hi << 32 of two i32 words.
func (x builder) join(lo, hi *ir.Value) *ir.Value {
	return x.bin("arith.ori", x.ext64(lo), x.bin("arith.shli", x.ext64(hi), x.i64(32)))
}

// rotl rotates an i32 left by r (0 < r < 32).
func (x builder) rotl(v *ir.Value, r int64) *ir.Value {
	return x.bin("arith.ori", x.bin("arith.shli", v, x.constant(i32Type, r)), x.bin("arith.shrui", v, x.constant(i32Type, 32-r)))
}

// read returns the state's words, extracted from state in the body.
func (s rngState) read(x builder, state *ir.Value) rngWords {
	at := func(i int64) *ir.Value {
		return x.op("tensor.extract", []*ir.Value{state, x.constant(ir.IndexType{}, i)}, s.t.Elem)
	}
	if s.words == 4 {
		k0, k1 := at(0), at(1)
		return rngWords{k0: k0, k1: k1, ctr: x.join(at(3), at(2)), hi: x.join(k0, k1)}
	}
	key := at(0)
	w := rngWords{k0: x.trunc32(key), k1: x.hi32(key), ctr: at(1), hi: key}
	if s.words == 3 {
		w.hi = at(2)
	}
	return w
}

// advance returns the counter n blocks on, and the word above it (which
// carries only where it is a counter word, an i64[3] state's).
func (s rngState) advance(x builder, w rngWords, n *ir.Value) (*ir.Value, *ir.Value) {
	c := x.bin("arith.addi", w.ctr, n)
	if s.words != 3 {
		return c, w.hi
	}
	carry := x.ext64(x.cmp("arith.cmpi", cmpiULT, c, w.ctr))
	return c, x.bin("arith.addi", w.hi, carry)
}

// threefry computes Threefry-2x32 (20 rounds) of the words (x0, x1)
// under key (k0, k1).
func (x builder) threefry(k0, k1, x0, x1 *ir.Value) (*ir.Value, *ir.Value) {
	ks := [3]*ir.Value{k0, k1, x.bin("arith.xori", x.bin("arith.xori", k0, k1), x.i32(threefryParity))}
	a, b := x.bin("arith.addi", x0, ks[0]), x.bin("arith.addi", x1, ks[1])
	for i := 0; i < 5; i++ {
		for j := 0; j < 4; j++ {
			a = x.bin("arith.addi", a, b)
			b = x.bin("arith.xori", x.rotl(b, threefryRotations[(4*i)%8+j]), a)
		}
		// Key injection i+1: the schedule's next two words and the
		// injection's number.
		a = x.bin("arith.addi", a, ks[(i+1)%3])
		b = x.bin("arith.addi", x.bin("arith.addi", b, ks[(i+2)%3]), x.i32(uint32(i+1)))
	}
	return a, b
}

// mulhilo returns the high and low words of the 64-bit product of an i32
// and a 32-bit constant m.
func (x builder) mulhilo(v *ir.Value, m uint32) (*ir.Value, *ir.Value) {
	p := x.bin("arith.muli", x.ext64(v), x.i64(int64(m)))
	return x.hi32(p), x.trunc32(p)
}

// philox computes Philox-4x32 (10 rounds) of the words c under key
// (k0, k1).
func (x builder) philox(k0, k1 *ir.Value, c [4]*ir.Value) [4]*ir.Value {
	for r := 0; r < 10; r++ {
		if r > 0 {
			k0 = x.bin("arith.addi", k0, x.i32(philoxW0))
			k1 = x.bin("arith.addi", k1, x.i32(philoxW1))
		}
		h0, l0 := x.mulhilo(c[0], philoxM0)
		h1, l1 := x.mulhilo(c[2], philoxM1)
		c = [4]*ir.Value{
			x.bin("arith.xori", x.bin("arith.xori", h1, c[1]), k0), l1,
			x.bin("arith.xori", x.bin("arith.xori", h0, c[3]), k1), l0,
		}
	}
	return c
}

// pick returns vs[lane] for an i64 lane in [0, len(vs)).
func (x builder) pick(lane *ir.Value, vs []*ir.Value) *ir.Value {
	r := vs[0]
	for i := 1; i < len(vs); i++ {
		r = x.sel(x.cmp("arith.cmpi", cmpiEQ, lane, x.i64(int64(i))), vs[i], r)
	}
	return r
}

// linearIndex returns, in the body, the row-major index (i64) of the
// element of shape whose index in dimension d is idx[d].
func (x builder) linearIndex(idx []*ir.Value, shape []int64) *ir.Value {
	lin := x.i64(0)
	for d, i := range idx {
		lin = x.bin("arith.addi", x.bin("arith.muli", lin, x.i64(shape[d])), i)
	}
	return lin
}

// threefrySplit returns the dimension XLA halves for 32-bit Threefry
// results: the first of even size, else the first largest (-1 for rank 0).
func threefrySplit(shape []int64) int {
	if len(shape) == 0 {
		return -1
	}
	best := 0
	for d, s := range shape {
		if s%2 == 0 {
			return d
		}
		if s > shape[best] {
			best = d
		}
	}
	return best
}

func (c *converter) rngBitGenerator() error {
	alg, ok := stablehlo.EnumCase(c.op, "rng_algorithm", "rng_algorithm")
	if !ok {
		return c.errorf("requires an rng_algorithm attribute such as #stablehlo<rng_algorithm PHILOX>")
	}
	if alg == "DEFAULT" {
		alg = "PHILOX"
	}
	if alg != "PHILOX" && alg != "THREE_FRY" {
		return c.errorf("unknown rng_algorithm '%s'", alg)
	}
	if len(c.op.Operands) != 1 || len(c.op.Results) != 2 {
		return c.errorf("expects one state operand and two results (the new state and the bits)")
	}
	state := c.op.Operands[0]
	st := stablehlo.Ranked(state.Type)
	s := rngState{t: st}
	switch {
	case len(st.Shape) == 1 && intWidth(st.Elem) == 32 && st.Shape[0] == 4:
		s.words = 4
	case len(st.Shape) == 1 && intWidth(st.Elem) == 64 && (st.Shape[0] == 2 || st.Shape[0] == 3 && alg == "PHILOX"):
		s.words = int(st.Shape[0])
	default:
		return c.errorf("state '%s' is not supported (only tensor<4xi32>, tensor<2xi64> and, for PHILOX, tensor<3xi64>)", ir.TypeString(st))
	}
	if !ir.TypesEqual(c.op.Results[0].Type, st) {
		return c.errorf("new state '%s' must have the state's type '%s'", ir.TypeString(c.op.Results[0].Type), ir.TypeString(st))
	}
	rt := stablehlo.Ranked(c.op.Results[1].Type)
	bits := intWidth(rt.Elem)
	if isFloat(rt.Elem) {
		bits = floatBits(rt.Elem)
	}
	if bits != 32 && bits != 64 {
		return c.errorf("'%s' elements are not supported here (only 32- and 64-bit integers, f32 and f64)", ir.TypeString(rt.Elem))
	}
	n := len(rt.Shape)
	total := numElements(rt)

	// blockOf returns, in the body, the element's block number and its
	// word (lane) in that block; blocks is how many the result uses.
	var blockOf func(x builder) (*ir.Value, *ir.Value)
	var blocks int64
	indices := func(x builder) []*ir.Value {
		idx := make([]*ir.Value, n)
		for d := range idx {
			idx[d] = x.loopIndex(d, i64Type)
		}
		return idx
	}
	switch {
	case alg == "THREE_FRY" && bits == 32:
		split := threefrySplit(rt.Shape)
		half := append([]int64(nil), rt.Shape...)
		if split >= 0 {
			half[split] = (half[split] + 1) / 2
		}
		blocks = numElements(&ir.TensorType{Shape: half, Elem: rt.Elem})
		blockOf = func(x builder) (*ir.Value, *ir.Value) {
			if split < 0 {
				return x.i64(0), x.i64(0)
			}
			idx := indices(x)
			lane := x.bin("arith.andi", idx[split], x.i64(1))
			idx[split] = x.bin("arith.shrui", idx[split], x.i64(1))
			return x.linearIndex(idx, half), lane
		}
	case alg == "THREE_FRY":
		blocks = total
		blockOf = func(x builder) (*ir.Value, *ir.Value) {
			return x.linearIndex(indices(x), rt.Shape), x.i64(0)
		}
	default:
		per := int64(128 / bits)
		blocks = (total + per - 1) / per
		blockOf = func(x builder) (*ir.Value, *ir.Value) {
			lin := x.linearIndex(indices(x), rt.Shape)
			return x.bin("arith.divui", lin, x.i64(per)), x.bin("arith.remui", lin, x.i64(per))
		}
	}

	out, err := c.empty(rt, identity(n), nil, nil)
	if err != nil {
		return err
	}
	random, err := c.genericOp(nil, []*ir.AffineMap{identity(n)}, out, iterators(n, 0), func(x builder, _ []*ir.Value) (*ir.Value, error) {
		w := s.read(x, state)
		block, lane := blockOf(x)
		ctr, hi := s.advance(x, w, block)
		var words []*ir.Value
		if alg == "THREE_FRY" {
			a, b := x.threefry(w.k0, w.k1, x.trunc32(ctr), x.hi32(ctr))
			words = []*ir.Value{a, b}
		} else {
			r := x.philox(w.k0, w.k1, [4]*ir.Value{x.trunc32(ctr), x.hi32(ctr), x.trunc32(hi), x.hi32(hi)})
			words = r[:]
		}
		var v *ir.Value
		switch {
		case bits == 32:
			v = x.pick(lane, words)
		case len(words) == 2:
			v = x.join(words[0], words[1])
		default:
			v = x.pick(lane, []*ir.Value{x.join(words[0], words[1]), x.join(words[2], words[3])})
		}
		if isFloat(rt.Elem) {
			v = x.op("arith.bitcast", []*ir.Value{v}, rt.Elem)
		}
		return v, nil
	})
	if err != nil {
		return err
	}

	// The new state: every word as it was but the counter's.
	sOut, err := c.empty(st, identity(1), nil, nil)
	if err != nil {
		return err
	}
	newState, err := c.genericOp(nil, []*ir.AffineMap{identity(1)}, sOut, iterators(1, 0), func(x builder, _ []*ir.Value) (*ir.Value, error) {
		w := s.read(x, state)
		ctr, hi := s.advance(x, w, x.i64(blocks))
		i := x.loopAt(0)
		v := x.op("tensor.extract", []*ir.Value{state, i}, st.Elem)
		set := func(pos int64, nv *ir.Value) {
			v = x.sel(x.cmp("arith.cmpi", cmpiEQ, i, x.constant(ir.IndexType{}, pos)), nv, v)
		}
		switch s.words {
		case 4:
			set(2, x.hi32(ctr))
			set(3, x.trunc32(ctr))
		case 3:
			set(2, hi)
			fallthrough
		default:
			set(1, ctr)
		}
		return v, nil
	})
	if err != nil {
		return err
	}
	c.replaceAll([]*ir.Value{newState, random})
	return nil
}
