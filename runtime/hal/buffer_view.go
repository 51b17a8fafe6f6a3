package hal

import (
	"fmt"

	"github.com/goiree/goiree/runtime/vm/status"
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
type BufferView struct {
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
func NewBufferView(buffer *Buffer, shape Shape, elementType ElementType, encoding Encoding) (*BufferView, error) {
	if buffer == nil {
		return nil, status.Errorf(status.InvalidArgument, "buffer view needs a buffer")
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

// Buffer returns the viewed buffer.
func (v *BufferView) Buffer() *Buffer { return v.buffer }

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
