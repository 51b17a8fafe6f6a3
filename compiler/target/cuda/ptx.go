package cuda

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/elementwise"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// ElementwiseBlockSize is the thread block size of generated elementwise
// kernels. Each block handles one tile of the dispatch (tile_size
// elements, ceildiv(count, tile) blocks), its threads striding through the
// tile so that consecutive threads touch consecutive elements.
const ElementwiseBlockSize = 256

// Kernel is one generated PTX entry point.
type Kernel struct {
	Name          string
	Ordinal       int
	BlockSize     [3]uint32
	ConstantCount int
	BindingCount  int
	// Config is the code generation configuration chosen for the kernel
	// (config.go).
	Config kernelconfig.Config
}

// Module is the PTX translation of one generated variant.
type Module struct {
	// PTX is the module text.
	PTX string
	// Kernels are the entry points in ordinal order.
	Kernels []Kernel
}

// ptxKind is how a scalar type lives in PTX registers and memory.
type ptxKind struct {
	reg   string // register class prefix: %f, %fd, %r, %rd, %p
	typ   string // arithmetic type suffix: f32, f64, s32, s64, pred
	bits  string // untyped suffix: b32, b64
	mem   string // ld/st type: f32, f64, u32, u64, u8
	size  int    // bytes in memory
	float bool
}

var (
	kindF32  = ptxKind{reg: "%f", typ: "f32", bits: "b32", mem: "f32", size: 4, float: true}
	kindF64  = ptxKind{reg: "%fd", typ: "f64", bits: "b64", mem: "f64", size: 8, float: true}
	kindI32  = ptxKind{reg: "%r", typ: "s32", bits: "b32", mem: "u32", size: 4}
	kindI64  = ptxKind{reg: "%rd", typ: "s64", bits: "b64", mem: "u64", size: 8}
	kindPred = ptxKind{reg: "%p", typ: "pred", mem: "u8", size: 1}
)

func kindOf(t ir.Type) (ptxKind, error) {
	switch t := arith.ElementType(t).(type) {
	case ir.FloatType:
		switch t.Name {
		case "f32":
			return kindF32, nil
		case "f64":
			return kindF64, nil
		case "f16":
			return kindF16, nil
		case "bf16":
			return kindBF16, nil
		}
	case ir.IntegerType:
		switch t.Width {
		case 1:
			return kindPred, nil
		case 32:
			return kindI32, nil
		case 64:
			return kindI64, nil
		}
	}
	return ptxKind{}, fmt.Errorf("element type %s is not supported by cuda code generation (supported: f16, bf16, f32, f64, i1, i32, i64)", ir.TypeString(t))
}

func (k ptxKind) unsigned() string {
	if k.float || k.typ == "pred" {
		return k.typ
	}
	return "u" + k.typ[1:]
}

// ptxISA is the PTX ISA version, times ten, that introduced each target
// architecture (NVIDIA's PTX ISA manual, "PTX ISA Version and Target"):
// .target sm_XY needs at least that .version. Keys are the archs' spelling
// ("sm_90a").
var ptxISA = map[string]int{
	"sm_30": 30, "sm_32": 40, "sm_35": 31, "sm_37": 41,
	"sm_50": 40, "sm_52": 41, "sm_53": 42,
	"sm_60": 50, "sm_61": 50, "sm_62": 50,
	"sm_70": 60, "sm_72": 61, "sm_75": 63,
	"sm_80": 70, "sm_86": 71, "sm_87": 74, "sm_88": 90, "sm_89": 78,
	"sm_90": 78, "sm_90a": 80,
	"sm_100": 86, "sm_100a": 86, "sm_100f": 88,
	"sm_101": 86, "sm_101a": 86, "sm_101f": 88,
	"sm_103": 88, "sm_103a": 88, "sm_103f": 88,
	"sm_110": 90, "sm_110a": 90, "sm_110f": 90,
	"sm_120": 87, "sm_120a": 87, "sm_120f": 88,
	"sm_121": 88, "sm_121a": 88, "sm_121f": 88,
}

// targetArch parses a variant's target_arch and finds the PTX ISA version
// it needs.
func targetArch(arch string) (cudafb.Arch, int, error) {
	a, err := cudafb.ParseArch(arch)
	if err != nil {
		return cudafb.Arch{}, 0, fmt.Errorf("cuda target_arch %q is not of the form sm_XY (e.g. sm_52, sm_80, sm_90a)", arch)
	}
	v, ok := ptxISA[a.String()]
	if !ok {
		known := make([]string, 0, len(ptxISA))
		for k := range ptxISA {
			known = append(known, k)
		}
		sort.Slice(known, func(i, j int) bool {
			x, _ := cudafb.ParseArch(known[i])
			y, _ := cudafb.ParseArch(known[j])
			return x.Number() < y.Number() || x.Number() == y.Number() && known[i] < known[j]
		})
		return cudafb.Arch{}, 0, fmt.Errorf("cuda code generation does not know the PTX ISA version for %s (it knows %s)", arch, strings.Join(known, ", "))
	}
	return a, v, nil
}

// ptxgen emits one module.
type ptxgen struct {
	arch  cudafb.Arch
	isa   int // the PTX ISA version (times ten) the module needs so far
	funcs map[string]*ir.Operation
	out   strings.Builder
}

// function emitter state: one per entry point.
type fngen struct {
	g     *ptxgen
	name  string
	regs  map[string]int // class -> next index
	names map[*ir.Value]string
	kinds map[*ir.Value]ptxKind
	body  strings.Builder
	// loopNest widens the scalar types to those of loop-nest bodies
	// (loopNestKind).
	loopNest bool
	// wide maps 16-bit float types to f32 while viaF32 emits an op in
	// f32.
	wide bool
	// decls are declarations written after the registers (shared
	// memory).
	decls []string
	// perf are performance-tuning directives written after .maxntid.
	perf []string
}

// bodyKind names the kind of body being translated, for errors.
func (f *fngen) bodyKind() string {
	if f.loopNest {
		return "loop-nest"
	}
	return "elementwise"
}

// kind maps a scalar type to its PTX kind for this function: elementwise
// bodies and loop-nest bodies alike keep i8 and i16 sign-extended in 32
// bits (loopNestKind).
func (f *fngen) kind(t ir.Type) (ptxKind, error) {
	k, err := loopNestKind(t)
	if f.wide && isHalf(k) {
		return kindF32, nil
	}
	return k, err
}

func (f *fngen) reg(class string) string {
	f.regs[class]++
	return fmt.Sprintf("%s%d", class, f.regs[class])
}

func (f *fngen) line(format string, args ...any) {
	f.body.WriteString("\t")
	fmt.Fprintf(&f.body, format, args...)
	f.body.WriteString("\n")
}

// GeneratePTX translates a cuda variant whose builtin.module holds only
// generated elementwise kernels (see elementwise.Attr) into PTX for
// arch (e.g. "sm_52", "sm_80"). The module's .version is the oldest PTX
// ISA that has both the arch and every instruction used; ops whose
// instruction needs a newer arch (maximumf/minimumf: sm_80)
// are emitted as equivalent sequences of older instructions.
func GeneratePTX(variant *ir.Operation, arch string) (*Module, error) {
	a, isa, err := targetArch(arch)
	if err != nil {
		return nil, variantError(variant, err)
	}
	mod := hal.InnerModule(variant)
	if mod == nil {
		return nil, ir.OpErrorf(variant, "variant has no builtin.module to generate code from")
	}
	g := &ptxgen{arch: a, isa: isa, funcs: map[string]*ir.Operation{}}
	for _, o := range mod.Body().Ops {
		if o.Name == "func.func" {
			g.funcs[o.SymName()] = o
		}
	}
	var exports []*ir.Operation
	for _, o := range variant.Body().Ops {
		if o.Name == "hal.executable.export" {
			exports = append(exports, o)
		}
	}
	if len(exports) == 0 {
		return nil, ir.OpErrorf(variant, "variant has no hal.executable.export")
	}
	m := &Module{}
	seen := map[int]bool{}
	for i, ex := range exports {
		ord := i
		if n, ok := ex.IntAttr("ordinal"); ok {
			ord = int(n)
		}
		if ord < 0 || ord >= len(exports) || seen[ord] {
			return nil, ir.OpErrorf(ex, "export ordinals must be dense and unique in [0, %d); found %d", len(exports), ord)
		}
		seen[ord] = true
		fn := g.funcs[ex.SymName()]
		if fn == nil {
			return nil, ir.OpErrorf(ex, "export @%s has no function @%s in the variant's builtin.module", ex.SymName(), ex.SymName())
		}
		var k Kernel
		var err error
		if ln, ok := fn.Attr(loopnest.Attr).(*ir.DictAttr); ok {
			k, err = g.loopNest(ex, fn, ln)
		} else if gd, ok := fn.Attr(loopnest.GroupAttr).(*ir.DictAttr); ok {
			k, err = g.loopGroup(ex, fn, gd)
		} else if d, ok := fn.Attr(elementwise.Attr).(*ir.DictAttr); ok {
			k, err = g.elementwise(ex, fn, d)
		} else {
			return nil, ir.OpErrorf(fn, "cuda code generation handles only generated elementwise kernels (%s) and linalg loop nests (%s); bring hand-written kernels as an external variant with a .ptx object", elementwise.Attr, loopnest.Attr)
		}
		if err != nil {
			return nil, err
		}
		k.Config = g.kernelConfig(fn)
		k.Ordinal = ord
		m.Kernels = append(m.Kernels, k)
	}
	sort.Slice(m.Kernels, func(i, j int) bool { return m.Kernels[i].Ordinal < m.Kernels[j].Ordinal })
	m.PTX = fmt.Sprintf("//\n// Generated by goiree cuda code generation. Do not edit.\n//\n\n.version %d.%d\n.target %s\n.address_size 64\n",
		g.isa/10, g.isa%10, g.arch) + g.out.String()
	return m, nil
}

// elementwise emits the entry point of a generated elementwise dispatch:
// parameters are the input bindings, the output bindings and the element
// count (constant 0); block b handles elements [b*tile, min((b+1)*tile, n)).
func (g *ptxgen) elementwise(ex, fn *ir.Operation, d *ir.DictAttr) (Kernel, error) {
	ref, ok := d.Get("body").(ir.SymbolRefAttr)
	if !ok {
		return Kernel{}, ir.OpErrorf(fn, "%s needs a body symbol", elementwise.Attr)
	}
	tile := int64(elementwise.DefaultTileSize)
	if t, ok := d.Get("tile_size").(ir.IntegerAttr); ok && t.Value > 0 {
		tile = t.Value
	}
	body := g.funcs[ref.Root]
	if body == nil || body.Body() == nil {
		return Kernel{}, ir.OpErrorf(fn, "elementwise body @%s is not defined in the module", ref.Root)
	}
	if len(body.Regions[0].Blocks) != 1 {
		return Kernel{}, ir.OpErrorf(body, "elementwise bodies must have a single block")
	}
	ft := function.Type(body)
	if ft == nil || len(ft.Results) == 0 {
		return Kernel{}, ir.OpErrorf(body, "elementwise body must return at least one value")
	}
	name := sanitize(ex.SymName())
	f := &fngen{g: g, name: name, regs: map[string]int{}, names: map[*ir.Value]string{}, kinds: map[*ir.Value]ptxKind{}}
	nb := len(ft.Inputs) + len(ft.Results)
	consts := 1
	if l := hal.ExportLayout(ex); l != nil {
		if got := len(l.AllBindings()); got != nb {
			return Kernel{}, ir.OpErrorf(ex, "layout has %d bindings but the elementwise body has %d inputs and %d results", got, len(ft.Inputs), len(ft.Results))
		}
		if l.ConstantCount() < 1 {
			return Kernel{}, ir.OpErrorf(ex, "layout of a generated elementwise dispatch needs the element count constant")
		}
		consts = int(l.ConstantCount())
	}
	var params []string
	for i := 0; i < nb; i++ {
		params = append(params, fmt.Sprintf("\t.param .u64 %s_param_%d", name, i))
	}
	for i := 0; i < consts; i++ {
		params = append(params, fmt.Sprintf("\t.param .u32 %s_param_%d", name, nb+i))
	}
	// Prologue: the count, the tile range, this thread's first element and
	// the global base addresses.
	n32 := f.reg("%r")
	f.line("ld.param.u32 \t%s, [%s_param_%d];", n32, name, nb)
	n := f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", n, n32)
	cta, tid := f.reg("%r"), f.reg("%r")
	f.line("mov.u32 \t%s, %%ctaid.x;", cta)
	f.line("mov.u32 \t%s, %%tid.x;", tid)
	begin := f.reg("%rd")
	f.line("mul.wide.u32 \t%s, %s, %d;", begin, cta, tile)
	end := f.reg("%rd")
	f.line("add.s64 \t%s, %s, %d;", end, begin, tile)
	f.line("min.u64 \t%s, %s, %s;", end, end, n)
	t64, i := f.reg("%rd"), f.reg("%rd")
	f.line("cvt.u64.u32 \t%s, %s;", t64, tid)
	f.line("add.s64 \t%s, %s, %s;", i, begin, t64)
	bases := make([]string, nb)
	for b := 0; b < nb; b++ {
		bases[b] = f.reg("%rd")
		f.line("ld.param.u64 \t%s, [%s_param_%d];", bases[b], name, b)
		f.line("cvta.to.global.u64 \t%s, %s;", bases[b], bases[b])
	}
	done := f.reg("%p")
	f.body.WriteString("$L__loop:\n")
	f.line("setp.ge.u64 \t%s, %s, %s;", done, i, end)
	f.line("@%s bra \t$L__done;", done)
	addr := func(b int, size int) string {
		off, a := f.reg("%rd"), f.reg("%rd")
		if size == 1 {
			f.line("add.s64 \t%s, %s, %s;", a, bases[b], i)
			return a
		}
		f.line("shl.b64 \t%s, %s, %d;", off, i, log2(size))
		f.line("add.s64 \t%s, %s, %s;", a, bases[b], off)
		return a
	}
	for k, a := range body.Body().Args {
		kind, err := f.kind(a.Type)
		if err != nil {
			return Kernel{}, variantError(ex.ParentOp(), fmt.Errorf("input %d of the elementwise body: %v", k, err))
		}
		p := addr(k, kind.size)
		f.loadGlobal(f.define(a, kind), p, kind)
	}
	for _, op := range body.Body().Ops {
		if op.Name == "func.return" {
			if len(op.Operands) != len(ft.Results) {
				return Kernel{}, ir.OpErrorf(op, "returns %d values; the body declares %d results", len(op.Operands), len(ft.Results))
			}
			for k, v := range op.Operands {
				src, kind, err := f.value(v)
				if err != nil {
					return Kernel{}, ir.OpErrorf(op, "%v", err)
				}
				f.storeGlobal(addr(len(ft.Inputs)+k, kind.size), src, kind)
			}
			continue
		}
		if err := f.loopNestOp(op); err != nil {
			return Kernel{}, err
		}
	}
	f.line("add.s64 \t%s, %s, %d;", i, i, ElementwiseBlockSize)
	f.line("bra.uni \t$L__loop;")
	f.body.WriteString("$L__done:\n\tret;\n")

	f.emit(params, ElementwiseBlockSize)
	return Kernel{Name: name, BlockSize: [3]uint32{ElementwiseBlockSize, 1, 1}, ConstantCount: consts, BindingCount: nb}, nil
}

// variantError reports err at variant, or, for a variant the compiler
// made (it has no source position), at the first op inside it that has
// one: the source op whose code is being generated.
func variantError(variant *ir.Operation, err error) error {
	var located *ir.Error
	if errors.As(err, &located) && located.Pos.Line > 0 {
		// Already reported at the op it concerns.
		return err
	}
	e := ir.OpErrorf(variant, "%v", err)
	if e.Pos.Line > 0 {
		return e
	}
	ir.Walk(variant, func(op *ir.Operation) bool {
		if e.Pos.Line == 0 && op.Pos.Line > 0 {
			e.Pos = op.Pos
		}
		return e.Pos.Line == 0
	})
	return e
}

// needISA raises the module's PTX ISA version to at least v (times ten).
func (g *ptxgen) needISA(v int) {
	if v > g.isa {
		g.isa = v
	}
}

// minMaxNaN emits arith.maximumf/minimumf on f32 for archs before sm_80,
// which lack max.NaN/min.NaN: max (min) of the operands; when they compare
// equal, the AND (OR) of their bits, so that +0 beats -0 for maximumf and
// -0 beats +0 for minimumf; when either is NaN, their sum, a NaN.
func (f *fngen) minMaxNaN(res *ir.Value, isMax bool, x, y string, k ptxKind) {
	r := f.define(res, k)
	base, combine := "min", "or"
	if isMax {
		base, combine = "max", "and"
	}
	f.line("%s.%s \t%s, %s, %s;", base, k.typ, r, x, y)
	ik := kindI32
	if k == kindF64 {
		ik = kindI64
	}
	bx, by := f.reg(ik.reg), f.reg(ik.reg)
	f.line("mov.%s \t%s, %s;", k.bits, bx, x)
	f.line("mov.%s \t%s, %s;", k.bits, by, y)
	f.line("%s.%s \t%s, %s, %s;", combine, k.bits, bx, bx, by)
	eq := f.reg("%p")
	f.line("setp.eq.%s \t%s, %s, %s;", k.typ, eq, x, y)
	f.line("@%s mov.%s \t%s, %s;", eq, k.bits, r, bx)
	nan := f.reg("%p")
	f.line("setp.nan.%s \t%s, %s, %s;", k.typ, nan, x, y)
	f.line("@%s add.rn.%s \t%s, %s, %s;", nan, k.typ, r, x, y)
}

// remf emits arith.remf on f32 as C's fmod, exactly: a - n*b with n the
// truncated quotient, which is an f32. In f64, where every f32 is a
// normal number, |b| scaled by the power of two that brings it to |a|'s
// binade (halved when that overshoots) is subtracted from |a| until what
// remains is below |b| (each subtraction exact, at most 278 of them);
// the remainder takes a's sign. A zero or NaN b, or an infinite or NaN a,
// gives NaN; an infinite b gives a.
func (f *fngen) remf(res, a, b string) {
	loop, done := f.reg("$L__remf"), f.reg("$L__remf_done")
	ax, ab := f.reg("%f"), f.reg("%f")
	f.line("abs.f32 \t%s, %s;", ax, a)
	f.line("abs.f32 \t%s, %s;", ab, b)
	bad, q := f.reg("%p"), f.reg("%p")
	f.line("testp.finite.f32 \t%s, %s;", bad, a)
	f.line("not.pred \t%s, %s;", bad, bad)
	f.line("setp.equ.f32 \t%s, %s, 0f00000000;", q, ab) // zero or NaN
	f.line("or.pred \t%s, %s, %s;", bad, bad, q)
	r, d := f.reg("%fd"), f.reg("%fd")
	f.line("cvt.f64.f32 \t%s, %s;", r, ax)
	f.line("cvt.f64.f32 \t%s, %s;", d, ab)
	f.line("@%s bra \t%s;", bad, done)
	db, de, rb, k := f.reg("%rd"), f.reg("%rd"), f.reg("%rd"), f.reg("%rd")
	f.line("mov.b64 \t%s, %s;", db, d)
	f.line("shr.u64 \t%s, %s, 52;", de, db)
	f.body.WriteString(loop + ":\n")
	f.line("setp.lt.f64 \t%s, %s, %s;", q, r, d)
	f.line("@%s bra \t%s;", q, done)
	t := f.reg("%fd")
	f.line("mov.b64 \t%s, %s;", rb, r)
	f.line("shr.u64 \t%s, %s, 52;", rb, rb)
	f.line("sub.s64 \t%s, %s, %s;", k, rb, de)
	f.line("shl.b64 \t%s, %s, 52;", k, k)
	f.line("add.s64 \t%s, %s, %s;", k, k, db)
	f.line("mov.b64 \t%s, %s;", t, k)
	f.line("setp.gt.f64 \t%s, %s, %s;", q, t, r)
	f.line("@%s mul.rn.f64 \t%s, %s, 0d3FE0000000000000;", q, t, t)
	f.line("sub.rn.f64 \t%s, %s, %s;", r, r, t)
	f.line("bra.uni \t%s;", loop)
	f.body.WriteString(done + ":\n")
	f.line("cvt.rn.f32.f64 \t%s, %s;", res, r)
	f.line("copysign.f32 \t%s, %s, %s;", res, a, res)
	f.line("@%s mov.f32 \t%s, 0f7FFFFFFF;", bad, res)
}

func log2(n int) int {
	s := 0
	for 1<<s < n {
		s++
	}
	return s
}

func (f *fngen) define(v *ir.Value, k ptxKind) string {
	r := f.reg(k.reg)
	f.names[v] = r
	f.kinds[v] = k
	return r
}

func (f *fngen) value(v *ir.Value) (string, ptxKind, error) {
	r, ok := f.names[v]
	if !ok {
		return "", ptxKind{}, fmt.Errorf("value %%%s is used before it is defined", v.Name)
	}
	return r, f.kinds[v], nil
}

// Binary ops by name: PTX opcode for floats and for integers ("" when the
// op does not apply to that kind).
var binaryOps = map[string]struct{ float, integer string }{
	"arith.addf":     {"add.rn", ""},
	"arith.subf":     {"sub.rn", ""},
	"arith.mulf":     {"mul.rn", ""},
	"arith.divf":     {"div.rn", ""},
	"arith.maxnumf":  {"max", ""},
	"arith.minnumf":  {"min", ""},
	"arith.maximumf": {"max.NaN", ""},
	"arith.minimumf": {"min.NaN", ""},
	"arith.addi":     {"", "add"},
	"arith.subi":     {"", "sub"},
	"arith.muli":     {"", "mul.lo"},
	"arith.maxsi":    {"", "max"},
	"arith.minsi":    {"", "min"},
}

// Unsigned integer ops use the u-typed form.
var unsignedOps = map[string]string{
	"arith.maxui": "max", "arith.minui": "min",
}

// Bitwise ops use the b-typed form (or .pred for i1).
var bitwiseOps = map[string]string{"arith.andi": "and", "arith.ori": "or", "arith.xori": "xor"}

// PTX comparison operators for arith.cmpf predicates.
var cmpfOps = map[string]string{
	"oeq": "eq", "ogt": "gt", "oge": "ge", "olt": "lt", "ole": "le", "one": "ne", "ord": "num",
	"ueq": "equ", "ugt": "gtu", "uge": "geu", "ult": "ltu", "ule": "leu", "une": "neu", "uno": "nan",
}

// PTX comparison operator and signedness for arith.cmpi predicates.
var cmpiOps = map[string]struct {
	op     string
	signed bool
}{
	"eq": {"eq", true}, "ne": {"ne", true},
	"slt": {"lt", true}, "sle": {"le", true}, "sgt": {"gt", true}, "sge": {"ge", true},
	"ult": {"lt", false}, "ule": {"le", false}, "ugt": {"gt", false}, "uge": {"ge", false},
}

func (f *fngen) operands(op *ir.Operation, want int) ([]string, []ptxKind, error) {
	if len(op.Operands) != want {
		return nil, nil, ir.OpErrorf(op, "expects %d operands, found %d", want, len(op.Operands))
	}
	if len(op.Results) != 1 {
		return nil, nil, ir.OpErrorf(op, "expected one result")
	}
	regs := make([]string, want)
	kinds := make([]ptxKind, want)
	for i, v := range op.Operands {
		r, k, err := f.value(v)
		if err != nil {
			return nil, nil, ir.OpErrorf(op, "%v", err)
		}
		regs[i], kinds[i] = r, k
	}
	return regs, kinds, nil
}

// op emits one scalar op of an elementwise body.
func (f *fngen) op(op *ir.Operation) error {
	if op.Name == "arith.constant" {
		return f.constant(op)
	}
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "'%s' cannot be used in a cuda %s body", op.Name, f.bodyKind())
	}
	rk, err := f.kind(op.Results[0].Type)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	if done, err := f.halfOp(op, rk); done {
		return err
	}
	name := op.Name
	if _, ok := libmOps[name]; ok {
		return f.libm(op, rk) // mathlib.go
	}
	if intDivOps[name] {
		return f.intDiv(op, rk) // intdiv.go
	}
	if b, ok := binaryOps[name]; ok {
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		opc := b.integer
		if ks[0].float {
			opc = b.float
		}
		if opc == "" || ks[0].typ == "pred" || ks[0] != rk {
			return ir.OpErrorf(op, "'%s' is not supported on %s in cuda code generation", name, ir.TypeString(arith.ElementType(op.Results[0].Type)))
		}
		if opc == "max.NaN" || opc == "min.NaN" {
			if rk != kindF32 && rk != kindF64 {
				return ir.OpErrorf(op, "'%s' is supported only on f32 and f64 in cuda code generation", name)
			}
			// max.NaN and min.NaN exist for f32 from sm_80 only; f64 and
			// older archs order -0 below +0 and propagate NaN by hand.
			if rk == kindF64 || f.g.arch.Number() < 80 {
				f.minMaxNaN(op.Results[0], opc == "max.NaN", a[0], a[1], rk)
				return nil
			}
			f.g.needISA(70)
		}
		f.line("%s.%s \t%s, %s, %s;", opc, rk.typ, f.define(op.Results[0], rk), a[0], a[1])
		return nil
	}
	if opc, ok := unsignedOps[name]; ok {
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		if ks[0].float || ks[0].typ == "pred" {
			return ir.OpErrorf(op, "'%s' needs integer operands", name)
		}
		f.line("%s.%s \t%s, %s, %s;", opc, rk.unsigned(), f.define(op.Results[0], rk), a[0], a[1])
		return nil
	}
	if opc, ok := bitwiseOps[name]; ok {
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		if ks[0].float {
			return ir.OpErrorf(op, "'%s' needs integer operands", name)
		}
		t := rk.bits
		if rk.typ == "pred" {
			t = "pred"
		}
		f.line("%s.%s \t%s, %s, %s;", opc, t, f.define(op.Results[0], rk), a[0], a[1])
		return nil
	}
	switch name {
	case "arith.shli", "arith.shrsi", "arith.shrui":
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		if ks[0].float || ks[0].typ == "pred" {
			return ir.OpErrorf(op, "'%s' needs integer operands", name)
		}
		amt := a[1]
		if rk == kindI64 {
			amt = f.reg("%r")
			f.line("cvt.u32.u64 \t%s, %s;", amt, a[1])
		}
		opc := map[string]string{"arith.shli": "shl." + rk.bits, "arith.shrsi": "shr." + rk.typ, "arith.shrui": "shr." + rk.unsigned()}[name]
		f.line("%s \t%s, %s, %s;", opc, f.define(op.Results[0], rk), a[0], amt)
		return nil
	case "math.rsqrt":
		// 1/sqrt(x) as sqrt.rn and div.rn: two roundings, below one
		// ulp (rsqrt.approx is not, on f64 far from it).
		a, ks, err := f.operands(op, 1)
		if err != nil {
			return err
		}
		if !ks[0].float || ks[0] != rk {
			return ir.OpErrorf(op, "'%s' needs a float operand", name)
		}
		one := f32Lit(1)
		if rk == kindF64 {
			one = f64Lit(1)
		}
		s, r := f.reg(rk.reg), f.define(op.Results[0], rk)
		f.line("sqrt.rn.%s \t%s, %s;", rk.typ, s, a[0])
		f.line("div.rn.%s \t%s, %s, %s;", rk.typ, r, one, s)
		return nil
	case "arith.negf", "math.absf", "math.sqrt", "math.floor", "math.ceil", "math.trunc", "math.roundeven":
		a, ks, err := f.operands(op, 1)
		if err != nil {
			return err
		}
		if !ks[0].float || ks[0] != rk {
			return ir.OpErrorf(op, "'%s' needs a float operand", name)
		}
		opc := map[string]string{
			"arith.negf": "neg", "math.absf": "abs", "math.sqrt": "sqrt.rn",
			"math.floor": "cvt.rmi", "math.ceil": "cvt.rpi", "math.trunc": "cvt.rzi", "math.roundeven": "cvt.rni",
		}[name]
		if strings.HasPrefix(opc, "cvt.") {
			opc += "." + rk.typ
		}
		f.line("%s.%s \t%s, %s;", opc, rk.typ, f.define(op.Results[0], rk), a[0])
		return nil
	case "math.round":
		// Half away from zero: the truncation, plus the sign of x
		// where the part it dropped (exact) is at least a half. An
		// infinity or NaN leaves that part NaN, and itself.
		a, ks, err := f.operands(op, 1)
		if err != nil {
			return err
		}
		if !ks[0].float || ks[0] != rk {
			return ir.OpErrorf(op, "'%s' needs a float operand", name)
		}
		r, t, one := f.define(op.Results[0], rk), f.reg(rk.reg), f.reg(rk.reg)
		f.line("cvt.rzi.%s.%s \t%s, %s;", rk.typ, rk.typ, r, a[0])
		f.line("sub.rn.%s \t%s, %s, %s;", rk.typ, t, a[0], r)
		f.line("abs.%s \t%s, %s;", rk.typ, t, t)
		half, unit := f32Lit(0.5), f32Lit(1)
		if rk == kindF64 {
			half, unit = f64Lit(0.5), f64Lit(1)
		}
		f.line("mov.%s \t%s, %s;", rk.typ, one, unit)
		f.line("copysign.%s \t%s, %s, %s;", rk.typ, one, a[0], one)
		p := f.reg("%p")
		f.line("setp.ge.%s \t%s, %s, %s;", rk.typ, p, t, half)
		f.line("@%s add.rn.%s \t%s, %s, %s;", p, rk.typ, r, r, one)
		return nil
	case "arith.remf":
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		if ks[0] != rk || ks[1] != rk || rk != kindF32 && rk != kindF64 {
			return ir.OpErrorf(op, "'%s' needs float operands of its result type (f16, bf16, f32 or f64) in cuda code generation", name)
		}
		if rk == kindF64 {
			f.remf64(f.define(op.Results[0], rk), a[0], a[1]) // mathlib.go
			return nil
		}
		f.remf(f.define(op.Results[0], rk), a[0], a[1])
		return nil
	case "math.copysign":
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		if !ks[0].float || ks[0] != rk || ks[1] != rk {
			return ir.OpErrorf(op, "'%s' needs float operands of its result type", name)
		}
		// PTX's copysign takes the sign from its first source.
		f.line("copysign.%s \t%s, %s, %s;", rk.typ, f.define(op.Results[0], rk), a[1], a[0])
		return nil
	case "math.isfinite":
		a, ks, err := f.operands(op, 1)
		if err != nil {
			return err
		}
		if ks[0] != kindF32 && ks[0] != kindF64 {
			return ir.OpErrorf(op, "'%s' needs a float operand", name)
		}
		f.line("testp.finite.%s \t%s, %s;", ks[0].typ, f.define(op.Results[0], kindPred), a[0])
		return nil
	case "math.ctpop", "math.ctlz":
		a, ks, err := f.operands(op, 1)
		if err != nil {
			return err
		}
		if ks[0] != kindI32 && ks[0] != kindI64 || rk != ks[0] {
			return ir.OpErrorf(op, "'%s' is supported on i32 and i64 in cuda code generation", name)
		}
		opc := map[string]string{"math.ctpop": "popc", "math.ctlz": "clz"}[name]
		r := f.define(op.Results[0], rk)
		if rk == kindI32 {
			f.line("%s.b32 \t%s, %s;", opc, r, a[0])
			return nil
		}
		c := f.reg("%r")
		f.line("%s.b64 \t%s, %s;", opc, c, a[0])
		f.line("cvt.u64.u32 \t%s, %s;", r, c)
		return nil
	case "math.absi":
		a, ks, err := f.operands(op, 1)
		if err != nil {
			return err
		}
		if ks[0].float || ks[0].typ == "pred" {
			return ir.OpErrorf(op, "'%s' needs an integer operand", name)
		}
		f.line("abs.%s \t%s, %s;", rk.typ, f.define(op.Results[0], rk), a[0])
		return nil
	case "math.fma":
		a, ks, err := f.operands(op, 3)
		if err != nil {
			return err
		}
		if !ks[0].float || ks[0] != rk {
			return ir.OpErrorf(op, "'%s' needs float operands", name)
		}
		f.line("fma.rn.%s \t%s, %s, %s, %s;", rk.typ, f.define(op.Results[0], rk), a[0], a[1], a[2])
		return nil
	case "arith.select":
		a, ks, err := f.operands(op, 3)
		if err != nil {
			return err
		}
		if ks[0].typ != "pred" {
			return ir.OpErrorf(op, "select condition must be i1")
		}
		r := f.define(op.Results[0], rk)
		if rk.typ == "pred" {
			x, y, z := f.reg("%rs"), f.reg("%rs"), f.reg("%rs")
			f.line("selp.u16 \t%s, 1, 0, %s;", x, a[1])
			f.line("selp.u16 \t%s, 1, 0, %s;", y, a[2])
			f.line("selp.b16 \t%s, %s, %s, %s;", z, x, y, a[0])
			f.line("setp.ne.s16 \t%s, %s, 0;", r, z)
			return nil
		}
		t := rk.bits
		if rk.float {
			t = rk.typ
		}
		f.line("selp.%s \t%s, %s, %s, %s;", t, r, a[1], a[2], a[0])
		return nil
	case "arith.cmpf":
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		p, err := predicate(op, arith.CmpFPredicates)
		if err != nil {
			return err
		}
		if !ks[0].float {
			return ir.OpErrorf(op, "cmpf needs float operands")
		}
		r := f.define(op.Results[0], kindPred)
		switch p {
		case "true": // unordered-or-equal of x with itself always holds
			f.line("setp.equ.%s \t%s, %s, %s;", ks[0].typ, r, a[0], a[0])
			return nil
		case "false":
			t := f.reg("%r")
			f.line("mov.u32 \t%s, 0;", t)
			f.line("setp.ne.u32 \t%s, %s, 0;", r, t)
			return nil
		}
		f.line("setp.%s.%s \t%s, %s, %s;", cmpfOps[p], ks[0].typ, r, a[0], a[1])
		return nil
	case "arith.cmpi":
		a, ks, err := f.operands(op, 2)
		if err != nil {
			return err
		}
		p, err := predicate(op, arith.CmpIPredicates)
		if err != nil {
			return err
		}
		c := cmpiOps[p]
		r := f.define(op.Results[0], kindPred)
		if ks[0].typ == "pred" && p != "eq" && p != "ne" {
			// i1 orders false below true unsigned and above it signed
			// (true is -1): each order is x > y or x >= y, unsigned, for
			// x and y the operands or their swap, that is x and not y,
			// or x or not y.
			x, y := a[0], a[1]
			if p == "ult" || p == "ule" || p == "sgt" || p == "sge" {
				x, y = y, x
			}
			ny := f.reg("%p")
			f.line("not.pred \t%s, %s;", ny, y)
			opc := "or"
			if p == "ugt" || p == "ult" || p == "sgt" || p == "slt" {
				opc = "and"
			}
			f.line("%s.pred \t%s, %s, %s;", opc, r, x, ny)
			return nil
		}
		if ks[0].typ == "pred" {
			opc := map[string]string{"eq": "xor", "ne": "xor"}[p]
			f.line("%s.pred \t%s, %s, %s;", opc, r, a[0], a[1])
			if p == "eq" {
				f.line("not.pred \t%s, %s;", r, r)
			}
			return nil
		}
		t := ks[0].typ
		if !c.signed {
			t = ks[0].unsigned()
		}
		f.line("setp.%s.%s \t%s, %s, %s;", c.op, t, r, a[0], a[1])
		return nil
	case "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf",
		"arith.extsi", "arith.extui", "arith.trunci", "arith.bitcast":
		return f.cast(op, rk)
	}
	return ir.OpErrorf(op, "'%s' cannot be used in a cuda %s body", name, f.bodyKind())
}

func predicate(op *ir.Operation, names []string) (string, error) {
	n, _ := op.IntAttr("predicate")
	if n < 0 || int(n) >= len(names) {
		return "", ir.OpErrorf(op, "bad predicate %d", n)
	}
	return names[n], nil
}

func (f *fngen) cast(op *ir.Operation, rk ptxKind) error {
	a, ks, err := f.operands(op, 1)
	if err != nil {
		return err
	}
	src, sk := a[0], ks[0]
	r := f.define(op.Results[0], rk)
	switch op.Name {
	case "arith.sitofp", "arith.uitofp":
		if sk.float || !rk.float {
			return ir.OpErrorf(op, "%s converts integers to floats", op.Name)
		}
		if sk.typ == "pred" {
			t := f.reg("%r")
			v := "1"
			if op.Name == "arith.sitofp" {
				v = "-1"
			}
			f.line("selp.s32 \t%s, %s, 0, %s;", t, v, src)
			src, sk = t, kindI32
		}
		st := sk.typ
		if op.Name == "arith.uitofp" {
			st = sk.unsigned()
		}
		f.line("cvt.rn.%s.%s \t%s, %s;", rk.typ, st, r, src)
	case "arith.fptosi", "arith.fptoui":
		if !sk.float || rk.float || rk.typ == "pred" {
			return ir.OpErrorf(op, "%s converts floats to i32 or i64", op.Name)
		}
		dt := rk.typ
		if op.Name == "arith.fptoui" {
			dt = rk.unsigned()
		}
		f.line("cvt.rzi.%s.%s \t%s, %s;", dt, sk.typ, r, src)
	case "arith.extf", "arith.truncf":
		if !sk.float || !rk.float {
			return ir.OpErrorf(op, "%s converts between float types", op.Name)
		}
		if op.Name == "arith.extf" {
			f.line("cvt.%s.%s \t%s, %s;", rk.typ, sk.typ, r, src)
		} else {
			f.line("cvt.rn.%s.%s \t%s, %s;", rk.typ, sk.typ, r, src)
		}
	case "arith.extsi", "arith.extui":
		if sk.float || rk.float {
			return ir.OpErrorf(op, "%s extends integers", op.Name)
		}
		if sk.typ == "pred" {
			v := "1"
			if op.Name == "arith.extsi" {
				v = "-1"
			}
			f.line("selp.%s \t%s, %s, 0, %s;", rk.typ, r, v, src)
			return nil
		}
		if op.Name == "arith.extsi" {
			f.line("cvt.%s.%s \t%s, %s;", rk.typ, sk.typ, r, src)
		} else {
			f.line("cvt.%s.%s \t%s, %s;", rk.unsigned(), sk.unsigned(), r, src)
		}
	case "arith.trunci":
		if sk.float || rk.float {
			return ir.OpErrorf(op, "trunci truncates integers")
		}
		if rk.typ == "pred" {
			t := f.reg(sk.reg)
			f.line("and.%s \t%s, %s, 1;", sk.bits, t, src)
			f.line("setp.ne.%s \t%s, %s, 0;", sk.unsigned(), r, t)
			return nil
		}
		f.line("cvt.%s.%s \t%s, %s;", rk.unsigned(), sk.unsigned(), r, src)
	case "arith.bitcast":
		if sk.size != rk.size || sk.typ == "pred" {
			return ir.OpErrorf(op, "bitcast needs types of one width")
		}
		f.line("mov.%s \t%s, %s;", rk.bits, r, src)
	}
	return nil
}

func f32Lit(v float64) string { return fmt.Sprintf("0f%08X", math.Float32bits(float32(v))) }
func f64Lit(v float64) string { return fmt.Sprintf("0d%016X", math.Float64bits(v)) }

// constant emits arith.constant with a scalar or splat value.
func (f *fngen) constant(op *ir.Operation) error {
	if len(op.Results) != 1 {
		return ir.OpErrorf(op, "expected one result")
	}
	k, err := f.kind(op.Results[0].Type)
	if err != nil {
		return ir.OpErrorf(op, "%v", err)
	}
	a := op.Attr("value")
	if d, ok := a.(*ir.DenseAttr); ok {
		if !d.Splat || len(d.Elements) != 1 {
			return ir.OpErrorf(op, "only splat dense constants can be used in generated cuda code")
		}
		a = d.Elements[0]
	}
	var fv float64
	var iv int64
	switch a := a.(type) {
	case ir.IntegerAttr:
		fv, iv = float64(a.Value), a.Value
	case ir.FloatAttr:
		fv, iv = a.Value, int64(a.Value)
	case ir.BoolAttr:
		if a.Value {
			fv, iv = 1, 1
		}
	default:
		return ir.OpErrorf(op, "unsupported constant %s", ir.AttrString(op.Attr("value")))
	}
	r := f.define(op.Results[0], k)
	switch k {
	case kindF32:
		f.line("mov.f32 \t%s, %s;", r, f32Lit(fv))
	case kindF64:
		f.line("mov.f64 \t%s, %s;", r, f64Lit(fv))
	case kindI32:
		f.line("mov.b32 \t%s, %d;", r, int32(iv))
	case kindI8:
		f.line("mov.b32 \t%s, %d;", r, int8(iv))
	case kindI16:
		f.line("mov.b32 \t%s, %d;", r, int16(iv))
	case kindI64:
		f.line("mov.b64 \t%s, %d;", r, iv)
	case kindF16, kindBF16:
		f.line("mov.b16 \t%s, 0x%04X;", r, halfLit(fv, k))
	case kindPred:
		t := f.reg("%r")
		f.line("mov.u32 \t%s, %d;", t, iv&1)
		f.line("setp.ne.u32 \t%s, %s, 0;", r, t)
	}
	return nil
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}
