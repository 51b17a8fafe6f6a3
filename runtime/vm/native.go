package vm

import (
	"github.com/goiree/goiree/runtime/base/status"
)

// NativeModule is a module implemented in Go whose functions bytecode
// modules import. Import "hal.buffer.length" resolves to the function
// named "buffer.length" of the native module named "hal".
type NativeModule interface {
	// Name is the module name imports are qualified with, e.g. "hal".
	Name() string
	// Functions lists the functions the module provides. It is called once
	// per context creation.
	Functions() []NativeFunction
}

// NativeFunction is one function of a NativeModule.
type NativeFunction struct {
	// Name is the function's name inside its module, e.g.
	// "command_buffer.dispatch".
	Name string
	// CallingConvention is the function's signature, e.g. "0rriiii_v"; an
	// import must declare exactly the same string.
	CallingConvention string
	// Attrs are optional reflection attributes.
	Attrs []Attr
	// Func implements the function. It must not retain call or its slices
	// after returning.
	Func func(call *NativeCall) error
}

// NativeCall is the argument/result frame of one call into a native
// function. The VM reuses frames between calls; nothing in it is
// allocated per call.
type NativeCall struct {
	// Args holds the arguments in call order; variadic groups are
	// flattened (tuple after tuple). Ref arguments are borrowed: the
	// caller's registers keep them alive during the call, and a function
	// that keeps one afterwards retains it (Ref.Retain).
	Args []Value
	// Results has one slot per declared result, initially zero Values; the
	// function must store a Value of the declared kind in each. A ref
	// result hands one reference to the caller: a new RefCounted object
	// as created, an existing one retained first (returning an argument
	// or a field of one without Retain would release it too early).
	Results []Value
	// Segments holds the number of tuples passed to each variadic group,
	// in signature order (empty for non-variadic functions).
	Segments []int
	// ex is the executor making the call, for CallerLocation (nil for a
	// native function invoked directly).
	ex *executor
}

// CallerLocation returns the source location ("file.mlir:12:3") of the
// bytecode call instruction that made this call, when its module records
// locations; "" otherwise, and for a native function invoked directly.
// It is valid only during the call.
func (c *NativeCall) CallerLocation() string {
	ex := c.ex
	if ex == nil || len(ex.frames) == 0 {
		return ""
	}
	fr := &ex.frames[len(ex.frames)-1]
	return fr.mi.module.SourceLocation(fr.fi, fr.at)
}

// Attr is a key/value reflection attribute of a function or module.
type Attr struct {
	Key, Value string
}

type nativeModule struct {
	name      string
	functions []NativeFunction
}

// NewNativeModule returns a NativeModule with a fixed name and function
// list.
func NewNativeModule(name string, functions []NativeFunction) NativeModule {
	return &nativeModule{name: name, functions: functions}
}

// Name returns the module's name.
func (m *nativeModule) Name() string { return m.name }

// Functions returns the module's functions.
func (m *nativeModule) Functions() []NativeFunction { return m.functions }

// resolvedNative is a native function bound into a context.
type resolvedNative struct {
	module string
	fn     NativeFunction
	sig    Signature
}

// checkResults verifies that a native function filled its results with the
// declared kinds.
func (r *resolvedNative) checkResults(results []Value) error {
	for i, k := range r.sig.Results {
		if results[i].kind != k {
			return r.badResult(i, results[i].kind)
		}
	}
	return nil
}

// badResult is the error for result i of kind got, not the declared kind.
func (r *resolvedNative) badResult(i int, got ValueKind) error {
	return status.Errorf(status.Internal, "native function %s.%s returned %s for result %d, declared %s",
		r.module, r.fn.Name, got, i, r.sig.Results[i])
}
