package stablehlo

import (
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// convLayout is one tensor's part of convolution's dimension numbers:
// where its two named dimensions (batch and feature, or the kernel's
// input and output features) and its spatial dimensions are.
type convLayout struct {
	first, second int
	spatial       []int64
}

// convRoles are the letters naming each tensor's two non-spatial
// dimensions in `[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]`, and the
// fields of #stablehlo.conv<raw ...> they stand for.
var convRoles = [3]struct {
	first, second                    string
	firstField, secondField, spatial string
}{
	{"b", "f", "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions"},
	{"i", "o", "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions"},
	{"b", "f", "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions"},
}

// parseConvLayout parses one bracketed layout such as `[b, 0, 1, f]`:
// each position is a letter of role or the index of a spatial dimension.
func parseConvLayout(p *ir.Parser, role int) (convLayout, error) {
	r := convRoles[role]
	l := convLayout{first: -1, second: -1}
	pos := p.Pos()
	if err := p.Expect("["); err != nil {
		return l, err
	}
	spatial := map[int64]int{}
	for i := 0; !p.Optional("]"); i++ {
		if i > 0 {
			if err := p.Expect(","); err != nil {
				return l, err
			}
		}
		epos := p.Pos()
		if k := p.PeekKeyword(); k != "" {
			p.ParseKeyword()
			switch {
			case k == r.first && l.first < 0:
				l.first = i
			case k == r.second && l.second < 0:
				l.second = i
			default:
				return l, ir.Errorf(epos, "unexpected '%s' in convolution dimension numbers (expected %s, %s or a spatial dimension, each once)", k, r.first, r.second)
			}
			continue
		}
		n, err := p.ParseInteger()
		if err != nil {
			return l, err
		}
		if _, dup := spatial[n]; dup || n < 0 {
			return l, ir.Errorf(epos, "spatial dimension %d is repeated or negative in convolution dimension numbers", n)
		}
		spatial[n] = i
	}
	if l.first < 0 || l.second < 0 {
		return l, ir.Errorf(pos, "convolution dimension numbers need both '%s' and '%s'", r.first, r.second)
	}
	l.spatial = make([]int64, len(spatial))
	for n, i := range spatial {
		if n >= int64(len(spatial)) {
			return l, ir.Errorf(pos, "spatial dimension %d is out of range in convolution dimension numbers of %d spatial dimensions", n, len(spatial))
		}
		l.spatial[n] = int64(i)
	}
	return l, nil
}

// parseConvDims parses `[..]x[..]->[..]` into the #stablehlo.conv<raw
// ...> attribute the generic form and the lowering use.
func parseConvDims(p *ir.Parser, dialect string) (ir.Attribute, error) {
	var ls [3]convLayout
	for i := range ls {
		switch i {
		case 1:
			if err := p.ExpectKeyword("x"); err != nil {
				return nil, err
			}
		case 2:
			if err := p.Expect("->"); err != nil {
				return nil, err
			}
		}
		l, err := parseConvLayout(p, i)
		if err != nil {
			return nil, err
		}
		ls[i] = l
	}
	var fields []string
	for i, l := range ls {
		r := convRoles[i]
		a, b := r.firstField+" = "+strconv.Itoa(l.first), r.secondField+" = "+strconv.Itoa(l.second)
		fields = append(fields, a, b, r.spatial+" = "+formatI64List(l.spatial))
	}
	return &ir.OpaqueAttr{Name: dialect + ".conv", Body: "raw " + strings.Join(fields, ", "), Angled: true}, nil
}

// convDimsText spells op's dimension_numbers as `[..]x[..]->[..]`, or
// returns false when it is not a #stablehlo.conv<raw ...> with every
// field, each tensor's dimensions named once.
func convDimsText(op *ir.Operation) (string, bool) {
	a, ok := op.Attr("dimension_numbers").(*ir.OpaqueAttr)
	if !ok || a.Name != dialectOf(op)+".conv" {
		return "", false
	}
	body, ok := strings.CutPrefix(strings.TrimSpace(a.Body), "raw ")
	if !ok {
		return "", false
	}
	f, ok := fieldLists(body)
	if !ok || len(f) != 9 {
		return "", false
	}
	var parts []string
	for _, r := range convRoles {
		first, second, spatial := f[r.firstField], f[r.secondField], f[r.spatial]
		if len(first) != 1 || len(second) != 1 {
			return "", false
		}
		n := len(spatial) + 2
		names := make([]string, n)
		put := func(d int64, s string) bool {
			if d < 0 || d >= int64(n) || names[d] != "" {
				return false
			}
			names[d] = s
			return true
		}
		ok := put(first[0], r.first) && put(second[0], r.second)
		for i, d := range spatial {
			ok = ok && put(d, strconv.Itoa(i))
		}
		if !ok {
			return "", false
		}
		parts = append(parts, "["+strings.Join(names, ", ")+"]")
	}
	return parts[0] + "x" + parts[1] + "->" + parts[2], true
}

// windowFields are the keys of convolution's `window = {...}` clause and
// the attributes they stand for, in the order MLIR prints them.
var windowFields = []struct{ key, attr string }{
	{"stride", "window_strides"}, {"pad", "padding"}, {"lhs_dilate", "lhs_dilation"},
	{"rhs_dilate", "rhs_dilation"}, {"reverse", "window_reversal"},
}

// parseWindow parses `{stride = [..], pad = [[lo, hi], ..], lhs_dilate =
// [..], rhs_dilate = [..], reverse = [..]}`, each key optional.
func parseWindow(p *ir.Parser, op *ir.Operation) error {
	if err := p.Expect("{"); err != nil {
		return err
	}
	seen := map[string]bool{}
	for !p.Optional("}") {
		if len(seen) > 0 {
			if err := p.Expect(","); err != nil {
				return err
			}
		}
		kpos := p.Pos()
		k, err := p.ParseKeyword()
		if err != nil {
			return err
		}
		attr := ""
		for _, w := range windowFields {
			if w.key == k {
				attr = w.attr
			}
		}
		if attr == "" || seen[k] {
			return ir.Errorf(kpos, "unexpected '%s' in convolution window (expected stride, pad, lhs_dilate, rhs_dilate or reverse, each once)", k)
		}
		seen[k] = true
		if err := p.Expect("="); err != nil {
			return err
		}
		var a ir.Attribute
		switch k {
		case "pad":
			a, err = parsePadding(p)
		case "reverse":
			a, err = parseBoolList(p)
		default:
			var vs []int64
			vs, err = parseI64List(p)
			a = i64ArrayAttr(vs)
		}
		if err != nil {
			return err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: attr, Value: a})
	}
	return nil
}

// parsePadding parses `[[lo, hi], ...]` into dense<...> : tensor<Nx2xi64>.
func parsePadding(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	var elems []ir.Attribute
	n := 0
	for !p.Optional("]") {
		if n > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		pos := p.Pos()
		pair, err := parseI64List(p)
		if err != nil {
			return nil, err
		}
		if len(pair) != 2 {
			return nil, ir.Errorf(pos, "a convolution pad entry must be [low, high], found %d numbers", len(pair))
		}
		for _, v := range pair {
			elems = append(elems, ir.IntegerAttr{Value: v})
		}
		n++
	}
	return &ir.DenseAttr{Type: &ir.TensorType{Shape: []int64{int64(n), 2}, Elem: ir.I64}, Elements: elems, Nesting: []int{n, 2}}, nil
}

// parseBoolList parses `[true, false, ...]` (or 0 and 1) into an
// array<i1: ...>.
func parseBoolList(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("["); err != nil {
		return nil, err
	}
	a := &ir.DenseArrayAttr{Elem: ir.I1, Values: []int64{}}
	for !p.Optional("]") {
		if len(a.Values) > 0 {
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
		switch {
		case p.OptionalKeyword("true"):
			a.Values = append(a.Values, 1)
		case p.OptionalKeyword("false"):
			a.Values = append(a.Values, 0)
		default:
			pos := p.Pos()
			n, err := p.ParseInteger()
			if err != nil {
				return nil, err
			}
			if n != 0 && n != 1 {
				return nil, ir.Errorf(pos, "expected true, false, 0 or 1 in a convolution window's reverse, found %d", n)
			}
			a.Values = append(a.Values, n)
		}
	}
	return a, nil
}

// windowText spells op's window attributes as the window clause's body,
// the keys present in order; ok is false when one has another form.
func windowText(op *ir.Operation) (text string, attrs []string, ok bool) {
	var parts []string
	for _, w := range windowFields {
		a := op.Attr(w.attr)
		if a == nil {
			continue
		}
		var s string
		switch w.key {
		case "pad":
			d, isDense := a.(*ir.DenseAttr)
			if !isDense {
				return "", nil, false
			}
			t, _ := d.Type.(*ir.TensorType)
			if d.Splat || t == nil || len(t.Shape) != 2 || t.Shape[1] != 2 || ir.TypeString(t.Elem) != "i64" || int64(len(d.Elements)) != 2*t.Shape[0] {
				return "", nil, false
			}
			var rows []string
			for i := 0; i < len(d.Elements); i += 2 {
				lo, ok1 := d.Elements[i].(ir.IntegerAttr)
				hi, ok2 := d.Elements[i+1].(ir.IntegerAttr)
				if !ok1 || !ok2 {
					return "", nil, false
				}
				rows = append(rows, formatI64List([]int64{lo.Value, hi.Value}))
			}
			s = "[" + strings.Join(rows, ", ") + "]"
		case "reverse":
			d, isArr := a.(*ir.DenseArrayAttr)
			if !isArr || ir.TypeString(d.Elem) != "i1" {
				return "", nil, false
			}
			var bs []string
			for _, v := range d.Values {
				bs = append(bs, strconv.FormatBool(v != 0))
			}
			s = "[" + strings.Join(bs, ", ") + "]"
		default:
			vs, isArr := i64Array(op, w.attr)
			if !isArr {
				return "", nil, false
			}
			s = formatI64List(vs)
		}
		parts = append(parts, w.key+" = "+s)
		attrs = append(attrs, w.attr)
	}
	return "{" + strings.Join(parts, ", ") + "}", attrs, true
}

// parseConvolution parses `(%lhs, %rhs) dim_numbers = [..]x[..]->[..],
// window = {...} attr-dict : (t1, t2) -> r`; the window clause is
// optional, and both clauses are left out when the attributes are in the
// dictionary.
func parseConvolution(p *ir.Parser, op *ir.Operation) ([]ir.Type, error) {
	vs, err := p.ParseDelimitedOperands("(", ")")
	if err != nil {
		return nil, err
	}
	if p.OptionalKeyword("dim_numbers") {
		if err := p.Expect("="); err != nil {
			return nil, err
		}
		a, err := parseConvDims(p, dialectOf(op))
		if err != nil {
			return nil, err
		}
		op.Attrs = append(op.Attrs, ir.NamedAttr{Name: "dimension_numbers", Value: a})
		if p.Optional(",") {
			if err := p.ExpectKeyword("window"); err != nil {
				return nil, err
			}
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			if err := parseWindow(p, op); err != nil {
				return nil, err
			}
		}
	}
	return parseFunctionTypeTail(p, op, vs)
}

func printConvolution(p *ir.Printer, op *ir.Operation) {
	p.WriteString("(")
	p.Operands(op.Operands)
	p.WriteString(")")
	dims, ok1 := convDimsText(op)
	win, wattrs, ok2 := windowText(op)
	var elided []string
	if ok1 && ok2 {
		p.WriteString(" dim_numbers = " + dims)
		elided = append(elided, "dimension_numbers")
		if len(wattrs) > 0 {
			p.WriteString(", window = " + win)
			elided = append(elided, wattrs...)
		}
	}
	printFunctionTypeTail(p, op, elided...)
}
