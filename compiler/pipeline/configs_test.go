package pipeline_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/vulkan"
	"github.com/goiree/goiree/compiler/transforms"
	"github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
	"github.com/goiree/goiree/runtime/schemas/spirv"
	"github.com/goiree/goiree/runtime/vm"
)

const configsProgram = `func.func @mm(%a: tensor<300x64xf32>, %b: tensor<64x200xf32>, %c: tensor<300x200xf32>) -> tensor<300x200xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<300x64xf32>, tensor<64x200xf32>) outs(%c : tensor<300x200xf32>) -> tensor<300x200xf32>
  return %r : tensor<300x200xf32>
}
func.func @sm(%x: tensor<16x512xf32>) -> tensor<16x512xf32> {
  %e = tensor.empty() : tensor<16x512xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<16x512xf32>) outs(%e : tensor<16x512xf32>) -> tensor<16x512xf32>
  return %r : tensor<16x512xf32>
}
`

// TestExportConfigsShown compiles a matmul and a softmax to
// executable-configurations for cuda and vulkan-spirv: every export
// carries the translation_info and lowering_config its build records in
// the payload (checked against the payload of a full compile), and
// resuming from the printed IR builds the same module bytes.
func TestExportConfigsShown(t *testing.T) {
	for _, backend := range []string{"cuda", "vulkan-spirv"} {
		t.Run(backend, func(t *testing.T) {
			if _, err := (vulkan.Options{}).FindGlslc(); backend == "vulkan-spirv" && err != nil {
				t.Skipf("skipping: %v", err)
			}
			opts := pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{backend}}}
			s, err := pipeline.Compile("cfg.mlir", []byte(configsProgram), opts, "executable-configurations")
			if err != nil {
				t.Fatal(err)
			}
			text := s.PrintDebug()
			printed := s.Print()
			shown := map[string]string{}
			ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
				if op.Name != "hal.executable.export" {
					return true
				}
				ti, ok := op.Attr("translation_info").(*ir.OpaqueAttr)
				if !ok {
					return false
				}
				s := "#iree_codegen.translation_info<" + ti.Body + ">"
				if lc, ok := op.Attr("lowering_config").(*ir.OpaqueAttr); ok {
					s += " #iree_codegen.lowering_config<" + lc.Body + ">"
				}
				shown[op.SymName()] = s
				if !strings.Contains(printed, "translation_info = #iree_codegen.translation_info<"+ti.Body+">") {
					t.Errorf("@%s: the printed IR lacks its translation_info", op.SymName())
				}
				return false
			})
			full, err := pipeline.Compile("cfg.mlir", []byte(configsProgram), opts, "end")
			if err != nil {
				t.Fatal(err)
			}
			recorded := payloadConfigs(t, full.Output)
			if len(recorded) == 0 || len(shown) != len(recorded) {
				t.Fatalf("%d exports annotated, %d configs recorded:\n%s", len(shown), len(recorded), s.Print())
			}
			for name, c := range recorded {
				if got := shown[name]; got != c.String() {
					t.Errorf("@%s: shown %q, recorded %q", name, got, c.String())
				}
			}
			// The annotations do not change what is built.
			resumed, err := pipeline.Parse("cfg.mlir", []byte(text), opts)
			if err != nil {
				t.Fatal(err)
			}
			pipeline.RestoreLocations(resumed.Module)
			if err := pipeline.Run(resumed, pipeline.RunOptions{From: "executable-configurations"}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(resumed.Output, full.Output) {
				t.Errorf("resuming from executable-configurations built %d bytes, a straight compile %d", len(resumed.Output), len(full.Output))
			}
		})
	}
}

// payloadConfigs decodes the configs of every GPU payload of a module, by
// entry point (the first image's for cuda).
func payloadConfigs(t *testing.T, module []byte) map[string]kernelconfig.Config {
	t.Helper()
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kernelconfig.Config{}
	for _, seg := range m.RodataSegments() {
		d := seg.Data
		switch {
		case len(d) >= 8 && string(d[4:8]) == cuda.FileIdentifier:
			exe, err := cuda.Unmarshal(d)
			if err != nil {
				t.Fatal(err)
			}
			for i, ep := range exe.EntryPoints {
				out[ep.Name] = exe.Images[0].Configs[i]
			}
		case len(d) >= 8 && string(d[4:8]) == spirv.FileIdentifier:
			exe, err := spirv.Unmarshal(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, ep := range exe.EntryPoints {
				out[ep.Name] = ep.Config
			}
		}
	}
	return out
}
