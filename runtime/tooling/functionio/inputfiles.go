package functionio

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/tooling/npy"
)

// inputFiles are the files --input values read, by path as written, each
// with the offset the next read continues from: as in IREE's tools, '@'
// reads from the start of a file and '+' (and '*') where the previous input
// from the same file stopped, so that several inputs can come one after
// another from one file.
type inputFiles struct {
	open map[string]*inputFile
}

type inputFile struct {
	f    *os.File
	size int64
	off  int64
}

// file returns path positioned for a read: at 0 when restart ('@'), else
// where the last read of it stopped (0 for a file not read yet).
func (fs *inputFiles) file(path string, restart bool) (*inputFile, error) {
	if path == "" {
		return nil, errors.New("missing file name")
	}
	if f := fs.open[path]; f != nil {
		if restart {
			f.off = 0
		}
		return f, nil
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("reading %s: is a directory", path)
	}
	if fs.open == nil {
		fs.open = map[string]*inputFile{}
	}
	in := &inputFile{f: f, size: st.Size()}
	fs.open[path] = in
	return in, nil
}

// close closes every file.
func (fs *inputFiles) close() {
	for _, f := range fs.open {
		f.f.Close()
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// readNPY reads one array at the file's offset and moves past it.
func (f *inputFile) readNPY(path string) (*bufferfmt.Buffer, error) {
	if f.off >= f.size {
		return nil, fmt.Errorf("%s: no array left to read at byte %d (the file holds %d bytes)", path, f.off, f.size)
	}
	cr := &countingReader{r: io.NewSectionReader(f.f, f.off, f.size-f.off)}
	a, err := npy.Read(cr)
	if err != nil {
		return nil, fmt.Errorf("reading %s: array at byte %d: %w", path, f.off, err)
	}
	f.off += cr.n
	return &bufferfmt.Buffer{Shape: a.Shape, ElementType: a.ElementType, Data: a.Data}, nil
}

// parseFileInput parses the metadata-free forms: "@f.npy" (the first array
// of the file), "+f.npy" (the next array) and "*f.npy" (every array left,
// possibly none).
func (fs *inputFiles) parseFileInput(spec, s string) ([]Input, error) {
	mode, path := s[0], strings.TrimSpace(s[1:])
	if !strings.HasSuffix(strings.ToLower(path), ".npy") {
		return nil, fmt.Errorf("%q is not a .npy file: only NumPy files carry their own shape and type; raw binary input needs a shape and type, as in 4xf32=%c%s", path, mode, path)
	}
	f, err := fs.file(path, mode == '@')
	if err != nil {
		return nil, err
	}
	if mode != '*' {
		b, err := f.readNPY(path)
		if err != nil {
			return nil, err
		}
		return []Input{{Spec: spec, Buffer: b}}, nil
	}
	var out []Input
	for f.off < f.size {
		b, err := f.readNPY(path)
		if err != nil {
			return nil, err
		}
		out = append(out, Input{Spec: spec, Buffer: b})
	}
	return out, nil
}

// parseRawInput parses "<shape>x<type>=@file" (the buffer's bytes from the
// start of the file) and "<shape>x<type>=+file" (the bytes that follow the
// previous input read from the file). The file may hold more bytes than
// the buffer needs; fewer is an error.
func (fs *inputFiles) parseRawInput(spec, meta, ref string) (*Input, error) {
	shape, et, err := bufferfmt.ParseShapeAndType(meta)
	if err != nil {
		return nil, err
	}
	want, err := hal.DenseByteLength(shape, et)
	if err != nil {
		return nil, err
	}
	path := strings.TrimSpace(ref[1:])
	f, err := fs.file(path, ref[0] == '@')
	if err != nil {
		return nil, err
	}
	if left := f.size - f.off; want > left {
		if f.off == 0 {
			return nil, fmt.Errorf("%s holds %d bytes but %s needs %d", path, left, strings.TrimSpace(meta), want)
		}
		return nil, fmt.Errorf("%s holds %d bytes from byte %d on but %s needs %d", path, left, f.off, strings.TrimSpace(meta), want)
	}
	data := make([]byte, want)
	if _, err := f.f.ReadAt(data, f.off); err != nil && !(errors.Is(err, io.EOF) && want == 0) {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	f.off += want
	return &Input{Spec: spec, Buffer: &bufferfmt.Buffer{Shape: shape, ElementType: et, Data: data}}, nil
}
