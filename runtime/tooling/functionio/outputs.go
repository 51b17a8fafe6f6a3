package functionio

import (
	"fmt"
	"io"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/npy"
	"github.com/goiree/goiree/runtime/tooling/outfile"
	"github.com/goiree/goiree/runtime/vm"
)

// ReadBufferView copies the contents of a dense buffer view to host memory.
func ReadBufferView(view *hal.BufferView) (*bufferfmt.Buffer, error) {
	data := make([]byte, view.ByteLength())
	if err := view.Buffer().Read(0, data); err != nil {
		return nil, fmt.Errorf("reading buffer view %s: %w", view, err)
	}
	return &bufferfmt.Buffer{Shape: view.Shape(), ElementType: view.ElementType(), Data: data}, nil
}

// TypeName returns what IREE prints after "result[i]: " for v: the ref type
// name ("hal.buffer_view"), or the scalar as "i32=5"; a null ref is
// "(null)".
func TypeName(v vm.Value) string {
	if v.Kind() == vm.KindRef {
		if v.Ref().IsNull() {
			return "(null)"
		}
		return v.Ref().Type().Name()
	}
	return FormatScalar(v)
}

// FormatScalar formats a scalar Value as IREE does: "i32=5", "i64=-1",
// "f32=1.5" (floats with %g).
func FormatScalar(v vm.Value) string {
	switch v.Kind() {
	case vm.KindI32:
		return bufferfmt.Scalar{Type: hal.ElementTypeI32, Int: int64(v.I32())}.String()
	case vm.KindI64:
		return bufferfmt.Scalar{Type: hal.ElementTypeI64, Int: v.I64()}.String()
	case vm.KindF32:
		return bufferfmt.Scalar{Type: hal.ElementTypeF32, Float: float64(v.F32())}.String()
	case vm.KindF64:
		return bufferfmt.Scalar{Type: hal.ElementTypeF64, Float: v.F64()}.String()
	}
	return v.String()
}

// PrintResults writes results as iree-run-module prints them:
//
//	result[0]: hal.buffer_view
//	8xf32=96 96 96 96 96 96 96 96
//
// Scalars print on one line ("result[1]: i32=5"); a ref type without a
// printer prints "(no printer)" on the second line.
func PrintResults(w io.Writer, results []vm.Value, maxElements int64) error {
	for i, v := range results {
		if err := printResult(w, i, v, maxElements); err != nil {
			return err
		}
	}
	return nil
}

func printResult(w io.Writer, i int, v vm.Value, maxElements int64) error {
	var sb strings.Builder
	fmt.Fprintf(&sb, "result[%d]: %s\n", i, TypeName(v))
	if v.Kind() == vm.KindRef && !v.Ref().IsNull() {
		line, err := formatRef(v, maxElements)
		if err != nil {
			return fmt.Errorf("result[%d]: %w", i, err)
		}
		sb.WriteString(line)
		sb.WriteByte('\n')
	}
	if _, err := io.WriteString(w, sb.String()); err != nil {
		return fmt.Errorf("writing result[%d]: %w", i, err)
	}
	return nil
}

func formatRef(v vm.Value, maxElements int64) (string, error) {
	if v.Ref().Type() != halmodule.BufferViewType {
		return "(no printer)", nil
	}
	view, err := halmodule.BufferViewOf(v)
	if err != nil {
		return "", err
	}
	b, err := ReadBufferView(view)
	if err != nil {
		return "", err
	}
	return bufferfmt.Format(b.Shape, b.ElementType, b.Data, maxElements)
}

// WriteOutputs routes results as --output flags say. With no specs every
// result is printed to stdout (PrintResults). Otherwise there must be one
// spec per result: "-" prints it, "" skips it, "@f.npy" / "+f.npy" write /
// append it as NumPy, "@f.bin" / "+f.bin" (any other extension) write /
// append its raw bytes. Files are written through package outfile: every
// output is prepared before any is written, a regular file is replaced
// whole or not at all (a temporary file and a rename), and a device, FIFO
// or /dev/stdout is written in place, never replaced.
func WriteOutputs(stdout io.Writer, results []vm.Value, specs []string, maxElements int64) error {
	if len(specs) == 0 {
		return PrintResults(stdout, results, maxElements)
	}
	if len(specs) != len(results) {
		return fmt.Errorf("%d --output flag(s) given but the function returned %d result(s)", len(specs), len(results))
	}
	// pending is what one path receives: appendMode when its first spec
	// appends (later '@' specs for the same path start it over).
	type pending struct {
		path       string
		appendMode bool
		data       []byte
	}
	var files []*pending
	byPath := map[string]*pending{}
	var text strings.Builder
	for i, spec := range specs {
		switch {
		case spec == "":
			continue
		case spec == "-":
			if err := printResult(&text, i, results[i], maxElements); err != nil {
				return err
			}
			continue
		case spec[0] != '@' && spec[0] != '+':
			return fmt.Errorf("--output=%s: expected -, @file or +file", spec)
		}
		appendMode, path := spec[0] == '+', spec[1:]
		if path == "" {
			return fmt.Errorf("--output=%s: missing file name", spec)
		}
		b, err := resultContents(results[i])
		if err != nil {
			return fmt.Errorf("--output=%s: result[%d]: %w", spec, i, err)
		}
		data := b.Data
		if strings.HasSuffix(strings.ToLower(path), ".npy") {
			data, err = npy.Encode(&npy.Array{Shape: b.Shape, ElementType: b.ElementType, Data: b.Data})
			if err != nil {
				return fmt.Errorf("--output=%s: result[%d]: %w", spec, i, err)
			}
		}
		p := byPath[path]
		if p == nil {
			p = &pending{path: path, appendMode: appendMode}
			byPath[path] = p
			files = append(files, p)
		} else if !appendMode {
			p.appendMode, p.data = false, nil
		}
		p.data = append(p.data, data...)
	}
	// Prepare every file before writing any, so a failure (a missing
	// directory, a full disk) leaves all of them as they were.
	var prepared []*outfile.File
	defer func() {
		for _, f := range prepared {
			f.Discard()
		}
	}()
	for _, p := range files {
		f, err := outfile.Prepare(p.path, p.data, p.appendMode)
		if err != nil {
			return err
		}
		prepared = append(prepared, f)
	}
	for _, f := range prepared {
		if err := f.Commit(); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(stdout, text.String()); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}
