package vm

import (
	"encoding/binary"
	"fmt"
	"slices"
)

// verifyFunction checks every instruction of function fi: opcodes known,
// operands inside the code, registers inside the function's banks (the
// opcode table fixes each operand's bank, so in range means typed
// correctly), ordinals of functions, imports, rodata and globals in range,
// register lists matching the callee's signature, branch targets on
// instruction boundaries, and a terminator last. It records the function's
// call.import sites, decoded, for the interpreter.
func (m *BytecodeModule) verifyFunction(fi int) error {
	f := &m.funcs[fi]
	code := f.code
	boundary := make([]bool, len(code))
	var targets []struct{ at, target int }
	fail := func(pc int, format string, args ...any) error {
		return invalid("module %s: function %s: at offset %d: %s", m.name, f.name, pc, fmt.Sprintf(format, args...))
	}
	pc := 0
	lastTerm := false
	var sites []callSite
	// Ref arguments occupy the first ref registers; writesArgRef records
	// an instruction writing one of them (see function.argRefsReadOnly).
	refArgs := 0
	for _, a := range f.sig.Args {
		if a.Kind == KindRef {
			refArgs++
		}
	}
	writesArgRef := false
	for pc < len(code) {
		start := pc
		boundary[pc] = true
		op := Opcode(code[pc])
		info, ok := lookupOp(op)
		if !ok {
			return fail(start, "unknown opcode %d", op)
		}
		pc++
		var callee *Signature
		site := callSite{imp: -1}
		if op == OpReturn {
			callee = &f.sig
		}
		var segments [16]int
		segs := segments[:0]
		for oi, kind := range info.operands {
			need := kind.fixedSize()
			if need == 0 {
				need = 2
			}
			if pc+need > len(code) {
				return fail(start, "%s: operand %d runs past the end of the function", info.name, oi)
			}
			if rk := kind.regKind(); rk != KindNone {
				r := int(binary.LittleEndian.Uint16(code[pc:]))
				if r >= f.regCounts[rk] {
					return fail(start, "%s: register %s out of range (function has %d %s registers)", info.name, regName(rk, r), f.regCounts[rk], rk)
				}
				if rk == KindRef && oi < info.dsts && r < refArgs {
					writesArgRef = true
				}
				pc += 2
				continue
			}
			var u uint32
			if need == 4 {
				u = binary.LittleEndian.Uint32(code[pc:])
			}
			if (kind == oSegments || kind == oArgs || kind == oResults) && callee == nil {
				return fail(start, "%s: register list without a callee signature", info.name)
			}
			switch kind {
			case oImmI32, oImmI64, oImmF32, oImmF64:
			case oTarget:
				targets = append(targets, struct{ at, target int }{start, int(u)})
			case oFunc:
				if int(u) >= len(m.funcs) {
					return fail(start, "%s: function ordinal %d out of range (module has %d)", info.name, u, len(m.funcs))
				}
				callee = &m.funcs[u].sig
			case oImport:
				if int(u) >= len(m.imports) {
					return fail(start, "%s: import ordinal %d out of range (module has %d)", info.name, u, len(m.imports))
				}
				imp := &m.imports[u]
				if (op == OpCallImportVariadic) != imp.sig.IsVariadic() {
					return fail(start, "%s: import %s has signature %s", info.name, imp.fullName, imp.sig.CallingConvention)
				}
				callee = &imp.sig
				site.imp = int(u)
			case oRodata:
				if int(u) >= len(m.rodata) {
					return fail(start, "%s: rodata ordinal %d out of range (module has %d)", info.name, u, len(m.rodata))
				}
			case oGlobal32:
				if u%4 != 0 || uint64(u)+4 > uint64(m.globalBytes) {
					return fail(start, "%s: global byte offset %d is unaligned or outside %d bytes of globals", info.name, u, m.globalBytes)
				}
			case oGlobal64:
				if u%8 != 0 || uint64(u)+8 > uint64(m.globalBytes) {
					return fail(start, "%s: global byte offset %d is unaligned or outside %d bytes of globals", info.name, u, m.globalBytes)
				}
			case oGlobalRef:
				if int(u) >= m.globalRefs {
					return fail(start, "%s: ref global %d out of range (module has %d)", info.name, u, m.globalRefs)
				}
			case oSegments:
				n := int(binary.LittleEndian.Uint16(code[pc:]))
				pc += 2
				groups := 0
				for _, a := range callee.Args {
					if a.Tuple != nil {
						groups++
					}
				}
				if n != groups {
					return fail(start, "%s: %d segments for the %d variadic groups of %s", info.name, n, groups, callee.CallingConvention)
				}
				if pc+2*n > len(code) {
					return fail(start, "%s: segments run past the end of the function", info.name)
				}
				if n > len(segments) {
					segs = make([]int, 0, n)
				}
				for j := 0; j < n; j++ {
					segs = append(segs, int(binary.LittleEndian.Uint16(code[pc+2*j:])))
				}
				pc += 2 * n
				continue
			case oArgs, oResults:
				n := int(binary.LittleEndian.Uint16(code[pc:]))
				if kind == oArgs {
					site.argsAt = pc
				} else {
					site.resAt = pc
				}
				pc += 2
				if pc+2*n > len(code) {
					return fail(start, "%s: register list runs past the end of the function", info.name)
				}
				j := 0
				var bad error
				check := func(k ValueKind) {
					if bad != nil {
						return
					}
					if j >= n {
						bad = fail(start, "%s: register list of %d is too short for %s", info.name, n, callee.CallingConvention)
						return
					}
					r := int(binary.LittleEndian.Uint16(code[pc+2*j:]))
					if r >= f.regCounts[k] {
						bad = fail(start, "%s: register %s out of range (function has %d %s registers)", info.name, regName(k, r), f.regCounts[k], k)
					}
					// A call's results are written; a return's are read.
					if kind == oResults && op != OpReturn && k == KindRef && r < refArgs {
						writesArgRef = true
					}
					j++
				}
				if kind == oArgs {
					walkArgKinds(callee, segs, check)
				} else {
					for _, k := range callee.Results {
						check(k)
					}
				}
				if bad != nil {
					return bad
				}
				if j != n {
					return fail(start, "%s: register list of %d does not match %s", info.name, n, callee.CallingConvention)
				}
				pc += 2 * n
				continue
			case oString:
				n := int(binary.LittleEndian.Uint16(code[pc:]))
				if pc+2+n > len(code) {
					return fail(start, "%s: string of %d bytes runs past the end of the function", info.name, n)
				}
				pc += 2 + n
				continue
			default:
				return fail(start, "%s: unknown operand kind", info.name)
			}
			pc += need
		}
		lastTerm = info.term
		if site.imp >= 0 {
			site.segs = append([]int(nil), segs...)
			site.at, site.next = start, pc
			site.sig = callee
			sites = append(sites, site)
		}
	}
	if !lastTerm {
		return invalid("module %s: function %s does not end with a terminator (return, br, cond_br or fail)", m.name, f.name)
	}
	for _, t := range targets {
		if t.target >= len(code) || !boundary[t.target] {
			return fail(t.at, "branch target %d is not an instruction boundary inside the function (%d bytes)", t.target, len(code))
		}
	}
	f.setSites(sites)
	f.argRefsReadOnly = !writesArgRef
	return nil
}

// callSite is a call.import or call.import.variadic instruction decoded
// once, at load, so that calling a native import need not decode its
// operands again.
type callSite struct {
	at   int        // offset of the instruction
	imp  int        // import ordinal
	sig  *Signature // the import's signature
	segs []int      // tuple counts of the variadic groups (nil if none)
	args []siteSlot // argument registers, in call order (variadic groups expanded)
	res  []siteSlot // result registers
	// byBank holds args grouped by bank (i32, i64, f32, f64, ref) for
	// sites with at least bankedArgs arguments, nil for others;
	// byBank[bank[k-1]:bank[k]] are the registers of bank k.
	byBank []siteSlot
	bank   [KindRef + 1]uint16
	argsAt int // offset of the argument list's count
	resAt  int // offset of the result list's count
	next   int // offset of the next instruction
}

// siteShift is log2 of the code bytes per entry of function.siteAt; the
// shortest call instruction (call.import: opcode, import ordinal, empty
// argument and result lists) has minSiteBytes > 1<<siteShift bytes.
const (
	siteShift    = 3
	minSiteBytes = 1 + 4 + 2 + 2
)

// bankedArgs is the argument count from which loading a site's arguments
// bank by bank beats one switch per argument.
const bankedArgs = 8

// siteSlot is one register of a call site's argument or result list: the
// register reg of bank kind, passed as argument pos.
type siteSlot struct {
	kind ValueKind
	reg  uint16
	pos  uint16
}

// setSites decodes the register lists of the verified call sites and
// indexes them by instruction offset.
func (f *function) setSites(sites []callSite) {
	if len(sites) == 0 {
		return
	}
	n := 0
	for i := range sites {
		n += int(binary.LittleEndian.Uint16(f.code[sites[i].argsAt:])) + len(sites[i].sig.Results)
	}
	slots := make([]siteSlot, 0, n)
	// A call.import takes at least minSiteBytes bytes, so two sites never
	// share an offset>>siteShift and the index needs an entry per 8 bytes
	// of code only.
	f.siteAt = make([]int32, len(f.code)>>siteShift+1)
	for i := range sites {
		s := &sites[i]
		p := s.argsAt + 2
		start := len(slots)
		walkArgKinds(s.sig, s.segs, func(k ValueKind) {
			slots = append(slots, siteSlot{kind: k, reg: binary.LittleEndian.Uint16(f.code[p:]), pos: uint16(len(slots) - start)})
			p += 2
		})
		s.args = slots[start:len(slots):len(slots)]
		if len(s.args) >= bankedArgs {
			s.byBank = slices.Clone(s.args)
			slices.SortStableFunc(s.byBank, func(a, b siteSlot) int { return int(a.kind) - int(b.kind) })
			for _, a := range s.byBank {
				for k := a.kind; k <= KindRef; k++ {
					s.bank[k]++
				}
			}
		}
		p = s.resAt + 2
		start = len(slots)
		for _, k := range s.sig.Results {
			slots = append(slots, siteSlot{kind: k, reg: binary.LittleEndian.Uint16(f.code[p:])})
			p += 2
		}
		s.res = slots[start:len(slots):len(slots)]
		f.siteAt[s.at>>siteShift] = int32(i)
	}
	f.sites = sites
}

// walkArgKinds calls fn for each argument kind of sig, with the variadic
// groups expanded by segs, without allocating. The caller has checked that
// segs has one entry per variadic group.
func walkArgKinds(sig *Signature, segs []int, fn func(ValueKind)) {
	seg := 0
	for _, a := range sig.Args {
		if a.Tuple == nil {
			fn(a.Kind)
			continue
		}
		n := 0
		if seg < len(segs) {
			n = segs[seg]
		}
		seg++
		for t := 0; t < n; t++ {
			for _, k := range a.Tuple {
				fn(k)
			}
		}
	}
}
