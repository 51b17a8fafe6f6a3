package dialect

import (
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// TestAttributeRoundTrip parses attributes and checks their canonical
// printing (IREE's HAL attribute test cases plus builtin attributes).
func TestAttributeRoundTrip(t *testing.T) {
	reg := NewRegistry()
	cases := []struct{ in, want string }{
		{`#hal.executable.object<{data = dense<[4, 5, 6, 7]> : vector<4xi8>}>`, ""},
		{`#hal.executable.object<{path = "foo"}>`, ""},
		{`#hal.executable.object<{path = "foo", data = dense<1> : vector<2xi8>}>`, ""},
		{`#hal.executable.objects<{}>`, ""},
		{`#hal.executable.objects<{#hal.executable.target<"llvm-cpu", "a"> = [#hal.executable.object<{path = "a.o"}>]}>`, ""},
		{`#hal.executable.objects<{#hal.executable.target<"llvm-cpu", "b"> = [#hal.executable.object<{path = "b.o"}>], #hal.executable.target<"llvm-cpu", "c"> = [#hal.executable.object<{path = "c.o"}>]}>`, ""},
		{`#hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>`, ""},
		{`#hal.device.target<"llvm-cpu", {executable_targets = [#hal.executable.target<"llvm-cpu", "x">]}>`, ""},
		{`#hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "x">]> : !hal.device`, ""},
		{`#hal.pipeline.layout<push_constants = 1, sets = [<0, bindings = [<0, storage_buffer, ReadOnly>, <1, storage_buffer>]>]>`, ""},
		{`#hal.pipeline.layout<constants = 2, bindings = [#hal.pipeline.binding<storage_buffer, "ReadOnly|Indirect">]>`, ""},
		{`#hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>`, ""},
		{`#hal.interface.binding<0, 1>`, ""},
		{`#hal.descriptor_type<storage_buffer>`, ""},
		{`#spirv.target_env<#spirv.vce<v1.3, [Shader], []>, #spirv.resource_limits<>>`, ""},
		{`dense<"0xDEADBEEF"> : tensor<4xi8>`, ""},
		{`dense<"0xdeadbeef"> : tensor<4xi8>`, `dense<"0xDEADBEEF"> : tensor<4xi8>`},
		{`dense<1.5> : tensor<2x2xf32>`, ""},
		{`dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>`, ""},
		{`dense<[true, false]> : tensor<2xi1>`, ""},
		{`dense<[1, 2]> : tensor<2xf32>`, `dense<[1.0, 2.0]> : tensor<2xf32>`},
		{`affine_map<(d0, d1)[s0] -> (d0 + s0, d1 floordiv 4, d0 mod 3, s0 ceildiv 64, d0 - d1, d0 - 1)>`, ""},
		{`affine_map<(i)[n] -> (i * 64 + n)>`, `affine_map<(d0)[s0] -> (d0 * 64 + s0)>`},
		{`array<i32: 1, 2, 3>`, ""},
		{`[1, "two", 3.0 : f32, unit, true, @a::@b::@c, index, {k = 1 : i8}]`, ""},
		{`0x7FC00000 : f32`, ""},
		{`-3 : i32`, ""},
		{`loc("file.mlir":1:2)`, ""},
		{`(i32, tensor<?x4xf32>) -> (memref<*xf32>, vector<4xf16>)`, ""},
		{`tensor<?x?xbf16>`, ""},
		{`!hal.buffer`, ""},
		{`!stream.binding`, ""},
		{`!foo.bar<"x", 4>`, ""},
		{`memref<4xf32, affine_map<(d0) -> (d0)>>`, ""},
		{`tuple<i32, f32>`, ""},
		{`complex<f32>`, ""},
		{`si8`, ""}, {`ui16`, ""},
	}
	for _, c := range cases {
		a, err := ir.ParseAttribute(c.in, reg)
		if err != nil {
			t.Errorf("parse %s: %v", c.in, err)
			continue
		}
		want := c.want
		if want == "" {
			want = c.in
		}
		if got := ir.AttrString(a); got != want {
			t.Errorf("print(parse(%s)) = %s, want %s", c.in, got, want)
		}
	}
}

func TestIsGenericOf(t *testing.T) {
	reg := NewRegistry()
	mk := func(s string) *hal.ExecutableTargetAttr {
		a, err := ir.ParseAttribute(s, reg)
		if err != nil {
			t.Fatal(err)
		}
		return a.(*hal.ExecutableTargetAttr)
	}
	specific := mk(`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {cpu = "generic", target_triple = "x86_64-none-elf"}>`)
	cases := []struct {
		key  string
		want bool
	}{
		{`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">`, true},
		{`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {}>`, true},
		{`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-none-elf"}>`, true},
		{`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "aarch64-none-elf"}>`, false},
		{`#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {native_vector_size = 32 : index}>`, false},
		{`#hal.executable.target<"llvm-cpu", "embedded-elf-arm_64">`, false},
		{`#hal.executable.target<"cuda", "embedded-elf-x86_64">`, false},
	}
	for _, c := range cases {
		if got := mk(c.key).IsGenericOf(specific); got != c.want {
			t.Errorf("%s.IsGenericOf(specific) = %v, want %v", c.key, got, c.want)
		}
	}
}

func TestAffineEval(t *testing.T) {
	reg := NewRegistry()
	a, err := ir.ParseAttribute(`affine_map<(d0)[s0] -> (s0 ceildiv 64, s0 floordiv 64, d0 mod 3, -d0 floordiv 2)>`, reg)
	if err != nil {
		t.Fatal(err)
	}
	m := a.(ir.AffineMapAttr).Map
	got, err := m.Eval([]int64{-7}, []int64{100})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{2, 1, 2, 3}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d = %d, want %d", i, got[i], want[i])
		}
	}
}

func TestDenseRawBytes(t *testing.T) {
	reg := NewRegistry()
	cases := []struct {
		in   string
		want []byte
	}{
		{`dense<[4, 5, 6, 7]> : vector<4xi8>`, []byte{4, 5, 6, 7}},
		{`dense<258> : tensor<2xi16>`, []byte{2, 1, 2, 1}},
		{`dense<"0x0102"> : tensor<2xi8>`, []byte{1, 2}},
		{`dense<1.0> : tensor<1xf32>`, []byte{0, 0, 0x80, 0x3f}},
	}
	for _, c := range cases {
		a, err := ir.ParseAttribute(c.in, reg)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.(*ir.DenseAttr).RawBytes()
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(c.want) {
			t.Errorf("%s bytes = %v, want %v", c.in, got, c.want)
		}
	}
}
