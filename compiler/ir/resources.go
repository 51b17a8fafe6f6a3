package ir

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// This file holds dialect resources: the `{-# dialect_resources: {...} #-}`
// block at the end of a file, whose builtin entries are the blobs that
// `dense_resource<name> : type` attributes name. A blob is written as
// "0x" followed by hex digits: a little-endian uint32 alignment, then the
// data.
//
// A dense_resource attribute is held as a *DenseAttr with Resource set to
// its name and Hex to the blob's data (IsHex set), so code that reads a
// constant's bytes (RawBytes) treats it like dense<"0x...">; the printer
// prints it back as dense_resource<name> and writes the blobs it printed
// into the file's resource block.

// Resource is one entry of a file's dialect_resources block.
type Resource struct {
	// Dialect is the group the entry is in ("builtin" for the blobs of
	// dense_resource attributes); Key is its name.
	Dialect, Key string
	// IsBlob is set for a hex blob: Blob holds its data (without the
	// alignment word) and Alignment its alignment.
	IsBlob    bool
	Blob      []byte
	Alignment uint32
	// Value is a non-blob entry (a string or a bool) as written.
	Value Attribute
	// Pos is where the entry's key is.
	Pos Pos
}

// resourceUse is a dense_resource attribute waiting for its blob.
type resourceUse struct {
	attr *DenseAttr
	pos  Pos
}

// printedResource is a builtin blob the printer wrote a reference to.
type printedResource struct {
	name      string
	data      []byte
	alignment uint32
}

// IsResource reports whether a is a dense_resource attribute.
func (a *DenseAttr) IsResource() bool { return a.Resource != "" }

// parseDenseResource parses `dense_resource<name> : type` (the keyword is
// the current token).
func (p *Parser) parseDenseResource() (Attribute, error) {
	pos := p.Pos()
	p.next()
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	var name string
	switch p.tok.kind {
	case tokIdent, tokString:
		name = p.tok.text
		p.next()
	default:
		return nil, p.Errorf("expected a resource name in dense_resource, found %s", p.tok.describe())
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	if err := p.Expect(":"); err != nil {
		return nil, err
	}
	tpos := p.Pos()
	t, err := p.ParseType()
	if err != nil {
		return nil, err
	}
	st, ok := t.(ShapedType)
	if !ok {
		return nil, Errorf(tpos, "dense_resource must have a shaped type, got '%s'", TypeString(t))
	}
	a := &DenseAttr{Type: st, Resource: name, IsHex: true}
	p.resourceUses = append(p.resourceUses, resourceUse{attr: a, pos: pos})
	return a, nil
}

// parseFileMetadata parses a `{-# key: {...}, ... #-}` block, the current
// token being its opening brace, into m.
func (p *Parser) parseFileMetadata(m *Module) error {
	p.reset(p.tok.off + len("{-#"))
	for {
		if strings.HasPrefix(p.lex.src[p.tok.off:], "#-}") {
			p.reset(p.tok.off + len("#-}"))
			return nil
		}
		if p.tok.kind == tokEOF {
			return p.Errorf("expected '#-}' to end the file metadata block")
		}
		kpos := p.Pos()
		key, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		if err := p.Expect(":"); err != nil {
			return err
		}
		switch key {
		case "dialect_resources":
			if err := p.parseDialectResources(m); err != nil {
				return err
			}
		case "external_resources":
			if !p.Is("{") {
				return p.Errorf("expected '{' after 'external_resources:', found %s", p.tok.describe())
			}
			body, err := p.rawBalanced('{', '}')
			if err != nil {
				return err
			}
			m.ExternalResources = "{" + body + "}"
		default:
			return Errorf(kpos, "unknown file metadata key '%s' (expected 'dialect_resources' or 'external_resources')", key)
		}
		if !strings.HasPrefix(p.lex.src[p.tok.off:], "#-}") && p.tok.kind != tokEOF {
			if err := p.Expect(","); err != nil {
				return err
			}
		}
	}
}

// parseDialectResources parses `{ dialect: { key: value, ... }, ... }`.
func (p *Parser) parseDialectResources(m *Module) error {
	if err := p.Expect("{"); err != nil {
		return err
	}
	for !p.Optional("}") {
		dialect, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		if err := p.Expect(":"); err != nil {
			return err
		}
		if err := p.Expect("{"); err != nil {
			return err
		}
		for !p.Optional("}") {
			r := &Resource{Dialect: dialect, Pos: p.Pos()}
			switch p.tok.kind {
			case tokIdent, tokString:
				r.Key = p.tok.text
				p.next()
			default:
				return p.Errorf("expected a resource key, found %s", p.tok.describe())
			}
			for _, o := range m.Resources {
				if o.Dialect == dialect && o.Key == r.Key {
					return Errorf(r.Pos, "duplicate resource '%s' in dialect '%s' (first defined at %s)", r.Key, dialect, o.Pos)
				}
			}
			if err := p.Expect(":"); err != nil {
				return err
			}
			vpos := p.Pos()
			switch {
			case p.tok.kind == tokString && strings.HasPrefix(p.tok.text, "0x"):
				if err := decodeBlob(r, p.tok.text, vpos); err != nil {
					return err
				}
				p.next()
			case p.tok.kind == tokString:
				r.Value = StringAttr{Value: p.tok.text}
				p.next()
			case p.IsKeyword("true") || p.IsKeyword("false"):
				r.Value = BoolAttr{Value: p.tok.text == "true"}
				p.next()
			default:
				return p.Errorf("expected a hex blob, string or bool for resource '%s', found %s", r.Key, p.tok.describe())
			}
			if dialect == "builtin" && !r.IsBlob {
				return Errorf(vpos, "builtin resource '%s' must be a hex blob (\"0x\" followed by a 4-byte alignment and the data)", r.Key)
			}
			m.Resources = append(m.Resources, r)
			if !p.Is("}") {
				if err := p.Expect(","); err != nil {
					return err
				}
			}
		}
		if !p.Is("}") {
			if err := p.Expect(","); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeBlob decodes "0x<alignment><data>" into r.
func decodeBlob(r *Resource, s string, pos Pos) error {
	b, err := hex.DecodeString(s[2:])
	if err != nil {
		return Errorf(pos, "resource '%s' is not a valid hex blob: %v", r.Key, err)
	}
	if len(b) < 4 {
		return Errorf(pos, "resource '%s' is too short: a blob starts with a 4-byte alignment", r.Key)
	}
	align := binary.LittleEndian.Uint32(b)
	if align == 0 || align&(align-1) != 0 {
		return Errorf(pos, "resource '%s' has alignment %d, which is not a power of two", r.Key, align)
	}
	r.IsBlob, r.Alignment, r.Blob = true, align, b[4:]
	return nil
}

// elementBytes returns the bytes one element of t takes in a blob, or 0
// when that is not known.
func elementBytes(t Type) int64 {
	switch t := t.(type) {
	case IntegerType:
		return int64((t.Width + 7) / 8)
	case IndexType:
		return 8
	case FloatType:
		return int64((t.Width() + 7) / 8)
	case *ComplexType:
		return 2 * elementBytes(t.Elem)
	}
	return 0
}

// resolveResources gives each dense_resource attribute parsed from the file
// its builtin blob, checking that the blob exists and fits the type.
func (p *Parser) resolveResources(m *Module) error {
	blobs := map[string]*Resource{}
	for _, r := range m.Resources {
		if r.Dialect == "builtin" {
			blobs[r.Key] = r
		}
	}
	for _, u := range p.resourceUses {
		r, ok := blobs[u.attr.Resource]
		if !ok && u.attr.Resource == "__elided__" {
			return Errorf(u.pos, "dense_resource<__elided__> has no data: the blob was elided when this IR was printed (--mlir-elide-resource-strings-if-larger); print it again without elision")
		}
		if !ok {
			return Errorf(u.pos, "dense_resource<%s> is not defined: the file's {-# dialect_resources: { builtin: { ... } } #-} block has no entry '%s'", u.attr.Resource, u.attr.Resource)
		}
		if n, eb := NumElements(u.attr.Type), elementBytes(u.attr.Type.ElementType()); n >= 0 && eb > 0 && n*eb != int64(len(r.Blob)) {
			return Errorf(u.pos, "dense_resource<%s> holds %d bytes but '%s' needs %d (%d elements of %d bytes)", u.attr.Resource, len(r.Blob), TypeString(u.attr.Type), n*eb, n, eb)
		}
		u.attr.Hex, u.attr.ResourceAlign = r.Blob, r.Alignment
	}
	return nil
}

// printResource prints a dense_resource attribute and records its blob for
// the file's resource block.
func (a *DenseAttr) printResource(w *AsmWriter) {
	w.WriteString("dense_resource<")
	if isBareIdent(a.Resource) {
		w.WriteString(a.Resource)
	} else {
		w.WriteString(QuoteString(a.Resource))
	}
	w.WriteString("> : ")
	w.Type(a.Type)
	for _, r := range w.resources {
		if r.name == a.Resource {
			return
		}
	}
	w.resources = append(w.resources, printedResource{name: a.Resource, data: a.Hex, alignment: a.ResourceAlign})
}

// printResourceBlock writes the file's `{-# ... #-}` block: the builtin
// blobs the printed IR referred to, the module's other dialects' entries,
// and its external resources. It writes nothing when there are none.
func printResourceBlock(w *AsmWriter, m *Module) {
	var other []*Resource
	for _, r := range m.Resources {
		if r.Dialect != "builtin" {
			other = append(other, r)
		}
	}
	if len(w.resources) == 0 && len(other) == 0 && m.ExternalResources == "" {
		return
	}
	var b strings.Builder
	b.WriteString("\n{-#\n")
	groups := 0
	if len(w.resources) > 0 || len(other) > 0 {
		b.WriteString("  dialect_resources: {\n")
		type entry struct{ key, value string }
		var order []string
		byDialect := map[string][]entry{}
		add := func(d string, e entry) {
			if _, ok := byDialect[d]; !ok {
				order = append(order, d)
			}
			byDialect[d] = append(byDialect[d], e)
		}
		for _, r := range w.resources {
			add("builtin", entry{r.name, blobString(r.alignment, r.data)})
		}
		for _, r := range other {
			v := ""
			if r.IsBlob {
				v = blobString(r.Alignment, r.Blob)
			} else {
				v = AttrString(r.Value)
			}
			add(r.Dialect, entry{r.Key, v})
		}
		for i, d := range order {
			b.WriteString("    " + d + ": {\n")
			for j, e := range byDialect[d] {
				b.WriteString("      " + attrKey(e.key) + ": " + e.value)
				if j+1 < len(byDialect[d]) {
					b.WriteString(",")
				}
				b.WriteString("\n")
			}
			b.WriteString("    }")
			if i+1 < len(order) {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString("  }")
		groups++
	}
	if m.ExternalResources != "" {
		if groups > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  external_resources: " + m.ExternalResources)
	}
	b.WriteString("\n#-}\n")
	w.WriteString(b.String())
}

// blobString formats a blob as MLIR writes it: "0x", the alignment as a
// little-endian uint32, then the data, in upper-case hex.
func blobString(alignment uint32, data []byte) string {
	if alignment == 0 {
		alignment = 1
	}
	var head [4]byte
	binary.LittleEndian.PutUint32(head[:], alignment)
	return fmt.Sprintf("\"0x%s%s\"", strings.ToUpper(hex.EncodeToString(head[:])), strings.ToUpper(hex.EncodeToString(data)))
}
