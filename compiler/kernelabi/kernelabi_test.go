package kernelabi

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// lookTool finds an external tool by any of its names or skips the test.
func lookTool(t *testing.T, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Skipf("%s not found on PATH; skipping", names[0])
	return ""
}

// buildObject compiles testdata/functions.c for the given clang target.
func buildObject(t *testing.T, target string) []byte {
	t.Helper()
	clang := lookTool(t, "clang-16", "clang")
	out := filepath.Join(t.TempDir(), "functions.o")
	cmd := exec.Command(clang, "-target", target, "-std=c17", "-ffreestanding", "-fvisibility=hidden", "-fno-plt",
		"-fno-exceptions", "-fdata-sections", "-ffunction-sections", "-O2", "-c", "testdata/functions.c", "-o", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("clang: %v\n%s", err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestCheckELF(t *testing.T) {
	x86 := ELFObject{Name: "functions_x86_64.o", Data: buildObject(t, "x86_64-unknown-unknown-eabi-elf")}
	arm := ELFObject{Name: "functions_arm_64.o", Data: buildObject(t, "aarch64-unknown-unknown-eabi-elf")}
	both := []Import{{"simple_mul_workgroup", "simple_mul"}, {"simple_mul_inplace_workgroup", "simple_mul_inplace"}}
	cases := []struct {
		name    string
		objs    []ELFObject
		arch    string
		imports []Import
		wantErr string
	}{
		{"x86 ok", []ELFObject{x86}, "x86_64", both, ""},
		{"arm ok", []ELFObject{arm}, "arm_64", both, ""},
		{"missing symbol", []ELFObject{x86}, "x86_64", []Import{{"simple_add_workgroup", "simple_add"}},
			"functions_x86_64.o: does not define function 'simple_add_workgroup', which @simple_add calls through a hal.import.static declaration (defined functions: simple_mul_inplace_workgroup, simple_mul_workgroup)"},
		{"wrong arch", []ELFObject{arm}, "x86_64", both,
			"functions_arm_64.o: object is for EM_AARCH64 but the variant targets x86_64 (EM_X86_64)"},
		{"not elf", []ELFObject{{Name: "junk.o", Data: []byte("hello world")}}, "x86_64", both,
			"junk.o: not an ELF object file"},
		{"no objects", nil, "x86_64", both,
			"no object: does not define function 'simple_mul_workgroup', which @simple_mul calls through a hal.import.static declaration (defined functions: none)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := CheckELF(c.objs, c.arch, c.imports)
			if c.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || err.Error() != c.wantErr {
				t.Fatalf("error = %v\nwant    %s", err, c.wantErr)
			}
		})
	}
}

func TestCheckPTX(t *testing.T) {
	for _, f := range []string{"testdata/kernels_sm_80.ptx", "testdata/kernels_sm_90.ptx"} {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := ParsePTX(string(src))
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 2 || entries[0] != (PTXEntry{"simple_mul", 4}) || entries[1] != (PTXEntry{"simple_mul_inplace", 3}) {
			t.Fatalf("%s entries = %+v", f, entries)
		}
	}
	src, _ := os.ReadFile("testdata/kernels_sm_80.ptx")
	cases := []struct {
		exports []KernelInterface
		wantErr string
	}{
		{[]KernelInterface{{"simple_mul", 3, 1}, {"simple_mul_inplace", 2, 1}}, ""},
		{[]KernelInterface{{"simple_add", 3, 1}}, "kernels_sm_80.ptx: no .entry named 'simple_add' for export @simple_add (entries: simple_mul, simple_mul_inplace)"},
		{[]KernelInterface{{"simple_mul", 3, 0}}, "kernels_sm_80.ptx: .entry 'simple_mul' takes 4 parameters but export @simple_mul passes 3 (3 bindings + 0 constants)"},
	}
	for _, c := range cases {
		err := CheckPTX("kernels_sm_80.ptx", string(src), c.exports)
		if (err == nil) != (c.wantErr == "") || (err != nil && err.Error() != c.wantErr) {
			t.Errorf("CheckPTX(%v) = %v, want %q", c.exports, err, c.wantErr)
		}
	}
	// Comments and unrelated directives do not count as entries.
	entries, err := ParsePTX("// .entry fake(\n.visible .entry k(\n.param .u64 a, /* .param */ .param .u32 b\n)\n{ ret; }\n.entry noparams\n{ ret; }")
	if err != nil || len(entries) != 2 || entries[0] != (PTXEntry{"k", 2}) || entries[1] != (PTXEntry{"noparams", 0}) {
		t.Errorf("ParsePTX with comments = %+v, %v", entries, err)
	}
}

func TestCheckSPIRV(t *testing.T) {
	mul, err := os.ReadFile("testdata/simple_mul.spv")
	if err != nil {
		t.Fatal(err)
	}
	inplace, err := os.ReadFile("testdata/simple_mul_inplace.spv")
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseSPIRV(mul)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.EntryPoints) != 1 || m.EntryPoints[0].Name != "main" || len(m.Buffers) != 3 || m.PushConstantBytes != 4 {
		t.Fatalf("parsed simple_mul.spv = %+v", m)
	}
	cases := []struct {
		name    string
		data    []byte
		ex      KernelInterface
		wantErr string
	}{
		{"simple_mul.spv", mul, KernelInterface{"main", 3, 1}, ""},
		{"simple_mul_inplace.spv", inplace, KernelInterface{"main", 2, 1}, ""},
		{"simple_mul.spv", mul, KernelInterface{"simple_mul", 3, 1}, "simple_mul.spv: no GLCompute OpEntryPoint named 'simple_mul' for export @simple_mul (GLCompute entry points: main)"},
		{"simple_mul.spv", mul, KernelInterface{"main", 2, 1}, "simple_mul.spv: storage buffer at set 0 binding 2 is not declared by export @main's layout (2 bindings)"},
		{"simple_mul_inplace.spv", inplace, KernelInterface{"main", 3, 1}, "simple_mul_inplace.spv: no storage buffer at set 0 binding 2, which export @main's layout declares (3 bindings)"},
		{"simple_mul.spv", mul, KernelInterface{"main", 3, 0}, "simple_mul.spv: push-constant block is 4 bytes but export @main's layout declares 0 constants (0 bytes)"},
		{"bad.spv", mul[:len(mul)-2], KernelInterface{"main", 3, 1}, "bad.spv: SPIR-V size 1670 is not a multiple of 4"},
		{"bad.spv", []byte("0123456789abcdefghij"), KernelInterface{"main", 3, 1}, "bad.spv: not a SPIR-V module (bad magic 0x33323130)"},
	}
	for _, c := range cases {
		err := CheckSPIRV(c.name, c.data, c.ex)
		if (err == nil) != (c.wantErr == "") || (err != nil && err.Error() != c.wantErr) {
			t.Errorf("CheckSPIRV(%s, %+v) = %v\nwant %q", c.name, c.ex, err, c.wantErr)
		}
	}
}

// TestSPIRVFromGLSL rebuilds the committed .spv files with glslc and checks
// they are current.
func TestSPIRVFromGLSL(t *testing.T) {
	glslc := lookTool(t, "glslc")
	for _, n := range []string{"simple_mul", "simple_mul_inplace"} {
		out := filepath.Join(t.TempDir(), n+".spv")
		cmd := exec.Command(glslc, "-fshader-stage=compute", "-o", out, filepath.Join("testdata", n+".glsl"))
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("glslc: %v\n%s", err, msg)
		}
		got, _ := os.ReadFile(out)
		want, _ := os.ReadFile(filepath.Join("testdata", n+".spv"))
		if !bytes.Equal(got, want) {
			t.Errorf("testdata/%s.spv is stale; regenerate with: glslc -fshader-stage=compute -o testdata/%s.spv testdata/%s.glsl", n, n, n)
		}
	}
}

// FuzzParseSPIRV checks the reader never panics.
func FuzzParseSPIRV(f *testing.F) {
	for _, n := range []string{"testdata/simple_mul.spv", "testdata/simple_mul_inplace.spv"} {
		if b, err := os.ReadFile(n); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = ParseSPIRV(data)
		_, _ = ParsePTX(string(data))
	})
}
