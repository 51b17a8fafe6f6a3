package linalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

// packProgram is written as the printer prints it, so printing it must
// give it back unchanged.
const packProgram = `func.func @f(%src: tensor<100x250xi32>, %d: tensor<16x4x16x32xi32>, %x: tensor<?x?xi32>, %t: index) -> tensor<100x250xi32> {
  %pv = arith.constant 42 : i32
  %p = linalg.pack %src padding_value(%pv : i32) outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [16, 32] into %d : tensor<100x250xi32> -> tensor<16x4x16x32xi32>
  %e = tensor.empty(%t, %t, %t) : tensor<?x?x?x8xi32>
  %q = linalg.pack %x inner_dims_pos = [0, 1] inner_tiles = [%t, 8] into %e {tag} : tensor<?x?xi32> -> tensor<?x?x?x8xi32>
  %u0 = tensor.empty() : tensor<100x250xi32>
  %u = linalg.unpack %p outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [16, 32] into %u0 : tensor<16x4x16x32xi32> -> tensor<100x250xi32>
  %v = linalg.unpack %q inner_dims_pos = [0, 1] inner_tiles = [%t, 8] into %x : tensor<?x?x?x8xi32> -> tensor<?x?xi32>
  func.return %u : tensor<100x250xi32>
}
`

func TestPackRoundTrip(t *testing.T) {
	if got := print(t, "pack", packProgram); got != packProgram {
		t.Fatalf("printed differently:\n%s", got)
	}
	// The generic form is MLIR's: source, dest, padding, tiles with
	// operandSegmentSizes for pack; source, dest, tiles for unpack.
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("pack.mlir", []byte(packProgram), reg)
	if err != nil {
		t.Fatal(err)
	}
	generic := ir.PrintModule(m, reg, ir.PrintOptions{Generic: true})
	for _, want := range []string{
		`"linalg.pack"(%src, %d, %pv) {outer_dims_perm = array<i64: 1, 0>, inner_dims_pos = array<i64: 1, 0>, static_inner_tiles = array<i64: 16, 32>, operandSegmentSizes = array<i32: 1, 1, 1, 0>}`,
		`"linalg.pack"(%x, %e, %t) {tag, inner_dims_pos = array<i64: 0, 1>, static_inner_tiles = array<i64: -9223372036854775808, 8>, operandSegmentSizes = array<i32: 1, 1, 0, 1>}`,
		`"linalg.unpack"(%q, %x, %t) {inner_dims_pos = array<i64: 0, 1>, static_inner_tiles = array<i64: -9223372036854775808, 8>}`,
	} {
		if !strings.Contains(generic, want) {
			t.Errorf("generic form lacks %s:\n%s", want, generic)
		}
	}
	if again := print(t, "generic", generic); again != packProgram {
		t.Errorf("the generic form reads back differently:\n%s", again)
	}
}

func TestPackErrors(t *testing.T) {
	wrap := func(body string) string {
		return "func.func @f(%s: tensor<13x15xf32>, %d: tensor<2x8x8x2xf32>, %u: tensor<16x8xf32>, %p: tensor<2x8x8x1xf32>, %v: f32, %i: i32) {\n" + body + "\n  return\n}"
	}
	for _, tc := range []struct{ name, src, want string }{
		{"full-tiles", wrap(`  %0 = linalg.pack %s inner_dims_pos = [0, 1] inner_tiles = [8, 2] into %d : tensor<13x15xf32> -> tensor<2x8x8x2xf32>`),
			"bad.mlir:2:8: error: 'linalg.pack' op source dimension 0 (13) is not a multiple of its tile 8: without padding_value a pack takes only full tiles"},
		{"outer-size", wrap(`  %0 = linalg.pack %s padding_value(%v : f32) inner_dims_pos = [0, 1] inner_tiles = [8, 2] into %p : tensor<13x15xf32> -> tensor<2x8x8x1xf32>`),
			"bad.mlir:2:8: error: 'linalg.pack' op inner tile #1 is 2 but dimension 3 of the packed destination 'tensor<2x8x8x1xf32>' is 1"},
		{"tiles-count", wrap(`  %0 = linalg.pack %s padding_value(%v : f32) inner_dims_pos = [0] inner_tiles = [8, 2] into %d : tensor<13x15xf32> -> tensor<2x8x8x2xf32>`),
			"bad.mlir:2:8: error: 'linalg.pack' op has 2 inner_tiles but 1 inner_dims_pos entries; they must pair up"},
		{"dims-pos", wrap(`  %0 = linalg.pack %s padding_value(%v : f32) inner_dims_pos = [1, 1] inner_tiles = [8, 2] into %d : tensor<13x15xf32> -> tensor<2x8x8x2xf32>`),
			"bad.mlir:2:8: error: 'linalg.pack' op inner_dims_pos [1 1] must name distinct dimensions of the unpacked type 'tensor<13x15xf32>'"},
		{"perm", wrap(`  %0 = linalg.pack %s padding_value(%v : f32) outer_dims_perm = [0, 2] inner_dims_pos = [0, 1] inner_tiles = [8, 2] into %d : tensor<13x15xf32> -> tensor<2x8x8x2xf32>`),
			"bad.mlir:2:8: error: 'linalg.pack' op outer_dims_perm [0 2] is not a permutation of [0, 2)"},
		{"tiles-count-outer", wrap(`  %0 = linalg.pack %s padding_value(%v : f32) outer_dims_perm = [1, 0] inner_dims_pos = [0, 1] inner_tiles = [8, 2] into %d : tensor<13x15xf32> -> tensor<2x8x8x2xf32>`),
			"bad.mlir:2:8: error: 'linalg.pack' op dimension 0 of the packed destination 'tensor<2x8x8x2xf32>' is 2 but source dimension 1 (15) in tiles of 2 needs 8"},
		{"padding-type", wrap(`  %0 = linalg.pack %s padding_value(%i : i32) inner_dims_pos = [0, 1] inner_tiles = [8, 2] into %d : tensor<13x15xf32> -> tensor<2x8x8x2xf32>`),
			"bad.mlir:2:8: error: 'linalg.pack' op padding_value type 'i32' differs from the element type 'f32'"},
		{"rank", wrap(`  %0 = linalg.unpack %d inner_dims_pos = [0] inner_tiles = [8] into %u : tensor<2x8x8x2xf32> -> tensor<16x8xf32>`),
			"bad.mlir:2:8: error: 'linalg.unpack' op the packed source 'tensor<2x8x8x2xf32>' must have rank 3 (the unpacked rank 2 plus 1 tiles)"},
		{"unpack-outer", wrap(`  %0 = linalg.unpack %d inner_dims_pos = [0, 1] inner_tiles = [8, 2] into %u : tensor<2x8x8x2xf32> -> tensor<16x8xf32>`),
			"bad.mlir:2:8: error: 'linalg.unpack' op dimension 1 of the packed source 'tensor<2x8x8x2xf32>' is 8 but destination dimension 1 (8) in tiles of 2 needs 4"},
		{"zero-tile", wrap(`  %0 = linalg.unpack %d inner_dims_pos = [0, 1] inner_tiles = [0, 2] into %u : tensor<2x8x8x2xf32> -> tensor<16x8xf32>`),
			"bad.mlir:2:8: error: 'linalg.unpack' op inner tile #0 must be positive, found 0"},
		{"missing-into", wrap(`  %0 = linalg.unpack %d inner_dims_pos = [0, 1] inner_tiles = [8, 2] %u : tensor<2x8x8x2xf32> -> tensor<16x8xf32>`),
			"bad.mlir:2:70: error: expected 'into', found '%u'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialect.Parse("bad.mlir", []byte(tc.src), dialect.NewRegistry())
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
		})
	}
}
