package vm

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/base/status"
)

// RefType names a kind of object that VM ref registers can hold, such as
// "hal.buffer" or "vm.buffer". Ref types are registered once per process
// with RegisterRefType and compared by pointer.
type RefType struct {
	name string
	// counted is set once a ref of this type is made to an object that
	// implements RefCounted (or by SetCounting), so that moving refs of
	// other types (rodata buffers, devices) costs one load and no call.
	counted atomic.Bool
	// counting holds the type's own retain and release (SetCounting):
	// direct calls where the RefCounted interface would need a type
	// assertion per retain and release.
	counting atomic.Pointer[Counting]
}

// Counting is how the VM retains and releases the objects of one ref type
// without asserting RefCounted on each: functions that know the object's
// Go type (see RefType.SetCounting). Each is called with the object of a
// ref of that type.
type Counting struct {
	Retain   func(obj any)
	Release  func(obj any) error
	Released func(obj any) bool
}

// SetCounting makes refs of t reference-counted through c, which must
// behave as the objects' RefCounted methods do (the VM calls c instead
// of them). A package that registers a reference-counted ref type calls
// it once, where it registers the type, before any ref of it is made: the
// VM retains and releases such refs at every register store, so the
// interface assertion it saves matters.
func (t *RefType) SetCounting(c Counting) {
	t.counting.Store(&c)
	t.counted.Store(true)
}

// Name returns the ref type's full name, e.g. "hal.buffer_view".
func (t *RefType) Name() string {
	if t == nil {
		return "<nil ref type>"
	}
	return t.name
}

var refTypes = struct {
	sync.Mutex
	byName map[string]*RefType
}{byName: map[string]*RefType{}}

// RegisterRefType returns the ref type with the given full name, creating it
// on first use. Registering the same name twice returns the same type, so
// packages may register their types in package variables. The name must be
// non-empty.
func RegisterRefType(name string) *RefType {
	refTypes.Lock()
	defer refTypes.Unlock()
	if t, ok := refTypes.byName[name]; ok {
		return t
	}
	if name == "" {
		name = "<unnamed>"
	}
	t := &RefType{name: name}
	refTypes.byName[name] = t
	return t
}

// LookupRefType returns the registered ref type of that name, or nil.
func LookupRefType(name string) *RefType {
	refTypes.Lock()
	defer refTypes.Unlock()
	return refTypes.byName[name]
}

// Ref is a typed reference to a Go object held in a ref register. The zero
// Ref is null.
//
// Objects that implement RefCounted (hal.buffer, hal.buffer_view, vm.list)
// have deterministic lifetimes, as in IREE's VM: the VM retains such an
// object whenever it stores a ref to it (into a register, a list, a global
// or a caller's result slot) and releases it when that place is
// overwritten or dropped (a register when its frame returns, a list slot
// when the list is resized or released, a global when its context is
// closed). Refs to other objects are ordinary Go values.
type Ref struct {
	typ *RefType
	obj any
}

// RefCounted is implemented by ref objects whose resources (device
// memory, above all) are released when their last reference goes, not
// when the garbage collector finds them.
type RefCounted interface {
	// Retain adds a reference. Retaining a released object does nothing
	// (Released stays true).
	Retain()
	// Release drops a reference; dropping the last one releases the
	// object's resources. Releasing an object that has no references left
	// is a FAILED_PRECONDITION error.
	Release() error
	// Released reports whether the last reference has been dropped.
	Released() bool
}

// NewRef returns a ref of type t to obj. A nil obj gives the null Ref. The
// ref does not retain obj: a new RefCounted object starts with the one
// reference its creator owns, which the ref now stands for.
func NewRef(t *RefType, obj any) Ref {
	if obj == nil {
		return Ref{}
	}
	if t != nil && !t.counted.Load() {
		if _, ok := obj.(RefCounted); ok {
			t.counted.Store(true)
		}
	}
	return Ref{typ: t, obj: obj}
}

// retainRef adds a reference to r's object when it is reference-counted.
// The check is inlined at every register store; only counted refs call.
func retainRef(r Ref) {
	if r.typ.isCounted() {
		retainCounted(r)
	}
}

func retainCounted(r Ref) {
	if c := r.typ.counting.Load(); c != nil {
		c.Retain(r.obj)
	} else if rc, ok := r.obj.(RefCounted); ok {
		rc.Retain()
	}
}

// releaseRef drops a reference the VM holds. The VM releases only what it
// retained, so an error here means Go code released a reference it did
// not own; the object is then already released and the VM has nothing
// more to do.
func releaseRef(r Ref) {
	if r.typ.isCounted() {
		_ = releaseCounted(r)
	}
}

func releaseCounted(r Ref) error {
	if c := r.typ.counting.Load(); c != nil {
		return c.Release(r.obj)
	}
	if rc, ok := r.obj.(RefCounted); ok {
		return rc.Release()
	}
	return nil
}

func releasedCounted(r Ref) bool {
	if c := r.typ.counting.Load(); c != nil {
		return c.Released(r.obj)
	}
	rc, ok := r.obj.(RefCounted)
	return ok && rc.Released()
}

// isCounted reports whether refs of t may hold reference-counted objects
// (false for the null ref's nil type).
func (t *RefType) isCounted() bool { return t != nil && t.counted.Load() }

// assignRef stores *src in *dst, retaining it and then releasing the old
// value (in that order, so that storing a register into itself keeps the
// object alive). Inlined, it is a plain store when neither ref is
// counted (devices, executables, rodata: most ref stores).
func assignRef(dst, src *Ref) {
	if src.typ.isCounted() || dst.typ.isCounted() {
		assignCounted(dst, src)
		return
	}
	*dst = *src
}

func assignCounted(dst, src *Ref) {
	r := *src
	retainRef(r)
	old := *dst
	*dst = r
	releaseRef(old)
}

// moveRef stores src in *dst without retaining it (src carries a
// reference the caller gives up) and releases the old value.
func moveRef(dst *Ref, src Ref) {
	if dst.typ.isCounted() {
		moveCounted(dst, &src)
		return
	}
	*dst = src
}

func moveCounted(dst, src *Ref) {
	old := *dst
	*dst = *src
	_ = releaseCounted(old)
}

// Retain adds a reference to r's object when it is reference-counted (see
// RefCounted); it does nothing for other refs.
func (r Ref) Retain() {
	if r.obj != nil {
		retainRef(r)
	}
}

// Release drops a reference to r's object when it is reference-counted;
// it does nothing for other refs and the null ref. Go code releases each
// ref it owns once: results returned by Invoke, and refs it retained.
func (r Ref) Release() error {
	if r.typ != nil && r.typ.counted.Load() {
		if err := releaseCounted(r); err != nil {
			return fmt.Errorf("releasing %s: %w", r, err)
		}
	}
	return nil
}

// Released reports whether r refers to a reference-counted object whose
// last reference is gone (any use of it is an error).
func (r Ref) Released() bool {
	return r.typ != nil && r.typ.counted.Load() && releasedCounted(r)
}

// ReleaseValues releases the ref of every value in vs that holds one (see
// Ref.Release) and sets those values to the zero Value. It is how a Go
// caller gives back the results of Invoke. It returns every error found,
// joined.
func ReleaseValues(vs []Value) error {
	var errs []error
	for i := range vs {
		if vs[i].kind == KindRef && vs[i].ref.obj != nil {
			if err := vs[i].ref.Release(); err != nil {
				errs = append(errs, fmt.Errorf("value %d: %w", i, err))
			}
			vs[i] = Value{}
		}
	}
	return errors.Join(errs...)
}

// IsNull reports whether r is the null ref.
func (r Ref) IsNull() bool { return r.obj == nil }

// Type returns the ref's type (nil for the null ref).
func (r Ref) Type() *RefType { return r.typ }

// Object returns the referenced Go object (nil for the null ref).
func (r Ref) Object() any { return r.obj }

// As returns the referenced object when r has type t, or an
// INVALID_ARGUMENT error naming both types (or saying the ref is null).
func (r Ref) As(t *RefType) (any, error) {
	if r.obj == nil {
		return nil, status.Errorf(status.InvalidArgument, "expected a %s ref, got null", t.Name())
	}
	if r.typ != t {
		return nil, status.Errorf(status.InvalidArgument, "expected a %s ref, got %s", t.Name(), r.typ.Name())
	}
	return r.obj, nil
}

// String formats the ref for diagnostics: "ref<hal.buffer>" or "null".
func (r Ref) String() string {
	if r.obj == nil {
		return "null"
	}
	return fmt.Sprintf("ref<%s>", r.typ.Name())
}

// BufferType is the ref type "vm.buffer" of *Buffer, the byte buffers
// rodata segments are exposed as.
var BufferType = RegisterRefType("vm.buffer")

// Buffer is a VM byte buffer ("vm.buffer"). Rodata segments are read-only
// Buffers aliasing the module's bytes.
type Buffer struct {
	data     []byte
	readOnly bool
	name     string
	digest   []byte
}

// NewBuffer returns a Buffer over data (not copied).
func NewBuffer(data []byte, readOnly bool) *Buffer {
	return &Buffer{data: data, readOnly: readOnly}
}

// Bytes returns the buffer's contents. Callers must not modify the bytes of
// a read-only buffer.
func (b *Buffer) Bytes() []byte { return b.data }

// Name returns the name the module gave a rodata buffer (an executable's
// "@executable::@variant"), or "".
func (b *Buffer) Name() string { return b.name }

// SHA256 returns the digest the compiler recorded for a rodata buffer,
// which the loader has checked against its bytes, or nil when it recorded
// none (a module compiled before digests were written).
func (b *Buffer) SHA256() []byte { return b.digest }

// Len returns the buffer's length in bytes.
func (b *Buffer) Len() int { return len(b.data) }

// ReadOnly reports whether the buffer must not be written.
func (b *Buffer) ReadOnly() bool { return b.readOnly }

// Ref returns a "vm.buffer" ref to b.
func (b *Buffer) Ref() Ref { return NewRef(BufferType, b) }
