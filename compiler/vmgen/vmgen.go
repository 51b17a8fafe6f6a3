// Package vmgen lowers a host program to VM bytecode: every func.func or
// util.func over tensors and scalars becomes a VM function with IREE's
// calling convention (tensors are hal.buffer_view refs, so
// `(tensor, tensor) -> tensor` is "0rr_r"); public ones are exported.
// Function bodies become calls to the `hal` native module
// (runtime/modules/hal/IMPORTS.md):
//
//   - arguments of exported functions are checked with
//     hal.buffer_view.assert and their dynamic dims read with
//     hal.buffer_view.dim;
//   - scalar math (arith on i1 to i64, index, f32 and f64; affine.apply;
//     tensor.dim) runs in VM registers (index is i64; integers narrower
//     than 32 bits are kept zero-extended in i32 registers);
//   - blocks and cf.br/cond_br/switch become labels and branches (see
//     control.go), cf.assert a fail with its message; func.call and
//     util.call call the callee's VM function, or, for a body-less
//     declaration named module.function, that import (calls.go); values
//     of dialect types (!hal.buffer_view, !custom.string) are opaque refs;
//   - check.* ops call the `check` module's imports (checks.go);
//   - flow.tensor ops: reshape/bitcast/tie_shape reuse the buffer, load
//     and store are host reads and writes after a flush (a store copies
//     a tensor still used elsewhere), splat fills, clone copies
//     (tensorops.go);
//   - util.global becomes a VM global (a ref global holding a buffer view
//     for tensors); initial values and util.initializer bodies run in the
//     exported __init, once per context (globals.go);
//   - each flow.dispatch records one hal.command_buffer.dispatch.inline:
//     the 32-bit constants (primitive operands in order, index truncated to
//     i32) and the bindings (tensor operands, then untied results, placed in
//     (set, binding) order; a tied result reuses its operand's buffer in
//     place, copying first when the operand is still needed), with the
//     workgroup count from the export's count region evaluated in host
//     code; a barrier follows;
//   - results are allocated from the device allocator; buffers of dead
//     transients are reused for later results of the same size;
//   - one command buffer is pending at a time, created by the first
//     command after a flush; it is submitted and waited on ("flushed")
//     before anything that needs its results on the host and before every
//     branch and return. Right after the wait, the command buffer's
//     register and those of the block's dead transients are overwritten
//     with null, which releases the VM's reference (refs are
//     reference-counted, see runtime/vm), so their memory is back in the
//     allocator's pool before the result views are made. Everything else
//     the function holds is released when it returns; the results belong
//     to the caller.
//
// The device and its allocator are resolved once per context, by the
// internal function __device_init that the first call finding the device
// global null runs, and kept in ref globals that each function loads (a
// function that records no device work calls hal.devices.get itself).
// Constants and byte sizes are materialized once on the paths that use
// them. A tensor constant is uploaded where it is used; one of 4 KiB or
// more is uploaded once per context into a buffer kept in a ref global.
//
// A dispatch naming @exe::@export picks the variant at run time: the first
// variant whose format the device reports through hal.device.query.i64
// ("hal.executable.format" :: format). Each variant's binary is a rodata
// segment, created once per context into a ref global; a dispatch loads
// that global and calls the variant's getter only while it is null.
// Variants whose binaries are identical in one format share one segment,
// global and getter: the cuda target builds every sm_XX variant of an
// executable into one payload of per-arch PTX images, from which the
// driver loads the newest the device runs.
//
// The output is deterministic: the same module and options give the same
// bytes.
package vmgen

import (
	"crypto/sha256"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// ExecutableBuilder serializes an executable variant into the binary of
// its target's format.
type ExecutableBuilder interface {
	Build(variant *ir.Operation) ([]byte, error)
}

// Backends dispatches Build by the variant's target backend name
// ("llvm-cpu", "cuda", ...).
type Backends map[string]ExecutableBuilder

// Build implements ExecutableBuilder.
func (b Backends) Build(variant *ir.Operation) ([]byte, error) {
	t := hal.VariantTarget(variant)
	if t == nil {
		return nil, ir.OpErrorf(variant, "variant has no target")
	}
	eb, ok := b[t.Backend]
	if !ok {
		var names []string
		for n := range b {
			names = append(names, n)
		}
		sortStrings(names)
		return nil, ir.OpErrorf(variant, "no code generator for target backend %q (available: %s)", t.Backend, strings.Join(names, ", "))
	}
	return eb.Build(variant)
}

// Options configure Emit.
type Options struct {
	// Registry resolves symbols; nil means dialect.NewRegistry().
	Registry *ir.Registry
	// Executables builds the binaries of the variants dispatched to.
	Executables ExecutableBuilder
	// ModuleName overrides the VM module name (default: the module's
	// sym_name, or "module").
	ModuleName string
}

// Emit lowers module (a builtin.module whose functions have been through
// elementwise dispatch formation) to a VM bytecode module.
func Emit(module *ir.Operation, opts Options) ([]byte, error) {
	b, err := Assemble(module, opts)
	if err != nil {
		return nil, err
	}
	out, err := b.Build()
	if err != nil {
		return nil, fmt.Errorf("assembling the VM module: %w", err)
	}
	return out, nil
}

// Assemble lowers module into a vm.ModuleBuilder without serializing it.
func Assemble(module *ir.Operation, opts Options) (*vm.ModuleBuilder, error) {
	if module == nil || module.Body() == nil {
		return nil, fmt.Errorf("vmgen: no module")
	}
	if opts.Registry == nil {
		opts.Registry = dialect.NewRegistry()
	}
	name := opts.ModuleName
	if name == "" {
		name = module.SymName()
	}
	if name == "" {
		name = "module"
	}
	e := &emitter{
		opts:      opts,
		module:    module,
		b:         vm.NewModuleBuilder(name),
		imports:   map[string]vm.ImportRef{},
		strs:      map[string]vm.RodataRef{},
		exes:      map[*ir.Operation]*exeInfo{},
		initNames: map[*ir.Operation]string{},
		constants: map[[sha256.Size]byte]*constInfo{},
	}
	if err := e.prebuild(); err != nil {
		return nil, err
	}
	if err := e.declareGlobals(); err != nil {
		return nil, err
	}
	e.initFn = e.buildInit()
	if err := e.declareFunctions(); err != nil {
		return nil, err
	}
	for _, op := range e.hostFunctions() {
		if err := e.function(op); err != nil {
			return nil, err
		}
	}
	if e.initFn != nil {
		if err := e.function(e.initFn); err != nil {
			return nil, err
		}
	}
	if len(e.exported) == 0 {
		return nil, ir.OpErrorf(module, "module has no public function to export")
	}
	e.finishDeviceInit()
	return e.b, nil
}

type emitter struct {
	opts     Options
	built    map[*ir.Operation][]byte
	module   *ir.Operation
	b        *vm.ModuleBuilder
	imports  map[string]vm.ImportRef
	strs     map[string]vm.RodataRef
	exes     map[*ir.Operation]*exeInfo
	byBinary map[[sha256.Size]byte]*exeInfo // format and binary -> embedded executable
	exeOrder []*exeInfo
	exported []string
	// funcs are the VM functions of the module's host functions, declared
	// before any is lowered; bySym finds them by name.
	funcs map[*ir.Operation]*vm.FunctionBuilder
	bySym map[string]*ir.Operation
	// globals are the module's util.globals by name; initNames name the
	// internal functions of util.initializer ops; initFn is the synthetic
	// __init function, or nil.
	// constants are the large tensor constants uploaded once per context,
	// by content.
	constants map[[sha256.Size]byte]*constInfo
	globals   map[string]*globalInfo
	// live caches hostFunctions.
	live      []*ir.Operation
	initNames map[*ir.Operation]string
	initFn    *ir.Operation

	// The device and its allocator are resolved once per context, by
	// devInit on the first call that finds devGlobal null, and kept in ref
	// globals that every function loads.
	devInit     *vm.FunctionBuilder
	devGlobal   vm.Global
	allocGlobal vm.Global
}

// deviceInit returns the function that resolves the device and its
// allocator into the module's globals, declaring it on first use; its body
// is emitted by finishDeviceInit once every function is lowered.
func (e *emitter) deviceInit() *vm.FunctionBuilder {
	if e.devInit == nil {
		e.devGlobal = e.b.AddGlobal(vm.KindRef)
		e.allocGlobal = e.b.AddGlobal(vm.KindRef)
		e.devInit = e.b.Function("__device_init", "0v_r")
	}
	return e.devInit
}

// finishDeviceInit emits the body of the device initializer:
//
//	dev = hal.devices.get(0); alloc = hal.device.allocator(dev)
//
// storing the allocator before the device, since a non-null device global
// is what tells callers that initialization is done.
func (e *emitter) finishDeviceInit() {
	f := e.devInit
	if f == nil {
		return
	}
	zero := f.NewI32()
	f.ConstI32(zero, 0)
	dev := f.NewRefReg()
	f.CallImport(e.imp("hal.devices.get"), []vm.Reg{zero}, []vm.Reg{dev})
	alloc := f.NewRefReg()
	f.CallImport(e.imp("hal.device.allocator"), []vm.Reg{dev}, []vm.Reg{alloc})
	f.Emit(vm.OpGlobalStoreRef, e.allocGlobal, alloc)
	f.Emit(vm.OpGlobalStoreRef, e.devGlobal, dev)
	f.Return(dev)
}

// constInfo is a large constant: its rodata and the ref global holding
// its buffer once uploaded.
type constInfo struct {
	data   vm.RodataRef
	global vm.Global
}

// exeInfo is one variant embedded in the module.
type exeInfo struct {
	variant *ir.Operation
	format  string
	global  vm.Global
	getter  *vm.FunctionBuilder
}

// importSig lists the imports host code uses, with their calling
// conventions: the hal module's (runtime/modules/hal/IMPORTS.md) and the
// check module's (IREE's check.imports.mlir).
var importSig = map[string]string{
	"check.expect_true":                    "0i_v",
	"check.expect_false":                   "0i_v",
	"check.expect_all_true":                "0rr_v",
	"check.expect_eq":                      "0rrr_v",
	"check.expect_almost_eq":               "0rrrff_v",
	"hal.buffer.load":                      "0rIi_i",
	"hal.buffer.store":                     "0irIi_v",
	"hal.command_buffer.fill_buffer":       "0rrIIii_v",
	"hal.devices.get":                      "0i_r",
	"hal.device.allocator":                 "0r_r",
	"hal.device.query.i64":                 "0rrr_iI",
	"hal.allocator.allocate":               "0rIiiI_r",
	"hal.buffer.length":                    "0r_I",
	"hal.buffer_view.create":               "0rIIiiCID_r",
	"hal.buffer_view.assert":               "0rriiCID_v",
	"hal.buffer_view.buffer":               "0r_r",
	"hal.buffer_view.rank":                 "0r_i",
	"hal.buffer_view.dim":                  "0ri_I",
	"hal.executable.create":                "0rIrrr_r",
	"hal.command_buffer.create":            "0riiIi_r",
	"hal.command_buffer.end":               "0r_v",
	"hal.command_buffer.execution_barrier": "0riiI_v",
	"hal.command_buffer.update_buffer":     "0rrIrII_v",
	"hal.command_buffer.copy_buffer":       "0rrIrII_v",
	"hal.command_buffer.dispatch.inline":   "0rriiiiICiDCrIID_v",
	"hal.ex.submit_and_wait":               "0rr_v",
	"hal.ex.workgroup_count_error":         "0rIII_v",
}

func (e *emitter) imp(name string) vm.ImportRef {
	if r, ok := e.imports[name]; ok {
		return r
	}
	// An unknown name gets an empty calling convention, which the builder
	// reports as an error when the module is built.
	r := e.b.Import(name, importSig[name])
	e.imports[name] = r
	return r
}

// optionalImp is imp for an import that may be missing at run time
// (a check module function): calls to it must be guarded by
// import.resolved.
func (e *emitter) optionalImp(name string) vm.ImportRef {
	if r, ok := e.imports[name]; ok {
		return r
	}
	r := e.b.OptionalImport(name, importSig[name])
	e.imports[name] = r
	return r
}

// str returns the rodata segment holding s (deduplicated).
func (e *emitter) str(s string) vm.RodataRef {
	if r, ok := e.strs[s]; ok {
		return r
	}
	r := e.b.Rodata([]byte(s), "text/plain")
	e.strs[s] = r
	return r
}

// executable returns the embedded form of a variant, building it on first
// use.
func (e *emitter) executable(variant *ir.Operation) (*exeInfo, error) {
	if x, ok := e.exes[variant]; ok {
		return x, nil
	}
	t := hal.VariantTarget(variant)
	if t == nil {
		return nil, ir.OpErrorf(variant, "variant has no target")
	}
	if e.opts.Executables == nil {
		return nil, ir.OpErrorf(variant, "no executable builder configured")
	}
	data, prebuilt := e.built[variant]
	if !prebuilt {
		var err error
		if data, err = e.opts.Executables.Build(variant); err != nil {
			return nil, err
		}
	}
	digest := sha256.Sum256(append([]byte(t.Format+"\x00"), data...))
	if x, ok := e.byBinary[digest]; ok {
		e.exes[variant] = x
		return x, nil
	}
	x := &exeInfo{variant: variant, format: t.Format, global: e.b.AddGlobal(vm.KindRef)}
	// The binary carries its SHA-256 and name: the loader refuses a module
	// whose executable bytes changed after compiling (DATA_LOSS naming it)
	// before any driver maps or compiles them.
	data2 := e.b.RodataChecked("@"+variant.ParentOp().SymName()+"::@"+variant.SymName(), data, mimeOf(t.Format))
	name := "__exe_" + sanitize(variant.ParentOp().SymName()) + "_" + sanitize(variant.SymName())
	// (device) -> (ok, executable): the cached executable, or a new one when
	// the device runs the format, or ok = 0.
	f := e.b.Function(name, "0r_ir")
	dev := f.Arg(0)
	cached := f.NewRefReg()
	f.Emit(vm.OpGlobalLoadRef, cached, x.global)
	nz := f.NewI32()
	f.Emit(vm.OpCmpNzRef, nz, cached)
	hit, miss := f.NewLabel(), f.NewLabel()
	f.CondBr(nz, hit, miss)
	f.Bind(hit)
	one := f.NewI32()
	f.ConstI32(one, 1)
	f.Return(one, cached)
	f.Bind(miss)
	cat, key := f.NewRefReg(), f.NewRefReg()
	f.Emit(vm.OpConstRefRodata, cat, e.str("hal.executable.format"))
	f.Emit(vm.OpConstRefRodata, key, e.str(t.Format))
	ok, val := f.NewI32(), f.NewI64()
	f.CallImport(e.imp("hal.device.query.i64"), []vm.Reg{dev, cat, key}, []vm.Reg{ok, val})
	supported := f.NewI32()
	f.Emit(vm.OpCmpNzI64, supported, val)
	both := f.NewI32()
	f.Emit(vm.OpAndI32, both, ok, supported)
	create, unsupported := f.NewLabel(), f.NewLabel()
	f.CondBr(both, create, unsupported)
	f.Bind(unsupported)
	zero := f.NewI32()
	f.ConstI32(zero, 0)
	null := f.NewRefReg()
	f.Emit(vm.OpConstRefZero, null)
	f.Return(zero, null)
	f.Bind(create)
	aff := f.NewI64()
	f.ConstI64(aff, -1)
	bin, noConsts, exe := f.NewRefReg(), f.NewRefReg(), f.NewRefReg()
	f.Emit(vm.OpConstRefRodata, bin, data2)
	f.Emit(vm.OpConstRefZero, noConsts)
	f.CallImport(e.imp("hal.executable.create"), []vm.Reg{dev, aff, key, bin, noConsts}, []vm.Reg{exe})
	f.Emit(vm.OpGlobalStoreRef, x.global, exe)
	one2 := f.NewI32()
	f.ConstI32(one2, 1)
	f.Return(one2, exe)
	x.getter = f
	e.exes[variant] = x
	if e.byBinary == nil {
		e.byBinary = map[[sha256.Size]byte]*exeInfo{}
	}
	e.byBinary[digest] = x
	e.exeOrder = append(e.exeOrder, x)
	return x, nil
}

// prebuild builds every variant the exported functions dispatch to, in
// parallel (each build runs clang and lld), so that lowering finds the
// binaries ready. Errors are reported for the first variant in module
// order; lowering reports unresolvable dispatches itself.
func (e *emitter) prebuild() error {
	if e.opts.Executables == nil {
		return nil
	}
	var variants []*ir.Operation
	seen := map[*ir.Operation]bool{}
	for _, fn := range e.hostFunctions() {
		ir.Walk(fn, func(op *ir.Operation) bool {
			if op.Name != "flow.dispatch" {
				return true
			}
			for _, ref := range (flow.Dispatch{Op: op}).EntryPoints() {
				res, err := hal.ResolveEntryPoint(e.opts.Registry, op, ref)
				if err != nil || res.Executable.Name != "hal.executable" {
					continue
				}
				for _, ex := range res.Exports {
					if v := ex.ParentOp(); v != nil && v.Name == "hal.executable.variant" && !seen[v] {
						seen[v] = true
						variants = append(variants, v)
					}
				}
			}
			return true
		})
	}
	data := make([][]byte, len(variants))
	errs := make([]error, len(variants))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, v := range variants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			data[i], errs[i] = e.opts.Executables.Build(v)
		}()
	}
	wg.Wait()
	e.built = map[*ir.Operation][]byte{}
	for i, v := range variants {
		if errs[i] != nil {
			return errs[i]
		}
		e.built[v] = data[i]
	}
	return nil
}

func mimeOf(format string) string {
	switch {
	case strings.HasPrefix(format, "embedded-elf-"), strings.HasPrefix(format, "system-elf-"):
		return "application/x-elf"
	case strings.HasSuffix(format, "-fb"):
		return "application/x-flatbuffers"
	}
	return "application/octet-stream"
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

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// kindOf maps a host scalar type to its VM register bank. Dialect types
// (!hal.buffer_view, a custom module's !custom.string, ...) are opaque
// refs.
func kindOf(t ir.Type) (vm.ValueKind, bool) {
	switch t := t.(type) {
	case *ir.DialectType:
		return vm.KindRef, true
	case ir.IndexType:
		return vm.KindI64, true
	case ir.IntegerType:
		switch {
		case t.Width <= 32:
			return vm.KindI32, true
		case t.Width == 64:
			return vm.KindI64, true
		}
	case ir.FloatType:
		switch t.Name {
		case "f32":
			return vm.KindF32, true
		case "f64":
			return vm.KindF64, true
		}
	}
	return vm.KindNone, false
}

// ccChar is the calling-convention character of a function argument or
// result type.
func ccChar(t ir.Type) (byte, error) {
	if _, ok := t.(*ir.TensorType); ok {
		return 'r', nil
	}
	k, ok := kindOf(t)
	if !ok {
		return 0, fmt.Errorf("type '%s' cannot cross the VM function boundary", ir.TypeString(t))
	}
	switch k {
	case vm.KindRef:
		return 'r', nil
	case vm.KindI32:
		return 'i', nil
	case vm.KindI64:
		return 'I', nil
	case vm.KindF32:
		return 'f', nil
	}
	return 'F', nil
}

// callingConvention returns the VM calling convention of a func.func or
// util.func.
func callingConvention(fn *ir.Operation) (string, error) {
	ft := functionType(fn)
	if ft == nil {
		return "", ir.OpErrorf(fn, "function has no type")
	}
	var b strings.Builder
	b.WriteString("0")
	for i, t := range ft.Inputs {
		c, err := ccChar(t)
		if err != nil {
			return "", ir.OpErrorf(fn, "argument %d: %v", i, err)
		}
		b.WriteByte(c)
	}
	if len(ft.Inputs) == 0 {
		b.WriteByte('v')
	}
	b.WriteByte('_')
	for i, t := range ft.Results {
		c, err := ccChar(t)
		if err != nil {
			return "", ir.OpErrorf(fn, "result %d: %v", i, err)
		}
		b.WriteByte(c)
	}
	if len(ft.Results) == 0 {
		b.WriteByte('v')
	}
	return b.String(), nil
}

// elementTypeCode is IREE's hal element type for a tensor element.
func elementTypeCode(t ir.Type) (int32, int64, error) {
	switch t := t.(type) {
	case ir.FloatType:
		switch t.Name {
		case "f16":
			return 0x21000010, 2, nil
		case "f32":
			return 0x21000020, 4, nil
		case "f64":
			return 0x21000040, 8, nil
		case "bf16":
			return 0x22000010, 2, nil
		}
	case ir.IntegerType:
		var num int32 = 0x10
		switch t.Signedness {
		case ir.Signed:
			num = 0x11
		case ir.Unsigned:
			num = 0x12
		}
		switch t.Width {
		case 1:
			return 0x13000001, 1, nil
		case 8, 16, 32, 64:
			return num<<24 | int32(t.Width), int64(t.Width / 8), nil
		}
	}
	return 0, 0, fmt.Errorf("tensor element type '%s' is not supported by the host ABI", ir.TypeString(t))
}
