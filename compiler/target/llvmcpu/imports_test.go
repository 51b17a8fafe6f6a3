package llvmcpu_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
)

// TestImportCalls checks the C generated for calls of imports resolved at
// run time: the sorted import table, the parameter struct (results, then
// arguments as C values, then the requested fields) and the call through
// the environment's thunk, and that the result compiles.
func TestImportCalls(t *testing.T) {
	_, variant := parseVariant(t, "imports.mlir")
	lib, err := llvmcpu.GenerateC(variant)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(lib.Imports, ","); got != "alpha_descriptor,zeta_fill" {
		t.Errorf("Imports = %q, want alpha_descriptor,zeta_fill (sorted, aliases merged)", got)
	}
	if len(lib.StaticImports) != 0 {
		t.Errorf("StaticImports = %q, want none", lib.StaticImports)
	}
	for _, want := range []string{
		// Import ordinals follow the sorted table.
		"#define GI_IMPORT_0 1 /* zeta_fill */",
		"#define GI_IMPORT_1 0 /* alpha_descriptor */",
		`static const char* const gi_import_names[2] = {` + "\n" + `  "alpha_descriptor",` + "\n" + `  "zeta_fill",`,
		".imports = {.count = 2, .symbols = gi_import_names},",
		// Result first, then the arguments (a bare pointer for the
		// memref), then processor_id and processor_data.
		"struct { int32_t r0; int32_t a0; float* a1; int64_t a2; float a3; uint32_t f0; const uint64_t* f1; } gi_params1",
		".f0 = ws->processor_id, .f1 = env->processor.data};",
		"((gi_import_thunk_t)env->import_thunk)(((const gi_import_fn_t*)env->import_funcs)[GI_IMPORT_0], &gi_params1, (void*)env->import_contexts[GI_IMPORT_0], (void*)0);",
		"if (gi_status1 != 0) return gi_status1;",
		"= gi_params1.r0;",
		// Without llvm.bareptr a memref is its descriptor's fields.
		"struct { float* a0; float* a1; int64_t a2; int64_t a3; int64_t a4; } gi_params2",
		"import_funcs)[GI_IMPORT_1], &gi_params3",
	} {
		if !strings.Contains(lib.Source, want) {
			t.Errorf("generated C lacks %q", want)
		}
	}
	clang, err := llvmcpu.Options{}.FindClang()
	if err != nil {
		t.Skipf("skipping the compile check: %v", err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "imports.c")
	if err := os.WriteFile(src, []byte(lib.Source), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"-target", llvmcpu.Triples["embedded-elf-x86_64"]}, llvmcpu.CFlags...), "-Werror", "-o", filepath.Join(dir, "imports.o"), src)
	if out, err := exec.Command(clang, args...).CombinedOutput(); err != nil {
		t.Fatalf("generated C does not compile: %v\n%s\n%s", err, out, lib.Source)
	}
}

// TestImportCallErrors feeds declarations the import lowering refuses.
func TestImportCallErrors(t *testing.T) {
	const prefix = `#t = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {}>
#l = #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
hal.executable private @e {
  hal.executable.variant public @v target(#t) {
    hal.executable.export public @f ordinal(0) layout(#l)
    builtin.module {
`
	const suffix = `
      func.func @f() {
        %c = arith.constant 1 : i32
        func.call @g(%c) : (i32) -> ()
        return
      }
    }
  }
}
`
	tests := []struct{ decl, want string }{
		{`func.func private @g(i32) attributes {hal.import.fields = ["thread_id"]}`, `unknown hal.import.fields entry "thread_id"`},
		{`func.func private @g(i32) attributes {hal.import.fields = [3]}`, "hal.import.fields must be an array of strings"},
		{`func.func private @g(i32) attributes {hal.import.static, hal.import.fields = ["processor_id"]}`, "only imports resolved at run time"},
		{`func.func private @g(i32) attributes {hal.import.name = "?g"}`, `optional imports (hal.import.name "?g") cannot be called`},
		{`func.func private @g(i32) attributes {hal.import.name = ""}`, "hal.import.name must not be empty"},
		{`func.func private @g(i32) attributes {hal.import.bitcode}`, "bitcode imports are not supported by the llvm-cpu back end"},
	}
	for _, tc := range tests {
		src := prefix + "      " + tc.decl + suffix
		m, err := dialect.Parse("bad.mlir", []byte(src), dialect.NewRegistry())
		if err != nil {
			t.Fatalf("%s: parse: %v", tc.decl, err)
		}
		var variant *ir.Operation
		ir.Walk(m.Op, func(o *ir.Operation) bool {
			if o.Name == "hal.executable.variant" {
				variant = o
			}
			return true
		})
		_, err = llvmcpu.GenerateC(variant)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.decl, err, tc.want)
		}
		if err != nil && !strings.Contains(err.Error(), "bad.mlir:") {
			t.Errorf("%s: error %q does not name the source location", tc.decl, err)
		}
	}
}
