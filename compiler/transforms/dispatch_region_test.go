package transforms

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
)

// regionProgram is a host function with an inline dispatch; BODY is the
// region body before its flow.return and COUNT the count region's body.
const regionProgram = `func.func @f(%x: tensor<?xf32>, %k: f32, %n: index) -> tensor<?xf32> {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %dest = tensor.empty(%n) : tensor<?xf32>
  %0 = flow.dispatch.region[%c2] -> (tensor<?xf32>{%n}) {
    %id = flow.dispatch.workgroup.id[0] : index
BODY
  } count(%w: index) -> (index, index, index) {
COUNT
  }
  return %0 : tensor<?xf32>
}
`

const goodBody = `    %xs = tensor.extract_slice %x[%id] [%c2] [1] : tensor<?xf32> to tensor<?xf32>
    %os = tensor.extract_slice %dest[%id] [%c2] [1] : tensor<?xf32> to tensor<?xf32>
    %r = iree_codegen.ukernel.generic "kern" ins(%xs : tensor<?xf32>) outs(%os : tensor<?xf32>) (%k, %id : f32, index) fn_def_attrs {hal.import.fields = ["processor_id"]} strided_dims([[0], []]) -> tensor<?xf32>
    %ins = tensor.insert_slice %r into %dest[%id] [%c2] [1] : tensor<?xf32> into tensor<?xf32>
    flow.return %ins : tensor<?xf32>`

const goodCount = `    flow.return %w, %c1, %c1 : index, index, index`

func outlineRegion(t *testing.T, body, count string) (*ir.Module, *ir.Registry, error) {
	t.Helper()
	reg := dialect.NewRegistry()
	src := strings.Replace(strings.Replace(regionProgram, "BODY", body, 1), "COUNT", count, 1)
	m, err := ir.Parse("region.mlir", []byte(src), reg)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return m, reg, OutlineDispatchRegions(m.Op, reg)
}

func TestOutlineDispatchRegion(t *testing.T) {
	m, reg, err := outlineRegion(t, goodBody, goodCount)
	if err != nil {
		t.Fatal(err)
	}
	got := ir.PrintModule(m, reg, ir.PrintOptions{})
	// The lines that must appear, in order.
	want := []string{
		`stream.executable private @f_dispatch_0 {`,
		`stream.executable.export public @f_dispatch_0 workgroups(%w0: index) -> (index, index, index) {`,
		`stream.return %w0, %c1, %c1 : index, index, index`,
		// ins/outs: base and offset each, then the strides strided_dims
		// names (dimension 0 of the input only), then the other operands.
		`func.func private @kern(memref<f32>, index, index, memref<f32>, index, f32, index) attributes {llvm.bareptr = true, hal.import.fields = ["processor_id"]}`,
		// Bindings (input, then the result), the dynamic dims (input's,
		// result's), the captured scalar.
		`func.func @f_dispatch_0(%b0: !stream.binding, %b1: !stream.binding, %d0: index, %d1: index, %s0: f32) {`,
		`stream.binding.subspan %b0[%c0] : !stream.binding -> memref<?xf32>{%d0}`,
		`stream.binding.subspan %b1[%c0] : !stream.binding -> memref<?xf32>{%d1}`,
		`%id = flow.dispatch.workgroup.id[0] : index`,
		// The captured constant is cloned; the slice offset is base offset
		// plus offset times stride.
		`= arith.muli %id, %stride0_0 : index`,
		`= arith.addi %off0, `,
		`func.call @kern(%base0, `,
		`func.func @f(`,
		`= tensor.dim %x, `,
		`= flow.dispatch @f_dispatch_0::@f_dispatch_0[%c2](%x, `,
		`-> tensor<?xf32>{%n}`,
	}
	at := 0
	for _, w := range want {
		i := strings.Index(got[at:], w)
		if i < 0 {
			t.Fatalf("outlined module lacks %q after offset %d:\n%s", w, at, got)
		}
		at += i + len(w)
	}
	for _, gone := range []string{"flow.dispatch.region", "tensor.empty", "ukernel.generic", "tensor.extract_slice", "tensor.insert_slice"} {
		if strings.Contains(got, gone) {
			t.Errorf("outlined module still contains %s:\n%s", gone, got)
		}
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Errorf("outlined module does not verify: %v\n%s", err, got)
	}
}

// TestOutlineWholeDestination outlines a region whose microkernel writes
// the whole destination (no slices).
func TestOutlineWholeDestination(t *testing.T) {
	body := `    %r = iree_codegen.ukernel.generic "whole" ins(%x : tensor<?xf32>) outs(%dest : tensor<?xf32>) (%n : index) -> tensor<?xf32>
    flow.return %r : tensor<?xf32>`
	m, reg, err := outlineRegion(t, body, goodCount)
	if err != nil {
		t.Fatal(err)
	}
	got := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, w := range []string{
		`func.func private @whole(memref<f32>, index, memref<f32>, index, index) attributes {llvm.bareptr = true}`,
		`func.call @whole(%base0, %off0, %base1, %off1, %s0)`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("outlined module lacks %q:\n%s", w, got)
		}
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Errorf("outlined module does not verify: %v\n%s", err, got)
	}
}

func TestOutlineDispatchRegionErrors(t *testing.T) {
	tests := []struct {
		name, body, count, want string
	}{
		{"result not in tensor.empty",
			`    flow.return %x : tensor<?xf32>`, goodCount,
			"result must be built in a tensor.empty captured from the host (found 'a block argument')"},
		{"tensor arithmetic",
			`    %e = arith.addf %x, %x : tensor<?xf32>
    %ins = tensor.insert_slice %e into %dest[%id] [%c2] [1] : tensor<?xf32> into tensor<?xf32>
    flow.return %ins : tensor<?xf32>`, goodCount,
			"'arith.addf' on tensors is not supported in an outlined dispatch region"},
		{"insert of something not computed in place",
			`    %xs = tensor.extract_slice %x[%id] [%c2] [1] : tensor<?xf32> to tensor<?xf32>
    %ins = tensor.insert_slice %xs into %dest[%id] [%c2] [1] : tensor<?xf32> into tensor<?xf32>
    flow.return %ins : tensor<?xf32>`, goodCount,
			"tensor.insert_slice only of a microkernel result into the slice of the destination it was computed in"},
		{"count region uses a host value",
			goodBody, `    flow.return %n, %c1, %c1 : index, index, index`,
			"the workgroup count region may use only its arguments and constants"},
		{"strided dimension out of range",
			strings.Replace(goodBody, "strided_dims([[0], []])", "strided_dims([[3], []])", 1), goodCount,
			"strided_dims names dimension 3 of a rank-1 operand"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := outlineRegion(t, tc.body, tc.count)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "region.mlir:") {
				t.Errorf("error %q does not name the source location", err)
			}
		})
	}
}
