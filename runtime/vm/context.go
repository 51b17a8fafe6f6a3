package vm

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/base/status"
)

// Instance is the root of the embedding API. It holds process-wide VM
// settings; create one and make contexts from it.
type Instance struct {
	maxStackDepth int
	maxRegisters  int
	stepLimit     int64
}

// SetStepLimit sets the step limit (see Context.SetStepLimit) that contexts
// created afterwards start with, including for their __init functions.
func (inst *Instance) SetStepLimit(n int64) {
	if n < 0 {
		n = 0
	}
	inst.stepLimit = n
}

// NewInstance returns an Instance with default limits: a call stack of at
// most 1024 frames and at most 1<<22 registers per bank across the stack.
func NewInstance() *Instance {
	return &Instance{maxStackDepth: 1024, maxRegisters: 1 << 22}
}

// Module is a module that can be added to a context: a *BytecodeModule
// or a NativeModule.
type Module interface {
	Name() string
}

// Context binds modules together: each bytecode module's imports are
// resolved against the modules before it, and each gets its own globals.
// A Context is not safe for concurrent use; Invoke from several goroutines
// at once fails with FAILED_PRECONDITION. Create one context per goroutine
// (modules are immutable and can be shared).
type Context struct {
	instance *Instance
	natives  map[string]map[string]*resolvedNative
	// nativeVersions holds the versions of native modules implementing
	// Versioned.
	nativeVersions map[string]uint32
	modules        []*moduleInstance
	busy           atomic.Bool
	closed         bool
	exec           executor
}

// moduleInstance is a bytecode module bound into a context.
type moduleInstance struct {
	module     *BytecodeModule
	imports    []resolvedImport
	globals    []byte
	globalRefs []Ref
	rodataRefs []Ref
}

// resolvedImport is the target of one import: a native function or an
// internal function of another bytecode module (or nothing, for a missing
// optional import).
type resolvedImport struct {
	native *resolvedNative
	target *moduleInstance
	fn     int
	name   string
}

// Function is a callable function of a context: an export of a bytecode
// module or a native function.
type Function struct {
	ctx    *Context
	module string
	name   string
	sig    Signature
	attrs  []Attr
	inst   *moduleInstance // bytecode functions
	fn     int
	native *resolvedNative // native functions
}

// Name returns the function's name without its module, e.g. "main".
func (f *Function) Name() string { return f.name }

// FullName returns "module.name".
func (f *Function) FullName() string { return f.module + "." + f.name }

// CallingConvention returns the function's calling convention, e.g. "0rr_r".
func (f *Function) CallingConvention() string { return f.sig.CallingConvention }

// Signature returns the parsed calling convention.
func (f *Function) Signature() Signature { return f.sig }

// Attrs returns the function's reflection attributes.
func (f *Function) Attrs() []Attr { return append([]Attr(nil), f.attrs...) }

// Attr returns the value of reflection attribute key.
func (f *Function) Attr(key string) (string, bool) {
	for _, a := range f.attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// NewContext creates a context holding the given modules, in order. Each
// bytecode module's imports must resolve against the modules listed before
// it (native modules by name and function, bytecode modules by export) with
// identical calling conventions; the first unresolvable import is reported
// by name with NOT_FOUND (or INVALID_ARGUMENT for a signature mismatch).
// A bytecode module exporting "__init" with signature "0v_v" has it run
// once here.
func (inst *Instance) NewContext(modules ...Module) (*Context, error) {
	ctx := &Context{instance: inst, natives: map[string]map[string]*resolvedNative{}, nativeVersions: map[string]uint32{}}
	ctx.exec.init(inst)
	ctx.exec.limit = inst.stepLimit
	byName := map[string]bool{}
	for _, mod := range modules {
		if mod == nil {
			return nil, status.New(status.InvalidArgument, "creating context: nil module")
		}
		name := mod.Name()
		if byName[name] {
			return nil, status.Errorf(status.AlreadyExists, "creating context: two modules named %q", name)
		}
		byName[name] = true
		switch m := mod.(type) {
		case *BytecodeModule:
			mi, err := ctx.bind(m)
			if err != nil {
				return nil, fmt.Errorf("creating context: %w", err)
			}
			ctx.modules = append(ctx.modules, mi)
		case NativeModule:
			fns := map[string]*resolvedNative{}
			for _, nf := range m.Functions() {
				sig, err := ParseSignature(nf.CallingConvention)
				if err != nil {
					return nil, fmt.Errorf("creating context: native module %s: function %s: %w", name, nf.Name, err)
				}
				if nf.Func == nil {
					return nil, status.Errorf(status.InvalidArgument, "creating context: native module %s: function %s has no implementation", name, nf.Name)
				}
				if _, dup := fns[nf.Name]; dup {
					return nil, status.Errorf(status.AlreadyExists, "creating context: native module %s: function %s defined twice", name, nf.Name)
				}
				fns[nf.Name] = &resolvedNative{module: name, fn: nf, sig: sig}
			}
			ctx.natives[name] = fns
			if v, ok := m.(Versioned); ok {
				ctx.nativeVersions[name] = v.Version()
			}
		default:
			return nil, status.Errorf(status.InvalidArgument, "creating context: module %q of type %T is neither a *BytecodeModule nor a NativeModule", name, mod)
		}
	}
	for _, mi := range ctx.modules {
		if i, ok := mi.module.exportByName["__init"]; ok {
			e := mi.module.exports[i]
			fn := &Function{ctx: ctx, module: mi.module.name, name: e.name, sig: mi.module.funcs[e.fn].sig, inst: mi, fn: e.fn}
			if fn.sig.CallingConvention != "0v_v" {
				return nil, status.Errorf(status.InvalidArgument, "creating context: module %s: __init has signature %s, want 0v_v", mi.module.name, fn.sig.CallingConvention)
			}
			if _, err := ctx.Invoke(fn, nil); err != nil {
				ctx.Close()
				return nil, fmt.Errorf("creating context: module %s: __init: %w", mi.module.name, err)
			}
		}
	}
	return ctx, nil
}

// Versioned is implemented by native modules that have a version number,
// checked against the minimum versions bytecode modules depend on
// (native modules without it count as version 0).
type Versioned interface {
	Version() uint32
}

// checkDependencies verifies that m's dependencies are among the modules
// registered before it.
func (ctx *Context) checkDependencies(m *BytecodeModule) error {
	for _, d := range m.deps {
		version, found := uint32(0), false
		if _, ok := ctx.natives[d.Name]; ok {
			found = true
			if v, ok := ctx.nativeVersions[d.Name]; ok {
				version = v
			}
		}
		for _, mi := range ctx.modules {
			if mi.module.name == d.Name {
				found, version = true, mi.module.version
			}
		}
		if !found {
			if d.Optional {
				continue
			}
			return status.Errorf(status.NotFound, "module %s depends on module %s (version >= %d), which is not registered before it", m.name, d.Name, d.MinVersion)
		}
		if version < d.MinVersion {
			return status.Errorf(status.FailedPrecondition, "module %s depends on module %s version >= %d, but version %d is registered", m.name, d.Name, d.MinVersion, version)
		}
	}
	return nil
}

// bind resolves m's imports and allocates its globals.
func (ctx *Context) bind(m *BytecodeModule) (*moduleInstance, error) {
	if err := ctx.checkDependencies(m); err != nil {
		return nil, err
	}
	mi := &moduleInstance{
		module:     m,
		imports:    make([]resolvedImport, len(m.imports)),
		globals:    make([]byte, m.globalBytes),
		globalRefs: make([]Ref, m.globalRefs),
		rodataRefs: make([]Ref, len(m.rodataBufs)),
	}
	for i, b := range m.rodataBufs {
		mi.rodataRefs[i] = b.Ref()
	}
	for i, imp := range m.imports {
		r := &mi.imports[i]
		r.name = imp.fullName
		var found bool
		var gotSig string
		if fns, ok := ctx.natives[imp.module]; ok {
			if nf, ok := fns[imp.function]; ok {
				found, gotSig = true, nf.sig.CallingConvention
				r.native = nf
			}
		} else {
			for _, other := range ctx.modules {
				if other.module.name != imp.module {
					continue
				}
				if ei, ok := other.module.exportByName[imp.function]; ok {
					e := other.module.exports[ei]
					found, gotSig = true, other.module.funcs[e.fn].sig.CallingConvention
					r.target, r.fn = other, e.fn
				}
			}
		}
		if !found {
			if imp.optional {
				continue
			}
			return nil, status.Errorf(status.NotFound, "module %s: import %s (%s) not found: %s", m.name, imp.fullName, imp.sig.CallingConvention, ctx.whyMissing(imp.module))
		}
		if gotSig != imp.sig.CallingConvention {
			return nil, status.Errorf(status.InvalidArgument, "module %s: import %s declared as %s but provided as %s", m.name, imp.fullName, imp.sig.CallingConvention, gotSig)
		}
	}
	return mi, nil
}

func (ctx *Context) whyMissing(module string) string {
	if _, ok := ctx.natives[module]; ok {
		return "module " + module + " has no such function"
	}
	for _, mi := range ctx.modules {
		if mi.module.name == module {
			return "module " + module + " has no such export"
		}
	}
	var names []string
	for n := range ctx.natives {
		names = append(names, n)
	}
	for _, mi := range ctx.modules {
		names = append(names, mi.module.name)
	}
	if len(names) == 0 {
		return "no module named " + module + " is registered before it"
	}
	sortStrings(names)
	return "no module named " + module + " is registered before it (have " + strings.Join(names, ", ") + ")"
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// SetTrace makes the context write every bytecode instruction it executes
// to w, one line each: "[module.function+OFFSET] instruction" (the form of
// iree-run-module --trace_execution). A nil w turns tracing off.
func (ctx *Context) SetTrace(w io.Writer) { ctx.exec.trace = w }

// SetStepLimit bounds each invocation to n taken branches and calls
// (which bounds every loop and recursion); an invocation that reaches the
// limit fails with DEADLINE_EXCEEDED. n <= 0 removes the limit (the
// default). Useful as a watchdog when running untrusted programs.
func (ctx *Context) SetStepLimit(n int64) {
	if n < 0 {
		n = 0
	}
	ctx.exec.limit = n
}

// LookupFunction finds a function by name: "module.function" names an
// export of that bytecode module or a native function; a bare name is
// searched among the exports of the bytecode modules, last added first.
// A missing function is a NOT_FOUND error listing the exports.
func (ctx *Context) LookupFunction(name string) (*Function, error) {
	for i := len(ctx.modules) - 1; i >= 0; i-- {
		mi := ctx.modules[i]
		local := name
		if strings.HasPrefix(name, mi.module.name+".") {
			local = name[len(mi.module.name)+1:]
		}
		if ei, ok := mi.module.exportByName[local]; ok {
			e := mi.module.exports[ei]
			return &Function{ctx: ctx, module: mi.module.name, name: e.name, sig: mi.module.funcs[e.fn].sig, attrs: e.attrs, inst: mi, fn: e.fn}, nil
		}
	}
	if dot := strings.IndexByte(name, '.'); dot > 0 {
		if fns, ok := ctx.natives[name[:dot]]; ok {
			if nf, ok := fns[name[dot+1:]]; ok {
				return &Function{ctx: ctx, module: nf.module, name: nf.fn.Name, sig: nf.sig, attrs: nf.fn.Attrs, native: nf}, nil
			}
		}
	}
	var have []string
	for _, mi := range ctx.modules {
		for _, e := range mi.module.exports {
			have = append(have, mi.module.name+"."+e.name)
		}
	}
	return nil, status.Errorf(status.NotFound, "function %q not found (exports: %s)", name, strings.Join(have, ", "))
}

// Invoke calls fn with args and returns its results. Argument kinds must
// match fn's calling convention (INVALID_ARGUMENT otherwise). Errors raised
// by the program (fail, native function errors, division by zero, stack
// exhaustion) carry their status code and the function and bytecode offset
// where they happened.
func (ctx *Context) Invoke(fn *Function, args []Value) ([]Value, error) {
	if fn == nil {
		return nil, status.New(status.InvalidArgument, "invoke: nil function")
	}
	results := make([]Value, len(fn.sig.Results))
	if err := ctx.InvokeInto(fn, args, results); err != nil {
		return nil, err
	}
	return results, nil
}

// InvokeInto is Invoke writing the results into results, which must have
// one slot per declared result. It does not allocate on the VM side.
//
// Ref arguments are borrowed for the call; passing a reference-counted
// object whose last reference was released is a FAILED_PRECONDITION
// error. Ref results belong to the caller, who releases each one
// (vm.ReleaseValues, or the object's Release) once done with it:
// results of reference-counted types hold device memory until then. The
// slots of results are overwritten without releasing what they held.
func (ctx *Context) InvokeInto(fn *Function, args []Value, results []Value) error {
	if fn == nil || fn.ctx != ctx {
		return status.New(status.InvalidArgument, "invoke: function is nil or belongs to another context")
	}
	if ctx.closed {
		return status.Errorf(status.FailedPrecondition, "invoke %s: the context is closed", fn.FullName())
	}
	if fn.sig.IsVariadic() {
		return status.Errorf(status.InvalidArgument, "invoke %s: variadic functions cannot be invoked directly", fn.FullName())
	}
	if len(args) != len(fn.sig.Args) {
		return status.Errorf(status.InvalidArgument, "invoke %s (%s): got %d arguments, want %d", fn.FullName(), fn.sig.CallingConvention, len(args), len(fn.sig.Args))
	}
	for i, a := range fn.sig.Args {
		if args[i].kind != a.Kind {
			return status.Errorf(status.InvalidArgument, "invoke %s (%s): argument %d is %s, want %s", fn.FullName(), fn.sig.CallingConvention, i, args[i].kind, a.Kind)
		}
		if a.Kind == KindRef && args[i].ref.Released() {
			return status.Errorf(status.FailedPrecondition, "invoke %s: argument %d: use of a released %s", fn.FullName(), i, args[i].ref.typ.Name())
		}
	}
	if len(results) != len(fn.sig.Results) {
		return status.Errorf(status.InvalidArgument, "invoke %s (%s): %d result slots, want %d", fn.FullName(), fn.sig.CallingConvention, len(results), len(fn.sig.Results))
	}
	if !ctx.busy.CompareAndSwap(false, true) {
		return status.Errorf(status.FailedPrecondition, "invoke %s: context is already running an invocation (contexts are not safe for concurrent use)", fn.FullName())
	}
	defer ctx.busy.Store(false)
	if fn.native != nil {
		for i := range results {
			results[i] = Value{}
		}
		call := NativeCall{Args: args, Results: results}
		if err := fn.native.fn.Func(&call); err != nil {
			return fmt.Errorf("invoke %s: %w", fn.FullName(), err)
		}
		return fn.native.checkResults(results)
	}
	return ctx.exec.run(fn.inst, fn.fn, args, results)
}

// Close releases what the context holds: the objects in its modules' ref
// globals (device memory a program keeps across calls, say). Invoking a
// function of a closed context is a FAILED_PRECONDITION error; closing
// twice does nothing. Close must not run during an invocation.
func (ctx *Context) Close() error {
	if !ctx.busy.CompareAndSwap(false, true) {
		return status.New(status.FailedPrecondition, "closing a context while it runs an invocation")
	}
	defer ctx.busy.Store(false)
	if ctx.closed {
		return nil
	}
	ctx.closed = true
	for _, mi := range ctx.modules {
		releaseRefs(mi.globalRefs)
	}
	return nil
}

// releaseRefs releases and nulls every ref of rs.
func releaseRefs(rs []Ref) {
	for i := range rs {
		if r := rs[i]; r.obj != nil {
			rs[i] = Ref{}
			releaseRef(r)
		}
	}
}
