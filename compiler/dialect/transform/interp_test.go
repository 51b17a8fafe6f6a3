package transform_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/dialect/transform"
	"github.com/goiree/goiree/compiler/ir"
)

// payload has one chain the spec matches with dynamic shapes, one with
// static shapes (matched up to casts), one whose root matches but whose
// operand chain does not, and one that uses the same value twice.
const payload = `func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<4xf32>, %d: tensor<4xf32>) -> (tensor<?xf32>, tensor<4xf32>, tensor<?xf32>, tensor<?xf32>) {
  %s = arith.addf %a, %b : tensor<?xf32>
  %n = arith.negf %s : tensor<?xf32>
  %s4 = arith.addf %c, %d : tensor<4xf32>
  %n4 = arith.negf %s4 : tensor<4xf32>
  %m = arith.mulf %a, %b : tensor<?xf32>
  %nm = arith.negf %m : tensor<?xf32>
  %t = arith.addf %a, %a : tensor<?xf32>
  %nt = arith.negf %t : tensor<?xf32>
  return %n, %n4, %nm, %nt : tensor<?xf32>, tensor<4xf32>, tensor<?xf32>, tensor<?xf32>
}
`

// spec replaces negf(addf(x, y)) by a call of @neg_add.
const spec = `module attributes {transform.with_named_sequence} {
  util.func private @neg_add(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
    %s = arith.addf %x, %y : tensor<?xf32>
    %n = arith.negf %s : tensor<?xf32>
    util.return %n : tensor<?xf32>
  }
  transform.named_sequence @match(%root: !transform.any_op {transform.readonly}) -> (!transform.any_value, !transform.any_value) {
    %ins, %outs = transform.iree.match.cast_compatible_dag_from_root %root {
      ^bb0(%x: tensor<?xf32>, %y: tensor<?xf32>):
        %s = arith.addf %x, %y : tensor<?xf32>
        %n = arith.negf %s : tensor<?xf32>
    } : (!transform.any_op) -> (!transform.any_value, !transform.any_value)
    transform.yield %ins, %outs : !transform.any_value, !transform.any_value
  }
  transform.named_sequence @rewrite(%ins: !transform.any_value {transform.readonly}, %out: !transform.any_value {transform.readonly}) {
    %root = transform.get_defining_op %out : (!transform.any_value) -> !transform.any_op
    %module = transform.util.get_nearest_symbol_table %root : (!transform.any_op) -> !transform.any_op
    %func = transform.util.import_symbol @neg_add into %module if undefined : (!transform.any_op) -> !transform.any_op
    transform.util.cast_and_call %func(%ins) -> %out after %root {
      transform.type_conversion.tensor.cast_shape_dynamic_dims
    } : (!transform.any_op, !transform.any_value, !transform.any_value, !transform.any_op) -> !transform.any_op
    transform.yield
  }
  transform.named_sequence @__transform_main(%module: !transform.any_op) {
    %funcs = transform.structured.match ops{["util.func"]} in %module : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
      ^bb1(%f: !transform.any_op):
        transform.foreach_match in %f @match -> @rewrite : (!transform.any_op) -> (!transform.any_op)
    }
    transform.apply_dce to %module : !transform.any_op
    transform.yield
  }
}
`

func apply(t *testing.T, specSrc string) (string, error) {
	t.Helper()
	return applyTo(t, payload, specSrc)
}

func applyTo(t *testing.T, payloadSrc, specSrc string) (string, error) {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := ir.Parse("payload.mlir", []byte(payloadSrc), reg)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "spec.mlir")
	if err := os.WriteFile(file, []byte(specSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := transform.ApplyFile(file, m.Op, reg); err != nil {
		return "", err
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("the rewritten program does not verify: %v\n%s", err, ir.PrintModule(m, reg, ir.PrintOptions{}))
	}
	return ir.PrintModule(m, reg, ir.PrintOptions{}), nil
}

func TestApply(t *testing.T) {
	out, err := apply(t, spec)
	if err != nil {
		t.Fatal(err)
	}
	body := out[strings.Index(out, "func.func @f"):]
	body = body[:strings.Index(body, "\n}")]
	for _, want := range []string{
		"util.func private @neg_add(",
		"util.call @neg_add(%a, %b) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>",
		"tensor.cast %c : tensor<4xf32> to tensor<?xf32>",
		"tensor.cast %d : tensor<4xf32> to tensor<?xf32>",
		": tensor<?xf32> to tensor<4xf32>",
		"arith.mulf %a, %b",
		"util.call @neg_add(%a, %a)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The matched adds are dead after the rewrite and gone; the mulf
	// chain is kept, its negf included.
	if n := strings.Count(body, "arith.addf"); n != 0 {
		t.Errorf("%d arith.addf left in @f, want 0:\n%s", n, body)
	}
	if n := strings.Count(body, "arith.negf"); n != 1 {
		t.Errorf("%d arith.negf left in @f, want 1 (of the mulf chain):\n%s", n, body)
	}
	if n := strings.Count(out, "util.func private @neg_add("); n != 1 {
		t.Errorf("@neg_add imported %d times, want once", n)
	}
}

func TestApplyErrors(t *testing.T) {
	for _, tc := range []struct{ name, spec, want string }{
		{"no entry point", strings.Replace(spec, "@__transform_main", "@main", 1), "no transform.named_sequence @__transform_main"},
		{"no attribute", strings.Replace(spec, "module attributes {transform.with_named_sequence}", "module", 1), "lacks the transform.with_named_sequence attribute"},
		{"unknown action", strings.Replace(spec, "@match -> @rewrite", "@match -> @nosuch", 1), "no transform.named_sequence @nosuch in the spec"},
		{"import defined twice", strings.Replace(spec, " if undefined", "", 1), "@neg_add is already defined in the target symbol table"},
		{"unsupported op", strings.Replace(spec, "transform.apply_dce to %module : !transform.any_op", "transform.print %module : !transform.any_op", 1), "custom op 'transform.print' is unknown"},
		{"no conversion", strings.Replace(spec, "transform.type_conversion.tensor.cast_shape_dynamic_dims", "", 1), "cannot convert tensor<4xf32> to tensor<?xf32> for @neg_add"},
	} {
		_, err := apply(t, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// reluPayload has two relu generics whose bodies use a constant defined
// outside them: 0.0 in the first, 1.0 in the second.
const reluPayload = `#id = affine_map<(d0) -> (d0)>
func.func @f(%a: tensor<4xf32>, %e: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %zero : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.maximumf %x, %one : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r, %s : tensor<4xf32>, tensor<4xf32>
}
`

// TestMatchOuterValues checks that a pattern op's region may use a value
// of the pattern defined outside it, matched like an operand: the relu
// with 0.0 is replaced, the one with 1.0 is not.
func TestMatchOuterValues(t *testing.T) {
	reluSpec := strings.NewReplacer(
		"tensor<?xf32>", "tensor<?xf32>",
		`      %s = arith.addf %x, %y : tensor<?xf32>
        %n = arith.negf %s : tensor<?xf32>`, `      %c = arith.constant 0.0 : f32
        %n = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%y : tensor<?xf32>) {
        ^bb0(%i: f32, %o: f32):
          %m = arith.maximumf %i, %c : f32
          linalg.yield %m : f32
        } -> tensor<?xf32>`).Replace(spec)
	out, err := applyTo(t, reluPayload, reluSpec)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "util.call @neg_add("); n != 1 {
		t.Errorf("%d calls, want 1 (the relu with 0.0):\n%s", n, out)
	}
	if !strings.Contains(out, "arith.maximumf %x_0, %one") && !strings.Contains(out, "arith.maximumf %x, %one") {
		t.Errorf("the relu with 1.0 is gone:\n%s", out)
	}
}

// TestInline runs the spec with apply_registered_pass "inline" after the
// rewrite: the calls of @neg_add become its body and the private function,
// left uncalled, goes; other pass names are errors.
func TestInline(t *testing.T) {
	inlined := strings.Replace(spec, "    transform.apply_dce to %module : !transform.any_op\n",
		"    transform.apply_dce to %module : !transform.any_op\n    transform.apply_registered_pass \"inline\" to %module : (!transform.any_op) -> !transform.any_op\n", 1)
	out, err := apply(t, inlined)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "util.call") || strings.Contains(out, "@neg_add") {
		t.Errorf("calls or @neg_add left after inlining:\n%s", out)
	}
	// Three matched chains, each inlined as an add and a negate; the
	// static one between its casts.
	if n := strings.Count(out, "arith.addf"); n != 3 {
		t.Errorf("%d arith.addf after inlining, want 3:\n%s", n, out)
	}
	if n := strings.Count(out, "tensor.cast"); n != 3 {
		t.Errorf("%d tensor.cast after inlining, want 3:\n%s", n, out)
	}
	_, err = apply(t, strings.Replace(inlined, `"inline"`, `"canonicalize"`, 1))
	if err == nil || !strings.Contains(err.Error(), `apply_registered_pass "canonicalize" is not supported`) {
		t.Errorf("canonicalize: error %v, want it named as unsupported", err)
	}
}
