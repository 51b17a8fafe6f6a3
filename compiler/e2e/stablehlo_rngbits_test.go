package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

// The programs of testdata/stablehlo_rngbits.mlir draw bits with
// rng_bit_generator; the references below follow the algorithms' published
// definitions (Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011) with XLA's choices of rounds, counters and output order,
// written block by block as XLA's client library builds them (pairs of
// half-shaped arrays concatenated for Threefry, a flat run of blocks for
// Philox) rather than element by element as the lowering does.

// threefry2x32 is Threefry-2x32 with 20 rounds: five groups of four
// rounds, a key injection after each.
func threefry2x32(key [2]uint32, in [2]uint32) [2]uint32 {
	rot := [8]int{13, 15, 26, 6, 17, 29, 16, 24}
	ks := [3]uint32{key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]}
	x0, x1 := in[0]+ks[0], in[1]+ks[1]
	for g := 1; g <= 5; g++ {
		for r := 0; r < 4; r++ {
			x0 += x1
			x1 = bits.RotateLeft32(x1, rot[(g-1)%2*4+r]) ^ x0
		}
		x0 += ks[g%3]
		x1 += ks[(g+1)%3] + uint32(g)
	}
	return [2]uint32{x0, x1}
}

// philox4x32 is Philox-4x32 with 10 rounds.
func philox4x32(key [2]uint32, c [4]uint32) [4]uint32 {
	for r := 0; r < 10; r++ {
		hi0, lo0 := bits.Mul32(0xD2511F53, c[0])
		hi1, lo1 := bits.Mul32(0xCD9E8D57, c[2])
		c = [4]uint32{hi1 ^ c[1] ^ key[0], lo1, hi0 ^ c[3] ^ key[1], lo0}
		key[0] += 0x9E3779B9
		key[1] += 0xBB67AE85
	}
	return c
}

// rngState is a generator state as key, 128-bit counter (lo, hi) and the
// layout it is stored in.
type rngState struct {
	key    uint64
	lo, hi uint64
	words  int // 4: i32[4] (key lo, key hi, counter hi, counter lo); 2: i64[2]; 3: i64[3]
}

func (s rngState) arg() string {
	switch s.words {
	case 4:
		return fmt.Sprintf("4xi32=%d %d %d %d", int32(s.key), int32(s.key>>32), int32(s.lo>>32), int32(s.lo))
	case 2:
		return fmt.Sprintf("2xi64=%d %d", int64(s.key), int64(s.lo))
	}
	return fmt.Sprintf("3xi64=%d %d %d", int64(s.key), int64(s.lo), int64(s.hi))
}

// bytes is the state as the program returns it.
func (s rngState) bytes() []byte {
	if s.words == 4 {
		return binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint64(nil, s.key), uint32(s.lo>>32)), uint32(s.lo))
	}
	b := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, s.key), s.lo)
	if s.words == 3 {
		b = binary.LittleEndian.AppendUint64(b, s.hi)
	}
	return b
}

func (s rngState) keyWords() [2]uint32 { return [2]uint32{uint32(s.key), uint32(s.key >> 32)} }

// advanced is s with its counter n blocks on (carrying into the high word
// only where it is a counter word).
func (s rngState) advanced(n uint64) rngState {
	lo := s.lo + n
	if s.words == 3 && lo < s.lo {
		s.hi++
	}
	s.lo = lo
	return s
}

// threefryRef returns the 32-bit (wide false) or 64-bit words of a
// Threefry draw of shape, in row-major order, and the new state.
func threefryRef(s rngState, shape []int, wide bool) ([]uint64, rngState) {
	n := 1
	for _, d := range shape {
		n *= d
	}
	if wide {
		out := make([]uint64, n)
		for i := range out {
			c := s.lo + uint64(i)
			w := threefry2x32(s.keyWords(), [2]uint32{uint32(c), uint32(c >> 32)})
			out[i] = uint64(w[0]) | uint64(w[1])<<32
		}
		return out, s.advanced(uint64(n))
	}
	if len(shape) == 0 {
		w := threefry2x32(s.keyWords(), [2]uint32{uint32(s.lo), uint32(s.lo >> 32)})
		return []uint64{uint64(w[0])}, s.advanced(1)
	}
	split := -1
	for d, e := range shape {
		if e%2 == 0 {
			split = d
			break
		}
	}
	if split < 0 {
		split = 0
		for d, e := range shape {
			if e > shape[split] {
				split = d
			}
		}
	}
	// XLA's halved shape (outer, half, 1, inner): the pair of arrays is
	// concatenated along the unit dimension and reshaped to (outer,
	// 2*half, inner), then sliced to the requested extent.
	outer, inner := 1, 1
	for d := 0; d < split; d++ {
		outer *= shape[d]
	}
	for d := split + 1; d < len(shape); d++ {
		inner *= shape[d]
	}
	half := (shape[split] + 1) / 2
	var x [2][]uint32
	for b := 0; b < outer*half*inner; b++ {
		c := s.lo + uint64(b)
		w := threefry2x32(s.keyWords(), [2]uint32{uint32(c), uint32(c >> 32)})
		x[0], x[1] = append(x[0], w[0]), append(x[1], w[1])
	}
	var out []uint64
	for o := 0; o < outer; o++ {
		for e := 0; e < shape[split]; e++ {
			for i := 0; i < inner; i++ {
				out = append(out, uint64(x[e%2][(o*half+e/2)*inner+i]))
			}
		}
	}
	return out, s.advanced(uint64(outer * half * inner))
}

// philoxRef is threefryRef for Philox: blocks of four words from the
// counter on, the words (or pairs of words for 64 bits) in order.
func philoxRef(s rngState, n int, wide bool) ([]uint64, rngState) {
	per := 4
	if wide {
		per = 2
	}
	blocks := (n + per - 1) / per
	var out []uint64
	for b := 0; b < blocks; b++ {
		c := s.advanced(uint64(b))
		hi := c.hi
		if s.words != 3 {
			hi = s.key // the key stands above a 64-bit counter
		}
		w := philox4x32(s.keyWords(), [4]uint32{uint32(c.lo), uint32(c.lo >> 32), uint32(hi), uint32(hi >> 32)})
		if wide {
			out = append(out, uint64(w[0])|uint64(w[1])<<32, uint64(w[2])|uint64(w[3])<<32)
		} else {
			out = append(out, uint64(w[0]), uint64(w[1]), uint64(w[2]), uint64(w[3]))
		}
	}
	return out[:n], s.advanced(uint64(blocks))
}

func checkRNGBits(t *testing.T, what string, data []byte, want []uint64, wide bool) {
	t.Helper()
	size := 4
	if wide {
		size = 8
	}
	if len(data) != size*len(want) {
		t.Fatalf("%s: %d bytes, want %d", what, len(data), size*len(want))
	}
	for i, w := range want {
		g := uint64(binary.LittleEndian.Uint32(data[size*i:]))
		if wide {
			g = binary.LittleEndian.Uint64(data[size*i:])
		}
		if g != w {
			t.Fatalf("%s: element %d = %#x, want %#x", what, i, g, w)
		}
	}
}

func checkRNGState(t *testing.T, what string, data []byte, want rngState) {
	t.Helper()
	if w := want.bytes(); string(data) != string(w) {
		t.Fatalf("%s: new state % x, want % x", what, data, w)
	}
}

type rngBitsCase struct {
	fn    string
	alg   string
	state rngState
	shape []int
	wide  bool
}

var rngBitsCases = []rngBitsCase{
	{"threefry_3x5", "threefry", rngState{key: 0x0000000b_8000_0001, lo: 0x00000002_fffffffe, words: 4}, []int{3, 5}, false},
	{"threefry_3x4x2", "threefry", rngState{key: 0x0123456789abcdef, lo: 40, words: 2}, []int{3, 4, 2}, false},
	{"threefry_i64", "threefry", rngState{key: 7, lo: 1 << 40, words: 2}, []int{5}, true},
	{"threefry_scalar", "threefry", rngState{key: 99, lo: 3, words: 4}, nil, false},
	{"philox_f32", "philox", rngState{key: 0xfedcba9876543210, lo: 0xffffffff, words: 4}, []int{3, 3}, false},
	{"philox_i64", "philox", rngState{key: 5, lo: ^uint64(1), hi: 7, words: 3}, []int{7}, true},
	{"default_2x3", "philox", rngState{key: 5, lo: 9, words: 2}, []int{2, 3}, false},
}

func runRNGBits(t *testing.T, dev rhal.Device, module []byte) {
	for _, tc := range rngBitsCases {
		n := 1
		for _, d := range tc.shape {
			n *= d
		}
		var want []uint64
		var next rngState
		if tc.alg == "threefry" {
			want, next = threefryRef(tc.state, tc.shape, tc.wide)
		} else {
			want, next = philoxRef(tc.state, n, tc.wide)
		}
		_, data := invoke(t, dev, module, tc.fn, tc.state.arg())
		checkRNGState(t, tc.fn, data[0], next)
		checkRNGBits(t, tc.fn, data[1], want, tc.wide)
	}
}

func TestStableHLORNGBitGenerator(t *testing.T) {
	module := compileLinalg(t, "stablehlo_rngbits.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) { runRNGBits(t, dev, module) })
}

func TestGPUStableHLORNGBitGenerator(t *testing.T) {
	forGPUs(t, "stablehlo_rngbits.mlir", runRNGBits)
}

// TestRNGBitsReferenceKnownAnswers pins the plain references to the
// known-answer vectors Random123 publishes for Threefry-2x32-20 and
// Philox-4x32-10 (kat_vectors), so the e2e comparison is against the
// algorithms and not just against themselves.
func TestRNGBitsReferenceKnownAnswers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, want string
	}{
		{"threefry zero", fmt.Sprintf("%08x", threefry2x32([2]uint32{0, 0}, [2]uint32{0, 0})), "6b200159 99ba4efe"},
		{"threefry ones", fmt.Sprintf("%08x", threefry2x32([2]uint32{^uint32(0), ^uint32(0)}, [2]uint32{^uint32(0), ^uint32(0)})), "1cb996fc bb002be7"},
		{"threefry pi", fmt.Sprintf("%08x", threefry2x32([2]uint32{0x13198a2e, 0x03707344}, [2]uint32{0x243f6a88, 0x85a308d3})), "c4923a9c 483df7a0"},
		{"philox zero", fmt.Sprintf("%08x", philox4x32([2]uint32{0, 0}, [4]uint32{0, 0, 0, 0})), "6627e8d5 e169c58d bc57ac4c 9b00dbd8"},
		{"philox ones", fmt.Sprintf("%08x", philox4x32([2]uint32{^uint32(0), ^uint32(0)}, [4]uint32{^uint32(0), ^uint32(0), ^uint32(0), ^uint32(0)})), "408f276d 41c83b0e a20bc7c6 6d5451fd"},
		{"philox pi", fmt.Sprintf("%08x", philox4x32([2]uint32{0xa4093822, 0x299f31d0}, [4]uint32{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344})), "d16cfe09 94fdcceb 5001e420 24126ea1"},
	} {
		if got := strings.Trim(tc.got, "[]"); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}
