package cuda_test

import (
	"encoding/binary"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/ir"
)

// TestNarrowElementwisePTX runs the generated elementwise dispatches of
// testdata/narrow.mlir (i8 and i16 operands) in the interpreter against
// Go's integer arithmetic at those widths, for sm_52 and sm_90.
func TestNarrowElementwisePTX(t *testing.T) {
	r := rand.New(rand.NewSource(21))
	const n = 700
	a, b := make([]int8, n), make([]int16, n)
	for i := range a {
		a[i], b[i] = int8(r.Uint32()), int16(r.Uint32())
		if b[i] == 0 {
			b[i] = 7 // divui by it
		}
	}
	copy(a, []int8{0, 1, -1, 127, -128, 16, -16, 100})
	copy(b, []int16{1, -1, 32767, -32768, 256, 2049, 2051, -300})
	in8, in16 := make([]byte, n), make([]byte, 2*n)
	for i := range a {
		in8[i] = byte(a[i])
		binary.LittleEndian.PutUint16(in16[2*i:], uint16(b[i]))
	}
	f16, bf16 := halfFormat{"f16", 10, 15}, halfFormat{"bf16", 7, 127}
	cases := []struct {
		result string // the dispatch's result type
		op     string // an op its body has
		want   func(i int) uint64
		size   int
	}{
		{"i8", "arith.addi", func(i int) uint64 { return uint64(uint8(a[i]*a[i] + a[i])) }, 1},
		{"i16", "arith.divui", func(i int) uint64 { return uint64(uint16(b[i]*b[i]) / uint16(b[i])) }, 2},
		{"i32", "arith.extsi", func(i int) uint64 { return uint64(uint32(int32(a[i]))) }, 4},
		{"i64", "arith.extui", func(i int) uint64 { return uint64(uint16(b[i])) }, 8},
		{"i8", "arith.trunci", func(i int) uint64 { return uint64(uint8(b[i])) }, 1},
		{"f16", "arith.sitofp", func(i int) uint64 { return uint64(f16.round(float64(b[i]))) }, 2},
		{"bf16", "arith.uitofp", func(i int) uint64 { return uint64(bf16.round(float64(uint8(a[i])))) }, 2},
		{"i1", "arith.cmpi", func(i int) uint64 {
			if uint8(a[i]) < uint8(b[i]) {
				return 1
			}
			return 0
		}, 1},
		{"i8", "arith.shrui", func(i int) uint64 { return uint64(uint8(a[i]) >> 1) }, 1},
	}
	for _, arch := range []string{"sm_52", "sm_90"} {
		ds := simDispatches(t, "narrow.mlir", arch)
		for _, c := range cases {
			t.Run(fmt.Sprintf("%s/%s_to_%s", arch, strings.TrimPrefix(c.op, "arith."), c.result), func(t *testing.T) {
				var match []halfDispatch
				for _, d := range ds {
					ft := function.Type(d.body)
					if len(ft.Results) != 1 || ir.TypeString(ft.Results[0]) != c.result {
						continue
					}
					for _, o := range d.body.Body().Ops {
						if o.Name == c.op {
							match = append(match, d)
							break
						}
					}
				}
				if len(match) != 1 {
					t.Fatalf("%d dispatches compute %s into %s", len(match), c.op, c.result)
				}
				d := match[0]
				var ins [][]byte
				for _, ty := range function.Type(d.body).Inputs {
					ins = append(ins, map[string][]byte{"i8": in8, "i16": in16}[ir.TypeString(ty)])
				}
				out := runElementwise(t, d, n, ins...)[0]
				bad := 0
				for i := 0; i < n; i++ {
					var got uint64
					switch c.size {
					case 1:
						got = uint64(out[i])
					case 2:
						got = uint64(binary.LittleEndian.Uint16(out[2*i:]))
					case 4:
						got = uint64(binary.LittleEndian.Uint32(out[4*i:]))
					default:
						got = binary.LittleEndian.Uint64(out[8*i:])
					}
					if want := c.want(i); got != want {
						if bad++; bad <= 5 {
							t.Errorf("element %d (a %d, b %d): got %#x, want %#x", i, a[i], b[i], got, want)
						}
					}
				}
			})
		}
	}
}
