package pipeline

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// exportConfigurer is implemented by the builders of targets whose code
// generators can say, before building, the configuration each generated
// export will be built with (the cuda and vulkan-spirv builders).
type exportConfigurer interface {
	ExportConfigs(variant *ir.Operation) (map[string]kernelconfig.Config, error)
}

// AnnotateExportConfigs is the executable-configurations pass: every
// export of a variant whose target's builder knows its configuration gets
// it as IREE spells it, translation_info =
// #iree_codegen.translation_info<...> and, when it tiles,
// lowering_config = #iree_codegen.lowering_config<...>, so that
// --compile-to=executable-configurations (and later phases) show the
// workgroup and tile sizes the build will record in the executable. The
// attributes are informational: builders decide again when they build and
// ignore them, so IR resumed with --compile-from builds the same bytes;
// attributes already present are replaced. The llvm-cpu target is not
// annotated: its matmul tiles follow the CPU clang compiles for, which
// only the built library records.
func AnnotateExportConfigs(s *State) error {
	builders := s.Builders()
	var err error
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if err != nil {
			return false
		}
		if op.Name != "hal.executable.variant" {
			return true
		}
		t := hal.VariantTarget(op)
		if t == nil || op.Body() == nil {
			return false
		}
		ec, ok := builders[t.Backend].(exportConfigurer)
		if !ok {
			return false
		}
		var configs map[string]kernelconfig.Config
		if configs, err = ec.ExportConfigs(op); err != nil {
			return false
		}
		for _, ex := range op.Body().Ops {
			c, ok := configs[ex.SymName()]
			if ex.Name != "hal.executable.export" || !ok {
				continue
			}
			ex.SetAttr("translation_info", &ir.OpaqueAttr{Name: "iree_codegen.translation_info", Body: c.TranslationInfo()})
			if lc := c.LoweringConfig(); lc != "" {
				ex.SetAttr("lowering_config", &ir.OpaqueAttr{Name: "iree_codegen.lowering_config", Body: lc})
			}
		}
		return false
	})
	return err
}
