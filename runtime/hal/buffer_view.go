package hal

import (
	"fmt"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/base/status"
)

// Encoding says how the elements of a buffer view are laid out.
type Encoding uint32

// Encodings, numbered as IREE numbers them.
const (
	EncodingOpaque        Encoding = 0
	EncodingDenseRowMajor Encoding = 1
)

// String returns the encoding name.
func (e Encoding) String() string {
	switch e {
	case EncodingOpaque:
		return "opaque"
	case EncodingDenseRowMajor:
		return "dense_row_major"
	}
	return fmt.Sprintf("encoding(%d)", uint32(e))
}

// BufferView is a buffer interpreted as a shaped array of elements.
//
// A BufferView is reference-counted like a Buffer: created with one
// reference, it owns one reference to its buffer, which its last Release
// releases. Results of VM functions are buffer views the caller owns and
// releases (vm.ReleaseValues or Release).
type BufferView struct {
	// extra counts the view's references beyond the one it is created
	// with (no atomic store for a new view); -1 once the last is released.
	extra       atomic.Int64
	buffer      *Buffer
	shape       Shape
	elementType ElementType
	encoding    Encoding
	// dims backs shape for views of rank ≤ len(dims), so that a typical
	// view is one allocation.
	dims [4]int64
}

// DenseByteLength returns the bytes a dense row-major array of shape and
// elementType occupies, with overflow checks.
func DenseByteLength(shape Shape, elementType ElementType) (int64, error) {
	n, err := shape.ElementCount()
	if err != nil {
		return 0, err
	}
	size := int64(elementType.ByteSize())
	if size == 0 {
		return 0, status.Errorf(status.InvalidArgument, "element type %v has no storage size", elementType)
	}
	if n > (1<<63-1)/size {
		return 0, status.Errorf(status.OutOfRange, "shape %s of %v is too large", shape.String(), elementType)
	}
	return n * size, nil
}

// NewBufferView makes a view of buffer. For the dense row-major encoding the
// buffer must hold at least DenseByteLength(shape, elementType) bytes. The
// view keeps its own copy of shape.
//
// The view takes over the caller's reference to buffer: releasing the
// view releases the buffer. A caller that goes on using the buffer on its
// own retains it first. On error the caller keeps its reference.
func NewBufferView(buffer *Buffer, shape Shape, elementType ElementType, encoding Encoding) (*BufferView, error) {
	if buffer == nil {
		return nil, status.Errorf(status.InvalidArgument, "buffer view needs a buffer")
	}
	if err := buffer.live(); err != nil {
		return nil, errContext(err, "creating a buffer view")
	}
	if encoding != EncodingOpaque && encoding != EncodingDenseRowMajor {
		return nil, status.Errorf(status.InvalidArgument, "unsupported buffer view encoding %v", encoding)
	}
	need, err := DenseByteLength(shape, elementType)
	if err != nil {
		return nil, errContext(err, "buffer view %sx%v", shape.String(), elementType)
	}
	if encoding == EncodingDenseRowMajor && need > buffer.ByteLength() {
		return nil, status.Errorf(status.OutOfRange, "buffer view %s needs %d bytes but the buffer has %d", viewTypeString(shape, elementType), need, buffer.ByteLength())
	}
	v := &BufferView{buffer: buffer, elementType: elementType, encoding: encoding}
	if len(shape) <= len(v.dims) {
		v.shape = v.dims[:len(shape):len(shape)]
		copy(v.shape, shape)
	} else {
		v.shape = append(Shape{}, shape...)
	}
	return v, nil
}

func viewTypeString(shape Shape, et ElementType) string {
	if len(shape) == 0 {
		return et.String()
	}
	return shape.String() + "x" + et.String()
}

// Buffer returns the viewed buffer, borrowed from the view: Retain it to
// keep it past the view's release.
func (v *BufferView) Buffer() *Buffer { return v.buffer }

// Retain adds a reference to v (vm.RefCounted). Retaining a released view
// does nothing.
func (v *BufferView) Retain() {
	for {
		n := v.extra.Load()
		if n < 0 || v.extra.CompareAndSwap(n, n+1) {
			return
		}
	}
}

// Release drops a reference to v (vm.RefCounted); the last one releases
// the view's buffer. Releasing a view that has no references left is a
// FAILED_PRECONDITION error.
func (v *BufferView) Release() error {
	for {
		n := v.extra.Load()
		if n < 0 {
			return status.Errorf(status.FailedPrecondition, "buffer view %s released twice", v)
		}
		if v.extra.CompareAndSwap(n, n-1) {
			if n == 0 {
				if err := v.buffer.Release(); err != nil {
					return errContext(err, "releasing buffer view %s", v)
				}
			}
			return nil
		}
	}
}

// Released reports whether v's last reference has been released
// (vm.RefCounted).
func (v *BufferView) Released() bool { return v.extra.Load() < 0 }

// Live returns nil while v and its buffer may be used, or the
// FAILED_PRECONDITION error a use would report.
func (v *BufferView) Live() error {
	if v.extra.Load() < 0 {
		return status.Errorf(status.FailedPrecondition, "use of a released buffer view %s", v)
	}
	return v.buffer.live()
}

// Shape returns a copy of the shape.
func (v *BufferView) Shape() Shape { return append(Shape{}, v.shape...) }

// Rank returns the number of dimensions.
func (v *BufferView) Rank() int { return len(v.shape) }

// Dim returns dimension i, or an error when i is out of range.
func (v *BufferView) Dim(i int) (int64, error) {
	if i < 0 || i >= len(v.shape) {
		return 0, status.Errorf(status.OutOfRange, "dimension %d out of range for rank %d", i, len(v.shape))
	}
	return v.shape[i], nil
}

// ElementType returns the element type.
func (v *BufferView) ElementType() ElementType { return v.elementType }

// Encoding returns the encoding.
func (v *BufferView) Encoding() Encoding { return v.encoding }

// ElementCount returns the number of elements.
func (v *BufferView) ElementCount() int64 {
	n, _ := v.shape.ElementCount() // validated in NewBufferView
	return n
}

// ByteLength returns the dense size of the viewed array in bytes.
func (v *BufferView) ByteLength() int64 {
	n, _ := DenseByteLength(v.shape, v.elementType) // validated in NewBufferView
	return n
}

// String returns the view's type, e.g. "4x8xf32".
func (v *BufferView) String() string { return viewTypeString(v.shape, v.elementType) }
