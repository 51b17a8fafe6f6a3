package ir

import (
	"strings"
	"testing"
)

// formatsRegistry has test ops written with the shared assembly helpers:
// t.typed `attr-dict : type`, t.cast `%x attr-dict : t1 to t2` and t.ret
// `attr-dict [%a, ... : t, ...]`.
func formatsRegistry() *Registry {
	r := NewRegistry()
	r.RegisterOp(&OpDef{Name: "t.typed",
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			t, _, err := p.ParseAttrDictColonType(op)
			return []Type{t}, err
		},
		Print: func(p *Printer, op *Operation) { p.AttrDictColonType(op, op.Results[0].Type, "hidden") },
	})
	r.RegisterOp(&OpDef{Name: "t.cast",
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			v, err := p.ParseOperand()
			if err != nil {
				return nil, err
			}
			op.Operands = []*Value{v}
			to, err := p.ParseAttrDictTypePair(op, v, "to")
			return []Type{to}, err
		},
		Print: func(p *Printer, op *Operation) {
			p.WriteString(" ")
			p.Operand(op.Operands[0])
			p.AttrDictTypePair(op, op.Operands[0].Type, "to", op.Results[0].Type)
		},
	})
	r.RegisterOp(&OpDef{Name: "t.ret",
		Parse: func(p *Parser, op *Operation) ([]Type, error) {
			if err := p.ParseOptionalAttrDict(op); err != nil {
				return nil, err
			}
			vs, _, err := p.ParseOptionalOperandsColonTypes()
			op.Operands = vs
			return nil, err
		},
		Print: func(p *Printer, op *Operation) {
			p.AttrDict(op)
			p.OperandsColonTypes(op.Operands)
		},
	})
	return r
}

func TestSharedFormats(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"colon type", "%0 = t.typed : i32\n", ""},
		{"colon type with attributes", "%0 = t.typed {a = 1 : i32} : f32\n", ""},
		{"elided attribute", "%0 = t.typed {hidden, b} : f32\n", "%0 = t.typed {b} : f32\n"},
		{"type pair", "%0 = t.typed : i32\n%1 = t.cast %0 {k} : i32 to f32\n", ""},
		{"operands and types", "%0 = t.typed : i32\n%1 = t.typed : f32\nt.ret %0, %1 : i32, f32\n", ""},
		{"no operands", "t.ret {x}\n", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			reg := formatsRegistry()
			m, err := Parse("t.mlir", []byte(c.in), reg)
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			got := PrintModule(m, reg, PrintOptions{})
			want := c.want
			if want == "" {
				want = c.in
			}
			if got != want {
				t.Errorf("printed\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestSharedFormatErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"colon missing", "%0 = t.typed i32", "t.mlir:1:14: error: expected ':'"},
		{"pair source mismatch at the colon", "%0 = t.typed : i32\n%1 = t.cast %0 {k} : f32 to i8",
			"t.mlir:2:20: error: use of value '%0' expects different type than prior uses: 'f32' vs 'i32'"},
		{"pair keyword missing", "%0 = t.typed : i32\n%1 = t.cast %0 : i32 into f32", "t.mlir:2:22: error: expected 'to'"},
		{"operands without types", "%0 = t.typed : i32\nt.ret %0", "t.mlir:2:9: error: expected ':'"},
		{"operand type mismatch at the colon", "%0 = t.typed : i32\nt.ret %0 : f32",
			"t.mlir:2:10: error: use of value '%0' expects different type than prior uses: 'f32' vs 'i32'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.mlir", []byte(c.in), formatsRegistry())
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("error %v, want %q", err, c.want)
			}
		})
	}
}
