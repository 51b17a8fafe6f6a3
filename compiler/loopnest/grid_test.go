package loopnest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	_ "github.com/goiree/goiree/compiler/target/vulkan"
)

// TestGridPerVariant forms dispatches for llvm-cpu and vulkan-spirv at once
// and checks that each variant gets its own target's grid: the CPU's 64
// workgroups, the GPU's 8192 with x limited to 65,535, and a GPU matmul
// in tiles of 128 rows whose 64-column blocks are z layers.
func TestGridPerVariant(t *testing.T) {
	const src = `func.func @f(%x: tensor<20000x64xi32>, %i: tensor<20000xi32>, %a: tensor<4096x16xf32>, %b: tensor<16x700xf32>, %c: tensor<4096x700xf32>) -> (tensor<20000xi32>, tensor<4096x700xf32>) {
  %r = linalg.reduce { arith.addi } ins(%x : tensor<20000x64xi32>) outs(%i : tensor<20000xi32>) dimensions = [1]
  %m = linalg.matmul ins(%a, %b : tensor<4096x16xf32>, tensor<16x700xf32>) outs(%c : tensor<4096x700xf32>) -> tensor<4096x700xf32>
  return %r, %m : tensor<20000xi32>, tensor<4096x700xf32>
}`
	_, m := parse(t, src)
	targets := []*hal.ExecutableTargetAttr{
		{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"},
		{Backend: "vulkan-spirv", Format: "vulkan-spirv-fb"},
	}
	if _, err := loopnest.Form(m.Op, targets); err != nil {
		t.Fatal(err)
	}
	// Each variant: its kernel's tile and its count region's ops.
	var got []string
	ir.Walk(m.Op, func(o *ir.Operation) bool {
		if o.Name != "hal.executable.variant" {
			return true
		}
		var tile int64
		var count []string
		ir.Walk(o, func(c *ir.Operation) bool {
			if d, ok := c.Attr(loopnest.Attr).(*ir.DictAttr); ok {
				k, err := loopnest.Decode(d)
				if err != nil {
					t.Fatal(err)
				}
				tile = k.Tile
			}
			if c.Name == "hal.executable.export" {
				for _, r := range c.Regions[0].Blocks[0].Ops {
					s := r.Name
					if v, ok := r.Attr("value").(ir.IntegerAttr); ok {
						s += fmt.Sprint(" ", v.Value)
					}
					if mp := r.Attr("map"); mp != nil {
						s += " " + ir.AttrString(mp)
					}
					count = append(count, s)
				}
			}
			return true
		})
		got = append(got, fmt.Sprintf("%s %s tile %d: %s", o.ParentOp().SymName(), o.SymName(), tile, strings.Join(count, "; ")))
		return false
	})
	want := []string{
		"f_linalg_0 x86_64 tile 313: affine.apply affine_map<()[s0] -> (s0 ceildiv 313)>; arith.constant 1; hal.return",
		"f_linalg_0 vulkan_spirv_fb tile 3: affine.apply affine_map<()[s0] -> (s0 ceildiv 3)>; arith.constant 1; arith.constant 65535; arith.minui; affine.apply affine_map<()[s0] -> (s0 ceildiv 65535)>; hal.return",
		"f_linalg_1 x86_64 tile 64: affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>; arith.constant 1; hal.return",
		"f_linalg_1 vulkan_spirv_fb tile 128: affine.apply affine_map<()[s0] -> (s0 ceildiv 128)>; arith.constant 1; arith.constant 11; arith.constant 65535; arith.minui; affine.apply affine_map<()[s0] -> (s0 ceildiv 65535)>; hal.return",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("variants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
