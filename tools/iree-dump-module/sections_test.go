package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/bytecode"
	"github.com/goiree/goiree/runtime/vm"
)

// typedModule builds, with the FlatBuffers builder directly, a module
// declaring the given types and dependencies (which the VM builder does
// not write), size-prefixed as a .vmfb.
func typedModule(t *testing.T, types []string, deps []vm.DependencyInfo) []byte {
	t.Helper()
	fb := flatbuffers.NewBuilder(256)
	name := fb.CreateString("typed")
	typeOffs := make([]flatbuffers.UOffsetT, len(types))
	for i, n := range types {
		s := fb.CreateString(n)
		bytecode.TypeDefStart(fb)
		bytecode.TypeDefAddFullName(fb, s)
		typeOffs[i] = bytecode.TypeDefEnd(fb)
	}
	bytecode.BytecodeModuleDefStartTypesVector(fb, len(types))
	for i := len(typeOffs) - 1; i >= 0; i-- {
		fb.PrependUOffsetT(typeOffs[i])
	}
	typeVec := fb.EndVector(len(types))
	depOffs := make([]flatbuffers.UOffsetT, len(deps))
	for i, d := range deps {
		s := fb.CreateString(d.Name)
		flags := bytecode.ModuleDependencyFlagBitsREQUIRED
		if d.Optional {
			flags = bytecode.ModuleDependencyFlagBitsOPTIONAL
		}
		bytecode.ModuleDependencyDefStart(fb)
		bytecode.ModuleDependencyDefAddName(fb, s)
		bytecode.ModuleDependencyDefAddMinimumVersion(fb, d.MinVersion)
		bytecode.ModuleDependencyDefAddFlags(fb, uint32(flags))
		depOffs[i] = bytecode.ModuleDependencyDefEnd(fb)
	}
	bytecode.BytecodeModuleDefStartDependenciesVector(fb, len(deps))
	for i := len(depOffs) - 1; i >= 0; i-- {
		fb.PrependUOffsetT(depOffs[i])
	}
	depVec := fb.EndVector(len(deps))
	bytecode.BytecodeModuleDefStart(fb)
	bytecode.BytecodeModuleDefAddName(fb, name)
	bytecode.BytecodeModuleDefAddVersion(fb, 3)
	bytecode.BytecodeModuleDefAddBytecodeVersion(fb, vm.BytecodeVersion)
	bytecode.BytecodeModuleDefAddTypes(fb, typeVec)
	bytecode.BytecodeModuleDefAddDependencies(fb, depVec)
	fb.FinishWithFileIdentifier(bytecode.BytecodeModuleDefEnd(fb), []byte("IREE"))
	body := fb.FinishedBytes()
	out := binary.LittleEndian.AppendUint32(nil, uint32(len(body)))
	return append(out, body...)
}

// TestMetadataSections checks the Required Types and Module Dependencies
// sections, in IREE's spelling.
func TestMetadataSections(t *testing.T) {
	for _, tc := range []struct {
		name  string
		types []string
		deps  []vm.DependencyInfo
		want  []string // in order
		not   []string
	}{
		{"types and dependencies",
			[]string{"hal.buffer_view", "hal.device", "vm.buffer"},
			[]vm.DependencyInfo{{Name: "hal", MinVersion: 5}, {Name: "io_parameters", MinVersion: 1, Optional: true}},
			[]string{"// @typed : version 3\n", "\nRequired Types:\n  [  0] hal.buffer_view\n  [  1] hal.device\n  [  2] vm.buffer\n",
				"\nModule Dependencies:\n  hal, version >= 5, required\n  io_parameters, version >= 1, optional\n", "\nImported Functions:\n"}, nil},
		{"neither", nil, nil, []string{"// @typed : version 3\n", "\nImported Functions:\n"}, []string{"Required Types:", "Module Dependencies:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := typedModule(t, tc.types, tc.deps)
			code, stdout, stderr := runTool(t, data, "--output=metadata", "-")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(stdout[at:], w)
				if i < 0 {
					t.Fatalf("metadata lacks %q after byte %d:\n%s", w, at, stdout)
				}
				at += i + len(w)
			}
			for _, n := range tc.not {
				if strings.Contains(stdout, n) {
					t.Errorf("metadata holds %q:\n%s", n, stdout)
				}
			}
		})
	}
}

// TestFlatbufferBinary checks that --output=flatbuffer-binary writes the
// module's FlatBuffer, without the size prefix, byte for byte.
func TestFlatbufferBinary(t *testing.T) {
	data := typedModule(t, []string{"hal.buffer_view"}, []vm.DependencyInfo{{Name: "hal", MinVersion: 1}})
	path := filepath.Join(t.TempDir(), "typed.vmfb")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runTool(t, nil, "--output=flatbuffer-binary", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !bytes.Equal([]byte(stdout), data[4:]) {
		t.Fatalf("flatbuffer-binary wrote %d bytes, want the %d after the size prefix", len(stdout), len(data)-4)
	}
	if string(stdout[4:8]) != "IREE" {
		t.Errorf("no IREE file identifier at bytes 4..8: %q", stdout[4:8])
	}
	def := bytecode.GetRootAsBytecodeModuleDef([]byte(stdout), 0)
	if string(def.Name()) != "typed" || def.TypesLength() != 1 {
		t.Errorf("the binary does not read back: name %q, %d types", def.Name(), def.TypesLength())
	}
	// A damaged module is rejected before any byte is written.
	code, stdout, _ = runTool(t, data[:len(data)-1], "--output=flatbuffer-binary", "-")
	if code != 1 || stdout != "" {
		t.Errorf("truncated module: exit %d, %d bytes written", code, len(stdout))
	}
}
