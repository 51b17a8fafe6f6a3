package transforms

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// shimProgram is an executable whose llvm-cpu variant has exports and no
// builtin.module; ATTRS is replaced by the first export's attributes.
const shimProgram = `#cpu = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>
module {
  hal.executable private @exe {
    hal.executable.variant public @x86 target(#cpu) objects([#hal.executable.object<{path = "k.o"}>]) {
      hal.executable.export public @first ordinal(0) layout(#layout) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %n, %c1, %c1 : index, index, index
      } attributes ATTRS
      hal.executable.export public @second ordinal(1) layout(#layout) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %n, %c1, %c1 : index, index, index
      } attributes {goiree.cpu_function = "second_fn"}
    }
  }
}
`

func runShims(t *testing.T, attrs string) (*ir.Module, *ir.Registry, error) {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := ir.Parse("shim.mlir", []byte(strings.Replace(shimProgram, "ATTRS", attrs, 1)), reg)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return m, reg, GenerateCPUShims(m.Op, reg)
}

func TestGenerateCPUShims(t *testing.T) {
	for _, tc := range []struct {
		name  string
		attrs string
		want  []string // lines of the generated module, in order
	}{
		{
			name:  "bareptr default",
			attrs: `{goiree.cpu_function = "first_fn"}`,
			want: []string{
				`func.func private @first_fn(memref<?xi8>, memref<?xi8>, i32, i32, index, index, index) attributes {hal.import.static, llvm.bareptr}`,
				`func.func @first() {`,
				`%k0 = hal.interface.constant.load[0] : i32`,
				`%k1 = hal.interface.constant.load[1] : i32`,
				`%b0 = hal.interface.binding.subspan set(0) binding(0) type(storage_buffer) alignment(64) offset(%c0) : memref<?xi8>{%c0}`,
				`%b1 = hal.interface.binding.subspan set(0) binding(1) type(storage_buffer) alignment(64) offset(%c0) : memref<?xi8>{%c0}`,
				`%id0 = hal.interface.workgroup.id[0] : index`,
				`%id2 = hal.interface.workgroup.id[2] : index`,
				`func.call @first_fn(%b0, %b1, %k0, %k1, %id0, %id1, %id2) : (memref<?xi8>, memref<?xi8>, i32, i32, index, index, index) -> ()`,
				`func.func private @second_fn(`,
				`func.func @second() {`,
			},
		},
		{
			name:  "memref with types and sizes",
			attrs: `{goiree.cpu_function = "first_fn", goiree.cpu_arguments = "memref", goiree.cpu_binding_types = [f32, i32], goiree.cpu_binding_sizes = [1, 0], goiree.cpu_constant_types = [index, f32]}`,
			want: []string{
				`func.func private @first_fn(memref<?xf32>, memref<?xi32>, index, f32, index, index, index) attributes {hal.import.static}`,
				`%k0_index = arith.index_castui %k0 : i32 to index`,
				`%k1_index = arith.index_castui %k1 : i32 to index`,
				`%b0 = hal.interface.binding.subspan set(0) binding(0) type(storage_buffer) alignment(64) offset(%c0) : memref<?xf32>{%k1_index}`,
				`%b1 = hal.interface.binding.subspan set(0) binding(1) type(storage_buffer) alignment(64) offset(%c0) : memref<?xi32>{%k0_index}`,
				`%k1_f32 = arith.bitcast %k1 : i32 to f32`,
				`func.call @first_fn(%b0, %b1, %k0_index, %k1_f32, %id0, %id1, %id2)`,
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, reg, err := runShims(t, tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if err := dialect.Verify(reg, m.Op); err != nil {
				t.Fatalf("generated IR does not verify: %v", err)
			}
			v := Variants(m.Op)[0]
			inner := hal.InnerModule(v)
			if inner == nil {
				t.Fatal("no builtin.module generated")
			}
			for _, name := range []string{"first", "second"} {
				if fn := ir.LookupSymbolIn(inner, name); fn == nil || fn.Body() == nil {
					t.Errorf("no shim function @%s", name)
				}
			}
			for _, o := range inner.Body().Ops {
				if o.Body() != nil && findExport(v, o.SymName()) == nil {
					t.Errorf("shim @%s serves no export", o.SymName())
				}
			}
			got := ir.PrintModule(m, reg, ir.PrintOptions{})
			at := 0
			for _, w := range tc.want {
				i := strings.Index(got[at:], w)
				if i < 0 {
					t.Fatalf("generated shims lack (in order) %q:\n%s", w, got)
				}
				at += i + len(w)
			}
		})
	}
}

func findExport(v *ir.Operation, name string) *ir.Operation {
	for _, o := range v.Body().Ops {
		if o.Name == "hal.executable.export" && o.SymName() == name {
			return o
		}
	}
	return nil
}

func TestGenerateCPUShimsErrors(t *testing.T) {
	for _, tc := range []struct {
		attrs, want string
	}{
		{`{goiree.cpu_function = 3}`, `goiree.cpu_function must be a string naming a C function (a C identifier), found 3`},
		{`{goiree.cpu_function = "not a name"}`, `goiree.cpu_function must be a string naming a C function (a C identifier), found "not a name"`},
		{`{goiree.cpu_function = "second"}`, `goiree.cpu_function = "second" names an export of the variant; the C function needs a name of its own`},
		{`{goiree.cpu_function = "f", goiree.cpu_arguments = "pointers"}`, `goiree.cpu_arguments must be "bareptr" or "memref", found "pointers"`},
		{`{goiree.cpu_function = "f", goiree.cpu_binding_types = [f32]}`, `goiree.cpu_binding_types must be an array of 2 types (one per binding), found [f32]`},
		{`{goiree.cpu_function = "f", goiree.cpu_binding_types = [f32, vector<4xf32>]}`, `goiree.cpu_binding_types: entry 1 is vector<4xf32>, which is not a supported binding type`},
		{`{goiree.cpu_function = "f", goiree.cpu_constant_types = [i32, i64]}`, `goiree.cpu_constant_types: entry 1 is i64, which is not a supported constant type`},
		{`{goiree.cpu_function = "f", goiree.cpu_binding_sizes = [0, 0]}`, `goiree.cpu_binding_sizes applies to goiree.cpu_arguments = "memref" only`},
		{`{goiree.cpu_function = "f", goiree.cpu_arguments = "memref"}`, `goiree.cpu_arguments = "memref" needs goiree.cpu_binding_sizes, an array of 2 push-constant ordinals giving each binding's element count, found none`},
		{`{goiree.cpu_function = "f", goiree.cpu_arguments = "memref", goiree.cpu_binding_sizes = [0, 2]}`, `goiree.cpu_binding_sizes: entry 1 is 2, not a push-constant ordinal in [0, 2)`},
		{`{goiree.cpu_function = "second_fn", goiree.cpu_arguments = "memref", goiree.cpu_binding_sizes = [0, 0]}`, `C function "second_fn" is called by two exports with different signatures`},
	} {
		_, _, err := runShims(t, tc.attrs)
		if err == nil {
			t.Errorf("%s: no error, want %q", tc.attrs, tc.want)
			continue
		}
		if !strings.HasPrefix(err.Error(), "shim.mlir:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant shim.mlir:...: %s", tc.attrs, err, tc.want)
		}
	}
}

// TestGenerateCPUShimsLeavesOthers checks that variants of other targets
// keep the attributes and get no shims, and that CPU exports without the
// attribute are left to hand-written shims.
func TestGenerateCPUShimsLeavesOthers(t *testing.T) {
	for _, tc := range []struct{ name, attrs, from, to string }{
		{"cuda variant with the attributes", `{goiree.cpu_function = "first_fn"}`, `"llvm-cpu", "embedded-elf-x86_64"`, `"cuda", "cuda-nvptx-fb"`},
		{"cpu exports without the attribute", "{}", `{goiree.cpu_function = "second_fn"}`, "{}"},
	} {
		reg := dialect.NewRegistry()
		src := strings.Replace(strings.Replace(shimProgram, "ATTRS", tc.attrs, 1), tc.from, tc.to, 1)
		m, err := ir.Parse("shim.mlir", []byte(src), reg)
		if err != nil {
			t.Fatal(err)
		}
		before := ir.PrintModule(m, reg, ir.PrintOptions{})
		if err := GenerateCPUShims(m.Op, reg); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if after := ir.PrintModule(m, reg, ir.PrintOptions{}); after != before {
			t.Errorf("%s: module changed:\n%s", tc.name, after)
		}
	}
}

// TestGenerateCPUShimsIntoExistingModule: a variant with a hand-written
// builtin.module keeps it and gains the generated functions; a clash with
// a hand-written function is an error.
func TestGenerateCPUShimsIntoExistingModule(t *testing.T) {
	module := `
      builtin.module {
        func.func private @hand_fn(memref<?xf32>, index) attributes {hal.import.static}
        func.func @HAND() {
          %c0 = arith.constant 0 : index
          %b = hal.interface.binding.subspan set(0) binding(0) type(storage_buffer) offset(%c0) alignment(64) : memref<?xf32>{%c0}
          func.call @hand_fn(%b, %c0) : (memref<?xf32>, index) -> ()
          return
        }
      }
    }`
	for _, tc := range []struct {
		hand, want string
	}{
		{"third", ""},
		{"second", "has goiree.cpu_function but the variant's builtin.module already defines @second; remove one of them"},
	} {
		reg := dialect.NewRegistry()
		src := strings.Replace(shimProgram, "ATTRS", `{goiree.cpu_function = "first_fn"}`, 1)
		// The hand-written module goes at the end of the variant's body.
		i := strings.LastIndex(src, "    }\n  }\n}")
		src = src[:i] + strings.Replace(module, "HAND", tc.hand, 1) + "\n  }\n}\n"
		if tc.hand == "third" {
			src = strings.Replace(src, "      hal.executable.export public @second", `      hal.executable.export public @third ordinal(2) layout(#layout) count(%device: !hal.device, %n: index) -> (index, index, index) {
        %c1 = arith.constant 1 : index
        hal.return %n, %c1, %c1 : index, index, index
      }
      hal.executable.export public @second`, 1)
		}
		m, err := ir.Parse("shim.mlir", []byte(src), reg)
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, src)
		}
		err = GenerateCPUShims(m.Op, reg)
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := dialect.Verify(reg, m.Op); err != nil {
			t.Fatalf("result does not verify: %v", err)
		}
		v := Variants(m.Op)[0]
		var modules int
		for _, o := range v.Body().Ops {
			if o.Name == "builtin.module" {
				modules++
			}
		}
		inner := hal.InnerModule(v)
		if modules != 1 || inner == nil {
			t.Fatalf("%d builtin.modules in the variant, want 1", modules)
		}
		for _, name := range []string{"hand_fn", "third", "first", "first_fn", "second", "second_fn"} {
			if ir.LookupSymbolIn(inner, name) == nil {
				t.Errorf("@%s missing from the module", name)
			}
		}
	}
}

// TestGenerateCPUShimsSeedSets: with a seed layout of two sets listed out
// of order, the function's pointers come in (set, binding) order.
func TestGenerateCPUShimsSeedSets(t *testing.T) {
	src := strings.Replace(shimProgram, `#layout = #hal.pipeline.layout<constants = 2, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>`, `#layout = #hal.pipeline.layout<push_constants = 0, sets = [
  <1, bindings = [<3, storage_buffer>, <0, storage_buffer, ReadOnly>]>,
  <0, bindings = [<5, storage_buffer>]>
]>`, 1)
	src = strings.Replace(src, "ATTRS", `{goiree.cpu_function = "first_fn", goiree.cpu_binding_types = [f32, f64, i32]}`, 1)
	reg := dialect.NewRegistry()
	m, err := ir.Parse("shim.mlir", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := GenerateCPUShims(m.Op, reg); err != nil {
		t.Fatal(err)
	}
	got := ir.PrintModule(m, reg, ir.PrintOptions{})
	for _, w := range []string{
		`func.func private @first_fn(memref<?xf32>, memref<?xf64>, memref<?xi32>, index, index, index)`,
		`%b0 = hal.interface.binding.subspan set(0) binding(5)`,
		`%b1 = hal.interface.binding.subspan set(1) binding(0)`,
		`%b2 = hal.interface.binding.subspan set(1) binding(3)`,
	} {
		if !strings.Contains(got, w) {
			t.Errorf("generated shims lack %q:\n%s", w, got)
		}
	}
}
