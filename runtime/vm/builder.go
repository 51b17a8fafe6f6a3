package vm

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/bytecode"
)

// BytecodeVersion is the bytecode version (major<<16 | minor) the builder
// writes and the loader accepts.
const BytecodeVersion = 1<<16 | 0

// Reg names a register: a bank (kind) and an index within it.
type Reg struct {
	kind  ValueKind
	index uint16
}

// Kind returns the register's bank.
func (r Reg) Kind() ValueKind { return r.kind }

// Index returns the register's index within its bank.
func (r Reg) Index() int { return int(r.index) }

// String formats the register as the disassembler does, e.g. "%i3".
func (r Reg) String() string { return regName(r.kind, int(r.index)) }

func regName(k ValueKind, i int) string {
	prefix := "%?"
	switch k {
	case KindI32:
		prefix = "%i"
	case KindI64:
		prefix = "%I"
	case KindF32:
		prefix = "%f"
	case KindF64:
		prefix = "%F"
	case KindRef:
		prefix = "%r"
	}
	return fmt.Sprintf("%s%d", prefix, i)
}

// ImportRef names an import declared with ModuleBuilder.Import.
type ImportRef struct{ ordinal uint32 }

// RodataRef names a rodata segment added with ModuleBuilder.Rodata.
type RodataRef struct{ ordinal uint32 }

// Global names a global variable added with ModuleBuilder.AddGlobal.
type Global struct {
	kind ValueKind
	slot uint32 // byte offset for scalars, index for refs
}

// Kind returns the global's type.
func (g Global) Kind() ValueKind { return g.kind }

// Label is a branch target inside one function, bound with
// FunctionBuilder.Bind.
type Label struct{ id int }

// ModuleBuilder assembles a bytecode module and serialises it to .vmfb
// bytes. Errors are collected and reported by Build, so emission code need
// not check each call.
type ModuleBuilder struct {
	name        string
	version     uint32
	attrs       []Attr
	imports     []importDecl
	funcs       []*FunctionBuilder
	exports     []exportDecl
	rodata      []rodataDecl
	globalBytes uint32
	globalRefs  uint32
	locations   []location
	locIndex    map[location]int32
	errs        []error

	externalRodata bool
	deps           []dependencyDecl
}

type dependencyDecl struct {
	name       string
	minVersion uint32
	optional   bool
}

type importDecl struct {
	name     string
	sig      Signature
	optional bool
}

type exportDecl struct {
	name  string
	fn    *FunctionBuilder
	attrs []Attr
}

type rodataDecl struct {
	data   []byte
	mime   string
	name   string
	digest []byte // SHA-256 of data, or nil
}

type location struct {
	file      string
	line, col int32
}

// NewModuleBuilder returns a builder for a module with the given name.
func NewModuleBuilder(name string) *ModuleBuilder {
	b := &ModuleBuilder{name: name, locIndex: map[location]int32{}}
	if name == "" {
		b.errorf("module name is empty")
	}
	return b
}

func (b *ModuleBuilder) errorf(format string, args ...any) {
	b.errs = append(b.errs, fmt.Errorf(format, args...))
}

// SetVersion sets the module's version number.
func (b *ModuleBuilder) SetVersion(v uint32) { b.version = v }

// AddAttr adds a module-level metadata attribute.
func (b *ModuleBuilder) AddAttr(key, value string) {
	b.attrs = append(b.attrs, Attr{Key: key, Value: value})
}

// Import declares an imported function by fully-qualified name
// ("hal.buffer.length") and calling convention; it must resolve when a
// context is created.
func (b *ModuleBuilder) Import(fullName, callingConvention string) ImportRef {
	return b.addImport(fullName, callingConvention, false)
}

// OptionalImport declares an import that may be missing at context
// creation; calling a missing optional import fails with NOT_FOUND.
func (b *ModuleBuilder) OptionalImport(fullName, callingConvention string) ImportRef {
	return b.addImport(fullName, callingConvention, true)
}

func (b *ModuleBuilder) addImport(fullName, cc string, optional bool) ImportRef {
	sig, err := ParseSignature(cc)
	if err != nil {
		b.errorf("import %s: %w", fullName, err)
	}
	b.imports = append(b.imports, importDecl{name: fullName, sig: sig, optional: optional})
	return ImportRef{ordinal: uint32(len(b.imports) - 1)}
}

// Rodata adds a read-only data segment (e.g. an executable binary) with an
// optional MIME type; code reaches it with const.ref.rodata.
func (b *ModuleBuilder) Rodata(data []byte, mimeType string) RodataRef {
	b.rodata = append(b.rodata, rodataDecl{data: data, mime: mimeType})
	return RodataRef{ordinal: uint32(len(b.rodata) - 1)}
}

// RodataChecked adds a read-only data segment like Rodata, with a name for
// messages and the SHA-256 digest of data: LoadBytecodeModule recomputes
// the digest and refuses the module with DATA_LOSS when it differs, so a
// damaged executable never reaches a HAL driver. The compiler uses it for
// embedded executables.
func (b *ModuleBuilder) RodataChecked(name string, data []byte, mimeType string) RodataRef {
	sum := sha256.Sum256(data)
	b.rodata = append(b.rodata, rodataDecl{data: data, mime: mimeType, name: name, digest: sum[:]})
	return RodataRef{ordinal: uint32(len(b.rodata) - 1)}
}

// Depend records that the module needs a module named name with at least
// version minVersion in its context (optional dependencies are only
// version-checked when present). NewContext checks dependencies before
// resolving imports.
func (b *ModuleBuilder) Depend(name string, minVersion uint32, optional bool) {
	b.deps = append(b.deps, dependencyDecl{name: name, minVersion: minVersion, optional: optional})
}

// StoreRodataExternally makes Build place rodata segments after the
// FlatBuffer (at 64-byte aligned offsets, as IREE's archive layout does)
// instead of inside it. Large executables are then not copied through the
// FlatBuffers builder and can be mapped in place.
func (b *ModuleBuilder) StoreRodataExternally() { b.externalRodata = true }

// AddGlobal allocates a zero-initialised global of the given kind.
func (b *ModuleBuilder) AddGlobal(kind ValueKind) Global {
	switch kind {
	case KindI32, KindF32:
		off := alignUp32(b.globalBytes, 4)
		b.globalBytes = off + 4
		return Global{kind: kind, slot: off}
	case KindI64, KindF64:
		off := alignUp32(b.globalBytes, 8)
		b.globalBytes = off + 8
		return Global{kind: kind, slot: off}
	case KindRef:
		b.globalRefs++
		return Global{kind: kind, slot: b.globalRefs - 1}
	}
	b.errorf("global of kind %s", kind)
	return Global{}
}

func alignUp32(v, a uint32) uint32 { return (v + a - 1) &^ (a - 1) }

// Function starts a new internal function with the given name and
// (non-variadic) calling convention. Its arguments occupy the first
// registers of each bank in order: for "0iIi_v" the arguments are %i0, %I0
// and %i1.
func (b *ModuleBuilder) Function(name, callingConvention string) *FunctionBuilder {
	f := &FunctionBuilder{module: b, name: name, ordinal: uint32(len(b.funcs))}
	sig, err := ParseSignature(callingConvention)
	if err != nil {
		b.errorf("function %s: %w", name, err)
	}
	if sig.IsVariadic() {
		b.errorf("function %s: internal functions cannot be variadic (%s)", name, callingConvention)
		sig.Args = nil
	}
	f.sig = sig
	for _, a := range sig.Args {
		f.args = append(f.args, f.NewReg(a.Kind))
	}
	b.funcs = append(b.funcs, f)
	return f
}

// Export exports f under name with optional reflection attributes.
func (b *ModuleBuilder) Export(name string, f *FunctionBuilder, attrs ...Attr) {
	if f == nil || f.module != b {
		b.errorf("export %s: function belongs to another builder", name)
		return
	}
	b.exports = append(b.exports, exportDecl{name: name, fn: f, attrs: attrs})
}

func (b *ModuleBuilder) locationIndex(l location) int32 {
	if i, ok := b.locIndex[l]; ok {
		return i
	}
	i := int32(len(b.locations))
	b.locations = append(b.locations, l)
	b.locIndex[l] = i
	return i
}

// FunctionBuilder emits the bytecode of one function.
type FunctionBuilder struct {
	module    *ModuleBuilder
	name      string
	ordinal   uint32
	sig       Signature
	args      []Reg
	regCounts [KindRef + 1]int
	code      []byte
	labels    []int // bound offset per label, -1 if unbound
	fixups    []fixup
	srcMap    []srcLoc
	lastTerm  bool
}

type fixup struct {
	at    int
	label int
}

type srcLoc struct {
	offset int32
	loc    int32
}

// Name returns the function's name.
func (f *FunctionBuilder) Name() string { return f.name }

// Arg returns the register holding argument i.
func (f *FunctionBuilder) Arg(i int) Reg {
	if i < 0 || i >= len(f.args) {
		f.module.errorf("function %s: argument %d out of range (has %d)", f.name, i, len(f.args))
		return Reg{}
	}
	return f.args[i]
}

// NewReg allocates a fresh register of the given kind.
func (f *FunctionBuilder) NewReg(kind ValueKind) Reg {
	if kind < KindI32 || kind > KindRef {
		f.module.errorf("function %s: register of kind %s", f.name, kind)
		return Reg{}
	}
	n := f.regCounts[kind]
	if n >= math.MaxUint16 {
		f.module.errorf("function %s: too many %s registers", f.name, kind)
		return Reg{kind: kind}
	}
	f.regCounts[kind]++
	return Reg{kind: kind, index: uint16(n)}
}

// NewI32 allocates an i32 register.
func (f *FunctionBuilder) NewI32() Reg { return f.NewReg(KindI32) }

// NewI64 allocates an i64 register.
func (f *FunctionBuilder) NewI64() Reg { return f.NewReg(KindI64) }

// NewF32 allocates an f32 register.
func (f *FunctionBuilder) NewF32() Reg { return f.NewReg(KindF32) }

// NewF64 allocates an f64 register.
func (f *FunctionBuilder) NewF64() Reg { return f.NewReg(KindF64) }

// NewRefReg allocates a ref register.
func (f *FunctionBuilder) NewRefReg() Reg { return f.NewReg(KindRef) }

// NewLabel returns an unbound label.
func (f *FunctionBuilder) NewLabel() Label {
	f.labels = append(f.labels, -1)
	return Label{id: len(f.labels) - 1}
}

// Bind places label l at the current position.
func (f *FunctionBuilder) Bind(l Label) {
	if l.id < 0 || l.id >= len(f.labels) {
		f.module.errorf("function %s: unknown label", f.name)
		return
	}
	if f.labels[l.id] >= 0 {
		f.module.errorf("function %s: label bound twice", f.name)
		return
	}
	f.labels[l.id] = len(f.code)
	f.lastTerm = false
}

// Loc records that the instructions emitted next come from file:line:col
// (written to the module's source map).
func (f *FunctionBuilder) Loc(file string, line, col int) {
	idx := f.module.locationIndex(location{file: file, line: int32(line), col: int32(col)})
	f.srcMap = append(f.srcMap, srcLoc{offset: int32(len(f.code)), loc: idx})
}

// Emit appends one instruction. Operands, in table order, are: Reg for
// registers; int32, int64, float32 or float64 for immediates; Label for
// branch targets; *FunctionBuilder for callees; ImportRef; RodataRef;
// Global; []int for variadic segments; []Reg for argument and result lists;
// string for messages. Mismatches are reported by Build.
func (f *FunctionBuilder) Emit(op Opcode, operands ...any) {
	info, ok := lookupOp(op)
	if !ok {
		f.module.errorf("function %s: invalid opcode %d", f.name, op)
		return
	}
	if len(operands) != len(info.operands) {
		f.module.errorf("function %s: %s takes %d operands, got %d", f.name, info.name, len(info.operands), len(operands))
		return
	}
	var callee *Signature
	if op == OpReturn {
		callee = &f.sig
	}
	var segments []int
	start := len(f.code)
	f.code = append(f.code, byte(op))
	for i, kind := range info.operands {
		if err := f.encodeOperand(info, kind, operands[i], &callee, &segments); err != nil {
			f.module.errorf("function %s: %s operand %d: %w", f.name, info.name, i, err)
			f.code = f.code[:start]
			return
		}
	}
	f.lastTerm = info.term
}

func (f *FunctionBuilder) u16(v int) { f.code = binary.LittleEndian.AppendUint16(f.code, uint16(v)) }
func (f *FunctionBuilder) u32(v uint32) {
	f.code = binary.LittleEndian.AppendUint32(f.code, v)
}

func (f *FunctionBuilder) encodeOperand(info *opInfo, kind operandKind, v any, callee **Signature, segments *[]int) error {
	if rk := kind.regKind(); rk != KindNone {
		r, ok := v.(Reg)
		if !ok {
			return fmt.Errorf("want a %s register, got %T", rk, v)
		}
		if r.kind != rk {
			return fmt.Errorf("want a %s register, got %s", rk, r)
		}
		f.u16(int(r.index))
		return nil
	}
	switch kind {
	case oImmI32:
		x, ok := v.(int32)
		if !ok {
			return fmt.Errorf("want int32, got %T", v)
		}
		f.u32(uint32(x))
	case oImmI64:
		x, ok := v.(int64)
		if !ok {
			return fmt.Errorf("want int64, got %T", v)
		}
		f.code = binary.LittleEndian.AppendUint64(f.code, uint64(x))
	case oImmF32:
		x, ok := v.(float32)
		if !ok {
			return fmt.Errorf("want float32, got %T", v)
		}
		f.u32(math.Float32bits(x))
	case oImmF64:
		x, ok := v.(float64)
		if !ok {
			return fmt.Errorf("want float64, got %T", v)
		}
		f.code = binary.LittleEndian.AppendUint64(f.code, math.Float64bits(x))
	case oTarget:
		l, ok := v.(Label)
		if !ok || l.id < 0 || l.id >= len(f.labels) {
			return fmt.Errorf("want a Label of this function, got %T", v)
		}
		f.fixups = append(f.fixups, fixup{at: len(f.code), label: l.id})
		f.u32(0)
	case oFunc:
		g, ok := v.(*FunctionBuilder)
		if !ok || g == nil || g.module != f.module {
			return fmt.Errorf("want a function of this module, got %T", v)
		}
		*callee = &g.sig
		f.u32(g.ordinal)
	case oImport:
		imp, ok := v.(ImportRef)
		if !ok || int(imp.ordinal) >= len(f.module.imports) {
			return fmt.Errorf("want an ImportRef of this module, got %T", v)
		}
		sig := &f.module.imports[imp.ordinal].sig
		if info.name == "call.import" && sig.IsVariadic() {
			return fmt.Errorf("import %s is variadic; use call.import.variadic", f.module.imports[imp.ordinal].name)
		}
		*callee = sig
		f.u32(imp.ordinal)
	case oRodata:
		r, ok := v.(RodataRef)
		if !ok || int(r.ordinal) >= len(f.module.rodata) {
			return fmt.Errorf("want a RodataRef of this module, got %T", v)
		}
		f.u32(r.ordinal)
	case oGlobal32, oGlobal64, oGlobalRef:
		g, ok := v.(Global)
		if !ok {
			return fmt.Errorf("want a Global, got %T", v)
		}
		want := info.operands[0].regKind()
		if want == KindNone {
			want = info.operands[1].regKind()
		}
		if g.kind != want {
			return fmt.Errorf("want a %s global, got a %s global", want, g.kind)
		}
		f.u32(g.slot)
	case oSegments:
		segs, ok := v.([]int)
		if !ok {
			return fmt.Errorf("want []int segments, got %T", v)
		}
		if *callee == nil || !(*callee).IsVariadic() {
			return fmt.Errorf("segments given for a non-variadic callee")
		}
		if (*callee).ArgKinds(segs) == nil {
			return fmt.Errorf("segments %v do not match signature %s", segs, (*callee).CallingConvention)
		}
		*segments = segs
		f.u16(len(segs))
		for _, s := range segs {
			if s > math.MaxUint16 {
				return fmt.Errorf("segment of %d tuples is too long", s)
			}
			f.u16(s)
		}
	case oArgs, oResults:
		regs, ok := v.([]Reg)
		if !ok {
			return fmt.Errorf("want []Reg, got %T", v)
		}
		if *callee == nil {
			return fmt.Errorf("no callee signature")
		}
		var kinds []ValueKind
		if kind == oArgs {
			kinds = (*callee).ArgKinds(*segments)
		} else {
			kinds = (*callee).Results
		}
		if len(regs) != len(kinds) {
			return fmt.Errorf("signature %s wants %d registers, got %d", (*callee).CallingConvention, len(kinds), len(regs))
		}
		if len(regs) > math.MaxUint16 {
			return fmt.Errorf("too many registers")
		}
		f.u16(len(regs))
		for i, r := range regs {
			if r.kind != kinds[i] {
				return fmt.Errorf("register %d: want %s, got %s", i, kinds[i], r)
			}
			f.u16(int(r.index))
		}
	case oString:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want string, got %T", v)
		}
		if len(s) > math.MaxUint16 {
			return fmt.Errorf("string of %d bytes is too long", len(s))
		}
		f.u16(len(s))
		f.code = append(f.code, s...)
	default:
		return fmt.Errorf("unknown operand kind %d", kind)
	}
	return nil
}

// ConstI32 emits dst = v.
func (f *FunctionBuilder) ConstI32(dst Reg, v int32) { f.Emit(OpConstI32, dst, v) }

// ConstI64 emits dst = v.
func (f *FunctionBuilder) ConstI64(dst Reg, v int64) { f.Emit(OpConstI64, dst, v) }

// ConstF32 emits dst = v.
func (f *FunctionBuilder) ConstF32(dst Reg, v float32) { f.Emit(OpConstF32, dst, v) }

// ConstF64 emits dst = v.
func (f *FunctionBuilder) ConstF64(dst Reg, v float64) { f.Emit(OpConstF64, dst, v) }

// Br emits an unconditional branch to l.
func (f *FunctionBuilder) Br(l Label) { f.Emit(OpBr, l) }

// CondBr emits a branch to ifTrue when cond != 0, else to ifFalse.
func (f *FunctionBuilder) CondBr(cond Reg, ifTrue, ifFalse Label) {
	f.Emit(OpCondBr, cond, ifTrue, ifFalse)
}

// Call emits a call of an internal function.
func (f *FunctionBuilder) Call(callee *FunctionBuilder, args, results []Reg) {
	f.Emit(OpCall, callee, nonNil(args), nonNil(results))
}

// CallImport emits a call of a non-variadic import.
func (f *FunctionBuilder) CallImport(imp ImportRef, args, results []Reg) {
	f.Emit(OpCallImport, imp, nonNil(args), nonNil(results))
}

// CallImportVariadic emits a call of a variadic import; segments gives the
// number of tuples passed to each variadic group and args is flattened.
func (f *FunctionBuilder) CallImportVariadic(imp ImportRef, segments []int, args, results []Reg) {
	if segments == nil {
		segments = []int{}
	}
	f.Emit(OpCallImportVariadic, imp, segments, nonNil(args), nonNil(results))
}

// Return emits a return of the given registers.
func (f *FunctionBuilder) Return(results ...Reg) { f.Emit(OpReturn, nonNil(results)) }

// Fail emits a failure with the status code held in code and a message.
func (f *FunctionBuilder) Fail(code Reg, message string) { f.Emit(OpFail, code, message) }

// ImportResolved sets dst (i32) to 1 when imp was resolved at context
// creation and to 0 when it is a missing optional import, so that code can
// skip calls to an optional import, as IREE guards its check module's.
func (f *FunctionBuilder) ImportResolved(dst Reg, imp ImportRef) { f.Emit(OpImportResolved, dst, imp) }

func nonNil(r []Reg) []Reg {
	if r == nil {
		return []Reg{}
	}
	return r
}

// finish resolves label fix-ups.
func (f *FunctionBuilder) finish() error {
	for i, off := range f.labels {
		if off < 0 {
			for _, fx := range f.fixups {
				if fx.label == i {
					return fmt.Errorf("function %s: branch to a label that is never bound", f.name)
				}
			}
		}
	}
	for _, fx := range f.fixups {
		binary.LittleEndian.PutUint32(f.code[fx.at:], uint32(f.labels[fx.label]))
	}
	if len(f.code) == 0 || !f.lastTerm {
		return fmt.Errorf("function %s does not end with a terminator (return, br, cond_br or fail)", f.name)
	}
	return nil
}

// Build verifies the builder's state and returns the module as .vmfb
// bytes: a u32 size prefix and a FlatBuffer with file identifier "IREE".
// The output is deterministic.
func (b *ModuleBuilder) Build() ([]byte, error) {
	for _, f := range b.funcs {
		if err := f.finish(); err != nil {
			b.errs = append(b.errs, err)
		}
	}
	switch {
	case len(b.funcs) > MaxFunctions:
		b.errorf("%d functions exceed the limit of %d", len(b.funcs), MaxFunctions)
	case len(b.imports) > MaxImports:
		b.errorf("%d imports exceed the limit of %d", len(b.imports), MaxImports)
	case b.globalBytes > MaxGlobalBytes:
		b.errorf("%d bytes of globals exceed the limit of %d", b.globalBytes, MaxGlobalBytes)
	case b.globalRefs > MaxGlobalRefs:
		b.errorf("%d ref globals exceed the limit of %d", b.globalRefs, MaxGlobalRefs)
	}
	total := 0
	for _, f := range b.funcs {
		total += len(f.code) + 8
	}
	if total > math.MaxInt32 {
		b.errorf("%d bytes of bytecode exceed the format's limit", total)
	}
	if len(b.errs) > 0 {
		return nil, fmt.Errorf("building module %s: %w", b.name, b.errs[0])
	}
	fb := flatbuffers.NewBuilder(1024)

	attrVec := func(attrs []Attr, start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT) flatbuffers.UOffsetT {
		if len(attrs) == 0 {
			return 0
		}
		offs := make([]flatbuffers.UOffsetT, len(attrs))
		for i, a := range attrs {
			k, v := fb.CreateString(a.Key), fb.CreateString(a.Value)
			bytecode.AttrDefStart(fb)
			bytecode.AttrDefAddKey(fb, k)
			bytecode.AttrDefAddValue(fb, v)
			offs[i] = bytecode.AttrDefEnd(fb)
		}
		return tableVector(fb, start, offs)
	}
	signature := func(cc string, attrs []Attr) flatbuffers.UOffsetT {
		a := attrVec(attrs, bytecode.FunctionSignatureDefStartAttrsVector)
		c := fb.CreateString(cc)
		bytecode.FunctionSignatureDefStart(fb)
		bytecode.FunctionSignatureDefAddCallingConvention(fb, c)
		if a != 0 {
			bytecode.FunctionSignatureDefAddAttrs(fb, a)
		}
		return bytecode.FunctionSignatureDefEnd(fb)
	}

	name := fb.CreateString(b.name)
	attrs := attrVec(b.attrs, bytecode.BytecodeModuleDefStartAttrsVector)

	var deps flatbuffers.UOffsetT
	if len(b.deps) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(b.deps))
		for i, d := range b.deps {
			n := fb.CreateString(d.name)
			flags := bytecode.ModuleDependencyFlagBitsREQUIRED
			if d.optional {
				flags = bytecode.ModuleDependencyFlagBitsOPTIONAL
			}
			bytecode.ModuleDependencyDefStart(fb)
			bytecode.ModuleDependencyDefAddName(fb, n)
			bytecode.ModuleDependencyDefAddMinimumVersion(fb, d.minVersion)
			bytecode.ModuleDependencyDefAddFlags(fb, uint32(flags))
			offs[i] = bytecode.ModuleDependencyDefEnd(fb)
		}
		deps = tableVector(fb, bytecode.BytecodeModuleDefStartDependenciesVector, offs)
	}

	var imports flatbuffers.UOffsetT
	if len(b.imports) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(b.imports))
		for i, imp := range b.imports {
			n := fb.CreateString(imp.name)
			s := signature(imp.sig.CallingConvention, nil)
			bytecode.ImportFunctionDefStart(fb)
			bytecode.ImportFunctionDefAddFullName(fb, n)
			bytecode.ImportFunctionDefAddSignature(fb, s)
			if imp.optional {
				bytecode.ImportFunctionDefAddFlags(fb, uint32(bytecode.ImportFlagBitsOPTIONAL))
			}
			offs[i] = bytecode.ImportFunctionDefEnd(fb)
		}
		imports = tableVector(fb, bytecode.BytecodeModuleDefStartImportedFunctionsVector, offs)
	}

	var exports flatbuffers.UOffsetT
	if len(b.exports) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(b.exports))
		for i, e := range b.exports {
			n := fb.CreateString(e.name)
			s := signature(e.fn.sig.CallingConvention, e.attrs)
			bytecode.ExportFunctionDefStart(fb)
			bytecode.ExportFunctionDefAddLocalName(fb, n)
			bytecode.ExportFunctionDefAddSignature(fb, s)
			bytecode.ExportFunctionDefAddInternalOrdinal(fb, int32(e.fn.ordinal))
			offs[i] = bytecode.ExportFunctionDefEnd(fb)
		}
		exports = tableVector(fb, bytecode.BytecodeModuleDefStartExportedFunctionsVector, offs)
	}

	var internals flatbuffers.UOffsetT
	if len(b.funcs) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(b.funcs))
		for i, f := range b.funcs {
			n := fb.CreateString(f.name)
			s := signature(f.sig.CallingConvention, nil)
			bytecode.InternalFunctionDefStart(fb)
			bytecode.InternalFunctionDefAddLocalName(fb, n)
			bytecode.InternalFunctionDefAddSignature(fb, s)
			offs[i] = bytecode.InternalFunctionDefEnd(fb)
		}
		internals = tableVector(fb, bytecode.BytecodeModuleDefStartInternalFunctionsVector, offs)
	}

	var rodata flatbuffers.UOffsetT
	var external []byte
	if len(b.rodata) > 0 {
		offs := make([]flatbuffers.UOffsetT, len(b.rodata))
		for i, r := range b.rodata {
			var data flatbuffers.UOffsetT
			var extOff uint64
			if b.externalRodata {
				extOff = uint64(len(external))
				external = append(external, r.data...)
				for len(external)%externalDataAlignment != 0 {
					external = append(external, 0)
				}
			} else {
				// Align embedded data to 16 bytes so payloads can be read
				// in place.
				fb.Prep(16, len(r.data))
				data = fb.CreateByteVector(r.data)
			}
			var mime flatbuffers.UOffsetT
			if r.mime != "" {
				mime = fb.CreateString(r.mime)
			}
			var digest, name flatbuffers.UOffsetT
			if r.digest != nil {
				digest = fb.CreateByteVector(r.digest)
			}
			if r.name != "" {
				name = fb.CreateString(r.name)
			}
			bytecode.UncompressedDataDefStart(fb)
			unc := bytecode.UncompressedDataDefEnd(fb)
			bytecode.RodataSegmentDefStart(fb)
			bytecode.RodataSegmentDefAddCompressionTypeType(fb, bytecode.CompressionTypeDefUncompressedDataDef)
			bytecode.RodataSegmentDefAddCompressionType(fb, unc)
			if b.externalRodata {
				bytecode.RodataSegmentDefAddExternalDataOffset(fb, extOff)
				bytecode.RodataSegmentDefAddExternalDataLength(fb, uint64(len(r.data)))
			} else {
				bytecode.RodataSegmentDefAddEmbeddedData(fb, data)
			}
			if mime != 0 {
				bytecode.RodataSegmentDefAddMimeType(fb, mime)
			}
			if digest != 0 {
				bytecode.RodataSegmentDefAddSha256Digest(fb, digest)
			}
			if name != 0 {
				bytecode.RodataSegmentDefAddName(fb, name)
			}
			offs[i] = bytecode.RodataSegmentDefEnd(fb)
		}
		rodata = tableVector(fb, bytecode.BytecodeModuleDefStartRodataSegmentsVector, offs)
	}

	bytecode.ModuleStateDefStart(fb)
	bytecode.ModuleStateDefAddGlobalBytesCapacity(fb, int32(b.globalBytes))
	bytecode.ModuleStateDefAddGlobalRefCount(fb, int32(b.globalRefs))
	state := bytecode.ModuleStateDefEnd(fb)

	var code []byte
	type desc struct {
		off, length int32
		counts      [5]uint16
	}
	descs := make([]desc, len(b.funcs))
	for i, f := range b.funcs {
		// Align each function to 8 bytes; padding is never executed.
		for len(code)%8 != 0 {
			code = append(code, 0)
		}
		descs[i].off = int32(len(code))
		descs[i].length = int32(len(f.code))
		for k := KindI32; k <= KindRef; k++ {
			descs[i].counts[k-KindI32] = uint16(f.regCounts[k])
		}
		code = append(code, f.code...)
	}
	codeVec := fb.CreateByteVector(code)

	var descVec flatbuffers.UOffsetT
	if len(descs) > 0 {
		bytecode.BytecodeModuleDefStartFunctionDescriptorsVector(fb, len(descs))
		for i := len(descs) - 1; i >= 0; i-- {
			d := descs[i]
			bytecode.CreateFunctionDescriptor(fb, d.off, d.length, d.counts[0], d.counts[1], d.counts[2], d.counts[3], d.counts[4], 0)
		}
		descVec = fb.EndVector(len(descs))
	}

	debug := b.buildDebug(fb)

	bytecode.BytecodeModuleDefStart(fb)
	bytecode.BytecodeModuleDefAddName(fb, name)
	bytecode.BytecodeModuleDefAddVersion(fb, b.version)
	if attrs != 0 {
		bytecode.BytecodeModuleDefAddAttrs(fb, attrs)
	}
	if deps != 0 {
		bytecode.BytecodeModuleDefAddDependencies(fb, deps)
	}
	if imports != 0 {
		bytecode.BytecodeModuleDefAddImportedFunctions(fb, imports)
	}
	if exports != 0 {
		bytecode.BytecodeModuleDefAddExportedFunctions(fb, exports)
	}
	if internals != 0 {
		bytecode.BytecodeModuleDefAddInternalFunctions(fb, internals)
	}
	if rodata != 0 {
		bytecode.BytecodeModuleDefAddRodataSegments(fb, rodata)
	}
	bytecode.BytecodeModuleDefAddModuleState(fb, state)
	if descVec != 0 {
		bytecode.BytecodeModuleDefAddFunctionDescriptors(fb, descVec)
	}
	bytecode.BytecodeModuleDefAddBytecodeVersion(fb, BytecodeVersion)
	bytecode.BytecodeModuleDefAddBytecodeData(fb, codeVec)
	if debug != 0 {
		bytecode.BytecodeModuleDefAddDebugDatabase(fb, debug)
	}
	root := bytecode.BytecodeModuleDefEnd(fb)
	fb.FinishSizePrefixedWithFileIdentifier(root, []byte(bytecode.FileIdentifier))
	out := append([]byte(nil), fb.FinishedBytes()...)
	if len(external) > 0 {
		for len(out)%externalDataAlignment != 0 {
			out = append(out, 0)
		}
		out = append(out, external...)
	}
	return out, nil
}

// buildDebug writes the debug database (location table and per-function
// source maps), or returns 0 when no locations were recorded.
func (b *ModuleBuilder) buildDebug(fb *flatbuffers.Builder) flatbuffers.UOffsetT {
	if len(b.locations) == 0 {
		return 0
	}
	locs := make([]flatbuffers.UOffsetT, len(b.locations))
	for i, l := range b.locations {
		file := fb.CreateString(l.file)
		bytecode.FileLineColLocDefStart(fb)
		bytecode.FileLineColLocDefAddFilename(fb, file)
		bytecode.FileLineColLocDefAddLine(fb, l.line)
		bytecode.FileLineColLocDefAddColumn(fb, l.col)
		flc := bytecode.FileLineColLocDefEnd(fb)
		bytecode.LocationDefStart(fb)
		bytecode.LocationDefAddLocationType(fb, bytecode.LocationTypeDefFileLineColLocDef)
		bytecode.LocationDefAddLocation(fb, flc)
		locs[i] = bytecode.LocationDefEnd(fb)
	}
	table := tableVector(fb, bytecode.DebugDatabaseDefStartLocationTableVector, locs)
	fns := make([]flatbuffers.UOffsetT, len(b.funcs))
	for i, f := range b.funcs {
		n := fb.CreateString(f.name)
		bytecode.FunctionSourceMapDefStartLocationsVector(fb, len(f.srcMap))
		for j := len(f.srcMap) - 1; j >= 0; j-- {
			bytecode.CreateBytecodeLocationDef(fb, f.srcMap[j].offset, f.srcMap[j].loc)
		}
		v := fb.EndVector(len(f.srcMap))
		bytecode.FunctionSourceMapDefStart(fb)
		bytecode.FunctionSourceMapDefAddLocalName(fb, n)
		bytecode.FunctionSourceMapDefAddLocations(fb, v)
		fns[i] = bytecode.FunctionSourceMapDefEnd(fb)
	}
	fnVec := tableVector(fb, bytecode.DebugDatabaseDefStartFunctionsVector, fns)
	bytecode.DebugDatabaseDefStart(fb)
	bytecode.DebugDatabaseDefAddLocationTable(fb, table)
	bytecode.DebugDatabaseDefAddFunctions(fb, fnVec)
	return bytecode.DebugDatabaseDefEnd(fb)
}

func tableVector(fb *flatbuffers.Builder, start func(*flatbuffers.Builder, int) flatbuffers.UOffsetT, offs []flatbuffers.UOffsetT) flatbuffers.UOffsetT {
	start(fb, len(offs))
	for i := len(offs) - 1; i >= 0; i-- {
		fb.PrependUOffsetT(offs[i])
	}
	return fb.EndVector(len(offs))
}
