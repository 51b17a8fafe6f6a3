package hal

import (
	"errors"
	"fmt"
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

// TestGeneratedExecutableGrid checks a variant's own grid: its tile, x
// split into rows (arith.minui and a y count) and a constant z count; the
// other variant keeps Tile x 1 x 1.
func TestGeneratedExecutableGrid(t *testing.T) {
	cpu := &ExecutableTargetAttr{Backend: "llvm-cpu", Format: "embedded-elf-x86_64"}
	gpu := &ExecutableTargetAttr{Backend: "vulkan-spirv", Format: "vulkan-spirv-fb"}
	g := &GeneratedExecutable{
		Name: "gen", Export: "gen_entry", Layout: &PipelineLayoutAttr{}, Tile: 64, Targets: []*ExecutableTargetAttr{cpu, gpu},
		VariantName: func(t *ExecutableTargetAttr, used map[string]bool) string { return t.Backend },
		Grid: func(t *ExecutableTargetAttr) Grid {
			if t == gpu {
				return Grid{Tile: 2, Limit: 65535, Z: 3}
			}
			return Grid{}
		},
		Module: func(*ExecutableTargetAttr, *ir.Block) error { return nil },
	}
	exe, err := g.Build()
	if err != nil {
		t.Fatal(err)
	}
	var regions []string
	ir.Walk(exe, func(o *ir.Operation) bool {
		if o.Name == "hal.executable.export" {
			var ops []string
			for _, c := range o.Regions[0].Blocks[0].Ops {
				s := c.Name
				if m := c.Attr("map"); m != nil {
					s += " " + ir.AttrString(m)
				}
				if v, ok := c.Attr("value").(ir.IntegerAttr); ok && v.Value != 1 && v.Value != 65535 {
					s += fmt.Sprint(" ", v.Value)
				}
				ops = append(ops, s)
			}
			regions = append(regions, strings.Join(ops, "; "))
		}
		return true
	})
	want := []string{
		"affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>; arith.constant; hal.return",
		"affine.apply affine_map<()[s0] -> (s0 ceildiv 2)>; arith.constant; arith.constant 3; arith.constant; arith.minui; affine.apply affine_map<()[s0] -> (s0 ceildiv 65535)>; hal.return",
	}
	if len(regions) != 2 || regions[0] != want[0] || regions[1] != want[1] {
		t.Errorf("count regions:\n%s\nwant:\n%s", strings.Join(regions, "\n"), strings.Join(want, "\n"))
	}
}
