package vulkan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// Math ops of loop-nest bodies and elementwise dispatches. Every float
// op that rounds is a helper function written into the shader when used
// (mathf32.go, mathf64.go), in plain arithmetic: none calls a GLSL
// transcendental builtin, whose precision Vulkan leaves to the driver
// (and which GLSL does not define for doubles), and f32 division, sqrt
// and rsqrt do not take the builtin's result as it is (Vulkan allows
// 2.5 ulp for division). math.fma is emulated too: GLSL's fma need not
// be fused (lavapipe's is not). The f32 functions are within 1 ulp of
// the exact result on their whole domain (infinities, NaNs, signed
// zeros, subnormals and, for sin, cos and tan, huge arguments), division
// and sqrt correctly rounded; the f64 functions within 1 ulp but expm1,
// pow and tanh (2). TestMathAccuracy holds each to its bound over edge
// cases and random bit patterns, against Go's math package for f32 and
// mpmath for f64. f16 and bf16 operands compute in f32 and round the
// result to their type. f64 division and sqrt are GLSL's own (correctly
// rounded on lavapipe; Vulkan bounds double operations only as tightly
// as their f32 counterparts). Exact ops (roundEven, the
// classifications, copysign, bit counts) are GLSL expressions.

// mathBuiltins are unary float ops that are one exact GLSL expression.
var mathBuiltins = map[string]string{
	"math.roundeven": "roundEven(%s)",
	"math.isnan":     "isnan(%s)", "math.isinf": "isinf(%s)",
	"math.isfinite": "(!isnan(%[1]s) && !isinf(%[1]s))",
	"math.isnormal": "(!isnan(%[1]s) && !isinf(%[1]s) && abs(%[1]s) >= uintBitsToFloat(0x00800000u))",
}

// floatFuncs are the float ops computed by helper functions: the helper
// for f32 (f16 and bf16 too) and for f64, "" where f64 uses GLSL's own
// operation (expression in glsl.go), and the op's operand count.
var floatFuncs = map[string]struct {
	f32, f64 string
	arity    int
}{
	"arith.divf": {"gi_div", "", 2}, "math.sqrt": {"gi_sqrt", "", 1}, "math.rsqrt": {"gi_rsqrt", "gi_rsqrt_d", 1},
	"math.fma": {"gi_fma", "gi_fma_d", 3}, "arith.remf": {"gi_fmod", "gi_fmod_d", 2},
	"math.exp": {"gi_exp", "gi_exp_d", 1}, "math.exp2": {"gi_exp2", "gi_exp2_d", 1}, "math.expm1": {"gi_expm1", "gi_expm1_d", 1},
	"math.log": {"gi_log", "gi_log_d", 1}, "math.log2": {"gi_log2", "gi_log2_d", 1}, "math.log10": {"gi_log10", "gi_log10_d", 1},
	"math.log1p": {"gi_log1p", "gi_log1p_d", 1}, "math.powf": {"gi_pow", "gi_pow_d", 2},
	"math.sin": {"gi_sin", "gi_sin_d", 1}, "math.cos": {"gi_cos", "gi_cos_d", 1}, "math.tan": {"gi_tan", "gi_tan_d", 1},
	"math.atan": {"gi_atan", "gi_atan_d", 1}, "math.atan2": {"gi_atan2", "gi_atan2_d", 2},
	"math.tanh": {"gi_tanh", "gi_tanh_d", 1}, "math.erf": {"gi_erf", "gi_erf_d", 1},
}

// glslFuncOf is the helper function name, from either library.
func glslFuncOf(name string) (glslFunc, bool) {
	if f, ok := f32Funcs[name]; ok {
		return f, true
	}
	f, ok := f64Funcs[name]
	return f, ok
}

// fmodGLSL is gi_fmod (C's fmod, arith.remf) for FT: |x| less the
// largest |y| * 2^k not above it, repeatedly; each subtraction is exact
// (Sterbenz: t <= r < 2t), so the remainder is exact, with x's sign. NaN
// for an infinite x, a zero y or a NaN; x for an infinite y. frexp and
// ldexp see only normal values (devices differ on subnormals): a
// subnormal y first reduces x by y 2^SCALE (a multiple of y), then both
// are scaled up by 2^SCALE and the remainder back down, all exactly.
const fmodGLSL = `FT gi_fmodR(FT r, FT ay) {
  int ey;
  frexp(ay, ey);
  while (r >= ay) {
    int er;
    frexp(r, er);
    FT t = ldexp(ay, er - ey);
    if (t > r) {
      t = ldexp(ay, er - ey - 1);
    }
    r -= t;
  }
  return r;
}

FT gi_fmodS(FT x, FT y) {
  FT ax = abs(x);
  FT ay = abs(y);
  if (isnan(x) || isnan(y) || isinf(x) || ay == FT(0.0)) {
    return FT(uintBitsToFloat(0x7fc00000u));
  }
  if (ax < ay || isinf(y)) {
    return x;
  }
  FT r = ax;
  if (ay < MINNORMAL) {
    FT s = ay * TWOSCALE;
    r = gi_fmodR(r, s) * TWOSCALE;
    r = gi_fmodR(r, s) * INVSCALE;
  } else {
    r = gi_fmodR(r, ay);
  }
  return x < FT(0.0) ? -r : r;
}
`

// mathOp translates the math ops above; ok is false for other ops.
func (g *scalarGen) mathOp(op *ir.Operation, rk, ak elemKind, a []string) (string, bool, error) {
	name := op.Name
	if f, ok := floatFuncs[name]; ok {
		if ak.value != "float" && ak.value != "double" || len(a) != f.arity {
			return "", true, ir.OpErrorf(op, "'%s' takes %d float operand(s)", name, f.arity)
		}
		fn := f.f32
		if fn == "gi_div" && g.fusedFMA {
			fn = "gi_divf"
		}
		if ak.value == "double" {
			if fn = f.f64; fn == "" {
				return "", false, nil
			}
		}
		g.helpers[fn] = true
		if ak.value == "float" {
			g.needs.denorms = true
		}
		return fn + "(" + strings.Join(a, ", ") + ")", true, nil
	}
	if f, ok := mathBuiltins[name]; ok {
		if ak.value != "float" && ak.value != "double" || len(a) != 1 {
			return "", true, ir.OpErrorf(op, "'%s' takes one float operand", name)
		}
		if ak.value == "double" && name == "math.isnormal" {
			f = "(!isnan(%[1]s) && !isinf(%[1]s) && abs(%[1]s) >= 2.2250738585072014e-308LF)"
		}
		return fmt.Sprintf(f, a[0]), true, nil
	}
	switch name {
	case "math.copysign":
		if len(a) != 2 || ak.value != "float" && ak.value != "double" {
			return "", true, ir.OpErrorf(op, "'%s' takes two float operands", name)
		}
		if ak.value == "double" {
			return fmt.Sprintf("packDouble2x32(uvec2(unpackDouble2x32(%[1]s).x, (unpackDouble2x32(%[1]s).y & 0x7fffffffu) | (unpackDouble2x32(%[2]s).y & 0x80000000u)))", a[0], a[1]), true, nil
		}
		return fmt.Sprintf("uintBitsToFloat((floatBitsToUint(%s) & 0x7fffffffu) | (floatBitsToUint(%s) & 0x80000000u))", a[0], a[1]), true, nil
	case "math.ctpop", "math.ctlz", "math.cttz":
		if len(a) != 1 || ak.value != "int" || ak.bits != 32 {
			return "", true, ir.OpErrorf(op, "'%s' takes one i32 operand in vulkan-spirv code generation", name)
		}
		f := map[string]string{
			"math.ctpop": "bitCount(%[1]s)",
			"math.ctlz":  "(%[1]s == 0 ? 32 : 31 - findMSB(uint(%[1]s)))",
			"math.cttz":  "(%[1]s == 0 ? 32 : findLSB(%[1]s))",
		}[name]
		return fmt.Sprintf(f, a[0]), true, nil
	case "math.fpowi":
		if len(a) != 2 || ak.value != "float" && ak.value != "double" {
			return "", true, ir.OpErrorf(op, "'%s' takes a float and an i32 operand", name)
		}
		fn := "gi_powi"
		if ak.value == "double" {
			fn = "gi_powi_d"
		}
		g.helpers[fn] = true
		return fmt.Sprintf("%s(%s, int(%s))", fn, a[0], a[1]), true, nil
	}
	return "", false, nil
}

// helperText is the GLSL of the helpers the body uses, each after the
// helpers it calls, in a fixed order.
func (g *scalarGen) helperText() string {
	var names []string
	for n := range g.helpers {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	written := map[string]bool{}
	var write func(string)
	write = func(n string) {
		if written[n] {
			return
		}
		written[n] = true
		f, _ := glslFuncOf(n)
		for _, d := range f.deps {
			write(d)
		}
		b.WriteString(f.src)
		b.WriteString("\n")
	}
	for _, n := range names {
		write(n)
	}
	return b.String()
}
