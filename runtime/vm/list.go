package vm

import (
	"sync/atomic"

	"github.com/goiree/goiree/runtime/base/status"
)

// ListType is the ref type "vm.list" of *List.
var ListType = RegisterRefType("vm.list")

func init() {
	ListType.SetCounting(Counting{
		Retain: func(o any) {
			if l, ok := o.(*List); ok {
				l.Retain()
			}
		},
		Release: func(o any) error {
			if l, ok := o.(*List); ok {
				return l.Release()
			}
			return nil
		},
		Released: func(o any) bool {
			l, ok := o.(*List)
			return ok && l.Released()
		},
	})
}

// maxListSize bounds list sizes set from bytecode.
const maxListSize = 1 << 24

// List is a growable list of Values ("vm.list"), e.g. for passing a
// variable number of results between bytecode and native code. Elements
// never set are zero Values, read as 0 or null.
//
// A list is reference-counted (RefCounted) and owns a reference to each
// reference-counted element: Set and Append retain the stored ref,
// overwriting or dropping an element (Resize) releases it, and releasing
// the list's last reference releases all its elements.
type List struct {
	values []Value
	refs   atomic.Int64
}

// NewList returns an empty list with room for capacity elements, holding
// one reference that the caller owns and releases with Release.
func NewList(capacity int) *List {
	if capacity < 0 {
		capacity = 0
	}
	l := &List{values: make([]Value, 0, capacity)}
	l.refs.Store(1)
	return l
}

// Retain implements RefCounted.
func (l *List) Retain() {
	for {
		n := l.refs.Load()
		if n <= 0 || l.refs.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// Release implements RefCounted: the last reference releases the
// elements and empties the list.
func (l *List) Release() error {
	for {
		n := l.refs.Load()
		if n <= 0 {
			return status.New(status.FailedPrecondition, "vm.list released twice")
		}
		if l.refs.CompareAndSwap(n, n-1) {
			if n == 1 {
				releaseElements(l.values)
				l.values = l.values[:0]
			}
			return nil
		}
	}
}

// Released implements RefCounted.
func (l *List) Released() bool { return l.refs.Load() <= 0 }

// releaseElements drops the references held by vs and zeroes them.
func releaseElements(vs []Value) {
	for i := range vs {
		if vs[i].ref.obj != nil {
			releaseRef(vs[i].ref)
		}
		vs[i] = Value{}
	}
}

// Len returns the number of elements.
func (l *List) Len() int { return len(l.values) }

// Get returns element i, or an OUT_OF_RANGE error. A ref element is
// borrowed: retain it to keep it beyond the list's hold on it.
func (l *List) Get(i int) (Value, error) {
	if i < 0 || i >= len(l.values) {
		return Value{}, status.Errorf(status.OutOfRange, "list index %d outside list of %d elements", i, len(l.values))
	}
	return l.values[i], nil
}

// Set stores v at index i, retaining its ref and releasing the element it
// replaces, or returns an OUT_OF_RANGE error.
func (l *List) Set(i int, v Value) error {
	if i < 0 || i >= len(l.values) {
		return status.Errorf(status.OutOfRange, "list index %d outside list of %d elements", i, len(l.values))
	}
	old := l.values[i]
	if v.ref.obj != nil {
		retainRef(v.ref)
	}
	l.values[i] = v
	if old.ref.obj != nil {
		releaseRef(old.ref)
	}
	return nil
}

// Append adds v at the end, retaining its ref.
func (l *List) Append(v Value) {
	if v.ref.obj != nil {
		retainRef(v.ref)
	}
	l.values = append(l.values, v)
}

// Resize sets the length to n, dropping (and releasing) elements past n
// or adding zero Values. n outside [0, 1<<24] is an OUT_OF_RANGE error.
func (l *List) Resize(n int) error {
	if n < 0 || n > maxListSize {
		return status.Errorf(status.OutOfRange, "list size %d outside [0, %d]", n, maxListSize)
	}
	if n <= len(l.values) {
		releaseElements(l.values[n:])
		l.values = l.values[:n]
		return nil
	}
	l.values = append(l.values, make([]Value, n-len(l.values))...)
	return nil
}

// Ref returns a "vm.list" ref to l.
func (l *List) Ref() Ref { return NewRef(ListType, l) }

// listOf returns the list held by r or an INVALID_ARGUMENT error.
func listOf(r Ref) (*List, error) {
	l, ok := r.obj.(*List)
	if !ok || r.typ != ListType {
		return nil, status.Errorf(status.InvalidArgument, "expected a vm.list, got %s", r)
	}
	return l, nil
}

// listGet reads element i of r as kind k; an element of another kind is an
// INVALID_ARGUMENT error, an unset element reads as zero.
func listGet(r Ref, i int32, k ValueKind) (Value, error) {
	l, err := listOf(r)
	if err != nil {
		return Value{}, err
	}
	v, err := l.Get(int(i))
	if err != nil {
		return Value{}, err
	}
	if v.kind != k {
		if v.kind != KindNone {
			return Value{}, status.Errorf(status.InvalidArgument, "list element %d is %s, read as %s", i, v.kind, k)
		}
		v.kind = k
	}
	return v, nil
}
