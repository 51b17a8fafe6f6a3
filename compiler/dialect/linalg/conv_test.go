package linalg_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/ir"
)

const convProgram = `func.func @f(%x: tensor<1x7x9x3xf32>, %w: tensor<3x2x3x4xf32>, %o: tensor<1x3x4x4xf32>, %dw: tensor<3x2x3xf32>, %od: tensor<1x3x4x3xf32>,
    %xc: tensor<1x3x7x9xf32>, %wc: tensor<4x3x3x2xf32>, %oc: tensor<1x4x3x4xf32>, %win: tensor<3x3xf32>, %op: tensor<1x2x3x3xf32>, %s: tensor<2x5xf16>) -> tensor<1x3x4x4xf32> {
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x7x9x3xf32>, tensor<3x2x3x4xf32>) outs(%o : tensor<1x3x4x4xf32>) -> tensor<1x3x4x4xf32>
  %d = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<[1, 2]> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %dw : tensor<1x7x9x3xf32>, tensor<3x2x3xf32>) outs(%od : tensor<1x3x4x3xf32>) -> tensor<1x3x4x3xf32>
  %n = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<[2, 2]> : tensor<2xi64>} ins(%xc, %wc : tensor<1x3x7x9xf32>, tensor<4x3x3x2xf32>) outs(%oc : tensor<1x4x3x4xf32>) -> tensor<1x4x3x4xf32>
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<[3, 2]> : vector<2xi64>} ins(%x, %win : tensor<1x7x9x3xf32>, tensor<3x3xf32>) outs(%op : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %q = linalg.pooling_nhwc_sum ins(%x, %win : tensor<1x7x9x3xf32>, tensor<3x3xf32>) outs(%op : tensor<1x2x3x3xf32>) -> tensor<1x2x3x3xf32>
  %e = tensor.empty() : tensor<2x5xf16>
  %sm = linalg.softmax dimension(1) ins(%s : tensor<2x5xf16>) outs(%e : tensor<2x5xf16>) -> tensor<2x5xf16>
  return %c : tensor<1x3x4x4xf32>
}`

func TestConvRoundTrip(t *testing.T) {
	text := print(t, "conv", convProgram)
	for _, w := range []string{"linalg.conv_2d_nhwc_hwcf ins(%x, %w", "linalg.softmax dimension(1) ins(%s : tensor<2x5xf16>) outs(%e : tensor<2x5xf16>) -> tensor<2x5xf16>"} {
		if !strings.Contains(text, w) {
			t.Errorf("printed form lacks %q:\n%s", w, text)
		}
	}
}

// TestConvGeneralize checks the windows' maps: input index = output index
// * stride + window index * dilation.
func TestConvGeneralize(t *testing.T) {
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("conv.mlir", []byte(convProgram), reg)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"linalg.conv_2d_nhwc_hwcf":          `[affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5 * 2, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>] ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]`,
		"linalg.depthwise_conv_2d_nhwc_hwc": `[affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d4, d2 * 2 + d5 * 2, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>] ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]`,
		"linalg.conv_2d_nchw_fchw":          `[affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d2 * 2 + d5, d3 * 2 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d4, d5, d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>] ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]`,
		"linalg.pooling_nhwc_max":           `[affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 3 + d4, d2 * 2 + d5, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>] ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]`,
	}
	fn := m.Op.Body().Ops[0]
	for _, op := range fn.Body().Ops {
		w, ok := want[op.Name]
		if !ok {
			continue
		}
		g, err := linalg.Generalize(op)
		if err != nil {
			t.Fatalf("%s: %v", op.Name, err)
		}
		got := ir.AttrString(g.Attr("indexing_maps")) + " " + ir.AttrString(g.Attr("iterator_types"))
		if got != w {
			t.Errorf("%s:\n got %s\nwant %s", op.Name, got, w)
		}
		delete(want, op.Name)
	}
	if len(want) > 0 {
		t.Errorf("not in the program: %v", want)
	}
}

// TestDecomposeSoftmax checks that softmax becomes a max reduction from
// the lowest f16, a sum of exp(x - max) and a division, which verify.
func TestDecomposeSoftmax(t *testing.T) {
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("conv.mlir", []byte(convProgram), reg)
	if err != nil {
		t.Fatal(err)
	}
	n, err := linalg.DecomposeSoftmax(m.Op)
	if err != nil || n != 1 {
		t.Fatalf("DecomposeSoftmax = %d, %v", n, err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatal(err)
	}
	text := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, w := range []string{
		"arith.constant -65504.0 : f16", "linalg.fill", `iterator_types = ["parallel", "reduction"]`, "arith.maximumf",
		"math.exp", "arith.addf", "arith.divf", `iterator_types = ["parallel", "parallel"]`,
	} {
		if !strings.Contains(text, w) {
			t.Errorf("decomposed program lacks %q:\n%s", w, text)
		}
	}
	if strings.Contains(text, "linalg.softmax") {
		t.Errorf("softmax left in:\n%s", text)
	}
}

func TestConvErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"window-too-big", `func.func @f(%x: tensor<1x5x5x1xf32>, %w: tensor<3x3x1x1xf32>, %o: tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32> {
  %c = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x5x5x1xf32>, tensor<3x3x1x1xf32>) outs(%o : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  return %c : tensor<1x3x3x1xf32>
}`, "bad.mlir:2:8: error: 'linalg.conv_2d_nhwc_hwcf' op operand #0 ('tensor<1x5x5x1xf32>') is too small: its dimension 1 (size 5) is indexed by d1 * 2 + d4 up to 6"},
		{"bad-strides", `func.func @f(%x: tensor<1x5x5x1xf32>, %w: tensor<3x3x1x1xf32>, %o: tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32> {
  %c = linalg.conv_2d_nhwc_hwcf {strides = dense<[1, 0]> : tensor<2xi64>} ins(%x, %w : tensor<1x5x5x1xf32>, tensor<3x3x1x1xf32>) outs(%o : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  return %c : tensor<1x3x3x1xf32>
}`, "bad.mlir:2:8: error: 'linalg.conv_2d_nhwc_hwcf' op 'strides' must be two positive integers, found [1 0]"},
		{"pool-rank", `func.func @f(%x: tensor<1x5x5x1xf32>, %w: tensor<3xf32>, %o: tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32> {
  %c = linalg.pooling_nhwc_sum ins(%x, %w : tensor<1x5x5x1xf32>, tensor<3xf32>) outs(%o : tensor<1x3x3x1xf32>) -> tensor<1x3x3x1xf32>
  return %c : tensor<1x3x3x1xf32>
}`, "bad.mlir:2:8: error: 'linalg.pooling_nhwc_sum' op operand #1 must have rank 2, found 'tensor<3xf32>'"},
		{"softmax-dim", `func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = linalg.softmax dimension(2) ins(%x : tensor<4x8xf32>) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}`, "bad.mlir:2:8: error: 'linalg.softmax' op incorrect dimension specified: 2 is outside rank 2"},
		{"softmax-shape", `func.func @f(%x: tensor<4x8xf32>, %o: tensor<4x7xf32>) -> tensor<4x7xf32> {
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%o : tensor<4x7xf32>) -> tensor<4x7xf32>
  return %r : tensor<4x7xf32>
}`, "bad.mlir:2:8: error: 'linalg.softmax' op incompatible output shape: input 'tensor<4x8xf32>', output 'tensor<4x7xf32>'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dialect.Parse("bad.mlir", []byte(tc.src), dialect.NewRegistry())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestExplicitMatmulMaps checks matmul and batch_matmul with their maps
// spelled out (a transposed B, a B broadcast over the batch) and
// batch_matvec: they print, reparse and generalize to those maps.
func TestExplicitMatmulMaps(t *testing.T) {
	src := `func.func @f(%a: tensor<4x8xf32>, %bt: tensor<16x8xf32>, %c: tensor<4x16xf32>, %ba: tensor<2x4x8xf32>, %w: tensor<16x8xf32>, %bc: tensor<2x4x16xf32>, %x: tensor<2x8xi8>, %y: tensor<2x4xi32>, %m: tensor<2x4x8xi8>) -> tensor<4x16xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%a, %bt : tensor<4x8xf32>, tensor<16x8xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %1 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%ba, %w : tensor<2x4x8xf32>, tensor<16x8xf32>) outs(%bc : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  %2 = linalg.batch_matvec ins(%m, %x : tensor<2x4x8xi8>, tensor<2x8xi8>) outs(%y : tensor<2x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<4x16xf32>
}`
	print(t, "maps", src)
	reg := dialect.NewRegistry()
	m, err := dialect.Parse("maps.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`[affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ["parallel", "parallel", "reduction"]`,
		`[affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>] ["parallel", "parallel", "parallel", "reduction"]`,
		`[affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ["parallel", "parallel", "reduction"]`,
	}
	ops := m.Op.Body().Ops[0].Body().Ops
	for i, w := range want {
		g, err := linalg.Generalize(ops[i])
		if err != nil {
			t.Fatalf("%s: %v", ops[i].Name, err)
		}
		if got := ir.AttrString(g.Attr("indexing_maps")) + " " + ir.AttrString(g.Attr("iterator_types")); got != w {
			t.Errorf("%s:\n got %s\nwant %s", ops[i].Name, got, w)
		}
	}
	_, err = dialect.Parse("bad.mlir", []byte(`func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16x4xf32>) -> tensor<16x4xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d1, d0)>] ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<16x4xf32>) -> tensor<16x4xf32>
  return %0 : tensor<16x4xf32>
}`), dialect.NewRegistry())
	if want := "bad.mlir:2:8: error: 'linalg.matmul' op the output's indexing map must be (d0, d1, d2) -> (d0, d1), found (d0, d1, d2) -> (d1, d0)"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
