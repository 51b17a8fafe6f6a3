package vm

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/schemas/bytecode"
	"github.com/goiree/goiree/runtime/schemas/fbverify"
)

// Loader limits, enforced before anything is allocated for a module.
const (
	// MaxFunctions bounds the internal functions of one module.
	MaxFunctions = 1 << 16
	// MaxImports bounds the imports of one module.
	MaxImports = 1 << 16
	// MaxGlobalBytes bounds a module's primitive global storage.
	MaxGlobalBytes = 1 << 24
	// MaxGlobalRefs bounds a module's ref globals.
	MaxGlobalRefs = 1 << 16
	// externalDataAlignment is the alignment of the external rodata area
	// that follows the FlatBuffer.
	externalDataAlignment = 64
)

// BytecodeModule is a loaded and fully verified bytecode module. It is
// immutable and may be shared by any number of contexts and goroutines.
type BytecodeModule struct {
	name            string
	version         uint32
	bytecodeVersion uint32
	attrs           []Attr
	deps            []DependencyInfo
	imports         []moduleImport
	exports         []moduleExport
	funcs           []function
	rodata          []RodataSegment
	rodataBufs      []*Buffer
	globalBytes     int
	globalRefs      int
	locations       []string // formatted location table
	exportByName    map[string]int
}

type moduleImport struct {
	fullName, module, function string
	sig                        Signature
	optional                   bool
}

type moduleExport struct {
	name  string
	fn    int
	attrs []Attr
}

// function is one verified internal function.
type function struct {
	name      string
	sig       Signature
	code      []byte
	offset    int // offset of code within bytecode_data
	regCounts [KindRef + 1]int
	srcMap    []srcLoc
	// sites are the function's native-callable call sites in code order;
	// siteAt maps the offset of a site's instruction, shifted right by
	// siteShift, to its index.
	sites  []callSite
	siteAt []int32
	// argRefsReadOnly is set by the verifier when no instruction writes
	// a register that holds a ref argument: calls then borrow the
	// arguments (frame.borrowed).
	argRefsReadOnly bool
}

// RodataSegment is one read-only data segment of a module.
type RodataSegment struct {
	// Data aliases the module bytes; do not modify it.
	Data []byte
	// MimeType is the segment's declared MIME type, or "".
	MimeType string
	// Name says what the segment holds ("@executable::@variant" for an
	// executable), or "".
	Name string
	// SHA256 is the digest the compiler recorded, already checked against
	// Data by the loader; nil for segments without one (all segments of
	// modules compiled before digests were written).
	SHA256 []byte
}

// DependencyInfo describes a module a bytecode module needs in its
// context.
type DependencyInfo struct {
	Name       string
	MinVersion uint32
	Optional   bool
}

// ImportInfo describes one import of a module.
type ImportInfo struct {
	Name              string // fully qualified, e.g. "hal.buffer.length"
	CallingConvention string
	Optional          bool
}

// ExportInfo describes one export of a module.
type ExportInfo struct {
	Name              string
	CallingConvention string
	Attrs             []Attr
	Function          int // internal function ordinal
}

// FunctionInfo describes one internal function of a module.
type FunctionInfo struct {
	Name              string
	CallingConvention string
	// Registers per bank: I32, I64, F32, F64, Ref.
	I32Registers, I64Registers, F32Registers, F64Registers, RefRegisters int
	BytecodeOffset, BytecodeLength                                       int
}

// LoadBytecodeModule verifies data — a .vmfb: u32 size prefix, FlatBuffer
// with identifier "IREE", optional external rodata — and returns the
// module. Every FlatBuffers offset and length, every signature, ordinal and
// instruction is checked before the function returns; the returned module
// can run no instruction that was not verified. Errors have status codes
// INVALID_ARGUMENT (malformed) or UNIMPLEMENTED (unsupported version or
// compression) and name the offending part.
//
// The module copies its bytecode and names but aliases data for rodata
// segments: data must stay alive and should not be modified (modifying it
// changes only what programs read from rodata, never what they execute).
func LoadBytecodeModule(data []byte) (*BytecodeModule, error) {
	m, err := load(data)
	if err != nil {
		return nil, fmt.Errorf("loading bytecode module: %w", err)
	}
	return m, nil
}

// checkDigest compares the SHA-256 digest the compiler recorded for rodata
// segment i (when it recorded one) with the segment's contents and stores it
// in rs. A mismatch is DATA_LOSS naming the segment: the module was damaged
// after it was compiled (a flipped bit on disk or in transfer, a truncated
// copy patched up, an edit). The digest detects corruption; it is not a
// signature, since whoever changes the contents can rewrite the digest too.
func checkDigest(module string, i int, rs *RodataSegment, want []byte, n int) error {
	if n == 0 {
		return nil
	}
	what := fmt.Sprintf("rodata segment %d", i)
	if rs.Name != "" {
		what = fmt.Sprintf("executable %s (rodata segment %d)", rs.Name, i)
	}
	if n != sha256.Size {
		return status.Errorf(status.DataLoss, "module %s: %s: its SHA-256 digest has %d bytes, not %d", module, what, n, sha256.Size)
	}
	got := sha256.Sum256(rs.Data)
	if !bytes.Equal(got[:], want) {
		return status.Errorf(status.DataLoss, "module %s: %s is damaged: the SHA-256 of its %d bytes differs from the one the compiler recorded; rebuild or re-copy the module", module, what, len(rs.Data))
	}
	rs.SHA256 = bytes.Clone(want)
	return nil
}

// printable reports whether a name read from a module is valid UTF-8
// without control characters. Names end up in messages; a damaged string
// length would otherwise put binary bytes (newlines among them) into a
// one-line error.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func invalid(format string, args ...any) error {
	return status.Errorf(status.InvalidArgument, format, args...)
}

// copyBudget bounds the bytes the loader copies out of a module (strings,
// source map entries). FlatBuffers may alias one object from many places,
// so without a budget a small hostile file could make the loader copy
// gigabytes.
type copyBudget struct{ left int }

// str returns b as a string, charging the budget; once the budget is spent
// it returns "" and exceeded reports true.
func (c *copyBudget) str(b []byte) string {
	c.left -= len(b)
	if c.left < 0 {
		return ""
	}
	return string(b)
}

func (c *copyBudget) charge(n int) { c.left -= n }

func (c *copyBudget) exceeded() bool { return c.left < 0 }

func (c *copyBudget) check(name string) error {
	if c.exceeded() {
		return invalid("module %s: strings and tables alias each other so much that loading would copy far more than the file's size", name)
	}
	return nil
}

func load(data []byte) (*BytecodeModule, error) {
	if len(data) < 16 {
		return nil, invalid("module of %d bytes is too short (need at least 16)", len(data))
	}
	fb, end, err := fbverify.SizePrefixed(data)
	if err != nil {
		return nil, status.Wrap(status.InvalidArgument, err, "bad FlatBuffer")
	}
	if err := fbverify.BytecodeModuleDef(fb); err != nil {
		return nil, status.Wrap(status.InvalidArgument, err, "bad FlatBuffer")
	}
	def := bytecode.GetRootAsBytecodeModuleDef(fb, 0)
	bud := &copyBudget{left: len(data) + 1<<20}
	m := &BytecodeModule{
		name:            bud.str(def.Name()),
		version:         def.Version(),
		bytecodeVersion: def.BytecodeVersion(),
		exportByName:    map[string]int{},
	}
	if !printable(m.name) {
		return nil, invalid("module name %q has unprintable characters", m.name)
	}
	if m.name == "" {
		return nil, invalid("module name is empty")
	}
	if m.bytecodeVersion>>16 != BytecodeVersion>>16 {
		return nil, status.Errorf(status.Unimplemented, "module %s: bytecode version %d.%d is not supported (want %d.x)",
			m.name, m.bytecodeVersion>>16, m.bytecodeVersion&0xFFFF, BytecodeVersion>>16)
	}
	m.attrs = readAttrs(bud, def.AttrsLength(), def.Attrs)

	var sig bytecode.FunctionSignatureDef
	readSig := func(what string, get func(*bytecode.FunctionSignatureDef) *bytecode.FunctionSignatureDef) (Signature, []Attr, error) {
		s := get(&sig)
		if s == nil {
			return Signature{}, nil, invalid("module %s: %s has no signature", m.name, what)
		}
		cc := s.CallingConvention()
		if len(cc) > maxSignatureLength {
			return Signature{}, nil, invalid("module %s: %s: calling convention of %d bytes exceeds the limit of %d", m.name, what, len(cc), maxSignatureLength)
		}
		parsed, err := ParseSignature(bud.str(cc))
		if err != nil {
			return Signature{}, nil, fmt.Errorf("module %s: %s: %w", m.name, what, err)
		}
		attrs := readAttrs(bud, s.AttrsLength(), s.Attrs)
		return parsed, attrs, bud.check(m.name)
	}

	// Dependencies.
	if n := def.DependenciesLength(); n > MaxImports {
		return nil, invalid("module %s: %d dependencies exceed the limit of %d", m.name, n, MaxImports)
	}
	var dep bytecode.ModuleDependencyDef
	for i := 0; i < def.DependenciesLength(); i++ {
		def.Dependencies(&dep, i)
		name := bud.str(dep.Name())
		flags := dep.Flags()
		req, opt := uint32(bytecode.ModuleDependencyFlagBitsREQUIRED), uint32(bytecode.ModuleDependencyFlagBitsOPTIONAL)
		if !printable(name) {
			return nil, invalid("module %s: dependency %d: name %q has unprintable characters", m.name, i, name)
		}
		if name == "" || (flags != req && flags != opt) {
			return nil, invalid("module %s: dependency %d (%q): empty name or flags %#x not exactly one of REQUIRED (1) and OPTIONAL (2)", m.name, i, name, flags)
		}
		m.deps = append(m.deps, DependencyInfo{Name: name, MinVersion: dep.MinimumVersion(), Optional: flags == opt})
	}

	// Imports.
	if n := def.ImportedFunctionsLength(); n > MaxImports {
		return nil, invalid("module %s: %d imports exceed the limit of %d", m.name, n, MaxImports)
	}
	var imp bytecode.ImportFunctionDef
	for i := 0; i < def.ImportedFunctionsLength(); i++ {
		def.ImportedFunctions(&imp, i)
		name := bud.str(imp.FullName())
		if !printable(name) {
			return nil, invalid("module %s: import %d: name %q has unprintable characters", m.name, i, name)
		}
		what := fmt.Sprintf("import %d (%s)", i, name)
		dot := strings.IndexByte(name, '.')
		if dot <= 0 || dot == len(name)-1 {
			return nil, invalid("module %s: %s: name must be <module>.<function>", m.name, what)
		}
		s, _, err := readSig(what, imp.Signature)
		if err != nil {
			return nil, err
		}
		if imp.Flags()&^uint32(bytecode.ImportFlagBitsOPTIONAL) != 0 {
			return nil, invalid("module %s: %s: unknown flags %#x", m.name, what, imp.Flags())
		}
		m.imports = append(m.imports, moduleImport{
			fullName: name, module: name[:dot], function: name[dot+1:], sig: s,
			optional: imp.Flags()&uint32(bytecode.ImportFlagBitsOPTIONAL) != 0,
		})
	}

	// Internal functions and their descriptors.
	nfn := def.FunctionDescriptorsLength()
	if nfn > MaxFunctions {
		return nil, invalid("module %s: %d functions exceed the limit of %d", m.name, nfn, MaxFunctions)
	}
	if def.InternalFunctionsLength() != nfn {
		return nil, invalid("module %s: %d internal function defs for %d function descriptors", m.name, def.InternalFunctionsLength(), nfn)
	}
	// The bytecode is copied so that later changes to data cannot undo its
	// verification; rodata stays aliased.
	code := append([]byte(nil), def.BytecodeDataBytes()...)
	var desc bytecode.FunctionDescriptor
	var ifn bytecode.InternalFunctionDef
	for i := 0; i < nfn; i++ {
		def.FunctionDescriptors(&desc, i)
		def.InternalFunctions(&ifn, i)
		name := bud.str(ifn.LocalName())
		if !printable(name) {
			return nil, invalid("module %s: function %d: name %q has unprintable characters", m.name, i, name)
		}
		what := fmt.Sprintf("function %d (%s)", i, name)
		s, _, err := readSig(what, ifn.Signature)
		if err != nil {
			return nil, err
		}
		if s.IsVariadic() {
			return nil, invalid("module %s: %s: internal functions cannot be variadic (%s)", m.name, what, s.CallingConvention)
		}
		off, length := int64(desc.BytecodeOffset()), int64(desc.BytecodeLength())
		if off < 0 || length <= 0 || off+length > int64(len(code)) {
			return nil, invalid("module %s: %s: bytecode range [%d, %d) outside bytecode data of %d bytes", m.name, what, off, off+length, len(code))
		}
		// A full slice expression, so that cap(code) == len(code): the
		// interpreter slices operands with code[pc:pc+n], which checks
		// against the capacity.
		f := function{name: name, sig: s, code: code[off : off+length : off+length], offset: int(off)}
		f.regCounts[KindI32] = int(desc.I32RegisterCount())
		f.regCounts[KindI64] = int(desc.I64RegisterCount())
		f.regCounts[KindF32] = int(desc.F32RegisterCount())
		f.regCounts[KindF64] = int(desc.F64RegisterCount())
		f.regCounts[KindRef] = int(desc.RefRegisterCount())
		var need [KindRef + 1]int
		for _, a := range s.Args {
			need[a.Kind]++
		}
		for k := KindI32; k <= KindRef; k++ {
			if need[k] > f.regCounts[k] {
				return nil, invalid("module %s: %s: %d %s arguments but only %d %s registers", m.name, what, need[k], k, f.regCounts[k], k)
			}
		}
		m.funcs = append(m.funcs, f)
	}

	// Exports.
	var exp bytecode.ExportFunctionDef
	for i := 0; i < def.ExportedFunctionsLength(); i++ {
		def.ExportedFunctions(&exp, i)
		name := bud.str(exp.LocalName())
		if !printable(name) {
			return nil, invalid("module %s: export %d: name %q has unprintable characters", m.name, i, name)
		}
		what := fmt.Sprintf("export %d (%s)", i, name)
		if name == "" {
			return nil, invalid("module %s: %s has an empty name", m.name, what)
		}
		ord := int(exp.InternalOrdinal())
		if ord < 0 || ord >= len(m.funcs) {
			return nil, invalid("module %s: %s: internal ordinal %d out of range (module has %d functions)", m.name, what, ord, len(m.funcs))
		}
		s, attrs, err := readSig(what, exp.Signature)
		if err != nil {
			return nil, err
		}
		if s.CallingConvention != m.funcs[ord].sig.CallingConvention {
			return nil, invalid("module %s: %s: signature %s differs from function %s's %s", m.name, what, s.CallingConvention, m.funcs[ord].name, m.funcs[ord].sig.CallingConvention)
		}
		if _, dup := m.exportByName[name]; dup {
			return nil, invalid("module %s: %s is exported twice", m.name, name)
		}
		m.exportByName[name] = len(m.exports)
		m.exports = append(m.exports, moduleExport{name: name, fn: ord, attrs: attrs})
	}

	// Rodata.
	var seg bytecode.RodataSegmentDef
	extStart := (end + externalDataAlignment - 1) &^ (externalDataAlignment - 1)
	for i := 0; i < def.RodataSegmentsLength(); i++ {
		def.RodataSegments(&seg, i)
		if t := seg.CompressionTypeType(); t != bytecode.CompressionTypeDefNONE && t != bytecode.CompressionTypeDefUncompressedDataDef {
			return nil, status.Errorf(status.Unimplemented, "module %s: rodata %d: compression type %d is not supported", m.name, i, t)
		}
		var d []byte
		if seg.EmbeddedDataLength() > 0 {
			if seg.ExternalDataLength() != 0 {
				return nil, invalid("module %s: rodata %d has both embedded and external data", m.name, i)
			}
			d = seg.EmbeddedDataBytes()
		} else if n := seg.ExternalDataLength(); n > 0 {
			off := seg.ExternalDataOffset()
			if off > uint64(len(data)) || n > uint64(len(data)) || extStart+off+n > uint64(len(data)) || extStart+off+n < extStart {
				return nil, invalid("module %s: rodata %d: external data [%d, +%d) after offset %d outside file of %d bytes", m.name, i, off, n, extStart, len(data))
			}
			d = data[extStart+off : extStart+off+n]
		}
		rs := RodataSegment{Data: d, MimeType: bud.str(seg.MimeType()), Name: bud.str(seg.Name())}
		if !printable(rs.MimeType) || !printable(rs.Name) {
			return nil, invalid("module %s: rodata %d: MIME type %q or name %q has unprintable characters", m.name, i, rs.MimeType, rs.Name)
		}
		if err := checkDigest(m.name, i, &rs, seg.Sha256DigestBytes(), seg.Sha256DigestLength()); err != nil {
			return nil, err
		}
		m.rodata = append(m.rodata, rs)
		buf := NewBuffer(d, true)
		buf.name, buf.digest = rs.Name, rs.SHA256
		m.rodataBufs = append(m.rodataBufs, buf)
	}

	// Globals.
	var st bytecode.ModuleStateDef
	if def.ModuleState(&st) != nil {
		gb, gr := int64(st.GlobalBytesCapacity()), int64(st.GlobalRefCount())
		if gb < 0 || gb > MaxGlobalBytes {
			return nil, invalid("module %s: global byte capacity %d outside [0, %d]", m.name, gb, MaxGlobalBytes)
		}
		if gr < 0 || gr > MaxGlobalRefs {
			return nil, invalid("module %s: global ref count %d outside [0, %d]", m.name, gr, MaxGlobalRefs)
		}
		m.globalBytes, m.globalRefs = int(gb), int(gr)
	}

	if err := bud.check(m.name); err != nil {
		return nil, err
	}
	if err := m.readDebug(def, bud); err != nil {
		return nil, err
	}
	if err := bud.check(m.name); err != nil {
		return nil, err
	}
	if err := m.checkDisjointCode(); err != nil {
		return nil, err
	}

	// Bytecode.
	for i := range m.funcs {
		if err := m.verifyFunction(i); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func readAttrs(bud *copyBudget, n int, get func(*bytecode.AttrDef, int) bool) []Attr {
	if n == 0 {
		return nil
	}
	bud.charge(16 * n)
	if bud.exceeded() {
		return nil
	}
	attrs := make([]Attr, n)
	var a bytecode.AttrDef
	for i := 0; i < n; i++ {
		get(&a, i)
		attrs[i] = Attr{Key: bud.str(a.Key()), Value: bud.str(a.Value())}
	}
	return attrs
}

// readDebug reads the location table and source maps (verified by fbverify;
// here the indices are checked).
func (m *BytecodeModule) readDebug(def *bytecode.BytecodeModuleDef, bud *copyBudget) error {
	var db bytecode.DebugDatabaseDef
	if def.DebugDatabase(&db) == nil {
		return nil
	}
	n := db.LocationTableLength()
	bud.charge(16 * n)
	if bud.exceeded() {
		return nil
	}
	m.locations = make([]string, n)
	var loc bytecode.LocationDef
	var tab flatbuffers.Table
	for i := 0; i < n; i++ {
		db.LocationTable(&loc, i)
		// The type first: fbverify checks a union's value only when its
		// type names a member (and rejects a value under NONE).
		typ := loc.LocationType()
		if typ == bytecode.LocationTypeDefNONE || !loc.Location(&tab) {
			continue
		}
		switch typ {
		case bytecode.LocationTypeDefFileLineColLocDef:
			var f bytecode.FileLineColLocDef
			f.Init(tab.Bytes, tab.Pos)
			m.locations[i] = fmt.Sprintf("%s:%d:%d", bud.str(f.Filename()), f.Line(), f.Column())
		case bytecode.LocationTypeDefNameLocDef:
			var nl bytecode.NameLocDef
			nl.Init(tab.Bytes, tab.Pos)
			m.locations[i] = fmt.Sprintf("%q", bud.str(nl.Name()))
		}
	}
	var fsm bytecode.FunctionSourceMapDef
	var bl bytecode.BytecodeLocationDef
	for i := 0; i < db.FunctionsLength() && i < len(m.funcs); i++ {
		db.Functions(&fsm, i)
		bud.charge(8 * fsm.LocationsLength())
		if bud.exceeded() {
			return nil
		}
		for j := 0; j < fsm.LocationsLength(); j++ {
			fsm.Locations(&bl, j)
			if l := bl.Location(); l < 0 || int(l) >= n {
				return invalid("module %s: source map of function %d: location %d outside table of %d", m.name, i, l, n)
			}
			m.funcs[i].srcMap = append(m.funcs[i].srcMap, srcLoc{offset: bl.BytecodeOffset(), loc: bl.Location()})
		}
	}
	return nil
}

// Name returns the module's name.
func (m *BytecodeModule) Name() string { return m.name }

// Version returns the module's version number.
func (m *BytecodeModule) Version() uint32 { return m.version }

// BytecodeVersion returns the module's bytecode version (major<<16|minor).
func (m *BytecodeModule) BytecodeVersion() uint32 { return m.bytecodeVersion }

// Attrs returns the module's metadata attributes.
func (m *BytecodeModule) Attrs() []Attr { return append([]Attr(nil), m.attrs...) }

// Dependencies describes the modules this module needs in its context.
func (m *BytecodeModule) Dependencies() []DependencyInfo {
	return append([]DependencyInfo(nil), m.deps...)
}

// Imports describes the module's imports in ordinal order.
func (m *BytecodeModule) Imports() []ImportInfo {
	out := make([]ImportInfo, len(m.imports))
	for i, imp := range m.imports {
		out[i] = ImportInfo{Name: imp.fullName, CallingConvention: imp.sig.CallingConvention, Optional: imp.optional}
	}
	return out
}

// Exports describes the module's exports in ordinal order.
func (m *BytecodeModule) Exports() []ExportInfo {
	out := make([]ExportInfo, len(m.exports))
	for i, e := range m.exports {
		out[i] = ExportInfo{Name: e.name, CallingConvention: m.funcs[e.fn].sig.CallingConvention, Attrs: append([]Attr(nil), e.attrs...), Function: e.fn}
	}
	return out
}

// Functions describes the module's internal functions in ordinal order.
func (m *BytecodeModule) Functions() []FunctionInfo {
	out := make([]FunctionInfo, len(m.funcs))
	for i, f := range m.funcs {
		out[i] = FunctionInfo{
			Name: f.name, CallingConvention: f.sig.CallingConvention,
			I32Registers: f.regCounts[KindI32], I64Registers: f.regCounts[KindI64],
			F32Registers: f.regCounts[KindF32], F64Registers: f.regCounts[KindF64],
			RefRegisters:   f.regCounts[KindRef],
			BytecodeOffset: f.offset, BytecodeLength: len(f.code),
		}
	}
	return out
}

// RodataSegments returns the module's read-only data segments.
func (m *BytecodeModule) RodataSegments() []RodataSegment {
	return append([]RodataSegment(nil), m.rodata...)
}

// GlobalStorage returns the bytes of primitive global storage and the
// number of ref globals each context allocates for the module.
func (m *BytecodeModule) GlobalStorage() (bytes, refs int) { return m.globalBytes, m.globalRefs }

// SourceLocation returns the source location recorded for the instruction
// at byte offset pc of internal function fn ("file:line:col"), or "".
func (m *BytecodeModule) SourceLocation(fn, pc int) string {
	if fn < 0 || fn >= len(m.funcs) {
		return ""
	}
	best := ""
	for _, s := range m.funcs[fn].srcMap {
		if int(s.offset) <= pc {
			best = m.locations[s.loc]
		}
	}
	return best
}

// checkDisjointCode requires the functions' bytecode ranges not to
// overlap, so that verification work is bounded by the bytecode size.
func (m *BytecodeModule) checkDisjointCode() error {
	order := make([]int, len(m.funcs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return m.funcs[order[a]].offset < m.funcs[order[b]].offset })
	for i := 1; i < len(order); i++ {
		prev, cur := &m.funcs[order[i-1]], &m.funcs[order[i]]
		if prev.offset+len(prev.code) > cur.offset {
			return invalid("module %s: bytecode of functions %s and %s overlaps", m.name, prev.name, cur.name)
		}
	}
	return nil
}
