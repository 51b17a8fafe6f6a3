package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/ir"
)

// intDivRef is what the CPU targets compute for each division at width
// bits (a and b sign-extended): a zero divisor gives 0 and the remainder
// the dividend, -1 the wrapped -a and remainder 0, and the unsigned ops
// read the operands' bits.
func intDivRef(op string, a, b int64, bits uint) int64 {
	wrap := func(v int64) int64 { return v << (64 - bits) >> (64 - bits) }
	mask := ^uint64(0) >> (64 - bits)
	ua, ub := uint64(a)&mask, uint64(b)&mask
	switch op {
	case "divui":
		if ub == 0 {
			return 0
		}
		return wrap(int64(ua / ub))
	case "remui":
		if ub == 0 {
			return a
		}
		return wrap(int64(ua % ub))
	}
	if b == 0 {
		if op == "remsi" {
			return a
		}
		return 0
	}
	if b == -1 {
		if op == "remsi" {
			return 0
		}
		return wrap(-a)
	}
	q, r := a/b, a%b
	switch op {
	case "remsi":
		return r
	case "floordivsi":
		if r != 0 && (r < 0) != (b < 0) {
			q--
		}
	case "ceildivsi":
		if r != 0 && (r < 0) == (b < 0) {
			q++
		}
	}
	return q
}

// TestIntDivPTX runs the integer divisions of testdata/intdiv.mlir at
// i8, i16, i32 and i64 in the interpreter against intDivRef, over zero
// and -1 divisors, the width's extremes and random operands: PTX's own
// div and rem leave a zero divisor machine-specific and INT_MIN / -1
// overflowing, which the generated code must not reach.
func TestIntDivPTX(t *testing.T) {
	r := rand.New(rand.NewSource(43))
	const n = 400
	ds := simDispatches(t, "intdiv.mlir", "sm_80")
	for _, bits := range []uint{8, 16, 32, 64} {
		lo, hi := int64(-1)<<(bits-1), int64(^uint64(0)>>(65-bits))
		edges := []int64{0, 1, -1, 2, -2, 7, -7, lo, hi, lo + 1, hi - 1}
		a, b := make([]int64, n), make([]int64, n)
		for i := range a {
			a[i], b[i] = int64(r.Uint64())<<(64-bits)>>(64-bits), int64(r.Uint64())<<(64-bits)>>(64-bits)
			if i%3 == 0 {
				b[i] >>= bits / 2 // small divisors give remainders
			}
		}
		k := 0
		for _, x := range edges {
			for _, y := range edges {
				a[k], b[k] = x, y
				k++
			}
		}
		size := int(bits / 8)
		enc := func(v []int64) []byte {
			out := make([]byte, size*len(v))
			for i, x := range v {
				var w [8]byte
				binary.LittleEndian.PutUint64(w[:], uint64(x))
				copy(out[size*i:], w[:size])
			}
			return out
		}
		ina, inb := enc(a), enc(b)
		for _, op := range []string{"divsi", "remsi", "divui", "remui", "floordivsi", "ceildivsi"} {
			t.Run(fmt.Sprintf("%s_i%d", op, bits), func(t *testing.T) {
				typ := fmt.Sprintf("i%d", bits)
				var found []halfDispatch
				for _, d := range ds {
					ft := function.Type(d.body)
					if len(ft.Results) != 1 || ir.TypeString(ft.Results[0]) != typ {
						continue
					}
					for _, o := range d.body.Body().Ops {
						if o.Name == "arith."+op {
							found = append(found, d)
							break
						}
					}
				}
				if len(found) != 1 {
					t.Fatalf("%d dispatches compute %s on %s", len(found), op, typ)
				}
				out := runElementwise(t, found[0], n, ina, inb)[0]
				bad := 0
				for i := 0; i < n; i++ {
					var w [8]byte
					copy(w[:], out[size*i:size*i+size])
					got := int64(binary.LittleEndian.Uint64(w[:])) << (64 - bits) >> (64 - bits)
					if want := intDivRef(op, a[i], b[i], bits); got != want {
						if bad++; bad <= 5 {
							t.Errorf("%s(%d, %d) = %d, want %d", op, a[i], b[i], got, want)
						}
					}
				}
			})
		}
	}
}
