package dialect

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/codegen"
	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// The tests in this file feed the parser each construct that IREE's
// samples/custom_dispatch programs use, in the spelling of both eras (the
// Dec 2022 seed and current IREE) and in the layouts those files use. The
// programs are written for this test; they imitate the constructs, not the
// samples' text.

// findOp returns the first op named name whose symbol is sym ("" for any).
func findOp(root *ir.Operation, name, sym string) *ir.Operation {
	var found *ir.Operation
	ir.Walk(root, func(o *ir.Operation) bool {
		if found == nil && o.Name == name && (sym == "" || o.SymName() == sym) {
			found = o
		}
		return found == nil
	})
	return found
}

// TestKernelDeclarations covers the body-less func.func declarations of the
// C kernels a dispatch calls: named or bare arguments, argument and result
// attribute dictionaries, attribute dictionaries laid out on one line or
// many with comments between, as the CPU samples write them. Each case must
// parse, verify, give the same IR as the bare-type spelling (canon, which is
// also how it prints) and round-trip through the printer.
func TestKernelDeclarations(t *testing.T) {
	cases := []struct {
		name string
		src  string // declares @k; the case's caller (if any) must verify against it
		// canon is the declaration as the printer writes it: the bare-type
		// form, which parses to the same IR.
		canon string
		// fnType is the function type later passes read.
		fnType string
		// attrs are the discardable attributes expected on @k, printed.
		attrs map[string]string
		// argAttrs and resAttrs are the printed arg_attrs/res_attrs ("" for none).
		argAttrs, resAttrs string
	}{
		{
			name: "seed/one line of named memref<?xf32> arguments, attributes dictionary on the following lines",
			src: `func.func private @k(%lhs: memref<?xf32>, %rhs: memref<?xf32>, %out: memref<?xf32>, %n: index, %wg: index) attributes {
  // link the symbol from the object statically
  hal.import.static
}
func.func @caller(%a: memref<?xf32>, %n: index) {
  func.call @k(%a, %a, %a, %n, %n) : (memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()
  return
}`,
			canon:  `func.func private @k(memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) attributes {hal.import.static}`,
			fnType: "(memref<?xf32>, memref<?xf32>, memref<?xf32>, index, index) -> ()",
			attrs:  map[string]string{"hal.import.static": "unit"},
		},
		{
			name: "head/two named arguments a line, comments inside the attribute dictionary",
			src: `func.func private @k(
    %b0: memref<f32>, %b0_off: index,
    %b1: memref<f32>, %b1_off: index,
    %n: index, %wg: index) attributes {
  // statically linked from the object file
  hal.import.static,
  // pass bare pointers rather than memref descriptors
  llvm.bareptr = true
}`,
			canon:  `func.func private @k(memref<f32>, index, memref<f32>, index, index, index) attributes {hal.import.static, llvm.bareptr = true}`,
			fnType: "(memref<f32>, index, memref<f32>, index, index, index) -> ()",
			attrs:  map[string]string{"hal.import.static": "unit", "llvm.bareptr": "true"},
		},
		{
			name: "head plugin/one named argument a line, space before the colon, hal.import.fields",
			src: `func.func private @k(
        %b0: memref<f32>,
        %b0_off : index,
        %b1: memref<f32>,
        %b1_off : index, %n: index, %wg : index) attributes {
    // the plugin wants to know which processor runs the call
    hal.import.fields = ["processor_id", "processor_data"],
    llvm.bareptr = true
  }`,
			canon:  `func.func private @k(memref<f32>, index, memref<f32>, index, index, index) attributes {hal.import.fields = ["processor_id", "processor_data"], llvm.bareptr = true}`,
			fnType: "(memref<f32>, index, memref<f32>, index, index, index) -> ()",
			attrs:  map[string]string{"hal.import.fields": `["processor_id", "processor_data"]`, "llvm.bareptr": "true"},
		},
		{
			name: "comments between the arguments",
			src: `func.func private @k(
    // the input
    %in: memref<f32>,
    // its element offset
    %off: index  // trailing comment
    ) attributes {hal.import.static}`,
			canon:  `func.func private @k(memref<f32>, index) attributes {hal.import.static}`,
			fnType: "(memref<f32>, index) -> ()",
			attrs:  map[string]string{"hal.import.static": "unit"},
		},
		{
			name:   "named arguments and no attributes",
			src:    `func.func private @k(%x: i32, %y: tensor<?x4xf32>)`,
			canon:  `func.func private @k(i32, tensor<?x4xf32>)`,
			fnType: "(i32, tensor<?x4xf32>) -> ()",
		},
		{
			name:   "bare types, the form the printer writes",
			src:    `func.func private @k(memref<f32>, index) attributes {hal.import.static, llvm.bareptr = true}`,
			canon:  `func.func private @k(memref<f32>, index) attributes {hal.import.static, llvm.bareptr = true}`,
			fnType: "(memref<f32>, index) -> ()",
			attrs:  map[string]string{"hal.import.static": "unit", "llvm.bareptr": "true"},
		},
		{
			name:     "argument attribute dictionaries on named arguments",
			src:      `func.func private @k(%p: memref<f32> {llvm.noalias}, %n: index, %q: memref<f32> {llvm.noalias, llvm.align = 16 : i64})`,
			canon:    `func.func private @k(memref<f32> {llvm.noalias}, index, memref<f32> {llvm.noalias, llvm.align = 16})`,
			fnType:   "(memref<f32>, index, memref<f32>) -> ()",
			argAttrs: `[{llvm.noalias}, {}, {llvm.noalias, llvm.align = 16}]`,
		},
		{
			name:     "argument attribute dictionaries on bare types",
			src:      `func.func private @k(memref<f32> {llvm.noalias}, index)`,
			canon:    `func.func private @k(memref<f32> {llvm.noalias}, index)`,
			fnType:   "(memref<f32>, index) -> ()",
			argAttrs: `[{llvm.noalias}, {}]`,
		},
		{
			name:     "result attribute dictionaries",
			src:      `func.func private @k(%n: index) -> (i32 {llvm.zeroext}, f32) attributes {hal.import.static}`,
			canon:    `func.func private @k(index) -> (i32 {llvm.zeroext}, f32) attributes {hal.import.static}`,
			fnType:   "(index) -> (i32, f32)",
			resAttrs: `[{llvm.zeroext}, {}]`,
			attrs:    map[string]string{"hal.import.static": "unit"},
		},
		{
			name:   "single result without parentheses",
			src:    `func.func private @k(%n: index) -> i32`,
			canon:  `func.func private @k(index) -> i32`,
			fnType: "(index) -> i32",
		},
		{
			name:   "locations after arguments and results",
			src:    `func.func private @k(%n: index loc("k.c":3:14), %m: f32 loc(unknown)) -> (i32 loc("k.c":3:1))`,
			canon:  `func.func private @k(index, f32) -> i32`,
			fnType: "(index, f32) -> i32",
		},
		{
			name:   "empty argument list with attributes",
			src:    `func.func private @k() attributes {hal.import.static}`,
			canon:  `func.func private @k() attributes {hal.import.static}`,
			fnType: "() -> ()",
			attrs:  map[string]string{"hal.import.static": "unit"},
		},
	}
	reg := NewRegistry()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse("t.mlir", []byte(c.src), reg)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			k := findOp(m.Op, "func.func", "k")
			if k == nil {
				t.Fatalf("no @k")
			}
			if len(k.Regions) != 0 {
				t.Errorf("declaration has %d regions, want none", len(k.Regions))
			}
			if got := ir.PrintOp(k, reg, ir.PrintOptions{}); got != c.canon {
				t.Errorf("printed\n got %s\nwant %s", got, c.canon)
			}
			// The canonical (bare-type) spelling is the same IR: same
			// function type and the same attributes.
			mc, err := Parse("canon.mlir", []byte(c.canon), reg)
			if err != nil {
				t.Fatalf("parse canonical form: %v", err)
			}
			kc := findOp(mc.Op, "func.func", "k")
			if got, want := ir.PrintOp(k, reg, ir.PrintOptions{Generic: true}), ir.PrintOp(kc, reg, ir.PrintOptions{Generic: true}); got != want {
				t.Errorf("named and bare spellings differ:\n%s\n%s", got, want)
			}
			if ft := function.Type(k); ft == nil || ir.TypeString(ft) != c.fnType {
				t.Errorf("function_type = %v, want %s", ft, c.fnType)
			}
			for name, want := range c.attrs {
				a := k.Attr(name)
				if a == nil {
					t.Errorf("attribute %s missing", name)
				} else if got := ir.AttrString(a); got != want {
					t.Errorf("attribute %s = %s, want %s", name, got, want)
				}
			}
			for _, x := range []struct{ name, want string }{{"arg_attrs", c.argAttrs}, {"res_attrs", c.resAttrs}} {
				got := ""
				if a := k.Attr(x.name); a != nil {
					got = ir.AttrString(a)
				}
				if got != x.want {
					t.Errorf("%s = %q, want %q", x.name, got, x.want)
				}
			}
			roundTrip(t, c.name, []byte(c.src))
		})
	}
}

// TestCountRegionTerminators covers the workgroup count regions of exports:
// stream.executable.export ends with stream.return (seed) or hal.return
// (current samples), hal.executable.export with hal.return in both the
// seed's ^bb0 form and the current count(...) form. The terminator is kept
// as written.
func TestCountRegionTerminators(t *testing.T) {
	const layout = "#l = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>, #hal.pipeline.binding<storage_buffer>]>\n"
	const streamBody = `
  builtin.module {
    func.func @f(%in: !stream.binding, %out: !stream.binding, %n: index) {
      return
    }
  }
}`
	cases := []struct {
		name, src, export, ret string
	}{
		{"seed/stream export, stream.return", `stream.executable private @e {
  stream.executable.export public @f workgroups(%w: index) -> (index, index, index) {
    %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%w]
    %c1 = arith.constant 1 : index
    stream.return %x, %c1, %c1 : index, index, index
  }` + streamBody, "stream.executable.export", "stream.return"},
		{"head/stream export, hal.return", `stream.executable private @e {
  stream.executable.export public @f workgroups(%w: index) -> (index, index, index) {
    // one workgroup per 64 elements
    %x = affine.apply affine_map<()[s0] -> (s0 ceildiv 64)>()[%w]
    %c1 = arith.constant 1 : index
    hal.return %x, %c1, %c1 : index, index, index
  }` + streamBody, "stream.executable.export", "hal.return"},
		{"head/stream export without a count region", `stream.executable private @e {
  stream.executable.export public @f` + streamBody, "stream.executable.export", ""},
		{"seed/hal export, ^bb0 count region", layout + `hal.executable private @e {
  hal.executable.variant public @v, target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64"> {
    hal.executable.export public @f ordinal(0) layout(#l) {
    ^bb0(%d: !hal.device, %w: index):
      %c1 = arith.constant 1 : index
      hal.return %w, %c1, %c1 : index, index, index
    }
  }
}`, "hal.executable.export", "hal.return"},
		{"head/hal export, count(...) region", layout + `hal.executable private @e {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">) {
    hal.executable.export public @f ordinal(0) layout(#l) count(%d: !hal.device, %w: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %w, %c1, %c1 : index, index, index
    }
  }
}`, "hal.executable.export", "hal.return"},
	}
	reg := NewRegistry()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := Parse("t.mlir", []byte(c.src), reg)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			ex := findOp(m.Op, c.export, "f")
			if ex == nil {
				t.Fatalf("no %s @f", c.export)
			}
			got := ""
			if len(ex.Regions) == 1 && len(ex.Regions[0].Blocks) > 0 {
				if term := ex.Regions[0].Blocks[0].Terminator(); term != nil {
					got = term.Name
					if len(term.Operands) != 3 {
						t.Errorf("%s has %d operands, want 3", got, len(term.Operands))
					}
				}
			}
			if got != c.ret {
				t.Errorf("count region ends with %q, want %q", got, c.ret)
			}
			printed := roundTrip(t, c.name, []byte(c.src))
			if c.ret != "" && !strings.Contains(printed, c.ret+" ") {
				t.Errorf("printed form lost the %s:\n%s", c.ret, printed)
			}
		})
	}
}

// TestTargetAttributes covers #hal.executable.target and #hal.device.target
// as both eras write them, with the configuration keys IREE writes (CPU,
// CUDA, SPIR-V, ROCm, encodings, ukernels, GPU target descriptions): every
// key is accepted, kept in order and printed back.
func TestTargetAttributes(t *testing.T) {
	cases := []struct {
		name, src       string
		backend, format string
		keys            []string // configuration keys, in order
		printed         string   // the canonical printing, where checked
	}{
		{"seed/llvm-cpu", `#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {
  data_layout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128",
  native_vector_size = 32 : index,
  target_triple = "x86_64-unknown-unknown-eabi-elf"
}>`, "llvm-cpu", "embedded-elf-x86_64", []string{"data_layout", "native_vector_size", "target_triple"}, ""},
		{"head/llvm-cpu arm_64", `#hal.executable.target<"llvm-cpu", "embedded-elf-arm_64", {data_layout = "e-m:e-i8:8:32-i16:16:32-i64:64-i128:128-n32:64-S128", native_vector_size = 16 : index, target_triple = "aarch64-none-elf"}>`,
			"llvm-cpu", "embedded-elf-arm_64", []string{"data_layout", "native_vector_size", "target_triple"}, ""},
		{"head/llvm-cpu with cpu, features, ukernels and an encoding resolver", `#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "znver4", cpu_features="+avx2,+fma", target_triple="x86_64-none-elf", ukernels = "all", max_stack_allocation_size = 32768 : i64, link_embedded = false, enable_inner_tiled = true, iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>}>`,
			"llvm-cpu", "embedded-elf-x86_64", []string{"cpu", "cpu_features", "target_triple", "ukernels", "max_stack_allocation_size", "link_embedded", "enable_inner_tiled", "iree.encoding.resolver"},
			`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "znver4", cpu_features = "+avx2,+fma", target_triple = "x86_64-none-elf", ukernels = "all", max_stack_allocation_size = 32768, link_embedded = false, enable_inner_tiled = true, iree.encoding.resolver = #iree_cpu.cpu_encoding_resolver<>}>`},
		{"seed/cuda", `#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_52"}>`, "cuda", "cuda-nvptx-fb", []string{"target_arch"},
			`#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_52"}>`},
		{"head/cuda with a GPU target description", `#hal.executable.target<"cuda", "cuda-nvptx-fb", {iree_codegen.target_info = #iree_gpu.target<arch = "sm_80", features = "+ptx76", wgp = <compute = fp64|fp32|fp16|int64|int32|int16|int8, storage = b64|b32|b16|b8, subgroup = shuffle|arithmetic, dot = dp4xi8toi32, mma = [<WMMA_F32_16x16x16_F16>], subgroup_size_choices = [32], max_workgroup_sizes = [1024, 1024, 1024], max_thread_count_per_workgroup = 1024, max_workgroup_memory_bytes = 166912, max_workgroup_counts = [2147483647, 65535, 65535]>>, iree_codegen.ukernel_provider = #iree_gpu.ukernel_provider}>`,
			"cuda", "cuda-nvptx-fb", []string{"iree_codegen.target_info", "iree_codegen.ukernel_provider"}, ""},
		{"seed/vulkan with a SPIR-V target environment", `#hal.executable.target<"vulkan", "vulkan-spirv-fb", {
  spirv.target_env = #spirv.target_env<
    #spirv.vce<v1.3, [Shader, GroupNonUniform], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_variable_pointers]>,
    #spirv.resource_limits<max_compute_workgroup_size = [128, 128, 64], subgroup_size = 64>
  >
}>`, "vulkan", "vulkan-spirv-fb", []string{"spirv.target_env"}, ""},
		{"head/vulkan-spirv with a GPU target description", `#hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb", {
  iree_codegen.target_info = #iree_gpu.target<
    arch = "", features = "spirv:v1.3,cap:Shader", wgp = <
      compute = fp32|int32, storage = b32, subgroup = none,
      subgroup_size_choices = [64, 64],
      max_workgroup_sizes = [128, 128, 64], max_thread_count_per_workgroup = 128,
      max_workgroup_memory_bytes = 16384,
      max_workgroup_counts = [65535, 65535, 65535]>
  >,
  iree.spirv.features = ["vulkan-spirv"]
}>`, "vulkan-spirv", "vulkan-spirv-fb", []string{"iree_codegen.target_info", "iree.spirv.features"}, ""},
		{"head/rocm", `#hal.executable.target<"rocm", "rocm-hsaco-fb", {target_arch = "gfx1100", abi = "hip"}>`, "rocm", "rocm-hsaco-fb", []string{"target_arch", "abi"}, ""},
		{"no configuration", `#hal.executable.target<"vmvx", "vmvx-bytecode-fb">`, "vmvx", "vmvx-bytecode-fb", nil, ""},
		{"keys nobody knows", `#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {my.own.key = "x", another = [1, 2], nested = {a = unit}, flag, opaque = #my.attr<<1>, "x">}>`,
			"llvm-cpu", "embedded-elf-x86_64", []string{"my.own.key", "another", "nested", "flag", "opaque"},
			`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {my.own.key = "x", another = [1, 2], nested = {a}, flag, opaque = #my.attr<<1>, "x">}>`},
	}
	reg := NewRegistry()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := ir.ParseAttribute(c.src, reg)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			et, ok := a.(*hal.ExecutableTargetAttr)
			if !ok {
				t.Fatalf("parsed as %T", a)
			}
			if et.Backend != c.backend || et.Format != c.format {
				t.Errorf("backend, format = %q, %q; want %q, %q", et.Backend, et.Format, c.backend, c.format)
			}
			var keys []string
			if et.Config != nil {
				for _, e := range et.Config.Entries {
					keys = append(keys, e.Name)
				}
			}
			if strings.Join(keys, ",") != strings.Join(c.keys, ",") {
				t.Errorf("configuration keys %v, want %v", keys, c.keys)
			}
			printed := ir.AttrString(a)
			if c.printed != "" && printed != c.printed {
				t.Errorf("printed\n got %s\nwant %s", printed, c.printed)
			}
			b, err := ir.ParseAttribute(printed, reg)
			if err != nil {
				t.Fatalf("reparse of %s: %v", printed, err)
			}
			if again := ir.AttrString(b); again != printed {
				t.Errorf("printing does not round-trip:\n%s\n%s", printed, again)
			}
			if !ir.AttrsEqual(a, b) {
				t.Errorf("reparsed attribute differs from the original")
			}
			// Used as the device's target, in both device-target spellings,
			// inside a program.
			for _, dev := range []string{
				`#hal.device.target<"local", {executable_targets = [#t]}>`,
				`#hal.device.target<"local", [#t]> : !hal.device`,
				`#hal.device.target<"local", {ordinal = 0 : index, my.key = "kept"}, [#t, #t]> : !hal.device`,
			} {
				src := "#t = " + c.src + "\n#d = " + dev + "\nmodule @m attributes {hal.device.targets = [#d]} {\n}\n"
				m, err := Parse("t.mlir", []byte(src), reg)
				if err != nil {
					t.Fatalf("%s: %v", dev, err)
				}
				arr, _ := m.Op.Attr("hal.device.targets").(*ir.ArrayAttr)
				if arr == nil || len(arr.Elems) != 1 {
					t.Fatalf("%s: hal.device.targets = %v", dev, m.Op.Attr("hal.device.targets"))
				}
				d, ok := arr.Elems[0].(*hal.DeviceTargetAttr)
				if !ok {
					t.Fatalf("%s: parsed as %T", dev, arr.Elems[0])
				}
				ts := d.ExecutableTargets()
				if len(ts) == 0 || !ir.AttrsEqual(ts[0], a) {
					t.Errorf("%s: executable targets %v", dev, ts)
				}
				roundTrip(t, dev, []byte(src))
			}
		})
	}
}

// TestDeviceTargetAttributes covers #hal.device.target in the spellings IREE
// writes that carry no executable target, and keeps unknown keys.
func TestDeviceTargetAttributes(t *testing.T) {
	reg := NewRegistry()
	for _, c := range []struct{ src, want string }{
		{`#hal.device.target<"local">`, ""},
		{`#hal.device.target<"local"> : !hal.device`, ""},
		{`#hal.device.target<"local", {ordinal = 1 : index}>`, ""},
		{`#hal.device.target<"vulkan", {executable_targets = [], legacy_sync}>`, ""},
		{`#hal.device.target<"cuda", {some.future.key = [1, 2, 3], legacy_sync}, []> : !hal.device`, ""},
	} {
		a, err := ir.ParseAttribute(c.src, reg)
		if err != nil {
			t.Errorf("parse %s: %v", c.src, err)
			continue
		}
		want := c.want
		if want == "" {
			want = c.src
		}
		if got := ir.AttrString(a); got != want {
			t.Errorf("printed\n got %s\nwant %s", got, want)
		}
	}
}

// TestIREEConstructErrors lists malformed versions of the constructs above
// and the exact message each gives.
func TestIREEConstructErrors(t *testing.T) {
	const layout = "#l = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer>]>\n"
	cases := []struct{ name, src, want string }{
		{"named argument without a type", `func.func private @k(%a, %b: index)`,
			"t.mlir:1:24: error: expected ':', found ','"},
		{"last named argument without a type", "func.func private @k(\n    %a: memref<f32>,\n    %n) attributes {hal.import.static}",
			"t.mlir:3:7: error: expected ':', found ')'"},
		{"bare type after named arguments", `func.func private @k(%a: memref<f32>, index)`,
			"t.mlir:1:39: error: expected SSA identifier, found 'index'"},
		{"named argument after bare types", `func.func private @k(memref<f32>, %n: index)`,
			"t.mlir:1:35: error: expected type instead of SSA identifier"},
		{"public declaration", `func.func @k(%a: memref<f32>, %n: index) attributes {hal.import.static}`,
			"t.mlir:1:1: error: 'func.func' op symbol declaration cannot have public visibility"},
		{"body with bare-type arguments", "func.func @f(index) {\n  return\n}",
			"t.mlir:1:21: error: expected named arguments (%name: type) for a function with a body"},
		{"unterminated attribute dictionary", "func.func private @k(%a: index) attributes {\n  hal.import.static,\n",
			"t.mlir:3:1: error: expected attribute name, found end of file"},
		{"unterminated argument attributes", `func.func private @k(%a: memref<f32> {llvm.noalias)`,
			"t.mlir:1:51: error: expected ',' or '}' in attribute dictionary, found ')'"},
		{"call disagrees with the named declaration", `func.func private @k(%a: memref<f32>, %n: index) attributes {hal.import.static}
func.func @f(%m: memref<f32>, %n: i32) {
  func.call @k(%m, %n) : (memref<f32>, i32) -> ()
  return
}`, "t.mlir:3:3: error: 'func.call' op operand type mismatch: expected operand type 'index', but provided 'i32' for operand number 1"},
		{"arg_attrs of the wrong length (generic form)", `"func.func"() {sym_name = "k", sym_visibility = "private", function_type = (i32, i32) -> (), arg_attrs = [{}]} : () -> ()`,
			"t.mlir:1:1: error: 'func.func' op 'arg_attrs' has 1 entries but the function has 2 arguments"},
		{"res_attrs that are not dictionaries (generic form)", `"func.func"() {sym_name = "k", sym_visibility = "private", function_type = () -> i32, res_attrs = [1 : i32]} : () -> ()`,
			"t.mlir:1:1: error: 'func.func' op 'res_attrs' must be an array of dictionaries, found 1 : i32"},
		{"stream count region ending with flow.return", `stream.executable private @e {
  stream.executable.export public @f workgroups(%w: index) -> (index, index, index) {
    flow.return %w, %w, %w : index, index, index
  }
}`, "t.mlir:2:3: error: 'stream.executable.export' op workgroup count region must end with 'stream.return' or 'hal.return'"},
		{"hal count region ending with stream.return", layout + `hal.executable private @e {
  hal.executable.variant public @v target(#hal.executable.target<"llvm-cpu", "x">) {
    hal.executable.export public @f ordinal(0) layout(#l) count(%d: !hal.device, %w: index) -> (index, index, index) {
      stream.return %w, %w, %w : index, index, index
    }
  }
}`, "t.mlir:4:5: error: 'hal.executable.export' op workgroup count region must end with 'hal.return'"},
		{"hal.return with two values in a stream count region", `stream.executable private @e {
  stream.executable.export public @f workgroups(%w: index) -> (index, index, index) {
    hal.return %w, %w : index, index
  }
}`, "t.mlir:2:3: error: 'stream.executable.export' op workgroup count region must return 3 values (x, y, z), found 2"},
		{"executable target without a format", `module attributes {t = #hal.executable.target<"llvm-cpu">} {
}`, "t.mlir:1:57: error: expected ',', found '>'"},
		{"executable target with a list for a configuration", `module attributes {t = #hal.executable.target<"llvm-cpu", "x", [1]>} {
}`, "t.mlir:1:64: error: expected '{', found '['"},
		{"device target holding something else", `module attributes {t = #hal.device.target<"local", ["x"]>} {
}`, "t.mlir:1:58: error: device target list must hold #hal.executable.target attributes, found \"x\""},
	}
	// The inline ukernel dispatch with one line replaced.
	ukernel := func(old, new string) string {
		if !strings.Contains(ukernelProgram, old) {
			t.Fatalf("ukernelProgram lacks %q", old)
		}
		return strings.Replace(ukernelProgram, old, new, 1)
	}
	cases = append(cases, []struct{ name, src, want string }{
		{"dispatch region returning the wrong type",
			ukernel("flow.return %w : tensor<?xf32>", "flow.return %len : index"),
			"t.mlir:23:5: error: 'flow.return' op operand types do not match with parent results: value #0 is 'index', result is 'tensor<?xf32>'"},
		{"dispatch region result without its dimension",
			ukernel("-> (tensor<?xf32>{%n})", "-> (tensor<?xf32>)"),
			"t.mlir:7:51: error: expected '{' with 1 dynamic dimension values for type 'tensor<?xf32>'"},
		{"count region taking two values for one workload operand",
			ukernel("count(%wl: index)", "count(%wl: index, %extra: index)"),
			"t.mlir:7:8: error: 'flow.dispatch.region' op workload operands and workgroup count args mismatch (1 vs 2)"},
		{"count region ending with hal.return",
			ukernel("flow.return %wl, %c1, %c1", "hal.return %wl, %c1, %c1"),
			"t.mlir:7:8: error: 'flow.dispatch.region' op workgroup count region must end with 'flow.return'"},
		{"extract_slice with two offsets for a rank-1 tensor",
			ukernel("%x[%off] [%len] [1]", "%x[%off, 0] [%len] [1]"),
			"t.mlir:13:10: error: 'tensor.extract_slice' op expected 1 offsets values (one per dimension), found 2"},
		{"extract_slice with a static size and a dynamic result",
			ukernel("%y[%off] [%len] [1] : tensor<?xf32> to tensor<?xf32>", "%y[%off] [4] [1] : tensor<?xf32> to tensor<?xf32>"),
			"t.mlir:14:10: error: 'tensor.extract_slice' op expected result type to be 'tensor<4xf32>' or a rank-reduced version of it, found 'tensor<?xf32>'"},
		{"insert_slice with a result that is not the destination (generic form)", `func.func @g(%s: tensor<2xf32>, %d: tensor<?xf32>, %o: index) -> tensor<4xf32> {
  %r = "tensor.insert_slice"(%s, %d, %o) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>, static_offsets = array<i64: -9223372036854775808>, static_sizes = array<i64: 2>, static_strides = array<i64: 1>} : (tensor<2xf32>, tensor<?xf32>, index) -> tensor<4xf32>
  return %r : tensor<4xf32>
}`, "t.mlir:2:8: error: 'tensor.insert_slice' op result type 'tensor<4xf32>' must be the destination type 'tensor<?xf32>'"},
		{"ukernel without a result for its tensor destination", `func.func @g(%a: tensor<4xf32>, %o: tensor<4xf32>) {
  iree_codegen.ukernel.generic "k" ins(%a : tensor<4xf32>) outs(%o : tensor<4xf32>)
  return
}`, "t.mlir:2:3: error: 'iree_codegen.ukernel.generic' op has 1 tensor outs operands but 0 results; each tensor destination gives one result"},
		{"ukernel with strided_dims for two of three operands",
			ukernel("strided_dims([[], [], []])", "strided_dims([[], []])"),
			"t.mlir:16:10: error: 'iree_codegen.ukernel.generic' op 'strided_dims' has 2 lists but the op has 3 ins and outs operands"},
		{"ukernel ins without types",
			ukernel("ins(%a, %b : tensor<?xf32>, tensor<?xf32>)", "ins(%a, %b)"),
			"t.mlir:17:17: error: expected ':', found ')'"},
		{"affine.min with a missing symbol operand",
			ukernel("(%off)[%tile, %n]", "(%off)[%tile]"),
			"t.mlir:12:23: error: affine map expects 1 dimension and 2 symbol operands, but 1 and 1 were given"},
	}...)
	reg := NewRegistry()
	for _, c := range cases {
		_, err := Parse("t.mlir", []byte(c.src), reg)
		if err == nil || err.Error() != c.want {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}

// ukernelProgram is a dispatch written inline the way current IREE's
// plugin ukernel samples write one: a flow.dispatch.region whose body tiles
// the tensors with extract_slice, calls the plugin's function through
// iree_codegen.ukernel.generic and writes back with insert_slice, and whose
// count region ends with flow.return.
const ukernelProgram = `func.func @f(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %init = tensor.empty(%n) : tensor<?xf32>
  %r = flow.dispatch.region[%c4] -> (tensor<?xf32>{%n}) {
    %i = flow.dispatch.workgroup.id[0] : index
    %k = flow.dispatch.workgroup.count[0] : index
    %tile = affine.apply affine_map<()[s0, s1] -> (s0 ceildiv s1)>()[%n, %k]
    %off = affine.apply affine_map<()[s0, s1] -> (s0 * s1)>()[%i, %tile]
    %len = affine.min affine_map<(d0)[s0, s1] -> (s1 - d0, s0)>(%off)[%tile, %n]
    %a = tensor.extract_slice %x[%off] [%len] [1] : tensor<?xf32> to tensor<?xf32>
    %b = tensor.extract_slice %y[%off] [%len] [1] : tensor<?xf32> to tensor<?xf32>
    %o = tensor.extract_slice %init[%off] [%len] [1] : tensor<?xf32> to tensor<?xf32>
    %m = iree_codegen.ukernel.generic "mul_tile"
      ins(%a, %b : tensor<?xf32>, tensor<?xf32>)
      outs(%o : tensor<?xf32>)
      (%len, %i : index, index)
      fn_def_attrs {hal.import.fields = ["processor_id"]}
      strided_dims([[], [], []]) -> tensor<?xf32>
    %w = tensor.insert_slice %m into %init[%off] [%len] [1] : tensor<?xf32> into tensor<?xf32>
    flow.return %w : tensor<?xf32>
  } count(%wl: index) -> (index, index, index) {
    flow.return %wl, %c1, %c1 : index, index, index
  }
  return %r : tensor<?xf32>
}
`

// TestUKernelDispatchRegion parses the inline ukernel dispatch and checks
// the structure the later phases read.
func TestUKernelDispatchRegion(t *testing.T) {
	reg := NewRegistry()
	m, err := Parse("t.mlir", []byte(ukernelProgram), reg)
	if err != nil {
		t.Fatal(err)
	}
	dr := findOp(m.Op, "flow.dispatch.region", "")
	if dr == nil {
		t.Fatal("no flow.dispatch.region")
	}
	if n := len(flow.Region{Op: dr}.Workload()); n != 1 {
		t.Errorf("workload has %d values, want 1", n)
	}
	if n := len(flow.Region{Op: dr}.ResultDims()); n != 1 {
		t.Errorf("result dims has %d values, want 1", n)
	}
	if len(dr.Regions) != 2 || len(dr.Regions[1].Blocks) != 1 || len(dr.Regions[1].Blocks[0].Args) != 1 {
		t.Errorf("count region is not one block with one argument")
	}
	uk := findOp(m.Op, "iree_codegen.ukernel.generic", "")
	u := codegen.UKernel{Op: uk}
	if u.Name() != "mul_tile" || len(u.Inputs()) != 2 || len(u.Outputs()) != 1 || len(u.Others()) != 2 {
		t.Errorf("ukernel %q with %d ins, %d outs, %d others; want mul_tile, 2, 1, 2", u.Name(), len(u.Inputs()), len(u.Outputs()), len(u.Others()))
	}
	if got := ir.AttrString(uk.Attr("fn_def_attrs")); got != `{hal.import.fields = ["processor_id"]}` {
		t.Errorf("fn_def_attrs = %s", got)
	}
	es := findOp(m.Op, "tensor.extract_slice", "")
	if got := ir.AttrString(es.Attr("static_offsets")) + " " + ir.AttrString(es.Attr("static_strides")); got != "array<i64: -9223372036854775808> array<i64: 1>" {
		t.Errorf("extract_slice static lists: %s", got)
	}
	mn := findOp(m.Op, "affine.min", "")
	if len(mn.Operands) != 3 || len(affine.Map(mn).Results) != 2 {
		t.Errorf("affine.min has %d operands and %d map results, want 3 and 2", len(mn.Operands), len(affine.Map(mn).Results))
	}
	roundTrip(t, "ukernel", []byte(ukernelProgram))
}
