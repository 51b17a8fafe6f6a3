package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/cuda"
)

// halfFormat is a binary floating-point format of 16 bits: mant stored
// significand bits, exponent bias. The tests' own conversions, written
// from the bit layout: Go has no 16-bit floats, and the compiler's
// rounding is what is under test.
type halfFormat struct {
	name       string
	mant, bias int
}

var (
	f16Format  = halfFormat{"f16", 10, 15}
	bf16Format = halfFormat{"bf16", 7, 127}
)

func (h halfFormat) expMask() uint16 { return uint16(2*h.bias+1) << h.mant }

// value is the exact value of the bits b.
func (h halfFormat) value(b uint16) float64 {
	sign := 1.0
	if b&0x8000 != 0 {
		sign = -1
	}
	e := int(b&0x7fff) >> h.mant
	m := float64(b & (1<<h.mant - 1))
	switch {
	case e == 2*h.bias+1 && m != 0:
		return math.NaN()
	case e == 2*h.bias+1:
		return math.Inf(int(sign))
	case e == 0: // subnormal: m units of the smallest binade's quantum
		return sign * math.Ldexp(m, 1-h.bias-h.mant)
	}
	return sign * math.Ldexp(m+float64(uint64(1)<<h.mant), e-h.bias-h.mant)
}

// round is the nearest value of the format to v (ties to even), from the
// bits of v: its 53-bit significand shifted right to the format's
// precision at v's exponent (more for subnormals), the dropped bits
// deciding the rounding.
func (h halfFormat) round(v float64) uint16 {
	b := math.Float64bits(v)
	sign := uint16(b>>48) & 0x8000
	exp := int(b>>52) & 0x7ff
	frac := b & (1<<52 - 1)
	switch {
	case exp == 0x7ff && frac != 0:
		return sign | h.expMask() | 1<<(h.mant-1)
	case exp == 0x7ff:
		return sign | h.expMask()
	case exp == 0: // zero or a float64 subnormal, far below every 16-bit one
		return sign
	}
	e := exp - 1023
	sig := frac | 1<<52
	shift := 52 - h.mant
	if minE := 1 - h.bias; e < minE {
		shift += minE - e
		e = minE - 1 // marks a subnormal result (the exponent field 0)
	}
	if shift > 60 {
		return sign
	}
	q := sig >> shift
	rem := sig & (1<<shift - 1)
	if half := uint64(1) << (shift - 1); rem > half || rem == half && q&1 == 1 {
		q++
	}
	// q has the implicit bit at position mant for normal results (which
	// the exponent field absorbs: e + bias - 1 plus it), none for
	// subnormals; a carry out of the significand moves to the next
	// binade by the same addition.
	out := uint64(e+h.bias)<<h.mant + q - 1<<h.mant
	if e < 1-h.bias {
		out = q
	}
	if out >= uint64(h.expMask()) {
		return sign | h.expMask()
	}
	return sign | uint16(out)
}

// TestHalfFormat checks the tests' conversions on values whose bits are
// known: the formats' extremes, subnormals, ties either way, infinities
// and NaN, and that value and round invert each other on every pattern.
func TestHalfFormat(t *testing.T) {
	for _, tc := range []struct {
		h    halfFormat
		v    float64
		want uint16
	}{
		{f16Format, 1, 0x3c00}, {f16Format, -2, 0xc000}, {f16Format, 65504, 0x7bff}, {f16Format, 65519.99, 0x7bff},
		{f16Format, 65520, 0x7c00}, {f16Format, math.Ldexp(1, -24), 0x0001}, {f16Format, math.Ldexp(1, -25), 0},
		{f16Format, math.Ldexp(3, -25), 0x0002}, {f16Format, math.Ldexp(1.0001, -25), 0x0001}, {f16Format, math.Ldexp(1, -14), 0x0400},
		{f16Format, 1 + math.Ldexp(1, -11), 0x3c00}, {f16Format, 1 + math.Ldexp(3, -11), 0x3c02}, {f16Format, 0.1, 0x2e66},
		{f16Format, math.Inf(-1), 0xfc00}, {f16Format, math.Copysign(0, -1), 0x8000}, {f16Format, 2049, 0x6800}, {f16Format, 2051, 0x6802},
		{bf16Format, 1, 0x3f80}, {bf16Format, 0.1, 0x3dcd}, {bf16Format, 1 + math.Ldexp(1, -8), 0x3f80}, {bf16Format, 1 + math.Ldexp(3, -8), 0x3f82},
		{bf16Format, math.Ldexp(1, -133), 0x0001}, {bf16Format, math.Ldexp(1, -134), 0}, {bf16Format, math.MaxFloat32, 0x7f80},
		{bf16Format, -3.3895313892515355e38, 0xff7f}, {bf16Format, 259, 0x4382},
	} {
		if got := tc.h.round(tc.v); got != tc.want {
			t.Errorf("%s(%v) = %#04x, want %#04x", tc.h.name, tc.v, got, tc.want)
		}
	}
	for _, h := range []halfFormat{f16Format, bf16Format} {
		if got := h.round(math.NaN()); h.value(got) == h.value(got) {
			t.Errorf("%s(NaN) = %#04x, not a NaN", h.name, got)
		}
		for b := 0; b < 1<<16; b++ {
			v := h.value(uint16(b))
			if math.IsNaN(v) {
				continue
			}
			if got := h.round(v); got != uint16(b) {
				t.Fatalf("%s: %#04x is %v, which rounds to %#04x", h.name, b, v, got)
			}
		}
	}
}

// halfDispatch is one dispatch of a testdata program (half.mlir,
// narrow.mlir) compiled for an arch: its PTX and the contract it
// implements.
type halfDispatch struct {
	kernel *simKernel
	nest   *loopnest.Kernel // a loop nest's contract, or nil
	body   *ir.Operation    // its body, or an elementwise dispatch's
	tile   int64            // an elementwise dispatch's tile
	ptx    string
}

// halfDispatches compiles testdata/half.mlir for cuda and generates each
// dispatch's PTX for arch, by kernel name.
func halfDispatches(t *testing.T, arch string) map[string]halfDispatch {
	t.Helper()
	return simDispatches(t, "half.mlir", arch)
}

// simDispatches compiles a testdata program for cuda and generates each
// dispatch's PTX for arch, by kernel name, decoded for the interpreter.
func simDispatches(t *testing.T, file, arch string) map[string]halfDispatch {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Compile(file, src, cudaOptions, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]halfDispatch{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" || hal.InnerModule(op) == nil {
			return true
		}
		mod, err := cuda.GeneratePTX(op, arch)
		if err != nil {
			t.Fatal(err)
		}
		checkPTX(t, mod.PTX)
		funcs := map[string]*ir.Operation{}
		for _, f := range hal.InnerModule(op).Body().Ops {
			funcs[f.SymName()] = f
		}
		name := mod.Kernels[0].Name
		d := halfDispatch{ptx: mod.PTX}
		if d.kernel, err = parseSimKernel(mod.PTX, name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range funcs {
			if a, ok := f.Attr(loopnest.Attr).(*ir.DictAttr); ok {
				if d.nest, err = loopnest.DecodeIndexed(a); err != nil {
					t.Fatal(err)
				}
				d.body = funcs[d.nest.Body]
			}
			if a, ok := f.Attr(elementwise.Attr).(*ir.DictAttr); ok {
				d.body = funcs[a.Get("body").(ir.SymbolRefAttr).Root]
				d.tile = elementwise.DefaultTileSize
				if ts, ok := a.Get("tile_size").(ir.IntegerAttr); ok && ts.Value > 0 {
					d.tile = ts.Value
				}
			}
		}
		out[name] = d
		return false
	})
	return out
}

// find returns the dispatch of function fn whose body has every op named
// in ops, failing when not exactly one has.
func find(t *testing.T, ds map[string]halfDispatch, fn string, ops ...string) halfDispatch {
	t.Helper()
	var found []string
	for name, d := range ds {
		if !strings.HasPrefix(name, fn+"_") {
			continue
		}
		has := map[string]bool{}
		for _, o := range d.body.Body().Ops {
			has[o.Name] = true
		}
		all := true
		for _, o := range ops {
			all = all && has[o]
		}
		if all {
			found = append(found, name)
		}
	}
	if len(found) != 1 {
		sort.Strings(found)
		t.Fatalf("%d dispatches of @%s have %v: %v", len(found), fn, ops, found)
	}
	return ds[found[0]]
}

// elemBytes is the size of a tensor element type.
func elemBytes(t ir.Type) int {
	switch t := t.(type) {
	case ir.FloatType:
		return map[string]int{"f16": 2, "bf16": 2, "f32": 4, "f64": 8}[t.Name]
	case ir.IntegerType:
		return (t.Width + 7) / 8
	}
	return 8
}

// runNest runs a loop-nest dispatch with static shapes in the
// interpreter: in holds each input's (and init's) bytes by role and
// index ("in0", "init0"); it returns each output's bytes ("out0", ...).
func runNest(t *testing.T, d halfDispatch, in map[string][]byte) map[string][]byte {
	t.Helper()
	var params []uint64
	var bufs []*simBuffer
	out := map[string][]byte{}
	for bi, b := range d.nest.Bindings() {
		key := fmt.Sprintf("%s%d", b.Role, b.Index)
		n := elemBytes(b.Type.Elem)
		for _, s := range b.Type.Shape {
			n *= int(s)
		}
		buf := &simBuffer{addr: uint64(bi+1) << 32, data: make([]byte, n)}
		if b.Role == "out" {
			for i := range buf.data {
				buf.data[i] = 0xa5 // neither a value a kernel computes here nor zero
			}
			out[key] = buf.data
		} else if data, ok := in[key]; !ok || len(data) != n {
			t.Fatalf("binding %s needs %d bytes, the test has %d", key, n, len(data))
		} else {
			copy(buf.data, data)
		}
		bufs = append(bufs, buf)
		params = append(params, buf.addr)
	}
	tiles := int64(1)
	if o := d.nest.OuterParallel(); o >= 0 {
		tiles = (d.nest.Ranges[o] + d.nest.Tile - 1) / d.nest.Tile
	}
	if err := d.kernel.run([3]int{int(tiles), 1, 1}, params, bufs); err != nil {
		t.Fatal(err)
	}
	return out
}

// runElementwise runs an elementwise dispatch over n elements; ins are
// its inputs' bytes in the body's order; it returns the results' bytes.
func runElementwise(t *testing.T, d halfDispatch, n int, ins ...[]byte) [][]byte {
	t.Helper()
	ft := function.Type(d.body)
	var params []uint64
	var bufs []*simBuffer
	var outs [][]byte
	for i, ty := range append(append([]ir.Type(nil), ft.Inputs...), ft.Results...) {
		buf := &simBuffer{addr: uint64(i+1) << 32, data: make([]byte, n*elemBytes(ty))}
		if i < len(ins) {
			copy(buf.data, ins[i])
		} else {
			outs = append(outs, buf.data)
		}
		bufs = append(bufs, buf)
		params = append(params, buf.addr)
	}
	params = append(params, uint64(n))
	if err := d.kernel.run([3]int{int((int64(n) + d.tile - 1) / d.tile), 1, 1}, params, bufs); err != nil {
		t.Fatal(err)
	}
	return outs
}

// halves encodes values (already of the format) as little-endian bits.
func halves(h halfFormat, vs []float64) []byte {
	b := make([]byte, 2*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], h.round(v))
	}
	return b
}

func halfAt(b []byte, i int) uint16 { return binary.LittleEndian.Uint16(b[2*i:]) }

// sameHalf compares bits, any NaN matching any NaN.
func sameHalf(h halfFormat, got, want uint16) bool {
	if math.IsNaN(h.value(want)) {
		return math.IsNaN(h.value(got))
	}
	return got == want
}

// halfArchs are the archs whose 16-bit instructions differ: none native
// (sm_52), f16 arithmetic (sm_60), f16/bf16 min/max, bf16 fma and
// cvt.rn.bf16.f32 (sm_80), bf16 arithmetic and conversions (sm_90).
var halfArchs = []string{"sm_52", "sm_60", "sm_80", "sm_90"}

// exactFMA is a*b+c rounded once to h.
func exactFMA(h halfFormat, a, b, c float64) uint16 {
	if math.IsNaN(a) || math.IsNaN(b) || math.IsNaN(c) || math.IsInf(a, 0) || math.IsInf(b, 0) || math.IsInf(c, 0) {
		return h.round(a*b + c)
	}
	x := new(big.Float).SetPrec(2048).SetFloat64(a)
	x.Mul(x, big.NewFloat(b))
	x.Add(x, big.NewFloat(c))
	if x.Sign() == 0 {
		return h.round(a*b + c)
	}
	return exactRound(h, x)
}

// exactRound is the finite, nonzero x rounded once to h.
func exactRound(h halfFormat, x *big.Float) uint16 {
	// Toward zero at 53 bits with the last bit set when inexact: no
	// tie of a 16-bit format, so rounding that to h is rounding x.
	z := new(big.Float).SetMode(big.ToZero).SetPrec(53).Set(x)
	f, _ := z.Float64()
	if z.Cmp(x) != 0 {
		f = math.Float64frombits(math.Float64bits(f) | 1)
	}
	return h.round(f)
}

// halfInputs are triples of operands for the elementwise ops: ordinary
// values, products at a tie of the format plus or minus a tiny addend
// (which an fma rounding twice gets wrong), subnormals, zeros of both
// signs, the largest finite values, infinities and NaN, then random
// values of the format.
func halfInputs(h halfFormat, r *rand.Rand, n int) (xs, ys, zs []float64) {
	tiny := h.value(1) // the smallest subnormal
	special := [][3]float64{
		{1.5, -2.25, 1}, {3, 683, tiny}, {3, 683, -tiny}, {7, 37, tiny}, {7, 37, -tiny}, {-7, 37, tiny},
		{0, math.Copysign(0, -1), 0}, {math.Copysign(0, -1), 0, math.Copysign(0, -1)}, {-1, 1, 1},
		{tiny, 3, tiny}, {h.value(0x0401), h.value(0x83ff), 1}, {h.value(0x7bff), 2, -1}, {h.value(0x7f7f), 1.5, 0},
		{math.Inf(1), 1, 1}, {math.Inf(-1), math.Inf(1), 0}, {math.NaN(), 1, 1}, {2, math.NaN(), 3}, {1e-3, 1e3, -1}, {0.1, 0.2, 0.3},
	}
	for _, p := range special {
		xs, ys, zs = append(xs, h.value(h.round(p[0]))), append(ys, h.value(h.round(p[1]))), append(zs, h.value(h.round(p[2])))
	}
	for len(xs) < n {
		rnd := func() float64 {
			for {
				// Sign, exponent and significand at random, within
				// 2^-4 .. 2^6 half the time so that results stay finite.
				b := uint16(r.Intn(1 << 16))
				if r.Intn(2) == 0 {
					v := float64(r.Intn(2001)-1000) / 16
					b = h.round(v)
				}
				if v := h.value(b); !math.IsNaN(v) {
					return v
				}
			}
		}
		xs, ys, zs = append(xs, rnd()), append(ys, rnd()), append(zs, rnd())
	}
	return xs, ys, zs
}

// TestHalfOpsPTX runs @ops_f16 and @ops_bf16 in the interpreter for each
// arch and checks every result bit for bit against the ops computed
// exactly and rounded once to the format (NaNs as any NaN).
func TestHalfOpsPTX(t *testing.T) {
	for _, arch := range halfArchs {
		ds := halfDispatches(t, arch)
		for _, h := range []halfFormat{f16Format, bf16Format} {
			t.Run(arch+"/"+h.name, func(t *testing.T) {
				d := find(t, ds, "ops_"+h.name)
				r := rand.New(rand.NewSource(5))
				xs, ys, zs := halfInputs(h, r, 600)
				out := runNest(t, d, map[string][]byte{"in0": halves(h, xs), "in1": halves(h, ys), "in2": halves(h, zs)})
				rd := func(v float64) float64 { return h.value(h.round(v)) }
				tenth := h.value(h.round(0.1))
				refs := []struct {
					name string
					fn   func(x, y, z float64) uint16
				}{
					{"fma", func(x, y, z float64) uint16 { return exactFMA(h, x, y, z) }},
					{"(x+y)*x - y/x", func(x, y, z float64) uint16 { return h.round(rd(rd(x+y)*x) - rd(y/x)) }},
					{"maximumf", func(x, y, z float64) uint16 {
						if math.IsNaN(x) || math.IsNaN(y) {
							return h.round(math.NaN())
						}
						return h.round(math.Max(x, y))
					}},
					{"minnumf", func(x, y, z float64) uint16 {
						switch {
						case math.IsNaN(x):
							return h.round(y)
						case math.IsNaN(y):
							return h.round(x)
						}
						return h.round(math.Min(x, y))
					}},
					{"x < y ? -x : |y|", func(x, y, z float64) uint16 {
						if x < y {
							return h.round(x) ^ 0x8000
						}
						return h.round(y) &^ 0x8000
					}},
					{"sqrt|x|", func(x, y, z float64) uint16 { return h.round(math.Sqrt(math.Abs(x))) }},
					{"x*0.1", func(x, y, z float64) uint16 { return h.round(x * tenth) }},
				}
				bad := 0
				for o, ref := range refs {
					for i := range xs {
						got, want := halfAt(out[fmt.Sprintf("out%d", o)], i), ref.fn(xs[i], ys[i], zs[i])
						// minnum of +0 and -0 may be either zero.
						eitherZero := ref.name == "minnumf" && xs[i] == 0 && ys[i] == 0 && got&0x7fff == 0
						if !eitherZero && !sameHalf(h, got, want) {
							if bad++; bad <= 10 {
								t.Errorf("%s(%v, %v, %v) = %#04x (%v), want %#04x (%v)", ref.name, xs[i], ys[i], zs[i], got, h.value(got), want, h.value(want))
							}
						}
					}
				}
			})
		}
	}
}

// TestHalfConversionsPTX runs the generated elementwise dispatches of
// @conv in the interpreter: f32 and f64 rounded to f16 and bf16 (ties both
// ways, values just off a tie that a rounding through f32 would move onto
// it, subnormals, overflow, infinities, NaN), the 16-bit floats extended
// exactly, integers to them (ties, overflow, the integers that double
// rounding through f32 gets wrong) and back.
func TestHalfConversionsPTX(t *testing.T) {
	p := math.Ldexp
	f32s := []float64{0, math.Copysign(0, -1), 1, -1.5, 0.1, 1 + p(1, -11), 1 + p(3, -11), -(1 + p(1, -11)), p(1, -25), p(3, -25),
		p(1, -24), 65504, 65519, 65520, 1e10, 1 + p(1, -8), 1 + p(3, -8), 1 + p(1, -8) + p(1, -23), math.MaxFloat32, -1e-40, p(1, -149),
		p(1, -133), p(3, -134), math.Inf(1), math.Inf(-1), math.NaN(), 3.3961e38, 259, 2049}
	f64s := []float64{1 + p(1, -11) + p(1, -40), 1 + p(1, -11) - p(1, -40), 1 + p(1, -8) + p(1, -40), 1 + p(1, -8) - p(1, -40),
		-(1 + p(1, -8) + p(1, -40)), 1e300, -1e300, 1e-300, p(1, -25) + p(1, -60), p(1, -134) + p(1, -170), 3.3961e38, 3.39e38,
		0, math.Copysign(0, -1), math.NaN(), math.Inf(-1), 65519.99999, 65520, 0.1}
	ints := []int32{0, 1, -1, 2049, 2051, 65504, 65519, 65520, -65536, 16842753, -16842753, 16908289, math.MaxInt32, math.MinInt32, 257, 259, 12345678}
	r := rand.New(rand.NewSource(9))
	const n = 300
	a, d := make([]float64, n), make([]float64, n)
	hs, gs := make([]uint16, n), make([]uint16, n)
	is := make([]int32, n)
	for i := 0; i < n; i++ {
		a[i] = float64(math.Float32frombits(r.Uint32()))
		d[i] = math.Float64frombits(r.Uint64())
		if i%2 == 0 { // values in the formats' ranges
			a[i] = float64(float32(r.NormFloat64() * math.Pow(2, float64(r.Intn(40)-20))))
			d[i] = r.NormFloat64() * math.Pow(2, float64(r.Intn(300)-150))
		}
		hs[i], gs[i], is[i] = uint16(r.Uint32()), uint16(r.Uint32()), int32(r.Uint32())>>uint(r.Intn(31))
		if i < len(f32s) {
			a[i] = float64(float32(f32s[i]))
		}
		if i < len(f64s) {
			d[i] = f64s[i]
		}
		if i < len(ints) {
			is[i] = ints[i]
		}
	}
	for i := 0; i < 1<<16; i += 1 << 11 { // exponents and signs of both formats
		hs[i>>11], gs[(i>>11)+32] = uint16(i)|1, uint16(i)|3
	}
	enc := func(size int, put func(b []byte, i int)) []byte {
		b := make([]byte, size*n)
		for i := 0; i < n; i++ {
			put(b[size*i:], i)
		}
		return b
	}
	inputs := map[string][]byte{
		"f32":  enc(4, func(b []byte, i int) { binary.LittleEndian.PutUint32(b, math.Float32bits(float32(a[i]))) }),
		"f64":  enc(8, func(b []byte, i int) { binary.LittleEndian.PutUint64(b, math.Float64bits(d[i])) }),
		"f16":  enc(2, func(b []byte, i int) { binary.LittleEndian.PutUint16(b, hs[i]) }),
		"bf16": enc(2, func(b []byte, i int) { binary.LittleEndian.PutUint16(b, gs[i]) }),
		"i32":  enc(4, func(b []byte, i int) { binary.LittleEndian.PutUint32(b, uint32(is[i])) }),
	}
	sameF := func(got, want float64) bool {
		return got == want && math.Signbit(got) == math.Signbit(want) || math.IsNaN(got) && math.IsNaN(want)
	}
	// fptosi of a value outside i32 (or NaN) is undefined in MLIR;
	// those elements are not checked.
	toI32 := func(v float64) (int32, bool) {
		if math.IsNaN(v) || math.Abs(v) >= 1<<31 {
			return 0, false
		}
		return int32(v), true
	}
	type check func(i int, out []byte) (got, want string, ok bool)
	half := func(h halfFormat, src func(i int) float64) check {
		return func(i int, out []byte) (string, string, bool) {
			g, w := halfAt(out, i), h.round(src(i))
			return fmt.Sprintf("%#04x", g), fmt.Sprintf("%#04x", w), sameHalf(h, g, w)
		}
	}
	cases := []struct {
		op, in, out string
		check       check
	}{
		{"arith.truncf", "f32", "f16", half(f16Format, func(i int) float64 { return a[i] })},
		{"arith.truncf", "f32", "bf16", half(bf16Format, func(i int) float64 { return a[i] })},
		{"arith.truncf", "f64", "f16", half(f16Format, func(i int) float64 { return d[i] })},
		{"arith.truncf", "f64", "bf16", half(bf16Format, func(i int) float64 { return d[i] })},
		{"arith.extf", "f16", "f32", func(i int, out []byte) (string, string, bool) {
			g, w := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))), f16Format.value(hs[i])
			return fmt.Sprint(g), fmt.Sprint(w), sameF(g, w)
		}},
		{"arith.extf", "f16", "f64", func(i int, out []byte) (string, string, bool) {
			g, w := math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:])), f16Format.value(hs[i])
			return fmt.Sprint(g), fmt.Sprint(w), sameF(g, w)
		}},
		{"arith.extf", "bf16", "f32", func(i int, out []byte) (string, string, bool) {
			g, w := float64(math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))), bf16Format.value(gs[i])
			return fmt.Sprint(g), fmt.Sprint(w), sameF(g, w)
		}},
		{"arith.extf", "bf16", "f64", func(i int, out []byte) (string, string, bool) {
			g, w := math.Float64frombits(binary.LittleEndian.Uint64(out[8*i:])), bf16Format.value(gs[i])
			return fmt.Sprint(g), fmt.Sprint(w), sameF(g, w)
		}},
		{"arith.sitofp", "i32", "f16", half(f16Format, func(i int) float64 { return float64(is[i]) })},
		{"arith.sitofp", "i32", "bf16", half(bf16Format, func(i int) float64 { return float64(is[i]) })},
		{"arith.uitofp", "i32", "bf16", half(bf16Format, func(i int) float64 { return float64(uint32(is[i])) })},
		{"arith.fptosi", "f16", "i32", func(i int, out []byte) (string, string, bool) {
			g := int32(binary.LittleEndian.Uint32(out[4*i:]))
			w, ok := toI32(f16Format.value(hs[i]))
			return fmt.Sprint(g), fmt.Sprint(w), !ok || g == w
		}},
		{"arith.fptosi", "bf16", "i32", func(i int, out []byte) (string, string, bool) {
			g := int32(binary.LittleEndian.Uint32(out[4*i:]))
			w, ok := toI32(bf16Format.value(gs[i]))
			return fmt.Sprint(g), fmt.Sprint(w), !ok || g == w
		}},
	}
	for _, arch := range halfArchs {
		ds := halfDispatches(t, arch)
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%s_%s_to_%s", arch, strings.TrimPrefix(c.op, "arith."), c.in, c.out), func(t *testing.T) {
				var match []halfDispatch
				for name, dd := range ds {
					ft := function.Type(dd.body)
					if strings.HasPrefix(name, "conv_") && len(ft.Inputs) == 1 && ir.TypeString(ft.Inputs[0]) == c.in &&
						ir.TypeString(ft.Results[0]) == c.out && dd.body.Body().Ops[0].Name == c.op {
						match = append(match, dd)
					}
				}
				if len(match) != 1 {
					t.Fatalf("%d dispatches of @conv compute %s from %s to %s", len(match), c.op, c.in, c.out)
				}
				out := runElementwise(t, match[0], n, inputs[c.in])[0]
				bad := 0
				for i := 0; i < n; i++ {
					if got, want, ok := c.check(i, out); !ok {
						if bad++; bad <= 10 {
							t.Errorf("element %d: got %s, want %s", i, got, want)
						}
					}
				}
			})
		}
	}
}

// randHalves returns n values of h: multiples of 1/q in [-lim, lim].
func randHalves(h halfFormat, r *rand.Rand, n, lim, q int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = h.value(h.round(float64(r.Intn(2*lim*q+1)-lim*q) / float64(q)))
	}
	return v
}

// TestHalfNestsPTX runs the 16-bit loop nests of testdata/half.mlir in
// the interpreter for each arch: the broadcast nest (its unrolled steps
// and tail), the row reductions a block shares (partial sums crossing
// shuffles in 32-bit registers and shared memory), a warp per row, and
// an f16 matmul. Sums are of values whose partial sums are exact in any
// order, so they must match the true sums exactly; the matmul reduces in
// order and must match rounding each product and sum to f16 (or, where
// the kernel fuses a multiply-add, each fma).
func TestHalfNestsPTX(t *testing.T) {
	for _, arch := range halfArchs {
		ds := halfDispatches(t, arch)
		r := rand.New(rand.NewSource(3))
		for _, h := range []halfFormat{f16Format, bf16Format} {
			t.Run(arch+"/bcast_"+h.name, func(t *testing.T) {
				var d halfDispatch
				for name, dd := range ds {
					if strings.HasPrefix(name, "bcast_") && ir.TypeString(dd.nest.Inputs[0].Type.Elem) == h.name {
						d = dd
					}
				}
				x, b := randHalves(h, r, 5*300, 40, 64), randHalves(h, r, 300, 4, 64)
				out := runNest(t, d, map[string][]byte{"in0": halves(h, x), "in1": halves(h, b)})["out0"]
				half := h.value(h.round(0.5))
				for i := 0; i < 5*300; i++ {
					want := h.round(h.value(h.round(x[i]*b[i%300])) + half)
					if got := halfAt(out, i); got != want {
						t.Fatalf("element (%d, %d) = %#04x, want %#04x (x %v, b %v)", i/300, i%300, got, want, x[i], b[i%300])
					}
				}
			})
		}
		t.Run(arch+"/rows", func(t *testing.T) {
			x := randHalves(f16Format, r, 6*700, 2, 4)
			x[3*700+123] = math.NaN() // row 3's sums and maximum are NaN
			y := randHalves(bf16Format, r, 6*700, 1, 1)
			var sum, mx, sumB [6]float64
			for i := range sum {
				mx[i] = math.Inf(-1)
				for j := 0; j < 700; j++ {
					v := x[i*700+j]
					sum[i] += v
					sumB[i] += y[i*700+j]
					if math.IsNaN(v) || math.IsNaN(mx[i]) {
						mx[i] = math.NaN()
					} else {
						mx[i] = math.Max(mx[i], v)
					}
				}
			}
			// Inits, where a fill did not fold into the kernel: the
			// fills' values.
			fill := func(size int, v uint32) []byte {
				b := make([]byte, 6*size)
				for i := 0; i < 6; i++ {
					if size == 2 {
						binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
					} else {
						binary.LittleEndian.PutUint32(b[4*i:], v)
					}
				}
				return b
			}
			in16, inB := halves(f16Format, x), halves(bf16Format, y)
			wide := runNest(t, findNest(t, ds, "rows", "f16", "f32", "arith.addf"), map[string][]byte{"in0": in16, "init0": fill(4, 0)})["out0"]
			sum16 := runNest(t, findNest(t, ds, "rows", "f16", "f16", "arith.addf"), map[string][]byte{"in0": in16, "init0": fill(2, 0)})["out0"]
			max16 := runNest(t, findNest(t, ds, "rows", "f16", "f16", "arith.maximumf"), map[string][]byte{"in0": in16, "init0": fill(2, 0xfc00)})["out0"]
			sumBF := runNest(t, findNest(t, ds, "rows", "bf16", "bf16", "arith.addf"), map[string][]byte{"in0": inB, "init0": fill(2, 0)})["out0"]
			for i := 0; i < 6; i++ {
				if g := float64(math.Float32frombits(binary.LittleEndian.Uint32(wide[4*i:]))); !(g == sum[i] || math.IsNaN(g) && math.IsNaN(sum[i])) {
					t.Errorf("f32 sum of f16 row %d = %v, want %v", i, g, sum[i])
				}
				for _, c := range []struct {
					what string
					h    halfFormat
					out  []byte
					want float64
				}{{"f16 sum", f16Format, sum16, sum[i]}, {"f16 max", f16Format, max16, mx[i]}, {"bf16 sum", bf16Format, sumBF, sumB[i]}} {
					if g, w := halfAt(c.out, i), c.h.round(c.want); !sameHalf(c.h, g, w) {
						t.Errorf("%s of row %d = %#04x, want %#04x (%v)", c.what, i, g, w, c.want)
					}
				}
			}
		})
		t.Run(arch+"/short_rows", func(t *testing.T) {
			x := randHalves(f16Format, r, 300*40, 4, 8)
			out := runNest(t, findNest(t, ds, "short_rows", "f16", "f16", "arith.addf"), map[string][]byte{"in0": halves(f16Format, x)})["out0"]
			for i := 0; i < 300; i++ {
				var w float64
				for _, v := range x[i*40 : (i+1)*40] {
					w += v
				}
				if g := halfAt(out, i); g != f16Format.round(w) {
					t.Fatalf("sum of row %d = %#04x, want %v", i, g, w)
				}
			}
		})
		t.Run(arch+"/matmul_f16", func(t *testing.T) {
			h := f16Format
			a, b := randHalves(h, r, 9*13, 2, 64), randHalves(h, r, 13*7, 2, 64)
			d := findNest(t, ds, "matmul_f16", "f16", "f16", "arith.mulf")
			out := runNest(t, d, map[string][]byte{"in0": halves(h, a), "in1": halves(h, b)})["out0"]
			rd := func(v float64) float64 { return h.value(h.round(v)) }
			for i := 0; i < 9; i++ {
				for j := 0; j < 7; j++ {
					var sep, fused float64
					for l := 0; l < 13; l++ {
						sep = rd(sep + rd(a[i*13+l]*b[l*7+j]))
						fused = h.value(exactFMA(h, a[i*13+l], b[l*7+j], fused))
					}
					g := h.value(halfAt(out, i*7+j))
					if g == sep || g == fused {
						continue
					}
					// A tensor-core kernel accumulates in f32 and
					// rounds once: close to the exact sum.
					var exact, scale float64
					for l := 0; l < 13; l++ {
						exact += a[i*13+l] * b[l*7+j]
						scale += math.Abs(a[i*13+l] * b[l*7+j])
					}
					if !strings.Contains(d.ptx, "mma.sync") || math.Abs(g-exact) > scale*math.Ldexp(1, -10) {
						t.Errorf("element (%d, %d) = %v, want %v (or %v with fma)", i, j, g, sep, fused)
					}
				}
			}
		})
	}
}

// findNest returns the loop-nest dispatch of fn from in to out (the
// first input's and output's element types) whose body has op.
func findNest(t *testing.T, ds map[string]halfDispatch, fn, in, out, op string) halfDispatch {
	t.Helper()
	var found []string
	for name, d := range ds {
		if !strings.HasPrefix(name, fn+"_") || d.nest == nil || len(d.nest.Inputs) == 0 ||
			ir.TypeString(d.nest.Inputs[0].Type.Elem) != in || ir.TypeString(d.nest.Outputs[0].Type.Elem) != out {
			continue
		}
		for _, o := range d.body.Body().Ops {
			if o.Name == op {
				found = append(found, name)
				break
			}
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d loop nests of @%s from %s to %s use %s: %v", len(found), fn, in, out, op, found)
	}
	return ds[found[0]]
}

// TestHalfPTXPerArch checks which 16-bit instructions each arch's PTX
// uses and its .version (the oldest ISA with the arch and each of them),
// and compares the broadcast kernels (one f16, one bf16) with golden
// files for the archs whose instructions for them differ.
func TestHalfPTXPerArch(t *testing.T) {
	for _, tc := range []struct {
		arch, version string
		has, hasNot   []string
	}{
		{"sm_52", "4.1", []string{"cvt.rn.f16.f32", "cvt.f32.f16", "cvt.rz.f32.f64", "cvt.rn.f16.f64", "shfl.sync.bfly.b32"},
			[]string{"add.rn.f16", "mul.rn.f16", "fma.rn.f16", "setp.lt.f16", ".bf16 \t"}},
		{"sm_60", "5.0", []string{"add.rn.f16", "mul.rn.f16", "fma.rn.f16", "setp.lt.f16", "cvt.rz.f32.s32"},
			[]string{"max.f16", "max.NaN.f16", "cvt.rn.bf16", ".bf16 \t"}},
		{"sm_75", "6.3", []string{"fma.rn.f16", "setp.lt.f16"}, []string{"max.NaN.f16", "cvt.rn.bf16"}},
		{"sm_80", "7.0", []string{"max.NaN.f16", "min.bf16", "fma.rn.bf16", "cvt.rn.bf16.f32", "fma.rn.f16"},
			[]string{"add.rn.bf16", "cvt.rn.bf16.f64", "cvt.rn.bf16.s32", "setp.lt.bf16"}},
		{"sm_90", "7.8", []string{"add.rn.bf16", "mul.rn.bf16", "setp.lt.bf16", "cvt.rn.bf16.f64", "cvt.rn.bf16.s32", "cvt.rn.bf16.u32"},
			[]string{"cvt.rz.f32.f64"}},
	} {
		t.Run(tc.arch, func(t *testing.T) {
			ds := halfDispatches(t, tc.arch)
			names := make([]string, 0, len(ds))
			var all strings.Builder
			for name := range ds {
				names = append(names, name)
			}
			sort.Strings(names)
			var golden strings.Builder
			for _, name := range names {
				ptx := ds[name].ptx
				if !strings.Contains(ptx, "\n.target "+tc.arch+"\n") {
					t.Fatalf("%s: no .target %s", name, tc.arch)
				}
				all.WriteString(ptx)
				if strings.HasPrefix(name, "bcast_") {
					golden.WriteString(ptx)
				}
			}
			// Each kernel's .version is the arch's, except where a
			// native 16-bit instruction (or shfl.sync) needs a newer
			// one.
			if want := "\n.version " + tc.version + "\n"; !strings.Contains(all.String(), want) {
				t.Errorf("no kernel has %q", want)
			}
			for _, s := range tc.has {
				if !strings.Contains(all.String(), s) {
					t.Errorf("no %q in the %s PTX", s, tc.arch)
				}
			}
			for _, s := range tc.hasNot {
				if strings.Contains(all.String(), s) {
					t.Errorf("%q in the %s PTX", s, tc.arch)
				}
			}
			if tc.arch == "sm_52" || tc.arch == "sm_75" {
				return // as sm_60 for the broadcast kernels, but for the header
			}
			path := filepath.Join("testdata", "golden", "half_bcast_"+tc.arch+".ptx")
			if *update {
				if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if golden.String() != string(want) {
				t.Errorf("generated PTX differs from %s (run with -update to accept):\n%s", path, golden.String())
			}
		})
	}
}

// TestHalfMiscPTX runs @misc (floor, ceil, trunc, exp, bit casts to and
// from i16, fptoui, uitofp from i8, sitofp from i64 to bf16, extf to f64)
// in the interpreter for each arch: exact results bit for bit, exp (an
// f32 approximation rounded to f16) within one f16 ulp.
func TestHalfMiscPTX(t *testing.T) {
	h := f16Format
	r := rand.New(rand.NewSource(11))
	const n = 600
	xs := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 1e4, 65504, -65504, math.Inf(1), math.Inf(-1), math.NaN(),
		h.value(1), -h.value(0x3ff), 11.08, 11.1, -17.5, 0.999, 4096.5}
	ws := []int64{0, 1, -1, 1<<24 + 1<<16 + 1, -(1<<24 + 1<<16 + 1), 1<<24 + 1<<16, math.MaxInt64, math.MinInt64, 1<<40 + 1<<32 + 1, 259}
	x, k, w := make([]float64, n), make([]byte, n), make([]byte, 8*n)
	wv := make([]int64, n)
	for i := 0; i < n; i++ {
		x[i] = h.value(uint16(r.Uint32()))
		if i%2 == 0 {
			x[i] = h.value(h.round(r.NormFloat64() * 20))
		}
		if i < len(xs) {
			x[i] = h.value(h.round(xs[i]))
		}
		k[i] = byte(r.Uint32())
		wv[i] = int64(r.Uint64()) >> uint(r.Intn(64))
		if i < len(ws) {
			wv[i] = ws[i]
		}
		binary.LittleEndian.PutUint64(w[8*i:], uint64(wv[i]))
	}
	ulps := func(a, b uint16) int { // distance in f16 values of one sign
		if a&0x8000 != b&0x8000 {
			return 1 << 16
		}
		d := int(a) - int(b)
		return max(d, -d)
	}
	for _, arch := range halfArchs {
		t.Run(arch, func(t *testing.T) {
			ds := halfDispatches(t, arch)
			out := runNest(t, find(t, ds, "misc"), map[string][]byte{"in0": halves(h, x), "in1": k, "in2": w})
			bad := 0
			report := func(format string, args ...any) {
				if bad++; bad <= 10 {
					t.Errorf(format, args...)
				}
			}
			for i := 0; i < n; i++ {
				hb := h.round(x[i])
				for o, fn := range []func(float64) float64{math.Floor, math.Ceil, math.Trunc} {
					if g, w := halfAt(out[fmt.Sprintf("out%d", o)], i), h.round(fn(x[i])); !sameHalf(h, g, w) {
						report("%s(%v) = %#04x, want %#04x", []string{"floor", "ceil", "trunc"}[o], x[i], g, w)
					}
				}
				if g, w := halfAt(out["out3"], i), h.round(math.Exp(x[i])); !sameHalf(h, g, w) && ulps(g, w) > 1 {
					report("exp(%v) = %#04x, want %#04x within one ulp", x[i], g, w)
				}
				if g := halfAt(out["out4"], i); g != hb {
					report("bitcast(%v) = %#04x, want %#04x", x[i], g, hb)
				}
				if g := halfAt(out["out5"], i); g != hb+1 {
					report("bitcast(bitcast(%v) + 1) = %#04x, want %#04x", x[i], g, hb+1)
				}
				if a := math.Abs(x[i]); a < 1<<32 {
					if g := binary.LittleEndian.Uint32(out["out6"][4*i:]); g != uint32(a) {
						report("fptoui(|%v|) = %d, want %d", x[i], g, uint32(a))
					}
				}
				if g, w := halfAt(out["out7"], i), h.round(float64(k[i])); g != w {
					report("uitofp(%d) = %#04x, want %#04x", k[i], g, w)
				}
				want := bf16Format.round(0)
				if wv[i] != 0 {
					want = exactRound(bf16Format, new(big.Float).SetInt64(wv[i]))
				}
				if g := halfAt(out["out8"], i); g != want {
					report("sitofp(%d) to bf16 = %#04x, want %#04x", wv[i], g, want)
				}
				if g := math.Float64frombits(binary.LittleEndian.Uint64(out["out9"][8*i:])); !(g == x[i] && math.Signbit(g) == math.Signbit(x[i]) || math.IsNaN(g) && math.IsNaN(x[i])) {
					report("extf(%v) to f64 = %v", x[i], g)
				}
			}
		})
	}
}
