package hal

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// ExecutableTargetAttr is #hal.executable.target<"backend", "format", {config}>.
type ExecutableTargetAttr struct {
	Backend string
	Format  string
	Config  *ir.DictAttr // nil when absent
}

// PrintAttr implements ir.Attribute.
func (a *ExecutableTargetAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#hal.executable.target<")
	w.WriteString(ir.QuoteString(a.Backend))
	w.WriteString(", ")
	w.WriteString(ir.QuoteString(a.Format))
	if a.Config != nil {
		w.WriteString(", ")
		w.Attr(a.Config)
	}
	w.WriteString(">")
}

// IsGenericOf reports whether a (the generic side, e.g. an objects-map
// key) matches specific: same backend and format, and every config field
// of a present in specific with an equal value. A missing config on either
// side matches.
func (a *ExecutableTargetAttr) IsGenericOf(specific *ExecutableTargetAttr) bool {
	if a.Backend != specific.Backend || a.Format != specific.Format {
		return false
	}
	if a.Config == nil || specific.Config == nil {
		return true
	}
	for _, e := range a.Config.Entries {
		v := specific.Config.Get(e.Name)
		if v == nil || !ir.AttrsEqual(v, e.Value) {
			return false
		}
	}
	return true
}

func parseExecutableTarget(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	b, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	f, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	a := &ExecutableTargetAttr{Backend: b, Format: f}
	if p.Optional(",") {
		d, err := p.ParseDictionary()
		if err != nil {
			return nil, err
		}
		a.Config = d
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return a, nil
}

// DeviceTargetAttr is #hal.device.target in either spelling: the seed
// `<"llvm-cpu", {executable_targets = [...]}>` (Config holds the dict) or
// HEAD `<"local", [{config},] [#t, ...]> : !hal.device`.
type DeviceTargetAttr struct {
	Device  string
	Config  *ir.DictAttr
	Targets []ir.Attribute // HEAD list form; nil in the seed form
	HasList bool
	Type    ir.Type // trailing `: !hal.device`, or nil
}

// PrintAttr implements ir.Attribute.
func (a *DeviceTargetAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#hal.device.target<")
	w.WriteString(ir.QuoteString(a.Device))
	if a.Config != nil {
		w.WriteString(", ")
		w.Attr(a.Config)
	}
	if a.HasList {
		w.WriteString(", [")
		for i, t := range a.Targets {
			if i > 0 {
				w.WriteString(", ")
			}
			w.Attr(t)
		}
		w.WriteString("]")
	}
	w.WriteString(">")
	if a.Type != nil {
		w.WriteString(" : ")
		w.Type(a.Type)
	}
}

// ExecutableTargets returns the executable targets of the device, from
// whichever spelling was used.
func (a *DeviceTargetAttr) ExecutableTargets() []*ExecutableTargetAttr {
	var out []*ExecutableTargetAttr
	src := a.Targets
	if !a.HasList {
		if arr, ok := a.Config.Get("executable_targets").(*ir.ArrayAttr); ok {
			src = arr.Elems
		}
	}
	for _, t := range src {
		if et, ok := t.(*ExecutableTargetAttr); ok {
			out = append(out, et)
		}
	}
	return out
}

func parseDeviceTarget(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	d, err := p.ParseString()
	if err != nil {
		return nil, err
	}
	a := &DeviceTargetAttr{Device: d}
	for p.Optional(",") {
		switch {
		case p.Is("{") && a.Config == nil && !a.HasList:
			cfg, err := p.ParseDictionary()
			if err != nil {
				return nil, err
			}
			a.Config = cfg
		case p.Is("[") && !a.HasList:
			arr, err := p.ParseAttribute()
			if err != nil {
				return nil, err
			}
			a.Targets = arr.(*ir.ArrayAttr).Elems
			a.HasList = true
		default:
			return nil, p.Errorf("expected device configuration dictionary or executable target list, found %s", describe(p))
		}
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	if a.Config != nil {
		if et, ok := a.Config.Get("executable_targets").(*ir.ArrayAttr); ok {
			for _, t := range et.Elems {
				if _, ok := t.(*ExecutableTargetAttr); !ok {
					return nil, p.Errorf("executable_targets must hold #hal.executable.target attributes, found %s", ir.AttrString(t))
				}
			}
		}
	}
	for _, t := range a.Targets {
		if _, ok := t.(*ExecutableTargetAttr); !ok {
			return nil, p.Errorf("device target list must hold #hal.executable.target attributes, found %s", ir.AttrString(t))
		}
	}
	if p.Optional(":") {
		t, err := p.ParseType()
		if err != nil {
			return nil, err
		}
		a.Type = t
	}
	return a, nil
}

func describe(p *ir.Parser) string {
	if k := p.PeekKeyword(); k != "" {
		return "'" + k + "'"
	}
	return "another token"
}

// ExecutableObjectAttr is #hal.executable.object<{path = "...", data = dense<...>}>.
type ExecutableObjectAttr struct {
	Path    string
	HasPath bool
	Data    ir.Attribute // *ir.DenseAttr normally; nil when absent
}

// PrintAttr implements ir.Attribute.
func (a *ExecutableObjectAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#hal.executable.object<{")
	if a.HasPath {
		w.WriteString("path = ")
		w.WriteString(ir.QuoteString(a.Path))
	}
	if a.Data != nil {
		if a.HasPath {
			w.WriteString(", ")
		}
		w.WriteString("data = ")
		w.Attr(a.Data)
	}
	w.WriteString("}>")
}

// DataBytes returns the embedded data, if any.
func (a *ExecutableObjectAttr) DataBytes() ([]byte, bool, error) {
	if a.Data == nil {
		return nil, false, nil
	}
	d, ok := a.Data.(*ir.DenseAttr)
	if !ok {
		return nil, true, fmt.Errorf("object data must be a dense elements attribute, found %s", ir.AttrString(a.Data))
	}
	b, err := d.RawBytes()
	return b, true, err
}

func parseExecutableObject(p *ir.Parser) (ir.Attribute, error) {
	pos := p.Pos()
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	d, err := p.ParseDictionary()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	a := &ExecutableObjectAttr{}
	for _, e := range d.Entries {
		switch e.Name {
		case "path":
			s, ok := e.Value.(ir.StringAttr)
			if !ok {
				return nil, ir.Errorf(pos, "#hal.executable.object path must be a string, found %s", ir.AttrString(e.Value))
			}
			a.Path, a.HasPath = s.Value, true
		case "data":
			if _, ok := e.Value.(*ir.DenseAttr); !ok {
				return nil, ir.Errorf(pos, "#hal.executable.object data must be a dense elements attribute, found %s", ir.AttrString(e.Value))
			}
			a.Data = e.Value
		default:
			return nil, ir.Errorf(pos, "unknown #hal.executable.object field '%s' (expected path or data)", e.Name)
		}
	}
	if !a.HasPath && a.Data == nil {
		return nil, ir.Errorf(pos, "#hal.executable.object needs a path or data")
	}
	return a, nil
}

// ExecutableObjectsAttr is #hal.executable.objects<{#target = [objects], ...}>.
type ExecutableObjectsAttr struct {
	Targets []*ExecutableTargetAttr
	Objects []*ir.ArrayAttr
}

// PrintAttr implements ir.Attribute.
func (a *ExecutableObjectsAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#hal.executable.objects<{")
	for i := range a.Targets {
		if i > 0 {
			w.WriteString(", ")
		}
		w.Attr(a.Targets[i])
		w.WriteString(" = ")
		w.Attr(a.Objects[i])
	}
	w.WriteString("}>")
}

// ApplicableObjects concatenates the object lists of every key that is
// generic of specific, in map order; nil when none match.
func (a *ExecutableObjectsAttr) ApplicableObjects(specific *ExecutableTargetAttr) []ir.Attribute {
	var out []ir.Attribute
	for i, t := range a.Targets {
		if t.IsGenericOf(specific) {
			out = append(out, a.Objects[i].Elems...)
		}
	}
	return out
}

func parseExecutableObjects(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	if err := p.Expect("{"); err != nil {
		return nil, err
	}
	a := &ExecutableObjectsAttr{}
	if !p.Optional("}") {
		for {
			kpos := p.Pos()
			k, err := p.ParseAttribute()
			if err != nil {
				return nil, err
			}
			t, ok := k.(*ExecutableTargetAttr)
			if !ok {
				return nil, ir.Errorf(kpos, "#hal.executable.objects keys must be #hal.executable.target attributes, found %s", ir.AttrString(k))
			}
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			vpos := p.Pos()
			v, err := p.ParseAttribute()
			if err != nil {
				return nil, err
			}
			arr, ok := v.(*ir.ArrayAttr)
			if !ok {
				return nil, ir.Errorf(vpos, "#hal.executable.objects values must be arrays of objects, found %s", ir.AttrString(v))
			}
			for _, o := range arr.Elems {
				if _, ok := o.(*ExecutableObjectAttr); !ok {
					return nil, ir.Errorf(vpos, "#hal.executable.objects values must hold #hal.executable.object attributes, found %s", ir.AttrString(o))
				}
			}
			a.Targets = append(a.Targets, t)
			a.Objects = append(a.Objects, arr)
			if p.Optional("}") {
				break
			}
			if err := p.Expect(","); err != nil {
				return nil, err
			}
		}
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return a, nil
}

// Binding is one binding of a pipeline layout.
type Binding struct {
	Ordinal int64 // binding number (seed sets form); the list index in HEAD form
	Type    string
	Flags   []string
}

// ReadOnly reports whether the binding carries the ReadOnly flag.
func (b Binding) ReadOnly() bool {
	for _, f := range b.Flags {
		if f == "ReadOnly" {
			return true
		}
	}
	return false
}

func (b Binding) printTail(w *ir.AsmWriter) {
	w.WriteString(b.Type)
	if len(b.Flags) > 0 {
		w.WriteString(", ")
		if len(b.Flags) == 1 {
			w.WriteString(b.Flags[0])
		} else {
			w.WriteString(ir.QuoteString(strings.Join(b.Flags, "|")))
		}
	}
}

// SetLayout is one descriptor set of the seed layout form.
type SetLayout struct {
	Ordinal  int64
	Bindings []Binding
}

// PipelineLayoutAttr is #hal.pipeline.layout in either spelling: seed
// `push_constants = N, sets = [<0, bindings = [<0, storage_buffer, ReadOnly>]>]`
// (Sets non-nil) or HEAD `constants = N, bindings = [#hal.pipeline.binding<...>]`.
type PipelineLayoutAttr struct {
	Constants int64
	Sets      []SetLayout // seed form
	Bindings  []Binding   // HEAD form
	SeedForm  bool
	Flags     string // HEAD optional flags keyword, e.g. Indirect
}

// PrintAttr implements ir.Attribute.
func (a *PipelineLayoutAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#hal.pipeline.layout<")
	if a.SeedForm {
		w.WriteString("push_constants = " + strconv.FormatInt(a.Constants, 10) + ", sets = [")
		for i, s := range a.Sets {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString("<" + strconv.FormatInt(s.Ordinal, 10) + ", bindings = [")
			for j, b := range s.Bindings {
				if j > 0 {
					w.WriteString(", ")
				}
				w.WriteString("<" + strconv.FormatInt(b.Ordinal, 10) + ", ")
				b.printTail(w)
				w.WriteString(">")
			}
			w.WriteString("]>")
		}
		w.WriteString("]>")
		return
	}
	if a.Constants != 0 {
		w.WriteString("constants = " + strconv.FormatInt(a.Constants, 10) + ", ")
	}
	w.WriteString("bindings = [")
	for i, b := range a.Bindings {
		if i > 0 {
			w.WriteString(", ")
		}
		w.WriteString("#hal.pipeline.binding<")
		b.printTail(w)
		w.WriteString(">")
	}
	w.WriteString("]")
	if a.Flags != "" {
		w.WriteString(", flags = " + a.Flags)
	}
	w.WriteString(">")
}

// ConstantCount returns the number of 32-bit push constants.
func (a *PipelineLayoutAttr) ConstantCount() int64 { return a.Constants }

// AllBindings returns (set, binding) pairs and bindings in layout order.
func (a *PipelineLayoutAttr) AllBindings() []SetBinding {
	var out []SetBinding
	if a.SeedForm {
		for _, s := range a.Sets {
			for _, b := range s.Bindings {
				out = append(out, SetBinding{Set: s.Ordinal, Binding: b})
			}
		}
		return out
	}
	for i, b := range a.Bindings {
		b.Ordinal = int64(i)
		out = append(out, SetBinding{Set: 0, Binding: b})
	}
	return out
}

// SetBinding is a binding together with its set number.
type SetBinding struct {
	Set     int64
	Binding Binding
}

// Lookup finds binding (set, ordinal) in the layout.
func (a *PipelineLayoutAttr) Lookup(set, ordinal int64) (Binding, bool) {
	for _, sb := range a.AllBindings() {
		if sb.Set == set && sb.Binding.Ordinal == ordinal {
			return sb.Binding, true
		}
	}
	return Binding{}, false
}

func parseFlags(p *ir.Parser) ([]string, error) {
	if p.IsString() {
		s, _ := p.ParseString()
		var out []string
		for _, f := range strings.Split(s, "|") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
		return out, nil
	}
	var out []string
	for {
		k, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		out = append(out, k)
		if !p.Optional("|") {
			return out, nil
		}
	}
}

var descriptorTypes = map[string]bool{"storage_buffer": true, "uniform_buffer": true}

func parseBindingTail(p *ir.Parser) (Binding, error) {
	var b Binding
	pos := p.Pos()
	t, err := p.ParseKeyword()
	if err != nil {
		return b, err
	}
	if !descriptorTypes[t] {
		return b, ir.Errorf(pos, "unknown descriptor type '%s' (expected storage_buffer or uniform_buffer)", t)
	}
	b.Type = t
	if p.Optional(",") {
		fs, err := parseFlags(p)
		if err != nil {
			return b, err
		}
		for _, f := range fs {
			if f != "ReadOnly" && f != "Indirect" && f != "None" {
				return b, ir.Errorf(pos, "unknown descriptor flag '%s' (expected ReadOnly or Indirect)", f)
			}
		}
		b.Flags = fs
	}
	return b, nil
}

func parsePipelineLayout(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	a := &PipelineLayoutAttr{}
	seenConst, seenBind := false, false
	for {
		kpos := p.Pos()
		k, err := p.ParseKeyword()
		if err != nil {
			return nil, err
		}
		switch k {
		case "push_constants", "constants":
			if seenConst {
				return nil, ir.Errorf(kpos, "duplicate '%s' in pipeline layout", k)
			}
			seenConst = true
			if k == "push_constants" {
				a.SeedForm = true
			}
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			n, err := p.ParseInteger()
			if err != nil {
				return nil, err
			}
			if n < 0 || n > 1024 {
				return nil, ir.Errorf(kpos, "pipeline layout constant count %d out of range [0, 1024]", n)
			}
			a.Constants = n
		case "sets":
			if seenBind {
				return nil, ir.Errorf(kpos, "pipeline layout has both 'sets' and 'bindings'")
			}
			seenBind = true
			a.SeedForm = true
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			if err := p.Expect("["); err != nil {
				return nil, err
			}
			if !p.Optional("]") {
				for {
					s, err := parseSetLayout(p)
					if err != nil {
						return nil, err
					}
					a.Sets = append(a.Sets, s)
					if p.Optional("]") {
						break
					}
					if err := p.Expect(","); err != nil {
						return nil, err
					}
				}
			}
		case "bindings":
			if seenBind {
				return nil, ir.Errorf(kpos, "pipeline layout has both 'sets' and 'bindings'")
			}
			seenBind = true
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			if err := p.Expect("["); err != nil {
				return nil, err
			}
			if !p.Optional("]") {
				for {
					epos := p.Pos()
					e, err := p.ParseAttribute()
					if err != nil {
						return nil, err
					}
					pb, ok := e.(*PipelineBindingAttr)
					if !ok {
						return nil, ir.Errorf(epos, "pipeline layout bindings must be #hal.pipeline.binding attributes, found %s", ir.AttrString(e))
					}
					a.Bindings = append(a.Bindings, pb.Binding)
					if p.Optional("]") {
						break
					}
					if err := p.Expect(","); err != nil {
						return nil, err
					}
				}
			}
		case "flags":
			if err := p.Expect("="); err != nil {
				return nil, err
			}
			f, err := p.ParseKeyword()
			if err != nil {
				return nil, err
			}
			a.Flags = f
		default:
			return nil, ir.Errorf(kpos, "unknown pipeline layout field '%s' (expected push_constants/sets or constants/bindings)", k)
		}
		if p.Optional(">") {
			break
		}
		if err := p.Expect(","); err != nil {
			return nil, err
		}
	}
	if a.SeedForm && a.Bindings != nil {
		return nil, p.Errorf("pipeline layout mixes the seed (push_constants/sets) and current (constants/bindings) forms")
	}
	if a.SeedForm {
		for _, s := range a.Sets {
			seen := map[int64]bool{}
			for _, b := range s.Bindings {
				if seen[b.Ordinal] {
					return nil, p.Errorf("pipeline layout set %d has binding %d twice", s.Ordinal, b.Ordinal)
				}
				seen[b.Ordinal] = true
			}
		}
	}
	return a, nil
}

func parseSetLayout(p *ir.Parser) (SetLayout, error) {
	var s SetLayout
	if err := p.Expect("<"); err != nil {
		return s, err
	}
	n, err := p.ParseInteger()
	if err != nil {
		return s, err
	}
	s.Ordinal = n
	if err := p.Expect(","); err != nil {
		return s, err
	}
	if err := p.ExpectKeyword("bindings"); err != nil {
		return s, err
	}
	if err := p.Expect("="); err != nil {
		return s, err
	}
	if err := p.Expect("["); err != nil {
		return s, err
	}
	if !p.Optional("]") {
		for {
			if err := p.Expect("<"); err != nil {
				return s, err
			}
			o, err := p.ParseInteger()
			if err != nil {
				return s, err
			}
			if err := p.Expect(","); err != nil {
				return s, err
			}
			b, err := parseBindingTail(p)
			if err != nil {
				return s, err
			}
			b.Ordinal = o
			if err := p.Expect(">"); err != nil {
				return s, err
			}
			s.Bindings = append(s.Bindings, b)
			if p.Optional("]") {
				break
			}
			if err := p.Expect(","); err != nil {
				return s, err
			}
		}
	}
	if p.Optional(",") {
		// Optional set flags, e.g. Indirect.
		if _, err := p.ParseKeyword(); err != nil {
			return s, err
		}
	}
	if err := p.Expect(">"); err != nil {
		return s, err
	}
	return s, nil
}

// PipelineBindingAttr is #hal.pipeline.binding<storage_buffer, ReadOnly>.
type PipelineBindingAttr struct{ Binding Binding }

// PrintAttr implements ir.Attribute.
func (a *PipelineBindingAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#hal.pipeline.binding<")
	a.Binding.printTail(w)
	w.WriteString(">")
}

func parsePipelineBinding(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	b, err := parseBindingTail(p)
	if err != nil {
		return nil, err
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return &PipelineBindingAttr{Binding: b}, nil
}

// InterfaceBindingAttr is #hal.interface.binding<set, binding>.
type InterfaceBindingAttr struct{ Set, Binding int64 }

// PrintAttr implements ir.Attribute.
func (a *InterfaceBindingAttr) PrintAttr(w *ir.AsmWriter) {
	fmt.Fprintf(w, "#hal.interface.binding<%d, %d>", a.Set, a.Binding)
}

func parseInterfaceBinding(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	s, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(","); err != nil {
		return nil, err
	}
	b, err := p.ParseInteger()
	if err != nil {
		return nil, err
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return &InterfaceBindingAttr{Set: s, Binding: b}, nil
}

// DescriptorTypeAttr is #hal.descriptor_type<storage_buffer>, used by the
// seed subspan form `type(storage_buffer)`.
type DescriptorTypeAttr struct{ Value string }

// PrintAttr implements ir.Attribute.
func (a DescriptorTypeAttr) PrintAttr(w *ir.AsmWriter) {
	w.WriteString("#hal.descriptor_type<" + a.Value + ">")
}

func parseDescriptorType(p *ir.Parser) (ir.Attribute, error) {
	if err := p.Expect("<"); err != nil {
		return nil, err
	}
	pos := p.Pos()
	k, err := p.ParseKeyword()
	if err != nil {
		return nil, err
	}
	if !descriptorTypes[k] {
		return nil, ir.Errorf(pos, "unknown descriptor type '%s' (expected storage_buffer or uniform_buffer)", k)
	}
	if err := p.Expect(">"); err != nil {
		return nil, err
	}
	return DescriptorTypeAttr{Value: k}, nil
}

func registerAttrs(r *ir.Registry) {
	r.RegisterAttr("hal.executable.target", parseExecutableTarget)
	r.RegisterAttr("hal.device.target", parseDeviceTarget)
	r.RegisterAttr("hal.executable.object", parseExecutableObject)
	r.RegisterAttr("hal.executable.objects", parseExecutableObjects)
	r.RegisterAttr("hal.pipeline.layout", parsePipelineLayout)
	r.RegisterAttr("hal.pipeline.binding", parsePipelineBinding)
	r.RegisterAttr("hal.interface.binding", parseInterfaceBinding)
	r.RegisterAttr("hal.descriptor_type", parseDescriptorType)
}
