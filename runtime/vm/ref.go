package vm

import (
	"fmt"
	"sync"

	"github.com/goiree/goiree/runtime/vm/status"
)

// RefType names a kind of object that VM ref registers can hold, such as
// "hal.buffer" or "vm.buffer". Ref types are registered once per process
// with RegisterRefType and compared by pointer.
type RefType struct {
	name string
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
// Ref is null. Refs are garbage collected like any Go value.
type Ref struct {
	typ *RefType
	obj any
}

// NewRef returns a ref of type t to obj. A nil obj gives the null Ref.
func NewRef(t *RefType, obj any) Ref {
	if obj == nil {
		return Ref{}
	}
	return Ref{typ: t, obj: obj}
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
}

// NewBuffer returns a Buffer over data (not copied).
func NewBuffer(data []byte, readOnly bool) *Buffer {
	return &Buffer{data: data, readOnly: readOnly}
}

// Bytes returns the buffer's contents. Callers must not modify the bytes of
// a read-only buffer.
func (b *Buffer) Bytes() []byte { return b.data }

// Len returns the buffer's length in bytes.
func (b *Buffer) Len() int { return len(b.data) }

// ReadOnly reports whether the buffer must not be written.
func (b *Buffer) ReadOnly() bool { return b.readOnly }

// Ref returns a "vm.buffer" ref to b.
func (b *Buffer) Ref() Ref { return NewRef(BufferType, b) }
