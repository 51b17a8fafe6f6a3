package hal

import (
	"errors"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
)

func TestGeneratedExecutable(t *testing.T) {
	x86 := &ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"}
	arm := &ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-arm_64"}
	layout := &PipelineLayoutAttr{Constants: 1, Bindings: []Binding{{Type: "storage_buffer"}}}
	name := func(t *ExecutableTargetAttr, used map[string]bool) string {
		n := t.Format[strings.LastIndex(t.Format, "-")+1:]
		used[n] = true
		return n
	}
	var filled []string
	g := &GeneratedExecutable{
		Name: "gen", Export: "gen_entry", Layout: layout, Tile: 64, Targets: []*ExecutableTargetAttr{x86, arm},
		VariantName: name,
		Module: func(t *ExecutableTargetAttr, mb *ir.Block) error {
			filled = append(filled, t.Format)
			return nil
		},
	}
	exe, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	var variants, exports, counts []string
	ir.Walk(exe, func(o *ir.Operation) bool {
		switch o.Name {
		case "hal.executable.variant":
			variants = append(variants, o.Attr("sym_name").(ir.StringAttr).Value)
		case "hal.executable.export":
			exports = append(exports, o.Attr("sym_name").(ir.StringAttr).Value)
		case "affine.apply":
			counts = append(counts, ir.AttrString(o.Attr("map")))
		}
		return true
	})
	if strings.Join(variants, ",") != "x86_64,arm_64" || strings.Join(exports, ",") != "gen_entry,gen_entry" {
		t.Errorf("variants %v, exports %v", variants, exports)
	}
	if len(counts) != 2 || !strings.Contains(counts[0], "ceildiv 64") {
		t.Errorf("count regions %v, want ceildiv 64 in each", counts)
	}
	if strings.Join(filled, ",") != "embedded-elf-x86_64,embedded-elf-arm_64" {
		t.Errorf("Module called for %v", filled)
	}

	// A failing Module is the builder's error.
	boom := errors.New("no kernel for this target")
	g.Module = func(*ExecutableTargetAttr, *ir.Block) error { return boom }
	if _, err := g.Build(); !errors.Is(err, boom) {
		t.Errorf("Build error = %v, want %v", err, boom)
	}
}
