package vmvx_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/backend"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vmvx"
	"github.com/goiree/goiree/compiler/transforms"
	rhal "github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
)

// variants compiles src for vmvx up to executable-sources and returns its
// vmvx variants.
func variants(t *testing.T, src string) []*ir.Operation {
	t.Helper()
	s, err := pipeline.Compile("in.mlir", []byte(src), pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"vmvx"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	var out []*ir.Operation
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "hal.executable.variant" {
			if tg := hal.VariantTarget(op); tg != nil && tg.Backend == "vmvx" {
				out = append(out, op)
			}
		}
		return true
	})
	if len(out) == 0 {
		t.Fatal("no vmvx variant")
	}
	return out
}

// TestBoundsChecks runs a compiled loop-nest kernel with bindings shorter
// than its shapes and with dynamic sizes that disagree: each fails the
// dispatch with the kernel's check, naming the entry point, instead of
// touching memory outside a binding.
func TestBoundsChecks(t *testing.T) {
	const src = `
func.func @add(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%a, %b : tensor<?x4xf32>, tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}`
	vs := variants(t, src)
	data, err := vmvx.Build(vs[0])
	if err != nil {
		t.Fatal(err)
	}
	exe, err := local.Load(rhal.ExecutableParams{Name: "@add_dispatch", Format: local.FormatVMVX, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Release()
	ex := exe.Exports()
	if len(ex) != 1 || ex[0].BindingCount != 3 {
		t.Fatalf("exports = %+v", ex)
	}
	full := make([]byte, 3*4*4)
	for _, tc := range []struct {
		name      string
		constants []uint32
		bindings  [][]byte
		want      string
	}{
		{"ok", []uint32{3, 3, 3}, [][]byte{full, full, full}, ""},
		{"short input", []uint32{3, 3, 3}, [][]byte{full[:40], full, full}, "binding 0 (input #0) is shorter than its shape"},
		{"short output", []uint32{3, 3, 3}, [][]byte{full, full, full[:47]}, "binding 2 (output #0) is shorter than its shape"},
		{"sizes differ", []uint32{3, 2, 3}, [][]byte{full, full, full}, "dimension 0 of binding 1 differs from the range of loop d0"},
	} {
		consts := tc.constants[:ex[0].ConstantCount]
		d, err := exe.PrepareDispatch(0, [3]uint32{1, 1, 1}, consts, tc.bindings, 1)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err = d.Run(0, nil, 0, 1)
		d.Release()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "@add_dispatch") || !strings.Contains(err.Error(), "OUT_OF_RANGE")):
			t.Errorf("%s: got %v, want an OUT_OF_RANGE error naming @add_dispatch and containing %q", tc.name, err, tc.want)
		}
	}
}

// TestRefused: what vmvx does not compile is a clear error at its source
// location.
func TestRefused(t *testing.T) {
	const objects = `
module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb">]> : !hal.device]} {
  hal.executable private @ex {
    hal.executable.variant public @v target(#hal.executable.target<"vmvx", "vmvx-bytecode-fb">) objects([#hal.executable.object<{path = "k.o"}>]) {
      hal.executable.export public @k ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
    }
  }
}`
	s, err := pipeline.Parse("objects.mlir", []byte(objects), pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var variant *ir.Operation
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "hal.executable.variant" {
			variant = op
		}
		return true
	})
	if _, err := vmvx.Build(variant); err == nil || !strings.Contains(err.Error(), "objects.mlir:4:") || !strings.Contains(err.Error(), "vmvx executables cannot link executable objects") {
		t.Errorf("objects: %v", err)
	}
	const handWritten = `
module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"vmvx", "vmvx-bytecode-fb">]> : !hal.device]} {
  hal.executable private @ex {
    hal.executable.variant public @v target(#hal.executable.target<"vmvx", "vmvx-bytecode-fb">) {
      hal.executable.export public @k ordinal(0) layout(#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>)
      builtin.module {
        func.func @k() {
          return
        }
      }
    }
  }
}`
	s, err = pipeline.Parse("hand.mlir", []byte(handWritten), pipeline.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name == "hal.executable.variant" {
			variant = op
		}
		return true
	})
	if _, err := vmvx.Build(variant); err == nil || !strings.Contains(err.Error(), "hand.mlir:7:") || !strings.Contains(err.Error(), "@k is a hand-written dispatch function") {
		t.Errorf("hand-written: %v", err)
	}
}

// TestFlagSpellings: both of IREE's spellings of the vmvx target give the
// same module.
func TestFlagSpellings(t *testing.T) {
	src := []byte(`func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r : tensor<4xf32>
}`)
	var outs [][]byte
	for _, o := range []transforms.TargetOptions{
		{Backends: []string{"vmvx"}},
		{Devices: []string{"local"}, LocalBackends: []string{"vmvx"}},
	} {
		s, err := pipeline.Compile("f.mlir", src, pipeline.Options{Targets: o}, "")
		if err != nil {
			t.Fatal(err)
		}
		out, err := backend.Compile(s.Module.Op, backend.Options{Registry: s.Registry, Targets: s.Targets})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(out, []byte("vmvx-bytecode-fb")) {
			t.Errorf("%+v: the module names no vmvx executable", o)
		}
		outs = append(outs, out)
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Errorf("--iree-hal-target-backends=vmvx and --iree-hal-target-device=local --iree-hal-local-target-device-backends=vmvx differ")
	}
}
