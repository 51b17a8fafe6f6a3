package functionio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/npy"
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
// append its raw bytes. Every file is written whole or not at all: all
// contents are prepared first, then each file is replaced through a
// temporary file and a rename.
func WriteOutputs(stdout io.Writer, results []vm.Value, specs []string, maxElements int64) error {
	if len(specs) == 0 {
		return PrintResults(stdout, results, maxElements)
	}
	if len(specs) != len(results) {
		return fmt.Errorf("%d --output flag(s) given but the function returned %d result(s)", len(specs), len(results))
	}
	type pending struct {
		path string
		data []byte
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
		if results[i].Kind() != vm.KindRef || results[i].Ref().IsNull() {
			return fmt.Errorf("--output=%s: result[%d] is %s, not a buffer view", spec, i, TypeName(results[i]))
		}
		view, err := halmodule.BufferViewOf(results[i])
		if err != nil {
			return fmt.Errorf("--output=%s: result[%d]: %w", spec, i, err)
		}
		b, err := ReadBufferView(view)
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
			p = &pending{path: path}
			byPath[path] = p
			files = append(files, p)
			if appendMode {
				old, err := os.ReadFile(path)
				if err != nil && !errors.Is(err, os.ErrNotExist) {
					return fmt.Errorf("--output=%s: %w", spec, err)
				}
				p.data = old
			}
		} else if !appendMode {
			p.data = nil
		}
		p.data = append(p.data, data...)
	}
	// Stage every file before replacing any, so a failure (a missing
	// directory, a full disk) leaves all of them as they were.
	var staged []*stagedFile
	defer func() {
		for _, f := range staged {
			f.discard()
		}
	}()
	for _, p := range files {
		f, err := stageFile(p.path, p.data)
		if err != nil {
			return err
		}
		staged = append(staged, f)
	}
	for _, f := range staged {
		if err := f.commit(); err != nil {
			return err
		}
	}
	if _, err := io.WriteString(stdout, text.String()); err != nil {
		return fmt.Errorf("writing results: %w", err)
	}
	return nil
}

// WriteFileAtomic replaces path with data through a temporary file in the
// same directory and a rename, so readers see the old file or the whole new
// one.
func WriteFileAtomic(path string, data []byte) error {
	f, err := stageFile(path, data)
	if err != nil {
		return err
	}
	defer f.discard()
	return f.commit()
}

// WriteError is a failure to write an output file. Err is the cause with
// the temporary file's name stripped, so messages name Path only.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return fmt.Sprintf("writing %s: %v", e.Path, e.Err) }

func (e *WriteError) Unwrap() error { return e.Err }

// errIsDirectory is the cause when an output path names a directory.
var errIsDirectory = errors.New("is a directory")

// stagedFile is the complete new contents of path in a temporary file
// beside it, waiting for commit (rename into place) or discard.
type stagedFile struct {
	path, tmp string
}

// stageFile writes data to a temporary file in path's directory. Errors
// are *WriteError.
func stageFile(path string, data []byte) (*stagedFile, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, &WriteError{Path: path, Err: errIsDirectory}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, &WriteError{Path: path, Err: pathCause(err)}
	}
	s := &stagedFile{path: path, tmp: f.Name()}
	_, werr := f.Write(data)
	cerr := f.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Chmod(s.tmp, 0o644)
	}
	if werr != nil {
		s.discard()
		return nil, &WriteError{Path: path, Err: pathCause(werr)}
	}
	return s, nil
}

// commit renames the temporary file over path.
func (s *stagedFile) commit() error {
	if s.tmp == "" {
		return nil
	}
	if err := os.Rename(s.tmp, s.path); err != nil {
		return &WriteError{Path: s.path, Err: pathCause(err)}
	}
	s.tmp = ""
	return nil
}

// discard removes the temporary file if it was not committed.
func (s *stagedFile) discard() {
	if s.tmp != "" {
		os.Remove(s.tmp)
		s.tmp = ""
	}
}

// pathCause strips the temporary file's name from a file system error.
func pathCause(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
