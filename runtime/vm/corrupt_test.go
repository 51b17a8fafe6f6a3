package vm

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/schemas/bytecode"
)

// corpusModule builds a module using every part of the format: imports,
// exports with attrs, rodata, globals, calls, branches and a source map.
func corpusModule() *ModuleBuilder {
	b := sumModule()
	b.SetVersion(3)
	b.AddAttr("producer", "vm_test")
	blob := b.Rodata([]byte("payload"), "application/octet-stream")
	g := b.AddGlobal(KindI32)
	add := b.Import("test.add", "0ii_i")
	f := b.Function("misc", "0i_iI")
	f.Loc("misc.mlir", 1, 1)
	r, l, s := f.NewRefReg(), f.NewI64(), f.NewI32()
	f.Emit(OpConstRefRodata, r, blob)
	f.Emit(OpBufferLength, l, r)
	f.Emit(OpGlobalStoreI32, g, f.Arg(0))
	f.CallImport(add, []Reg{f.Arg(0), f.Arg(0)}, []Reg{s})
	f.Loc("misc.mlir", 2, 3)
	f.Return(s, l)
	b.Export("misc", f)
	return b
}

func mustBuild(t testing.TB, b *ModuleBuilder) []byte {
	t.Helper()
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// layout finds positions inside built module bytes (offsets into data,
// counting the 4-byte size prefix).
type layout struct {
	data []byte
	def  *bytecode.BytecodeModuleDef
}

func newLayout(t *testing.T, data []byte) layout {
	t.Helper()
	if _, err := LoadBytecodeModule(data); err != nil {
		t.Fatalf("valid module rejected: %v", err)
	}
	return layout{data: data, def: bytecode.GetRootAsBytecodeModuleDef(data[4:], 0)}
}

// field returns the data offset of root field slot (its inline value).
func (l layout) field(slot int) int {
	tab := l.def.Table()
	o := tab.Offset(flatbuffers.VOffsetT(4 + 2*slot))
	return 4 + int(tab.Pos) + int(o)
}

// vector returns the data offset of the length prefix of root vector field
// slot.
func (l layout) vector(slot int) int {
	tab := l.def.Table()
	o := tab.Offset(flatbuffers.VOffsetT(4 + 2*slot))
	return 4 + int(tab.Vector(flatbuffers.UOffsetT(o))) - 4
}

// code returns the data offset of internal function fn's bytecode.
func (l layout) code(fn int) int {
	var d bytecode.FunctionDescriptor
	l.def.FunctionDescriptors(&d, fn)
	return l.vector(13) + 4 + int(d.BytecodeOffset())
}

// descriptor returns the data offset of function descriptor fn.
func (l layout) descriptor(fn int) int { return l.vector(11) + 4 + 20*fn }

func put32(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
func put16(b []byte, off int, v uint16) { binary.LittleEndian.PutUint16(b[off:], v) }

func TestCorruptModulesRejected(t *testing.T) {
	valid := mustBuild(t, corpusModule())
	l := newLayout(t, valid)
	// Function 0 is sum (see the disassembly in sumModule), 1 twice_sum,
	// 2 misc.
	sum, twice, misc := l.code(0), l.code(1), l.code(2)
	tests := []struct {
		name   string
		mutate func(d []byte) []byte
		code   status.Code
		text   string
	}{
		{"empty", func(d []byte) []byte { return nil }, status.InvalidArgument, "module of 0 bytes is too short"},
		{"truncated", func(d []byte) []byte { return d[:len(d)/2] }, status.InvalidArgument, "FlatBuffer size"},
		{"truncated flatbuffer with fixed prefix", func(d []byte) []byte {
			d = d[:len(d)/2]
			put32(d, 0, uint32(len(d)-4))
			return d
		}, status.InvalidArgument, "outside buffer"},
		{"bad file identifier", func(d []byte) []byte { copy(d[8:], "JUNK"); return d }, status.InvalidArgument, `file identifier is "JUNK", want "IREE"`},
		{"bad root offset", func(d []byte) []byte { put32(d, 4, 0x7FFFFFF0); return d }, status.InvalidArgument, "table offset 2147483632 outside buffer"},
		{"bad vtable offset", func(d []byte) []byte {
			root := 4 + int(binary.LittleEndian.Uint32(d[4:]))
			put32(d, root, 0x80000000)
			return d
		}, status.InvalidArgument, "vtable offset"},
		{"bad vtable size", func(d []byte) []byte {
			root := 4 + int(binary.LittleEndian.Uint32(d[4:]))
			vt := root - int(int32(binary.LittleEndian.Uint32(d[root:])))
			put16(d, vt, 3)
			return d
		}, status.InvalidArgument, "bad vtable size 3"},
		{"field outside table", func(d []byte) []byte {
			root := 4 + int(binary.LittleEndian.Uint32(d[4:]))
			vt := root - int(int32(binary.LittleEndian.Uint32(d[root:])))
			put16(d, vt+4, 0xFFF0) // name field offset
			return d
		}, status.InvalidArgument, "BytecodeModuleDef.name: field at table offset 65520"},
		{"bad vector length", func(d []byte) []byte { put32(d, l.vector(13), 0x40000000); return d }, status.InvalidArgument, "bytecode_data: vector at"},
		{"bad descriptor vector length", func(d []byte) []byte { put32(d, l.vector(11), 0x10000000); return d }, status.InvalidArgument, "function_descriptors: vector at"},
		{"string out of bounds", func(d []byte) []byte {
			p := l.field(0)
			s := p + int(binary.LittleEndian.Uint32(d[p:]))
			put32(d, s, 0x7FFFFFFF)
			return d
		}, status.InvalidArgument, "BytecodeModuleDef.name: string at"},
		{"string not terminated", func(d []byte) []byte {
			p := l.field(0)
			s := p + int(binary.LittleEndian.Uint32(d[p:]))
			d[s+4+4] = 'X' // after "test"
			return d
		}, status.InvalidArgument, "not NUL-terminated"},
		{"bad opcode", func(d []byte) []byte { d[sum] = 0x07; return d }, status.InvalidArgument, "function sum: at offset 0: unknown opcode 7"},
		{"zero opcode", func(d []byte) []byte { d[sum] = 0; return d }, status.InvalidArgument, "unknown opcode 0"},
		{"register out of range", func(d []byte) []byte { put16(d, sum+1, 999); return d }, status.InvalidArgument, "register %I999 out of range (function has 4 i64 registers)"},
		{"call argument register out of range", func(d []byte) []byte { put16(d, twice+7, 77); return d }, status.InvalidArgument, "call: register %I77 out of range"},
		{"branch out of range", func(d []byte) []byte { put32(d, sum+65+1, 5000); return d }, status.InvalidArgument, "branch target 5000 is not an instruction boundary"},
		{"branch into an instruction", func(d []byte) []byte { put32(d, sum+65+1, 1); return d }, status.InvalidArgument, "branch target 1 is not an instruction boundary"},
		{"call target out of range", func(d []byte) []byte { put32(d, twice+1, 9); return d }, status.InvalidArgument, "function ordinal 9 out of range (module has 3)"},
		{"rodata index out of range", func(d []byte) []byte { put32(d, misc+3, 5); return d }, status.InvalidArgument, "rodata ordinal 5 out of range (module has 1)"},
		{"global out of range", func(d []byte) []byte { put32(d, misc+7+5+1, 64); return d }, status.InvalidArgument, "global byte offset 64 is unaligned or outside 4 bytes"},
		{"import ordinal out of range", func(d []byte) []byte { put32(d, misc+7+5+7+1, 3); return d }, status.InvalidArgument, "import ordinal 3 out of range (module has 1)"},
		{"missing terminator", func(d []byte) []byte {
			put32(d, l.descriptor(1)+4, uint32(33)) // drop twice_sum's return
			return d
		}, status.InvalidArgument, "function twice_sum does not end with a terminator"},
		{"operand past end", func(d []byte) []byte {
			put32(d, l.descriptor(1)+4, uint32(35))
			return d
		}, status.InvalidArgument, "return: operand 0 runs past the end"},
		{"bytecode range outside data", func(d []byte) []byte { put32(d, l.descriptor(2), 1<<20); return d }, status.InvalidArgument, "bytecode range [1048576"},
		{"overlapping functions", func(d []byte) []byte {
			copy(d[l.descriptor(1):l.descriptor(1)+8], d[l.descriptor(0):l.descriptor(0)+8])
			return d
		}, status.InvalidArgument, "bytecode of functions sum and twice_sum overlaps"},
		{"too few registers for arguments", func(d []byte) []byte { put16(d, l.descriptor(0)+8+2, 0); return d }, status.InvalidArgument, "1 i64 arguments but only 0 i64 registers"},
		{"bad signature string", func(d []byte) []byte {
			i := bytes.Index(d, []byte("0i_iI"))
			d[i] = 'X'
			return d
		}, status.InvalidArgument, `calling convention "Xi_iI": must start with version 0`},
		{"bad signature character", func(d []byte) []byte {
			i := bytes.Index(d, []byte("0ii_i"))
			d[i+1] = 'z'
			return d
		}, status.InvalidArgument, "bad argument character 'z'"},
		{"bad import name", func(d []byte) []byte {
			i := bytes.Index(d, []byte("test.add"))
			d[i+4] = '_'
			return d
		}, status.InvalidArgument, "name must be <module>.<function>"},
		{"unsupported bytecode version", func(d []byte) []byte { put32(d, l.field(12), 7<<16); return d }, status.Unimplemented, "bytecode version 7.0 is not supported"},
		{"export ordinal out of range", func(d []byte) []byte {
			var e bytecode.ExportFunctionDef
			l.def.ExportedFunctions(&e, 1) // ordinal 1: a default 0 would not be stored
			tab := e.Table()
			put32(d, 4+int(tab.Pos)+int(tab.Offset(8)), 42)
			return d
		}, status.InvalidArgument, "internal ordinal 42 out of range"},
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.name, " ", "_"), func(t *testing.T) {
			d := tt.mutate(append([]byte(nil), valid...))
			_, err := LoadBytecodeModule(d)
			if err == nil {
				t.Fatalf("corrupt module accepted")
			}
			if status.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("got %v (%v), want %v containing %q", err, status.CodeOf(err), tt.code, tt.text)
			}
		})
	}
}

func TestUnknownImportRejected(t *testing.T) {
	m := buildModule(t, corpusModule())
	_, err := NewInstance().NewContext(m)
	if status.CodeOf(err) != status.NotFound || !strings.Contains(err.Error(), "import test.add (0ii_i) not found") {
		t.Errorf("got %v", err)
	}
}

// fuzzSeeds returns the builder-made modules the fuzz corpus starts from.
func fuzzSeeds(t testing.TB) [][]byte {
	ext := corpusModule()
	ext.StoreRodataExternally()
	return [][]byte{mustBuild(t, sumModule()), mustBuild(t, corpusModule()), mustBuild(t, ext), mustBuild(t, variadicModule())}
}

func FuzzLoadModule(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadBytecodeModule(data)
		if err != nil {
			if status.CodeOf(err) == status.Unknown {
				t.Fatalf("error without a status code: %v", err)
			}
			return
		}
		// A verified module must be fully readable.
		if err := m.Disassemble(io.Discard); err != nil {
			t.Fatal(err)
		}
		_ = m.Imports()
		_ = m.Exports()
		_ = m.Functions()
		_ = m.RodataSegments()
		for i := range m.Functions() {
			_ = m.SourceLocation(i, 0)
		}
	})
}

// FuzzRunModule runs every export of each module that verifies, with
// native stand-ins for its imports and a step limit: verified bytecode must
// never make the interpreter panic, whatever it computes.
func FuzzRunModule(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := LoadBytecodeModule(data)
		if err != nil {
			return
		}
		// Huge register files are legal but make every call slow (registers
		// are zeroed on entry); keep the fuzzer fast.
		for _, fi := range m.Functions() {
			if fi.I32Registers+fi.I64Registers+fi.F32Registers+fi.F64Registers+fi.RefRegisters > 1024 {
				return
			}
		}
		natives := map[string][]NativeFunction{}
		for _, imp := range m.Imports() {
			dot := strings.IndexByte(imp.Name, '.')
			sig, _ := ParseSignature(imp.CallingConvention)
			results := sig.Results
			natives[imp.Name[:dot]] = append(natives[imp.Name[:dot]], NativeFunction{
				Name: imp.Name[dot+1:], CallingConvention: imp.CallingConvention,
				Func: func(c *NativeCall) error {
					for i, k := range results {
						c.Results[i] = zeroValue(k)
					}
					return nil
				},
			})
		}
		var mods []Module
		for name, fns := range natives {
			mods = append(mods, NewNativeModule(name, fns))
		}
		inst := NewInstance()
		inst.SetStepLimit(2000)
		ctx, err := inst.NewContext(append(mods, m)...)
		if err != nil {
			return
		}
		for _, e := range m.Exports() {
			fn, err := ctx.LookupFunction(m.Name() + "." + e.Name)
			if err != nil {
				t.Fatal(err)
			}
			var args []Value
			for _, a := range fn.Signature().Args {
				args = append(args, zeroValue(a.Kind))
			}
			_, _ = ctx.Invoke(fn, args)
		}
	})
}

func zeroValue(k ValueKind) Value {
	switch k {
	case KindI32:
		return I32(0)
	case KindI64:
		return I64(0)
	case KindF32:
		return F32(0)
	case KindF64:
		return F64(0)
	}
	return RefValue(Ref{})
}

// TestFuzzCorpus keeps testdata/fuzz/FuzzLoadModule in step with the
// builder (go test -run TestFuzzCorpus -update rewrites it).
func TestFuzzCorpus(t *testing.T) {
	for _, target := range []string{"FuzzLoadModule", "FuzzRunModule"} {
		checkCorpus(t, filepath.Join("testdata", "fuzz", target), fuzzSeeds(t))
	}
}

func checkCorpus(t *testing.T, dir string, seeds [][]byte) {
	for i, s := range seeds {
		name := filepath.Join(dir, fmt.Sprintf("seed%d", i))
		want := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatalf("reading seed: %v (run go test -run TestFuzzCorpus -update)", err)
		}
		if string(got) != want {
			t.Errorf("%s is stale; run go test -run TestFuzzCorpus -update", name)
		}
	}
}
