// Package vm is the goiree virtual machine: the bytecode module format
// (runtime/schemas/bytecode), an assembler (ModuleBuilder), a loader that
// verifies a module completely before anything runs (LoadBytecodeModule),
// an interpreter, native modules implemented in Go (NativeModule), a
// disassembler, and the embedding API (Instance, Context, Function).
//
// # Calling conventions
//
// Every function — export, internal function, import, native function —
// has a calling convention string in IREE's form:
//
//	"0" <arguments> "_" <results>
//
// "0" is the version. Each argument or result is one character: i = i32,
// I = i64, f = f32, F = f64, r = ref. An empty list is written "v". An
// argument may be a variadic group "C…D": zero or more tuples of the kinds
// between C and D, e.g. "0rriCiriiD_v" is (ref, ref, i32, then any number of
// (i32, ref, i32, i32) tuples) returning nothing. Examples:
//
//	0rr_r      two refs (e.g. hal.buffer_view) -> one ref
//	0v_v       no arguments, no results
//	0iiCiiD_i  two i32s and a variadic group of (i32, i32) tuples -> i32
//
// Imports and the functions that provide them must declare identical
// strings; NewContext rejects a mismatch.
//
// # How host code calls imports
//
// A module declares imports by fully-qualified name, "<module>.<function>"
// (ModuleBuilder.Import("hal.command_buffer.dispatch", "0rriiii_v")). When
// a context is created, each import resolves to the function of that name in
// a module added earlier: a NativeModule named "hal" providing
// "command_buffer.dispatch", or an export of another bytecode module.
//
// Bytecode calls an import with call.import (registers listed in signature
// order) or, for signatures with variadic groups, call.import.variadic,
// whose "segments" operand gives the number of tuples passed to each group
// and whose argument list is the flattened registers. A native function
// receives a NativeCall: Args in the same flattened order, Segments with the
// tuple counts, and Results to fill with Values of the declared kinds. The
// VM checks argument counts and register banks when the module is loaded and
// result kinds after each call; a native function checks the types of its
// ref arguments with Value.RefAs, which returns an INVALID_ARGUMENT error
// naming the expected and actual ref types.
//
// # Registers
//
// Each function has five register banks, sized by its function descriptor:
// i32, i64, f32, f64 and ref. Every operand's bank is fixed by the opcode
// table (ISA.md), so the verifier's range checks are also type checks.
// Arguments arrive in the first registers of each bank in order: for
// "0iIri_v" the arguments are %i0, %I0, %r0 and %i1. Registers start at
// zero (refs null) on every call.
//
// # Ref types
//
// Ref registers hold typed references (Ref) to Go objects. Types are
// registered by name with RegisterRefType ("hal.buffer", ...). The VM
// itself defines "vm.buffer" (*Buffer: byte buffers; rodata segments are
// read-only Buffers aliasing the module bytes, made by const.ref.rodata) and
// "vm.list" (*List: growable lists of Values).
//
// # Lifetimes
//
// Objects implementing RefCounted (hal.buffer, hal.buffer_view, vm.list)
// are reference-counted as in IREE's VM, so the memory behind them is
// returned at a known point and never waits for the garbage collector.
// The VM retains an object when it stores a ref into a register, a list
// element, a ref global or a caller's result slot, and releases it when
// that place is overwritten (const.ref.zero, mov.ref, a call's result),
// when a function returns (all its registers), when a list shrinks or is
// released, and when the context is closed (Context.Close, the globals).
// Native functions borrow their ref arguments and hand over one reference
// per ref result. Go callers keep ownership of the arguments they pass;
// the results of Invoke are theirs to release (ReleaseValues). A bytecode
// function that never writes its argument registers (the verifier finds
// out at load) borrows its ref arguments too, as the caller's reference
// outlives the call; a returned ref moves its register's reference to the
// caller. Neither changes what is released when, only saves the retain and
// release in between.
//
// # Embedding
//
//	m, err := vm.LoadBytecodeModule(vmfbBytes)     // verifies everything
//	ctx, err := vm.NewInstance().NewContext(halModule, m)
//	fn, err := ctx.LookupFunction("main")          // or "module.main"
//	results, err := ctx.Invoke(fn, []vm.Value{vm.RefValue(view), vm.I32(4)})
//	defer vm.ReleaseValues(results)                // the caller owns the results
//
// Errors use runtime/base/status codes. A Context is not safe for concurrent
// use; modules are.
package vm
