package main

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/runtime/schemas/bytecode"
	"github.com/goiree/goiree/runtime/schemas/fbverify"
	"github.com/goiree/goiree/runtime/tooling/exeinfo"
	"github.com/goiree/goiree/runtime/vm"
)

const rule = "//===---------------------------------------------------------------------===//"

// signatureText formats a calling convention as "(i32, ref) -> (ref)"; a
// variadic group prints as "tuple<i32, ref>...".
func signatureText(cc string) string {
	sig, err := vm.ParseSignature(cc)
	if err != nil {
		return "<" + cc + ">"
	}
	var args []string
	for _, a := range sig.Args {
		if a.IsVariadic() {
			var parts []string
			for _, k := range a.Tuple {
				parts = append(parts, k.String())
			}
			args = append(args, "tuple<"+strings.Join(parts, ", ")+">...")
			continue
		}
		args = append(args, a.Kind.String())
	}
	var results []string
	for _, k := range sig.Results {
		results = append(results, k.String())
	}
	return "(" + strings.Join(args, ", ") + ") -> (" + strings.Join(results, ", ") + ")"
}

// requiredTypes lists the full names of the types the module's FlatBuffer
// declares (its TypeDef table), in order.
func requiredTypes(data []byte) ([]string, error) {
	fb, _, err := fbverify.SizePrefixed(data)
	if err != nil {
		return nil, err
	}
	def := bytecode.GetRootAsBytecodeModuleDef(fb, 0)
	var names []string
	var t bytecode.TypeDef
	for i := 0; i < def.TypesLength(); i++ {
		if def.Types(&t, i) {
			names = append(names, string(t.FullName()))
		}
	}
	return names, nil
}

func writeMetadata(b *strings.Builder, m *vm.BytecodeModule, fileSize int, types []string) error {
	fmt.Fprintln(b, rule)
	fmt.Fprintf(b, "// @%s : version %d\n", m.Name(), m.Version())
	fmt.Fprintln(b, rule)
	fmt.Fprintln(b)
	fmt.Fprintf(b, "File: %d bytes, bytecode version %d.%d\n", fileSize, m.BytecodeVersion()>>16, m.BytecodeVersion()&0xFFFF)
	if attrs := m.Attrs(); len(attrs) > 0 {
		fmt.Fprintln(b, "\nAttributes:")
		for _, a := range attrs {
			fmt.Fprintf(b, "  %s: %s\n", a.Key, a.Value)
		}
	}
	if len(types) > 0 {
		fmt.Fprintln(b, "\nRequired Types:")
		for i, t := range types {
			fmt.Fprintf(b, "  [%3d] %s\n", i, t)
		}
	}
	if deps := m.Dependencies(); len(deps) > 0 {
		fmt.Fprintln(b, "\nModule Dependencies:")
		for _, d := range deps {
			kind := "required"
			if d.Optional {
				kind = "optional"
			}
			fmt.Fprintf(b, "  %s, version >= %d, %s\n", d.Name, d.MinVersion, kind)
		}
	}
	fmt.Fprintln(b, "\nImported Functions:")
	for i, imp := range m.Imports() {
		opt := ""
		if imp.Optional {
			opt = "  (optional)"
		}
		fmt.Fprintf(b, "  [%3d] %s%s  // %s%s\n", i, imp.Name, signatureText(imp.CallingConvention), imp.CallingConvention, opt)
	}
	fmt.Fprintln(b, "\nExported Functions:")
	for i, e := range m.Exports() {
		fmt.Fprintf(b, "  [%3d] %s%s  // %s, internal function %d\n", i, e.Name, signatureText(e.CallingConvention), e.CallingConvention, e.Function)
		for _, a := range e.Attrs {
			fmt.Fprintf(b, "        %s: %s\n", a.Key, a.Value)
		}
	}
	fmt.Fprintln(b, "\nInternal Functions:")
	for i, f := range m.Functions() {
		fmt.Fprintf(b, "  [%3d] %s%s  // %s, bytecode [%d, %d), registers i32=%d i64=%d f32=%d f64=%d ref=%d\n",
			i, f.Name, signatureText(f.CallingConvention), f.CallingConvention, f.BytecodeOffset, f.BytecodeOffset+f.BytecodeLength,
			f.I32Registers, f.I64Registers, f.F32Registers, f.F64Registers, f.RefRegisters)
	}
	gb, gr := m.GlobalStorage()
	fmt.Fprintln(b, "\nModule State:")
	fmt.Fprintf(b, "  %d bytes, %d refs\n", gb, gr)
	fmt.Fprintln(b, "\nRodata:")
	for i, s := range m.RodataSegments() {
		mime := s.MimeType
		if mime == "" {
			mime = "-"
		}
		fmt.Fprintf(b, "  [%3d] %8d bytes  %s%s\n", i, len(s.Data), mime, rodataPreview(s.Data))
	}
	return nil
}

// rodataPreview shows short printable segments (format strings, names).
func rodataPreview(data []byte) string {
	if len(data) == 0 || len(data) > 64 || exeinfo.IsExecutable(data) {
		return ""
	}
	for _, c := range data {
		if c < 0x20 || c > 0x7E {
			return ""
		}
	}
	return fmt.Sprintf("  %q", data)
}

func writeExecutables(b *strings.Builder, m *vm.BytecodeModule, load bool) error {
	fmt.Fprintln(b, rule)
	fmt.Fprintln(b, "// Executables")
	fmt.Fprintln(b, rule)
	fmt.Fprintln(b)
	count := 0
	for i, s := range m.RodataSegments() {
		if !exeinfo.IsExecutable(s.Data) {
			continue
		}
		count++
		describe := exeinfo.Describe
		if load {
			describe = exeinfo.DescribeLoaded
		}
		info, err := describe(s.Data)
		if err != nil {
			fmt.Fprintf(b, "rodata[%d]: %d bytes, unreadable executable: %v\n", i, len(s.Data), err)
			continue
		}
		fmt.Fprintf(b, "rodata[%d]: %s, %d bytes\n", i, info.Format, info.Size)
		if len(info.EntryPoints) > 0 {
			fmt.Fprintln(b, "  entry points:")
			for j, ep := range info.EntryPoints {
				line := fmt.Sprintf("    [%d] %s", j, ep.Name)
				if d := strings.TrimSpace(ep.Detail); d != "" {
					line += "  " + d
				}
				fmt.Fprintln(b, line)
				for _, c := range ep.Configs {
					fmt.Fprintf(b, "        %s\n", c)
				}
			}
		}
		for _, n := range info.Notes {
			fmt.Fprintf(b, "  %s\n", n)
		}
	}
	if count == 0 {
		fmt.Fprintln(b, "(no embedded executables)")
	}
	return nil
}

func writeDisassembly(b *strings.Builder, m *vm.BytecodeModule, only string) error {
	fmt.Fprintln(b, rule)
	fmt.Fprintln(b, "// Disassembly")
	fmt.Fprintln(b, rule)
	fmt.Fprintln(b)
	if only == "" {
		return m.Disassemble(b)
	}
	only = strings.TrimPrefix(only, "@")
	for i, f := range m.Functions() {
		if f.Name == only {
			return m.DisassembleFunction(b, i)
		}
	}
	var names []string
	for _, f := range m.Functions() {
		names = append(names, f.Name)
	}
	return fmt.Errorf("--function=%s: no such function (functions: %s)", only, strings.Join(names, ", "))
}
