package vm

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Disassemble writes the text form of every internal function of m to w.
func (m *BytecodeModule) Disassemble(w io.Writer) error {
	for i := range m.funcs {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		if err := m.DisassembleFunction(w, i); err != nil {
			return err
		}
	}
	return nil
}

// DisassembleFunction writes the text form of internal function fn:
// a header with the signature and register counts, then one line per
// instruction, "OFFSET: [dst = ]mnemonic operands", with branch targets
// written ^OFFSET and source locations as trailing comments.
func (m *BytecodeModule) DisassembleFunction(w io.Writer, fn int) error {
	if fn < 0 || fn >= len(m.funcs) {
		return fmt.Errorf("disassemble: function %d out of range (module has %d)", fn, len(m.funcs))
	}
	f := &m.funcs[fn]
	var b strings.Builder
	fmt.Fprintf(&b, "func @%s(", f.name)
	var next [KindRef + 1]int
	for i, a := range f.sig.Args {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %s", regName(a.Kind, next[a.Kind]), a.Kind)
		next[a.Kind]++
	}
	b.WriteString(") -> (")
	for i, k := range f.sig.Results {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k.String())
	}
	fmt.Fprintf(&b, ")  // %s, registers i32=%d i64=%d f32=%d f64=%d ref=%d\n", f.sig.CallingConvention,
		f.regCounts[KindI32], f.regCounts[KindI64], f.regCounts[KindF32], f.regCounts[KindF64], f.regCounts[KindRef])
	lastLoc := ""
	for pc := 0; pc < len(f.code); {
		text, next := m.disassembleInstr(f, pc)
		fmt.Fprintf(&b, "  %04d: %s", pc, text)
		if loc := m.SourceLocation(fn, pc); loc != "" && loc != lastLoc {
			fmt.Fprintf(&b, "  // %s", loc)
			lastLoc = loc
		}
		b.WriteByte('\n')
		pc = next
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// disassembleInstr formats the verified instruction at pc.
func (m *BytecodeModule) disassembleInstr(f *function, pc int) (string, int) {
	code := f.code
	op := Opcode(code[pc])
	info, _ := lookupOp(op)
	p := pc + 1
	var callee *Signature
	calleeName := ""
	if op == OpReturn {
		callee = &f.sig
	}
	var segs []int
	var parts []string
	regList := func(kinds func(func(ValueKind))) string {
		n := r16(code, p)
		var names []string
		j := 0
		kinds(func(k ValueKind) {
			names = append(names, regName(k, r16(code, p+2+2*j)))
			j++
		})
		p += 2 + 2*n
		return "(" + strings.Join(names, ", ") + ")"
	}
	for _, kind := range info.operands {
		if rk := kind.regKind(); rk != KindNone {
			parts = append(parts, regName(rk, r16(code, p)))
			p += 2
			continue
		}
		switch kind {
		case oImmI32:
			parts = append(parts, strconv.FormatInt(int64(int32(binary.LittleEndian.Uint32(code[p:]))), 10))
		case oImmI64:
			parts = append(parts, strconv.FormatInt(int64(binary.LittleEndian.Uint64(code[p:])), 10))
		case oImmF32:
			parts = append(parts, strconv.FormatFloat(float64(math.Float32frombits(binary.LittleEndian.Uint32(code[p:]))), 'g', -1, 32))
		case oImmF64:
			parts = append(parts, strconv.FormatFloat(math.Float64frombits(binary.LittleEndian.Uint64(code[p:])), 'g', -1, 64))
		case oTarget:
			parts = append(parts, fmt.Sprintf("^%04d", binary.LittleEndian.Uint32(code[p:])))
		case oFunc:
			g := &m.funcs[binary.LittleEndian.Uint32(code[p:])]
			callee, calleeName = &g.sig, "@"+g.name
		case oImport:
			imp := &m.imports[binary.LittleEndian.Uint32(code[p:])]
			callee, calleeName = &imp.sig, "@"+imp.fullName
		case oRodata:
			u := binary.LittleEndian.Uint32(code[p:])
			parts = append(parts, fmt.Sprintf("rodata[%d]", u))
		case oGlobal32, oGlobal64:
			parts = append(parts, fmt.Sprintf("[%d]", binary.LittleEndian.Uint32(code[p:])))
		case oGlobalRef:
			parts = append(parts, fmt.Sprintf("ref[%d]", binary.LittleEndian.Uint32(code[p:])))
		case oSegments:
			n := r16(code, p)
			var s []string
			for j := 0; j < n; j++ {
				segs = append(segs, r16(code, p+2+2*j))
				s = append(s, strconv.Itoa(segs[j]))
			}
			calleeName += "[" + strings.Join(s, ", ") + "]"
			p += 2 + 2*n
			continue
		case oArgs:
			c := callee
			calleeName += regList(func(fn func(ValueKind)) { walkArgKinds(c, segs, fn) })
			continue
		case oResults:
			c := callee
			list := regList(func(fn func(ValueKind)) {
				for _, k := range c.Results {
					fn(k)
				}
			})
			if op == OpReturn {
				parts = append(parts, strings.Trim(list, "()"))
			} else {
				parts = append(parts, "-> "+list)
			}
			continue
		case oString:
			n := r16(code, p)
			parts = append(parts, strconv.Quote(string(code[p+2:p+2+n])))
			p += 2 + n
			continue
		}
		p += kind.fixedSize()
	}
	var s strings.Builder
	if info.dsts > 0 {
		s.WriteString(strings.Join(parts[:info.dsts], ", "))
		s.WriteString(" = ")
		parts = parts[info.dsts:]
	}
	s.WriteString(info.name)
	if calleeName != "" {
		s.WriteString(" " + calleeName)
	}
	if len(parts) > 0 && parts[0] != "" {
		s.WriteString(" ")
		s.WriteString(strings.Join(parts, ", "))
	}
	return s.String(), p
}

// WriteAssembly writes the whole module as text: a header with the name,
// version, attributes, imports, exports, rodata segments and global
// storage, then every function as Disassemble prints it. It is the
// --output-format=vm-asm form of a module.
func (m *BytecodeModule) WriteAssembly(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "module @%s version %d bytecode %d.%d\n", m.name, m.version, m.bytecodeVersion>>16, m.bytecodeVersion&0xFFFF)
	for _, a := range m.attrs {
		fmt.Fprintf(&b, "  attr %s = %s\n", a.Key, strconv.Quote(a.Value))
	}
	for _, d := range m.deps {
		opt := ""
		if d.Optional {
			opt = " optional"
		}
		fmt.Fprintf(&b, "  depends @%s version >= %d%s\n", d.Name, d.MinVersion, opt)
	}
	for i, imp := range m.imports {
		opt := ""
		if imp.optional {
			opt = " optional"
		}
		fmt.Fprintf(&b, "  import %d @%s : %s%s\n", i, imp.fullName, imp.sig.CallingConvention, opt)
	}
	for _, e := range m.exports {
		fmt.Fprintf(&b, "  export @%s = @%s : %s", e.name, m.funcs[e.fn].name, m.funcs[e.fn].sig.CallingConvention)
		for _, a := range e.attrs {
			fmt.Fprintf(&b, " {%s = %s}", a.Key, strconv.Quote(a.Value))
		}
		b.WriteByte('\n')
	}
	for i, r := range m.rodata {
		mime := ""
		if r.MimeType != "" {
			mime = " " + r.MimeType
		}
		fmt.Fprintf(&b, "  rodata %d : %d bytes%s\n", i, len(r.Data), mime)
	}
	fmt.Fprintf(&b, "  globals : %d bytes, %d refs\n\n", m.globalBytes, m.globalRefs)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return m.Disassemble(w)
}
