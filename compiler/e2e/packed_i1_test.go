package e2e_test

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
	"testing"

	rhal "github.com/goiree/goiree/runtime/hal"
)

func i8Arg(v []byte) string {
	s := make([]string, len(v))
	for i, b := range v {
		s[i] = fmt.Sprint(int8(b))
	}
	return fmt.Sprintf("%dxi8=%s", len(v), strings.Join(s, " "))
}

func checkBytes(t *testing.T, what string, got, want []byte) {
	t.Helper()
	if string(got) != string(want) {
		t.Fatalf("%s: % x, want % x", what, got, want)
	}
}

// runPackedI1 checks testdata/packed_i1.mlir with bit operations on the
// bytes: element i of a packed tensor is bit i%8 of byte i/8.
func runPackedI1(t *testing.T, dev rhal.Device, module []byte) {
	a, b := []byte{0x5a, 0xff, 0x01}, []byte{0x0f, 0x81, 0x80}
	_, data := invoke(t, dev, module, "xor_masks", i8Arg(a), i8Arg(b))
	checkBytes(t, "xor_masks", data[0], []byte{a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2]})

	x := []int32{3, -1, 0, 7, 0, 0, 9, -4, 1, 1, -1, 0, 0, 0, 0, 12}
	want := make([]byte, 2)
	var xs []string
	for i, v := range x {
		if v > 0 {
			want[i/8] |= 1 << (i % 8)
		}
		xs = append(xs, fmt.Sprint(v))
	}
	_, data = invoke(t, dev, module, "positive", "4x4xi32="+strings.Join(xs, " "))
	checkBytes(t, "positive", data[0], want)

	m := []byte{0x00, 0xc3, 0x7e, 0x11}
	_, data = invoke(t, dev, module, "rows_and_count", i8Arg(m))
	checkBytes(t, "rows", data[0], m[1:3])
	n := 0
	for _, v := range m {
		n += bits.OnesCount8(v)
	}
	if got := int32(binary.LittleEndian.Uint32(data[1])); got != int32(n) {
		t.Fatalf("count: %d set bits, want %d", got, n)
	}
}

func TestPackedI1(t *testing.T) {
	module := compileLinalg(t, "packed_i1.mlir")
	forDevices(t, func(t *testing.T, dev rhal.Device) { runPackedI1(t, dev, module) })
}

func TestGPUPackedI1(t *testing.T) {
	forGPUs(t, "packed_i1.mlir", runPackedI1)
}
