package vulkan_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
)

// typesProgram is an elementwise square and a row sum of element type T
// (C is a constant of T): one elementwise loop nest and one shared
// reduction.
const typesProgram = `#id = affine_map<(d0) -> (d0)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @f(%x: tensor<?xT>, %y: tensor<?x?xT>) -> (tensor<?xT>, tensor<?xT>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xT>
  %m = tensor.dim %y, %c0 : tensor<?x?xT>
  %e = tensor.empty(%n) : tensor<?xT>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<?xT>) outs(%e : tensor<?xT>) {
  ^bb0(%a: T, %o: T):
    %p = OP %a, %a : T
    linalg.yield %p : T
  } -> tensor<?xT>
  %z = arith.constant C : T
  %er = tensor.empty(%m) : tensor<?xT>
  %f = linalg.fill ins(%z : T) outs(%er : tensor<?xT>) -> tensor<?xT>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<?x?xT>) outs(%f : tensor<?xT>) {
  ^bb0(%a: T, %acc: T):
    %r = ADD %a, %acc : T
    linalg.yield %r : T
  } -> tensor<?xT>
  return %sq, %s : tensor<?xT>, tensor<?xT>
}`

// SPIR-V capability numbers.
const (
	capShader        = 1
	capFloat16       = 9
	capFloat64       = 10
	capInt64         = 11
	capInt16         = 22
	capInt8          = 39
	capGroupNonUnif  = 61
	capGroupShuffle  = 65
	capStorage16Bit  = 4433
	capDenormKeep    = 4464 // DenormPreserve
	capStorage8Bit   = 4448
	capPushConstant8 = 4450
)

// capabilities lists the OpCapability operands of a SPIR-V module.
func capabilities(t *testing.T, code []uint32) []int {
	t.Helper()
	var caps []int
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 {
			t.Fatalf("bad SPIR-V instruction at word %d", i)
		}
		if code[i]&0xffff == 17 && n == 2 {
			caps = append(caps, int(code[i+1]))
		}
		i += n
	}
	return caps
}

// TestTypeCapabilities: each element type's kernels declare exactly the
// capabilities that type needs. f16 and bf16 use 16-bit storage alone
// (no Float16 or Int16: their arithmetic is f32), i8 and i16 are packed
// into words (no 8- or 16-bit capability), and an f32 program needs
// nothing beyond shaders and subgroup shuffles, so it runs on any device.
func TestTypeCapabilities(t *testing.T) {
	tool := glslc(t)
	for _, tc := range []struct {
		ty, op, add, c string
		want           []int
	}{
		{"f32", "arith.mulf", "arith.addf", "0.0", []int{capShader, capGroupNonUnif, capGroupShuffle}},
		{"f16", "arith.mulf", "arith.addf", "0.0", []int{capShader, capGroupNonUnif, capGroupShuffle, capStorage16Bit}},
		{"bf16", "arith.mulf", "arith.maximumf", "-1.0", []int{capShader, capGroupNonUnif, capGroupShuffle, capStorage16Bit, capDenormKeep}},
		{"f64", "arith.mulf", "arith.addf", "0.0", []int{capShader, capFloat64, capGroupNonUnif, capGroupShuffle}},
		{"i64", "arith.muli", "arith.addi", "0", []int{capShader, capInt64, capGroupNonUnif, capGroupShuffle}},
		{"i32", "arith.muli", "arith.minsi", "7", []int{capShader, capGroupNonUnif, capGroupShuffle}},
		// Packed outputs reduce sequentially, without subgroups.
		{"i16", "arith.muli", "arith.addi", "0", []int{capShader}},
		{"i8", "arith.muli", "arith.xori", "0", []int{capShader}},
	} {
		t.Run(tc.ty, func(t *testing.T) {
			src := strings.NewReplacer("T", tc.ty, "OP", tc.op, "ADD", tc.add, "C", tc.c).Replace(typesProgram)
			s, err := pipeline.Compile("types.mlir", []byte(src), vulkanOptions, "")
			if err != nil {
				t.Fatal(err)
			}
			got := map[int]bool{}
			kernels := 0
			ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
				if op.Name != "hal.executable.variant" || !vulkan.Supports(op) {
					return true
				}
				name := op.ParentOp().SymName()
				glsl, err := vulkan.GenerateGLSL(hal.InnerModule(op), name)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				code, err := vulkan.CompileGLSL(tool, glsl)
				if err != nil {
					t.Fatalf("%s: %v\n%s", name, err, glsl)
				}
				for _, c := range capabilities(t, code) {
					got[c] = true
				}
				kernels++
				return true
			})
			if kernels < 2 {
				t.Fatalf("%d generated kernels, want the square and the sum (and the fill)", kernels)
			}
			var list []int
			for c := range got {
				list = append(list, c)
			}
			sort.Ints(list)
			want := slices.Clone(tc.want)
			sort.Ints(want)
			if fmt.Sprint(list) != fmt.Sprint(want) {
				t.Errorf("capabilities %v, want %v", list, want)
			}
			for _, never := range []int{capFloat16, capInt16, capInt8, capStorage8Bit, capPushConstant8} {
				if got[never] {
					t.Errorf("capability %d declared", never)
				}
			}
		})
	}
}
