package vm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAssemblyGolden compares the text form of corpusModule with
// testdata/corpus.vmasm (go test -run TestAssemblyGolden -update rewrites
// it).
func TestAssemblyGolden(t *testing.T) {
	var b strings.Builder
	for _, mb := range []*ModuleBuilder{corpusModule(), variadicModule()} {
		if err := buildModule(t, mb).WriteAssembly(&b); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n")
	}
	m := buildModule(t, corpusModule())
	golden := filepath.Join("testdata", "corpus.vmasm")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("assembly differs from %s (run with -update to accept):\n%s", golden, b.String())
	}
	if err := m.DisassembleFunction(&b, 99); err == nil {
		t.Errorf("DisassembleFunction(99) succeeded")
	}
}

// variadicModule exercises the printing of variadic calls, floats, strings
// and globals.
func variadicModule() *ModuleBuilder {
	b := NewModuleBuilder("printing")
	b.Depend("var", 1, true)
	ws := b.OptionalImport("var.weighted_sum", "0ICiIDCrD_Ii")
	g := b.AddGlobal(KindRef)
	f := b.Function("f", "0Ir_I")
	w, n := f.NewI32(), f.NewI32()
	x, y := f.NewF32(), f.NewF64()
	r := f.NewI64()
	f.ConstI32(w, 3)
	f.ConstF32(x, 0.1)
	f.ConstF64(y, -1e300)
	f.Emit(OpGlobalStoreRef, g, f.Arg(1))
	f.CallImportVariadic(ws, []int{2, 1}, []Reg{f.Arg(0), w, f.Arg(0), w, f.Arg(0), f.Arg(1)}, []Reg{r, n})
	ok := f.NewLabel()
	f.CondBr(n, ok, ok)
	f.Bind(ok)
	f.Fail(w, "tab\there")
	b.Export("f", f)
	return b
}
