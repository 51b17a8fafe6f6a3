// Package functionio turns IREE tool flags into VM function arguments and
// function results back into IREE's text, .npy and raw binary outputs: the
// --input, --output and --expected_output handling shared by
// iree-run-module and iree-benchmark-module.
package functionio

import (
	"fmt"
	"os"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/npy"
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
	// Null is set for "(null)" and "(ignored)", which pass a null ref.
	Null bool
}

// ParseInputs parses --input flag values. A value is a buffer view
// ("2x2xi32=[[1 2][3 4]]", "8xf32=2"), raw bytes with a shape and type
// ("4xf32=@file.bin"), every array of a NumPy file ("@file.npy"), a scalar
// ("5", "3.14", "i32=5"), or "(null)". File paths are relative to the
// current directory.
func ParseInputs(specs []string) ([]Input, error) {
	var inputs []Input
	for _, spec := range specs {
		got, err := parseInput(spec)
		if err != nil {
			return nil, fmt.Errorf("--input=%s: %w", abbreviate(spec), err)
		}
		inputs = append(inputs, got...)
	}
	return inputs, nil
}

func parseInput(spec string) ([]Input, error) {
	s := strings.TrimSpace(spec)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	switch {
	case s == "(null)" || s == "(ignored)":
		return []Input{{Spec: spec, Null: true}}, nil
	case strings.HasPrefix(s, "@"):
		path := s[1:]
		if !strings.HasSuffix(strings.ToLower(path), ".npy") {
			return nil, fmt.Errorf("%q is not a .npy file; raw binary input needs a shape and type, as in 4xf32=@%s", path, path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		arrays, err := npy.ReadAll(data)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		var out []Input
		for _, a := range arrays {
			out = append(out, Input{Spec: spec, Buffer: &bufferfmt.Buffer{Shape: a.Shape, ElementType: a.ElementType, Data: a.Data}})
		}
		return out, nil
	case strings.Contains(s, "=@"):
		at := strings.Index(s, "=@")
		shape, et, err := bufferfmt.ParseShapeAndType(s[:at])
		if err != nil {
			return nil, err
		}
		want, err := hal.DenseByteLength(shape, et)
		if err != nil {
			return nil, err
		}
		path := s[at+2:]
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
		if int64(len(data)) != want {
			return nil, fmt.Errorf("%s holds %d bytes but %s needs %d", path, len(data), s[:at], want)
		}
		return []Input{{Spec: spec, Buffer: &bufferfmt.Buffer{Shape: shape, ElementType: et, Data: data}}}, nil
	case bufferfmt.IsScalarSpelling(s):
		return []Input{{Spec: spec, Scalar: s}}, nil
	}
	b, err := bufferfmt.Parse(s)
	if err != nil {
		return nil, err
	}
	return []Input{{Spec: spec, Buffer: b}}, nil
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
		case in.Buffer == nil:
			return vm.Value{}, fmt.Errorf("the function expects a buffer view here, not the scalar %q", in.Scalar)
		}
		view, err := NewBufferView(alloc, in.Buffer)
		if err != nil {
			return vm.Value{}, err
		}
		return vm.RefValue(halmodule.BufferViewRef(view)), nil
	}
	if in.Buffer != nil || in.Null {
		return vm.Value{}, fmt.Errorf("the function expects a %s scalar here, not a buffer view", kind)
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
	buf, err := alloc.AllocateBuffer(hal.BufferParams{}, int64(len(b.Data)))
	if err != nil {
		return nil, fmt.Errorf("allocating %d bytes for %sx%s: %w", len(b.Data), b.Shape, b.ElementType, err)
	}
	if err := buf.Write(0, b.Data); err != nil {
		return nil, fmt.Errorf("filling the input buffer: %w", err)
	}
	view, err := hal.NewBufferView(buf, b.Shape, b.ElementType, hal.EncodingDenseRowMajor)
	if err != nil {
		return nil, err
	}
	return view, nil
}

func abbreviate(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
