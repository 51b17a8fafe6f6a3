package vulkan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
)

// Math ops of loop-nest bodies beyond the elementwise set. GLSL's builtins
// serve where their results are what the op means on the whole domain;
// Vulkan leaves the precision of sin, cos, tan, exp2 and log2 to the
// device (lavapipe is within 8 ulp on [-4, 4]); atan, whose builtin is
// often far off, is computed here. The rest are helper functions written
// into the shader when used:
// log1p and expm1 with the classic corrections for small arguments, erf
// from a series near zero and a rational approximation elsewhere (within
// a few units in the last place of f32), powers that give the C
// results for negative bases and zeros, which GLSL's pow leaves
// undefined, and arith.remf as C's fmod, exactly (GLSL's mod floors and
// rounds). f16 and bf16 operands compute in f32 (their results are then
// rounded to the type); f64 has only remf and the builtins GLSL defines
// for doubles (sqrt, floor, fma, ...), the rest are refused.

// mathBuiltins are unary float ops that are one GLSL expression.
var mathBuiltins = map[string]string{
	"math.sin": "sin(%s)", "math.cos": "cos(%s)", "math.tan": "tan(%s)",
	"math.exp2": "exp2(%s)", "math.roundeven": "roundEven(%s)",
	"math.isnan": "isnan(%s)", "math.isinf": "isinf(%s)",
	"math.isfinite": "(!isnan(%[1]s) && !isinf(%[1]s))",
	"math.isnormal": "(!isnan(%[1]s) && !isinf(%[1]s) && abs(%[1]s) >= uintBitsToFloat(0x00800000u))",
}

// mathHelpers are the helper functions by op, and their GLSL.
var mathHelpers = map[string]struct{ call, text string }{
	"math.log1p": {"gi_log1p(%s)", log1pGLSL},
	"math.log":   {"gi_log(%s)", log1pGLSL + nearOneGLSL},
	"math.log2":  {"gi_log2(%s)", log1pGLSL + nearOneGLSL},
	"math.log10": {"gi_log10(%s)", log1pGLSL + nearOneGLSL},
	"math.tanh": {"gi_tanh(%s)", `// gi_tanh is Cephes' tanhf: an odd polynomial below 0.625, where
// 1 - 2 / (exp(2|x|) + 1) would cancel (GLSL's tanh, built that way on
// lavapipe, returns 3e-8 for tanh(1e-9)).
float gi_tanh(float x) {
  float a = abs(x);
  if (a < 0.625) {
    float z = x * x;
    return ((((-5.70498872745e-3 * z + 2.06390887954e-2) * z - 5.37397155531e-2) * z + 1.33314422036e-1) * z - 3.33332819422e-1) * z * x + x;
  }
  if (a > 10.0) {
    return sign(x);
  }
  float r = 1.0 - 2.0 / (exp(2.0 * a) + 1.0);
  return x < 0.0 ? -r : r;
}
`},
	"math.expm1": {"gi_expm1(%s)", `float gi_expm1(float x) {
  float u = exp(x);
  if (u == 1.0) {
    return x;
  }
  float um1 = u - 1.0;
  return um1 == -1.0 ? -1.0 : (isinf(u) ? u : um1 * x / log(u));
}
`},
	"math.erf": {"gi_erf(%s)", `float gi_erf(float x) {
  float a = abs(x);
  if (a < 0.5) {
    // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
    float z = x * x;
    return x * (1.1283791671 + z * (-0.3761263890 + z * (0.1128379167 + z * (-0.0268661706 + z * (0.0052239776 - z * 0.0008548327)))));
  }
  if (a >= 4.0) {
    return sign(x);
  }
  // 1 - erfc(a), erfc from Numerical Recipes' Chebyshev fit
  // (relative error below 1.2e-7).
  float t = 1.0 / (1.0 + 0.5 * a);
  float p = -a * a - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277))))))));
  return sign(x) * (1.0 - t * exp(p));
}
`},
	"math.atan":      {"gi_atan(%s)", atanGLSL},
	"arith.remf":     {"gi_fmod(%s, %s)", strings.NewReplacer("FT", "float", "gi_fmodS(", "gi_fmod(").Replace(fmodGLSL)},
	"arith.remf.f64": {"gi_fmod_d(%s, %s)", strings.NewReplacer("FT", "double", "gi_fmodS(", "gi_fmod_d(").Replace(fmodGLSL)},
	"math.atan2": {"gi_atan2(%s, %s)", atanGLSL + `float gi_atan2(float y, float x) {
  const float pi = 3.14159265358979;
  if (isnan(x) || isnan(y)) {
    return x + y;
  }
  bool xneg = floatBitsToUint(x) >> 31 != 0u;
  float r;
  if (isinf(x)) {
    r = isinf(y) ? (xneg ? 0.75 * pi : 0.25 * pi) : (xneg ? pi : 0.0);
  } else if (isinf(y) || x == 0.0) {
    r = y == 0.0 ? (xneg ? pi : 0.0) : 0.5 * pi;
  } else {
    r = gi_atan(abs(y / x));
    if (xneg) {
      r = pi - r;
    }
  }
  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(y) & 0x80000000u));
}
`},
	"math.powf": {"gi_pow(%s, %s)", `float gi_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) {
    return 1.0;
  }
  if (isnan(x) || isnan(y)) {
    return x + y;
  }
  bool odd = floor(y) == y && mod(y, 2.0) == 1.0;
  if (x == 0.0) {
    float z = y < 0.0 ? uintBitsToFloat(0x7f800000u) : 0.0;
    return odd ? (sign(1.0 / x) < 0.0 ? -z : z) : z;
  }
  if (x < 0.0) {
    if (isinf(y)) {
      return abs(x) == 1.0 ? 1.0 : ((abs(x) < 1.0) == (y < 0.0) ? uintBitsToFloat(0x7f800000u) : 0.0);
    }
    if (floor(y) != y) {
      return uintBitsToFloat(0x7fc00000u);
    }
    float r = exp2(y * log2(-x));
    return odd ? -r : r;
  }
  return exp2(y * log2(x));
}
`},
}

// fmodGLSL is gi_fmod (C's fmod, arith.remf) for FT: |x| less the
// largest |y| * 2^k not above it, repeatedly; each subtraction is exact
// (Sterbenz: t <= r < 2t), so the remainder is exact, with x's sign. NaN
// for an infinite x, a zero y or a NaN; x for an infinite y.
const fmodGLSL = `FT gi_fmodS(FT x, FT y) {
  FT ax = abs(x);
  FT ay = abs(y);
  if (isnan(x) || isnan(y) || isinf(x) || ay == FT(0.0)) {
    return FT(uintBitsToFloat(0x7fc00000u));
  }
  if (ax < ay || isinf(y)) {
    return x;
  }
  int ey;
  frexp(ay, ey);
  FT r = ax;
  while (r >= ay) {
    int er;
    frexp(r, er);
    FT t = ldexp(ay, er - ey);
    if (t > r) {
      t = ldexp(ay, er - ey - 1);
    }
    r -= t;
  }
  return x < FT(0.0) ? -r : r;
}
`

// log1pGLSL is gi_log1p: near zero (|x| < 0.25) the series of
// 2 atanh(s), s = x / (2 + x), to the s^10 term (the next is below f32's
// precision); elsewhere log(1 + x) scaled by x / ((1 + x) - 1), which
// corrects the rounding of 1 + x. Not log(1 + x) alone: GLSL's log is
// poor near 1 (lavapipe's log(1 - 2^-23) is 13% off).
const log1pGLSL = `float gi_log1p(float x) {
  if (abs(x) < 0.25) {
    float s = x / (2.0 + x);
    float z = s * s;
    return 2.0 * s * (1.0 + z * (0.33333333333 + z * (0.2 + z * (0.14285714286 + z * (0.11111111111 + z * 0.09090909091)))));
  }
  float u = 1.0 + x;
  return isinf(u) ? u : log(u) * (x / (u - 1.0));
}
`

// nearOneGLSL is gi_log, gi_log2 and gi_log10: within a quarter of 1,
// gi_log1p of x - 1 (exact there), GLSL's log2 scaled elsewhere.
const nearOneGLSL = `float gi_log(float x) {
  return abs(x - 1.0) < 0.25 ? gi_log1p(x - 1.0) : log(x);
}

float gi_log2(float x) {
  return abs(x - 1.0) < 0.25 ? gi_log1p(x - 1.0) * 1.4426950408889634 : log2(x);
}

float gi_log10(float x) {
  return abs(x - 1.0) < 0.25 ? gi_log1p(x - 1.0) * 0.43429448190325182 : log2(x) * 0.30102999566398120;
}
`

// atanGLSL is gi_atan, Cephes' atanf: the argument is reduced to
// [0, tan(pi/8)] by atan(a) = pi/2 - atan(1/a) and pi/4 + atan((a-1)/(a+1)),
// then an odd polynomial; within 2 ulp of f32. GLSL's atan may be far
// less precise (Vulkan allows 4096 ulp; lavapipe is off by up to 200).
const atanGLSL = `float gi_atan(float x) {
  float a = abs(x);
  float y = 0.0;
  if (a > 2.414213562373095) {
    y = 1.5707963267948966;
    a = -1.0 / a;
  } else if (a > 0.4142135623730950) {
    y = 0.7853981633974483;
    a = (a - 1.0) / (a + 1.0);
  }
  float z = a * a;
  float r = y + ((((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * a + a);
  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));
}
`

// mathOp translates the math ops above; ok is false for other ops.
func (g *scalarGen) mathOp(op *ir.Operation, rk, ak elemKind, a []string) (string, bool, error) {
	name := op.Name
	if name == "arith.remf" {
		if len(a) != 2 || ak.value != "float" && ak.value != "double" {
			return "", true, ir.OpErrorf(op, "'%s' takes two float operands", name)
		}
		h := "arith.remf"
		if ak.value == "double" {
			h = "arith.remf.f64"
		}
		g.helpers[h] = true
		return fmt.Sprintf(mathHelpers[h].call, a[0], a[1]), true, nil
	}
	if f, ok := mathBuiltins[name]; ok || mathHelpers[name].call != "" {
		if ak.value != "float" || len(a) != mathArity(name) {
			return "", true, ir.OpErrorf(op, "'%s' takes %d f16, bf16 or f32 operand(s) in vulkan-spirv code generation (GLSL has no double-precision version)", name, mathArity(name))
		}
		if h, ok := mathHelpers[name]; ok {
			g.helpers[name] = true
			f = h.call
		}
		args := make([]any, len(a))
		for i, x := range a {
			args[i] = x
		}
		return fmt.Sprintf(f, args...), true, nil
	}
	switch name {
	case "math.copysign":
		if len(a) != 2 || ak.value != "float" {
			return "", true, ir.OpErrorf(op, "'%s' takes two f16, bf16 or f32 operands", name)
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
		if len(a) != 2 || ak.value != "float" {
			return "", true, ir.OpErrorf(op, "'%s' takes an f16, bf16 or f32 and an i32 operand", name)
		}
		g.helpers["math.powf"] = true
		return fmt.Sprintf("gi_pow(%s, float(%s))", a[0], a[1]), true, nil
	}
	return "", false, nil
}

func mathArity(name string) int {
	if name == "math.powf" || name == "math.atan2" {
		return 2
	}
	return 1
}

// helperText is the GLSL of the helpers the body uses, in a fixed order,
// each function once (atan2 brings atan).
func (g *scalarGen) helperText() string {
	var names []string
	for n := range g.helpers {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	written := map[string]bool{}
	for _, n := range names {
		for _, fn := range strings.SplitAfter(mathHelpers[n].text, "\n}\n") {
			if fn != "" && !written[fn] {
				written[fn] = true
				b.WriteString(fn)
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}
