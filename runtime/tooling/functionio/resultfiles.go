package functionio

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/vm"
)

// resultContents returns what --output=@file / +file writes for a result,
// as IREE's tools write it: a buffer view as itself, a scalar as a rank-0
// array of its type (i32=5 becomes a 0-d int32 .npy), a hal.buffer as a
// 1-D i8 array of its bytes, and a null ref as an empty 1-D i8 array (so
// that the arrays of a .npy file stay in result order).
func resultContents(v vm.Value) (*bufferfmt.Buffer, error) {
	var et hal.ElementType
	var data []byte
	switch v.Kind() {
	case vm.KindRef:
		r := v.Ref()
		switch {
		case r.IsNull():
			return &bufferfmt.Buffer{Shape: hal.Shape{0}, ElementType: hal.ElementTypeI8, Data: []byte{}}, nil
		case r.Type() == halmodule.BufferViewType:
			view, err := halmodule.BufferViewOf(v)
			if err != nil {
				return nil, err
			}
			return ReadBufferView(view)
		case r.Type() == halmodule.BufferType:
			buf, ok := r.Object().(*hal.Buffer)
			if !ok {
				return nil, fmt.Errorf("a hal.buffer ref holds %T", r.Object())
			}
			data := make([]byte, buf.ByteLength())
			if err := buf.Read(0, data); err != nil {
				return nil, fmt.Errorf("reading hal.buffer: %w", err)
			}
			return &bufferfmt.Buffer{Shape: hal.Shape{int64(len(data))}, ElementType: hal.ElementTypeI8, Data: data}, nil
		}
		return nil, fmt.Errorf("a %s cannot be written to a file (expected a hal.buffer_view, a hal.buffer or a scalar)", r.Type().Name())
	case vm.KindI32:
		et, data = hal.ElementTypeI32, binary.LittleEndian.AppendUint32(nil, uint32(v.I32()))
	case vm.KindI64:
		et, data = hal.ElementTypeI64, binary.LittleEndian.AppendUint64(nil, uint64(v.I64()))
	case vm.KindF32:
		et, data = hal.ElementTypeF32, binary.LittleEndian.AppendUint32(nil, math.Float32bits(v.F32()))
	case vm.KindF64:
		et, data = hal.ElementTypeF64, binary.LittleEndian.AppendUint64(nil, math.Float64bits(v.F64()))
	default:
		return nil, fmt.Errorf("a %s value cannot be written to a file", v.Kind())
	}
	return &bufferfmt.Buffer{Shape: hal.Shape{}, ElementType: et, Data: data}, nil
}
