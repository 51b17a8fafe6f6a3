// Package npy reads and writes NumPy's .npy array files as IREE's tools use
// them: a file may hold several arrays back to back (as repeated numpy.save
// calls to one file produce); --input=@file.npy reads its first array,
// +file.npy the next and *file.npy all the rest, --output=@file.npy writes
// and --output=+file.npy appends.
//
// Format versions 1.0, 2.0 and 3.0 are read; little-, big-endian and
// byte-order-free dtypes are accepted and stored little-endian in memory.
// Fortran-ordered arrays are rejected. Writing uses version 1.0 (2.0 when
// the header does not fit in 65535 bytes), with the header padded so that
// the data starts on a 64-byte boundary.
package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
)

// magic starts every .npy array.
const magic = "\x93NUMPY"

// maxHeaderLen bounds the header dictionary size accepted on read.
const maxHeaderLen = 1 << 20

// Array is one array: shape, element type and dense, row-major,
// little-endian data.
type Array struct {
	Shape       hal.Shape
	ElementType hal.ElementType
	Data        []byte
}

// dtype describes one NumPy type code ("f4", "i8", "b1", ...).
type dtype struct {
	code string
	et   hal.ElementType
}

// dtypes maps NumPy kind+size codes to element types. Signed integers map to
// IREE's signless iN, which is what compiled programs take.
var dtypes = []dtype{
	{"b1", hal.ElementTypeI1},
	{"i1", hal.ElementTypeI8}, {"i2", hal.ElementTypeI16}, {"i4", hal.ElementTypeI32}, {"i8", hal.ElementTypeI64},
	{"u1", hal.ElementTypeUI8}, {"u2", hal.ElementTypeUI16}, {"u4", hal.ElementTypeUI32}, {"u8", hal.ElementTypeUI64},
	{"f2", hal.ElementTypeF16}, {"f4", hal.ElementTypeF32}, {"f8", hal.ElementTypeF64},
	{"c8", hal.ElementTypeCF64}, {"c16", hal.ElementTypeCF128},
}

// ReadAll decodes every array in data (one or more concatenated .npy
// arrays). Empty data is an error.
func ReadAll(data []byte) ([]*Array, error) {
	if len(data) == 0 {
		return nil, errors.New("npy: empty file")
	}
	var arrays []*Array
	r := bytes.NewReader(data)
	for r.Len() > 0 {
		a, err := Read(r)
		if err != nil {
			return nil, fmt.Errorf("array %d: %w", len(arrays), err)
		}
		arrays = append(arrays, a)
	}
	return arrays, nil
}

// Read decodes one array from r. It returns io.EOF only when r is at its
// end before the first byte; a truncated array is io.ErrUnexpectedEOF.
func Read(r io.Reader) (*Array, error) {
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		if err == io.EOF {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("npy: reading magic: %w", err)
	}
	if string(pre[:6]) != magic {
		return nil, fmt.Errorf("npy: bad magic %q (not a .npy array)", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen uint32
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", unexpected(err))
		}
		hlen = uint32(binary.LittleEndian.Uint16(b[:]))
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("npy: reading header length: %w", unexpected(err))
		}
		hlen = binary.LittleEndian.Uint32(b[:])
	default:
		return nil, fmt.Errorf("npy: unsupported format version %d.%d", major, minor)
	}
	if hlen > maxHeaderLen {
		return nil, fmt.Errorf("npy: header of %d bytes exceeds the limit of %d", hlen, maxHeaderLen)
	}
	header := make([]byte, hlen)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, fmt.Errorf("npy: reading header: %w", unexpected(err))
	}
	h, err := parseHeader(string(header))
	if err != nil {
		return nil, fmt.Errorf("npy: header %q: %w", strings.TrimSpace(string(header)), err)
	}
	n, err := h.shape.ElementCount()
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	size := int64(h.et.ByteSize())
	if n > (1<<62)/size {
		return nil, fmt.Errorf("npy: shape %v is too large", h.shape)
	}
	total := n * size
	// Copy instead of preallocating so a lying header cannot force a huge
	// allocation before the data is seen.
	var buf bytes.Buffer
	if got, err := io.CopyN(&buf, r, total); err != nil {
		return nil, fmt.Errorf("npy: data holds %d of %d bytes: %w", got, total, unexpected(err))
	}
	data := buf.Bytes()
	if h.bigEndian && size > 1 {
		swap(data, int(size), h.et)
	}
	return &Array{Shape: h.shape, ElementType: h.et, Data: data}, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// swap reverses the byte order of each element (each half for complex).
func swap(data []byte, size int, et hal.ElementType) {
	unit := size
	if et.Numerical() == hal.NumericalComplex {
		unit = size / 2
	}
	for i := 0; i+unit <= len(data); i += unit {
		e := data[i : i+unit]
		for a, b := 0, unit-1; a < b; a, b = a+1, b-1 {
			e[a], e[b] = e[b], e[a]
		}
	}
}

type header struct {
	et        hal.ElementType
	bigEndian bool
	shape     hal.Shape
}

// parseHeader reads the Python dict literal of a .npy header:
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
func parseHeader(s string) (header, error) {
	p := &dictParser{s: s}
	fields, err := p.dict()
	if err != nil {
		return header{}, err
	}
	var h header
	descr, ok := fields["descr"].(string)
	if !ok {
		return h, errors.New("missing or non-string 'descr' (structured dtypes are not supported)")
	}
	fortran, ok := fields["fortran_order"].(bool)
	if !ok {
		return h, errors.New("missing or non-boolean 'fortran_order'")
	}
	if fortran {
		return h, errors.New("fortran_order arrays are not supported; save a C-ordered array (numpy.ascontiguousarray)")
	}
	dims, ok := fields["shape"].([]int64)
	if !ok {
		return h, errors.New("missing or non-tuple 'shape'")
	}
	if len(descr) < 2 {
		return h, fmt.Errorf("unsupported dtype %q", descr)
	}
	switch descr[0] {
	case '<', '|', '=':
	case '>':
		h.bigEndian = true
	default:
		return h, fmt.Errorf("unsupported dtype %q (no byte order character)", descr)
	}
	code := descr[1:]
	found := false
	for _, d := range dtypes {
		if d.code == code {
			h.et, found = d.et, true
			break
		}
	}
	if !found {
		return h, fmt.Errorf("unsupported dtype %q", descr)
	}
	h.shape = hal.Shape(dims)
	return h, nil
}

// dictParser parses the small subset of Python literals .npy headers use.
type dictParser struct {
	s   string
	pos int
}

func (p *dictParser) skipSpace() {
	for p.pos < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.pos]) >= 0 {
		p.pos++
	}
}

func (p *dictParser) expect(c byte) error {
	p.skipSpace()
	if p.pos >= len(p.s) || p.s[p.pos] != c {
		return fmt.Errorf("expected %q at offset %d", c, p.pos)
	}
	p.pos++
	return nil
}

func (p *dictParser) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *dictParser) dict() (map[string]any, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	fields := map[string]any{}
	for p.peek() != '}' {
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, fmt.Errorf("value of %q: %w", key, err)
		}
		if _, dup := fields[key]; dup {
			return nil, fmt.Errorf("duplicate key %q", key)
		}
		fields[key] = v
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() != '}' {
			return nil, fmt.Errorf("expected ',' or '}' at offset %d", p.pos)
		}
	}
	p.pos++
	if rest := strings.TrimSpace(p.s[p.pos:]); rest != "" {
		return nil, fmt.Errorf("unexpected text after the dictionary: %q", rest)
	}
	return fields, nil
}

func (p *dictParser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", fmt.Errorf("expected a string at offset %d", p.pos)
	}
	end := strings.IndexByte(p.s[p.pos+1:], q)
	if end < 0 {
		return "", errors.New("unterminated string")
	}
	v := p.s[p.pos+1 : p.pos+1+end]
	p.pos += end + 2
	return v, nil
}

func (p *dictParser) value() (any, error) {
	switch c := p.peek(); {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(':
		return p.tuple()
	case strings.HasPrefix(p.s[p.pos:], "True"):
		p.pos += 4
		return true, nil
	case strings.HasPrefix(p.s[p.pos:], "False"):
		p.pos += 5
		return false, nil
	case c == '[':
		return nil, errors.New("structured dtypes are not supported")
	}
	return nil, fmt.Errorf("unexpected value at offset %d", p.pos)
}

func (p *dictParser) tuple() ([]int64, error) {
	p.pos++ // '('
	dims := []int64{}
	for p.peek() != ')' {
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		if start == p.pos {
			return nil, fmt.Errorf("expected a dimension at offset %d", start)
		}
		d, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("dimension %q: out of range", p.s[start:p.pos])
		}
		// Python writes 3L for longs in some old files.
		if p.pos < len(p.s) && p.s[p.pos] == 'L' {
			p.pos++
		}
		dims = append(dims, d)
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() != ')' {
			return nil, fmt.Errorf("expected ',' or ')' at offset %d", p.pos)
		}
	}
	p.pos++
	return dims, nil
}

// Encode returns the .npy bytes of a.
func Encode(a *Array) ([]byte, error) {
	code := ""
	for _, d := range dtypes {
		if d.et == a.ElementType {
			code = d.code
			break
		}
	}
	switch a.ElementType {
	case hal.ElementTypeBool:
		code = "b1"
	case hal.ElementTypeSI8:
		code = "i1"
	case hal.ElementTypeSI16:
		code = "i2"
	case hal.ElementTypeSI32:
		code = "i4"
	case hal.ElementTypeSI64:
		code = "i8"
	}
	if code == "" {
		return nil, fmt.Errorf("npy: element type %s has no NumPy dtype", a.ElementType)
	}
	n, err := a.Shape.ElementCount()
	if err != nil {
		return nil, fmt.Errorf("npy: %w", err)
	}
	if int64(len(a.Data)) != n*int64(a.ElementType.ByteSize()) {
		return nil, fmt.Errorf("npy: %d bytes of data for %d elements of %s", len(a.Data), n, a.ElementType)
	}
	order := "<"
	if a.ElementType.ByteSize() == 1 {
		order = "|"
	}
	var dims []string
	for _, d := range a.Shape {
		dims = append(dims, strconv.FormatInt(d, 10))
	}
	shape := strings.Join(dims, ", ")
	if len(dims) == 1 {
		shape += ","
	}
	dict := fmt.Sprintf("{'descr': '%s%s', 'fortran_order': False, 'shape': (%s), }", order, code, shape)
	major, prefix := byte(1), 10
	if len(dict)+1+prefix+64 > 0xFFFF {
		major, prefix = 2, 12
	}
	pad := 64 - (prefix+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	hdr := dict + strings.Repeat(" ", pad) + "\n"
	var out bytes.Buffer
	out.WriteString(magic)
	out.WriteByte(major)
	out.WriteByte(0)
	if major == 1 {
		binary.Write(&out, binary.LittleEndian, uint16(len(hdr)))
	} else {
		binary.Write(&out, binary.LittleEndian, uint32(len(hdr)))
	}
	out.WriteString(hdr)
	out.Write(a.Data)
	return out.Bytes(), nil
}

// Write encodes a and writes it to w.
func Write(w io.Writer, a *Array) error {
	b, err := Encode(a)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return fmt.Errorf("npy: writing: %w", err)
	}
	return nil
}
