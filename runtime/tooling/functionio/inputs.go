// Package functionio turns IREE tool flags into VM function arguments and
// function results back into IREE's text, .npy and raw binary outputs: the
// --input, --output and --expected_output handling shared by
// iree-run-module and iree-benchmark-module.
package functionio

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/vm"
)

// Input is one function argument parsed from an --input flag, before it is
// placed in device memory: a scalar or the contents of a buffer view.
type Input struct {
	// Spec is the flag text the input came from.
	Spec string
	// Buffer holds a buffer view's contents (nil for scalars and nulls).
	Buffer *bufferfmt.Buffer
	// Scalar holds a bare or typed scalar ("5", "i32=5") as written; it is
	// parsed against the function's signature by Values.
	Scalar string
	// Null is set for "(null)" and "(ignored)", which pass a null ref (or
	// 0 to a scalar argument, as in IREE).
	Null bool
	// Storage is set for "&..." inputs: Buffer's contents are passed as a
	// hal.buffer, not a hal.buffer_view.
	Storage bool
}

// ParseInputs parses --input flag values in IREE's forms:
//
//   - a buffer view: "2x2xi32=[[1 2][3 4]]", "8xf32=2" (splat), "4xf32="
//     or "4xf32" (zeros), "f32=-5" (rank 0);
//   - a scalar: "5", "3.14", "i32=5";
//   - "(null)" (a null ref, or 0 for a scalar argument);
//   - NumPy files: "@f.npy" (the file's first array), "+f.npy" (the array
//     after the last one read from f.npy), "*f.npy" (every array left);
//   - raw bytes with a shape and type: "4xf32=@f.bin" (the first 16 bytes
//     of f.bin; the file may be longer), "4xf32=+f.bin" (the 16 bytes after
//     the last input read from f.bin);
//   - "&4xf32" or "&4xf32=1 2 3 4": a hal.buffer (not a view) of that size
//     and contents, for functions that write their results into storage
//     the caller provides.
//
// File paths are relative to the current directory; reads of one path
// share an offset across the inputs, as in IREE.
func ParseInputs(specs []string) ([]Input, error) {
	var files inputFiles
	defer files.close()
	var inputs []Input
	for _, spec := range specs {
		got, err := files.parseInput(spec)
		if err != nil {
			return nil, fmt.Errorf("--input=%s: %w", abbreviate(spec), err)
		}
		inputs = append(inputs, got...)
	}
	return inputs, nil
}

func (files *inputFiles) parseInput(spec string) ([]Input, error) {
	s := strings.TrimSpace(spec)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	storage := false
	switch {
	case s == "":
		return nil, fmt.Errorf("no value specified for input")
	case s == "(null)" || s == "(ignored)":
		return []Input{{Spec: spec, Null: true}}, nil
	case s[0] == '@' || s[0] == '+' || s[0] == '*':
		return files.parseFileInput(spec, s)
	case s[0] == '&':
		// Storage for a result: the shape and type size the buffer; values,
		// when given, fill it.
		storage, s = true, strings.TrimSpace(s[1:])
		if !strings.Contains(s, "=") {
			s += "="
		}
	case !strings.Contains(s, "=") && strings.Contains(s, "x"):
		// "2xi32" is a zero-filled buffer view, as in IREE, when it is a
		// valid shape and type; anything else keeps the missing-'=' error.
		if _, _, err := bufferfmt.ParseShapeAndType(s); err == nil {
			s += "="
		}
	}
	if meta, ref, ok := strings.Cut(s, "="); ok {
		if ref = strings.TrimSpace(ref); ref != "" && (ref[0] == '@' || ref[0] == '+') {
			in, err := files.parseRawInput(spec, meta, ref)
			if err != nil {
				return nil, err
			}
			in.Storage = storage
			return []Input{*in}, nil
		}
	}
	if !storage && bufferfmt.IsScalarSpelling(s) {
		return []Input{{Spec: spec, Scalar: s}}, nil
	}
	b, err := bufferfmt.Parse(s)
	if err != nil {
		return nil, err
	}
	return []Input{{Spec: spec, Buffer: b, Storage: storage}}, nil
}

// Values converts inputs into arguments for a function with signature sig:
// scalars are parsed as the argument kind, buffer contents are copied into
// new buffers from alloc and wrapped as hal.buffer_view refs.
func Values(inputs []Input, sig vm.Signature, alloc hal.Allocator) ([]vm.Value, error) {
	if sig.IsVariadic() {
		return nil, fmt.Errorf("functions with variadic arguments (%s) cannot be called from the command line", sig.CallingConvention)
	}
	if len(inputs) != len(sig.Args) {
		return nil, fmt.Errorf("the function takes %d argument(s) (%s) but %d input(s) were given", len(sig.Args), sig.CallingConvention, len(inputs))
	}
	values := make([]vm.Value, len(inputs))
	for i, in := range inputs {
		v, err := value(in, sig.Args[i].Kind, alloc)
		if err != nil {
			return nil, fmt.Errorf("input %d (--input=%s): %w", i, abbreviate(in.Spec), err)
		}
		values[i] = v
	}
	return values, nil
}

func value(in Input, kind vm.ValueKind, alloc hal.Allocator) (vm.Value, error) {
	if kind == vm.KindRef {
		switch {
		case in.Null:
			return vm.RefValue(vm.Ref{}), nil
		case in.Buffer == nil && strings.Contains(in.Scalar, "="):
			// "f32=-5" for a tensor argument is a rank-0 buffer view.
			b, err := bufferfmt.Parse(in.Scalar)
			if err != nil {
				return vm.Value{}, err
			}
			in.Buffer = b
		case in.Buffer == nil:
			return vm.Value{}, fmt.Errorf("the function expects a buffer view here, not the scalar %q: write a shape and type (f32=%s for rank 0, 1xf32=%s)", in.Scalar, in.Scalar, in.Scalar)
		}
		if in.Storage {
			buf, err := newBuffer(alloc, in.Buffer)
			if err != nil {
				return vm.Value{}, err
			}
			return vm.RefValue(halmodule.BufferRef(buf)), nil
		}
		view, err := NewBufferView(alloc, in.Buffer)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.RefValue(halmodule.BufferViewRef(view)), nil
	}
	switch {
	case in.Null:
		// IREE passes 0 for (null) given to a scalar argument.
		return map[vm.ValueKind]vm.Value{vm.KindI32: vm.I32(0), vm.KindI64: vm.I64(0), vm.KindF32: vm.F32(0), vm.KindF64: vm.F64(0)}[kind], nil
	case in.Buffer != nil:
		// "an": every scalar kind (i32, i64, f32, f64) is read with a vowel sound.
		return vm.Value{}, fmt.Errorf("the function expects an %s scalar here, not a buffer view", kind)
	}
	et := map[vm.ValueKind]hal.ElementType{
		vm.KindI32: hal.ElementTypeI32, vm.KindI64: hal.ElementTypeI64,
		vm.KindF32: hal.ElementTypeF32, vm.KindF64: hal.ElementTypeF64,
	}[kind]
	s, err := bufferfmt.ParseScalar(in.Scalar, et)
	if err != nil {
		return vm.Value{}, err
	}
	switch kind {
	case vm.KindI32:
		return vm.I32(int32(s.Int)), nil
	case vm.KindI64:
		return vm.I64(s.Int), nil
	case vm.KindF32:
		return vm.F32(float32(s.Float)), nil
	}
	return vm.F64(s.Float), nil
}

// NewBufferView allocates a device buffer from alloc, fills it with b's
// contents and returns a dense row-major view of it.
func NewBufferView(alloc hal.Allocator, b *bufferfmt.Buffer) (*hal.BufferView, error) {
	buf, err := newBuffer(alloc, b)
	if err != nil {
		return nil, err
	}
	view, err := hal.NewBufferView(buf, b.Shape, b.ElementType, hal.EncodingDenseRowMajor)
	if err != nil {
		return nil, err
	}
	return view, nil
}

// newBuffer allocates a device buffer from alloc holding b's contents.
func newBuffer(alloc hal.Allocator, b *bufferfmt.Buffer) (*hal.Buffer, error) {
	buf, err := alloc.AllocateBuffer(hal.BufferParams{}, int64(len(b.Data)))
	if err != nil {
		return nil, fmt.Errorf("allocating %d bytes for %sx%s: %w", len(b.Data), b.Shape, b.ElementType, err)
	}
	if err := buf.Write(0, b.Data); err != nil {
		return nil, fmt.Errorf("filling the input buffer: %w", err)
	}
	return buf, nil
}

func abbreviate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
