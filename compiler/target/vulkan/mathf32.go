package vulkan

import "strings"

// The f32 math library of generated shaders: every function is written
// out here in plain float and integer arithmetic, none calls a GLSL
// transcendental builtin, so results do not depend on the driver's
// precision (Vulkan allows exp and pow 3 + 2|x| ulp, division 2.5 ulp,
// inversesqrt 2 ulp, and lavapipe's log is 13% off near 1).
//
// Two device behaviours shape the code. GLSL's fma need not be fused
// (lavapipe's is a multiply and an add), so nothing relies on it but the
// division for devices known to fuse it (gi_divf, Device.FusedFMA):
// exact products use Dekker's split into 12-bit halves (gi_mulerr), whose
// partial products are exact in any rounding of the sum. And a compiler
// may contract a * b + c into an fma where the code means two roundings:
// variables whose error terms must come out exactly are declared precise
// (SPIR-V's NoContraction).
//
// Division and square root are correctly rounded: a first quotient (root)
// from the builtin is corrected once in float, which leaves it within
// about an ulp, and then its last bit is decided in integers, where the
// remainder of the significands is exact in 32 bits (gi_div, gi_sqrt).
// A subnormal quotient is rounded to its grid from the bits the
// significand quotient drops and its exact remainder (64-bit compare).
//
// Shaders ask for DenormPreserve, but a device need not offer it:
// NVIDIA's driver does not (shaderDenormPreserveFloat32 is false on the
// H200; the Vulkan driver drops the mode there, as Vulkan requires) and
// flushes f32 subnormals in arithmetic. Helpers take subnormal
// operands apart in integers (gi_mant), so that only results that are
// themselves subnormal come out flushed there.

// f32fmod is gi_fmod for f32.
var f32fmod = strings.NewReplacer("FT", "float", "gi_fmodS(", "gi_fmod(", "MINNORMAL", "uintBitsToFloat(0x00800000u)",
	"TWOSCALE", "4294967296.0", "INVSCALE", "2.32830644e-10").Replace(fmodGLSL)

// glslFunc is one GLSL helper function and the helpers it calls.
type glslFunc struct {
	deps []string
	src  string
}

// f32Funcs are the f32 helpers by name.
var f32Funcs = map[string]glslFunc{
	"gi_fmod": {src: f32fmod},
	// gi_scale is p * 2^k for p in [0.5, 4), rounded once: the first
	// factor keeps the product normal (so it is exact), the second
	// rounds it into the subnormals or to infinity.
	"gi_scale": {src: `float gi_scale(float p, int k) {
  k = clamp(k, -300, 300);
  int k1 = clamp(k, -125, 127);
  int k2 = clamp(k - k1, -126, 127);
  precise float r = p * uintBitsToFloat(uint(k1 + 127) << 23);
  precise float y = r * uintBitsToFloat(uint(k2 + 127) << 23);
  return y;
}
`},
	// gi_mulerr is a * b - p exactly for p = a * b rounded (Dekker),
	// unless the error term underflows or a product overflows.
	"gi_mulerr": {src: `float gi_mulerr(float a, float b, float p) {
  precise float ah = uintBitsToFloat(floatBitsToUint(a) & 0xfffff000u);
  precise float al = a - ah;
  precise float bh = uintBitsToFloat(floatBitsToUint(b) & 0xfffff000u);
  precise float bl = b - bh;
  precise float e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return e;
}
`},
	// gi_mant is |x| as m 2^e with m in [1, 2), for finite nonzero x.
	// Subnormals are normalized in integers: float arithmetic on them
	// may see zero (NVIDIA's Vulkan driver flushes f32 subnormals; it
	// does not offer shaderDenormPreserveFloat32).
	"gi_mant": {src: `float gi_mant(float x, out int e) {
  uint u = floatBitsToUint(x) & 0x7fffffffu;
  if (u < 0x00800000u) {
    int p = findMSB(u);
    u <<= uint(23 - p);
    e = p - 149;
  } else {
    e = int(u >> 23) - 127;
  }
  return uintBitsToFloat((u & 0x007fffffu) | 0x3f800000u);
}
`},
	// gi_div is a / b correctly rounded (see the file comment). With
	// the significands A, B and Q of a, b and the quotient q (within an
	// ulp after one correction), R = A 2^s - Q B, s = 23 or 24 by the
	// exponents, is the exact remainder in units where an ulp of q is B,
	// small enough for 32-bit wrapping arithmetic, and q moves one ulp
	// when the quotient is past the midpoint (half as far below a power
	// of two). gi_divw takes the operands and quotients that are not
	// normal: zeros, infinities and NaNs follow IEEE division without
	// dividing, the rest divide their significands and scale.
	"gi_div": {deps: []string{"gi_divw"}, src: `float gi_div(float a, float b) {
  precise float q = a / b;
  precise float r = a - q * b;
  q = q + r / b;
  uint ua = floatBitsToUint(a);
  uint ub = floatBitsToUint(b);
  uint qb = floatBitsToUint(q);
  int ea = int((ua >> 23) & 0xffu);
  int eb = int((ub >> 23) & 0xffu);
  int eq = int((qb >> 23) & 0xffu);
  int s = ea - eb - eq + 150;
  if (ea == 0 || ea == 255 || eb == 0 || eb == 255 || eq == 0 || eq >= 254 || (s != 23 && s != 24)) {
    return gi_divw(a, b);
  }
  uint A = ua & 0x007fffffu | 0x00800000u;
  uint B = ub & 0x007fffffu | 0x00800000u;
  uint Q = qb & 0x007fffffu | 0x00800000u;
  int R = int((A << s) - Q * B);
  if (2 * R > int(B)) {
    qb += 1u;
  } else if ((Q == 0x00800000u ? -4 * R : -2 * R) > int(B)) {
    qb -= 1u;
  }
  return uintBitsToFloat(qb);
}
`},
	// gi_divf is gi_div on devices whose fma rounds once
	// (Device.FusedFMA), in CUDA's div.rn.f32 sequence: the builtin's
	// reciprocal refined by one Newton step, the quotient from it, then
	// two corrections by the exact remainder a - b q (an fma), the second
	// of which rounds correctly (Markstein). The remainders are exact and
	// nothing overflows or underflows while a, b and q keep away from the
	// ends of the exponent range: a from 2^-77 (below, a remainder can be
	// subnormal, which NVIDIA's driver flushes to zero: 2 of 2248
	// quotients came out an ulp off with a from 2^-102), b's reciprocal
	// and q normal. Elsewhere (zeros, subnormals, infinities, NaNs, huge
	// values) gi_divw decides. Where b is the same for many
	// quotients (softmax's row sum) the compiler hoists the reciprocal,
	// leaving five operations a quotient against gi_div's two divisions
	// and integer rounding.
	"gi_divf": {deps: []string{"gi_divw"}, src: `float gi_divf(float a, float b) {
  precise float y = 1.0 / b;
  y = fma(fma(-b, y, 1.0), y, y);
  precise float q = a * y;
  precise float e = fma(-b, q, a);
  q = fma(e, y, q);
  e = fma(-b, q, a);
  q = fma(e, y, q);
  uint ea = (floatBitsToUint(a) >> 23) & 0xffu;
  uint eb = (floatBitsToUint(b) >> 23) & 0xffu;
  uint eq = (floatBitsToUint(q) >> 23) & 0xffu;
  if (ea - 50u > 203u || eb - 1u > 251u || eq - 2u > 251u) {
    return gi_divw(a, b);
  }
  return q;
}
`},
	"gi_divw": {deps: []string{"gi_mant", "gi_scale"}, src: `float gi_divw(float a, float b) {
  uint s = (floatBitsToUint(a) ^ floatBitsToUint(b)) & 0x80000000u;
  if (isnan(a) || isnan(b) || (isinf(a) && isinf(b)) || (a == 0.0 && b == 0.0)) {
    return uintBitsToFloat(0x7fc00000u);
  }
  if (isinf(a) || b == 0.0) {
    return uintBitsToFloat(s | 0x7f800000u);
  }
  if (a == 0.0 || isinf(b)) {
    return uintBitsToFloat(s);
  }
  int ea, eb;
  float ma = gi_mant(a, ea);
  float mb = gi_mant(b, eb);
  precise float q = ma / mb;
  precise float r = ma - q * mb;
  q = min(q + r / mb, 1.99999988);
  uint qb = floatBitsToUint(q);
  uint A = floatBitsToUint(ma) & 0x007fffffu | 0x00800000u;
  uint B = floatBitsToUint(mb) & 0x007fffffu | 0x00800000u;
  uint Q = qb & 0x007fffffu | 0x00800000u;
  int R = int((A << (q >= 1.0 ? 23 : 24)) - Q * B);
  if (2 * R > int(B)) {
    qb += 1u;
  } else if ((Q == 0x00800000u ? -4 * R : -2 * R) > int(B)) {
    qb -= 1u;
  }
  int j = uintBitsToFloat(qb) >= 1.0 ? 0 : -1;
  int d = eb - ea - j - 126;
  if (d >= 1) {
    if (d >= 25) {
      return uintBitsToFloat(s);
    }
    uint Qn = qb & 0x007fffffu | 0x00800000u;
    int Rn = int((A << (23 - j)) - Qn * B);
    uint H = Qn >> d;
    uint L = Qn & ((1u << d) - 1u);
    uint mh, ml, c;
    umulExtended(L, B, mh, ml);
    uint tl = uaddCarry(ml, uint(Rn), c);
    uint th = mh + c + (Rn < 0 ? 0xffffffffu : 0u);
    uint dh = (th << 1) | (tl >> 31);
    uint dl = tl << 1;
    uint bh = B >> (32 - d);
    uint bl = B << d;
    bool up = int(th) >= 0 && (dh > bh || (dh == bh && (dl > bl || (dl == bl && (H & 1u) != 0u))));
    return uintBitsToFloat((H + (up ? 1u : 0u)) | s);
  }
  return uintBitsToFloat(floatBitsToUint(gi_scale(uintBitsToFloat(qb), ea - eb)) | s);
}
`},
	// gi_sqrt is sqrt(x) correctly rounded: for x = m 4^k with m in
	// [1, 4), s = sqrt(m) corrected once, then with M = m 2^23 and
	// S = s 2^23 the remainder R = M 2^23 - S^2 is exact in 32 bits and
	// the midpoints (S +- 1/2)^2 are R > S and R <= -S.
	"gi_sqrt": {deps: []string{"gi_mant", "gi_scale"}, src: `float gi_sqrt(float x) {
  if (isnan(x) || x < 0.0) {
    return uintBitsToFloat(0x7fc00000u);
  }
  if (x == 0.0 || isinf(x)) {
    return x;
  }
  int e;
  float m = gi_mant(x, e);
  if ((e & 1) != 0) {
    m *= 2.0;
    e -= 1;
  }
  precise float s = sqrt(m);
  precise float r = m - s * s;
  s = clamp(s + r * 0.5 / s, 1.0, 1.99999988);
  uint sb = floatBitsToUint(s);
  uint S = sb & 0x007fffffu | 0x00800000u;
  uint M = uint(m * 8388608.0);
  int R = int((M << 23) - S * S);
  if (R > int(S)) {
    sb += 1u;
  } else if (R <= -int(S)) {
    sb -= 1u;
  }
  return gi_scale(uintBitsToFloat(sb), e / 2);
}
`},
	// gi_rsqrt is 1 / sqrt(x) from the correctly rounded root and
	// quotient: within an ulp.
	"gi_rsqrt": {deps: []string{"gi_div", "gi_sqrt"}, src: `float gi_rsqrt(float x) {
  return gi_div(1.0, gi_sqrt(x));
}
`},
	// gi_fma is a * b + c without relying on a fused fma: the exact
	// product as p + pe, Knuth's two-sum of p and c, and the error terms
	// added last (correct but in rare near-ties, within an ulp). A
	// product too small for its error term to be exact is scaled up by
	// 2^64 with c (and the result back down) unless c alone decides the
	// sum.
	"gi_fma": {deps: []string{"gi_mulerr"}, src: `float gi_fmac(float a, float b, float c) {
  precise float p = a * b;
  precise float pe = gi_mulerr(a, b, p);
  precise float s = p + c;
  precise float v = s - p;
  precise float se = (p - (s - v)) + (c - v);
  precise float y = s + (se + pe);
  return isinf(s) ? s : y;
}

float gi_fma(float a, float b, float c) {
  precise float p = a * b;
  if (isinf(p) || isnan(p) || isinf(c) || isnan(c)) {
    precise float y = p + c;
    return y;
  }
  if (abs(p) < 1e-30) {
    if (abs(c) >= 1e-20 || a == 0.0 || b == 0.0) {
      precise float y = p + c;
      return y;
    }
    return (abs(a) < abs(b) ? gi_fmac(a * 18446744073709551616.0, b, c * 18446744073709551616.0) : gi_fmac(a, b * 18446744073709551616.0, c * 18446744073709551616.0)) * 5.42101086e-20;
  }
  return gi_fmac(a, b, c);
}
`},
	// gi_expp is e^r for |r| <= 0.36: its Taylor series to r^7, the
	// small part summed first so that the last addition rounds once.
	"gi_expp": {src: `float gi_expp(float r) {
  precise float y = 1.0 + (r + r * r * (0.5 + r * (0.166666672 + r * (0.0416666679 + r * (0.00833333377 + r * (0.00138888892 + r * 0.000198412701))))));
  return y;
}
`},
	// gi_exp: x = k ln2 + r (k the integer nearest x log2(e), found by
	// adding 1.5 * 2^23, whose low bits then hold k: no conversion
	// instructions, which run at a fraction of the arithmetic rate; ln2
	// in a 12-bit part, whose product with k is exact, and the rest),
	// e^r by its Taylor polynomial to r^7 in fma steps (as the cuda
	// target computes it), times 2^(k/2) and 2^(k - k/2): the first
	// product is exact and the second rounds once, into the subnormals
	// too. No branches and few operations: softmax is
	// exp's hot path, where the earlier form (the polynomial in precise
	// multiplies and adds, which the compiler may not fuse, and a
	// scaling with clamps) made a row softmax take 1.5 times as long on
	// NVIDIA's Vulkan driver. The reduction stays in precise multiplies
	// and subtractions: written with fma, lavapipe computed it off by up
	// to 61 ulp. Within 1 ulp.
	"gi_exp": {deps: []string{"gi_exppf", "gi_scale2"}, src: `float gi_exp(float x) {
  float xc = clamp(x, -104.0, 89.0);
  precise float kf = xc * 1.44269502 + 12582912.0;
  precise float k = kf - 12582912.0;
  precise float r = (xc - k * 0.693115234) - k * 3.19461833e-05;
  float y = gi_scale2(gi_exppf(r), floatBitsToInt(kf) - 0x4b400000);
  return isnan(x) ? x : y;
}
`},
	"gi_exp2": {deps: []string{"gi_exp2pf", "gi_scale2"}, src: `float gi_exp2(float x) {
  float xc = clamp(x, -151.0, 128.0);
  precise float kf = xc + 12582912.0;
  precise float k = kf - 12582912.0;
  float y = gi_scale2(gi_exp2pf(xc - k), floatBitsToInt(kf) - 0x4b400000);
  return isnan(x) ? x : y;
}
`},
	// gi_exppf is e^r for |r| <= 0.35 by its Taylor polynomial to r^7 in
	// fma steps; gi_exp2pf is 2^r for |r| <= 0.5 by the same polynomial
	// in r ln2 (its coefficients scaled by powers of ln2).
	"gi_exppf": {src: `float gi_exppf(float r) {
  precise float p = fma(0.000198412701, r, 0.00138888892);
  p = fma(p, r, 0.00833333377);
  p = fma(p, r, 0.0416666679);
  p = fma(p, r, 0.166666672);
  p = fma(p, r, 0.5);
  p = fma(p, r, 1.0);
  p = fma(p, r, 1.0);
  return p;
}
`},
	"gi_exp2pf": {src: `float gi_exp2pf(float r) {
  precise float p = fma(1.5252734e-05, r, 0.0001540353);
  p = fma(p, r, 0.0013333558);
  p = fma(p, r, 0.009618129);
  p = fma(p, r, 0.05550411);
  p = fma(p, r, 0.2402265);
  p = fma(p, r, 0.6931472);
  p = fma(p, r, 1.0);
  return p;
}
`},
	// gi_scale2 is p 2^k for p in [0.5, 2] and k in [-151, 128] (the
	// clamped exponents of exp and exp2): 2^(k/2) exactly, then
	// 2^(k - k/2), rounding once.
	"gi_scale2": {src: `float gi_scale2(float p, int k) {
  int k1 = k >> 1;
  precise float r = p * uintBitsToFloat(uint(k1 + 127) << 23);
  precise float y = r * uintBitsToFloat(uint(k - k1 + 127) << 23);
  return y;
}
`},
	// gi_expm1: e^x - 1 = 2^k (1 + p) - 1 with p = e^r - 1 by its
	// series; 2^k (1 + p) is kept as a sum of two floats so that
	// subtracting 1 loses nothing.
	"gi_expm1": {src: `float gi_expm1(float x) {
  if (isnan(x) || x > 88.8) {
    return x > 88.8 ? uintBitsToFloat(0x7f800000u) : x;
  }
  if (x < -25.0) {
    return -1.0;
  }
  float k = roundEven(x * 1.44269502);
  precise float r = (x - k * 0.693115234) - k * 3.19461833e-05;
  precise float p = r + r * r * (0.5 + r * (0.166666672 + r * (0.0416666679 + r * (0.00833333377 + r * (0.00138888892 + r * (0.000198412701 + r * 2.48015876e-05))))));
  if (k == 0.0) {
    return abs(x) < 1e-30 ? x : p;
  }
  precise float h = 1.0 + p;
  precise float l = p - (h - 1.0);
  int ki = int(k);
  float t1 = uintBitsToFloat(uint((ki >> 1) + 127) << 23);
  float t2 = uintBitsToFloat(uint(ki - (ki >> 1) + 127) << 23);
  precise float H = h * t1 * t2;
  precise float S = H - 1.0;
  precise float bb = S - H;
  precise float e = (H - (S - bb)) + (-1.0 - bb);
  precise float y = S + (e + l * t1 * t2);
  return isinf(H) ? H : y;
}
`},
	// gi_logk splits finite x > 0 as 2^e (1 + f), f in [sqrt(1/2) - 1,
	// sqrt(2) - 1), and gives log(1 + f) = f - h + t with h = f^2 / 2:
	// t = s (h + R(s^2)), s = f / (2 + f), R from the series of
	// 2 atanh(s) (fdlibm's arrangement, which leaves the division's
	// error in the small term t only).
	"gi_logk": {src: `float gi_logk(float x, out float e, out float h, out float t) {
  bool sub = x < 1.17549435e-38;
  uint u = floatBitsToUint(sub ? x * 16777216.0 : x) + 0x004afb0du;
  e = float(int(u >> 23) - (sub ? 151 : 127));
  float f = uintBitsToFloat((u & 0x007fffffu) + 0x3f3504f3u) - 1.0;
  float s = f / (2.0 + f);
  float z = s * s;
  h = 0.5 * f * f;
  t = s * (h + z * (0.666666687 + z * (0.400000006 + z * (0.285714298 + z * (0.222222224 + z * 0.181818187)))));
  return f;
}
`},
	// gi_logsp is y, the log of x where x is finite and positive, and
	// log's IEEE value elsewhere.
	"gi_logsp": {src: `float gi_logsp(float x, float y) {
  if (isnan(x) || x < 0.0) {
    return uintBitsToFloat(0x7fc00000u);
  }
  return x == 0.0 ? uintBitsToFloat(0xff800000u) : (isinf(x) ? x : y);
}
`},
	"gi_log": {deps: []string{"gi_logk", "gi_logsp"}, src: `float gi_log(float x) {
  float e, h, t;
  float f = gi_logk(x, e, h, t);
  precise float y = e * 0.693115234 - ((h - (t + e * 3.19461833e-05)) - f);
  return gi_logsp(x, y);
}
`},
	// gi_log2 and gi_log10 multiply log(1 + f) = hi + lo, hi of 12
	// bits, by a 12-bit part of the constant and the rest, and add e
	// (times log10(2)) last as a sum of two floats.
	"gi_log2": {deps: []string{"gi_logk", "gi_logsp"}, src: `float gi_log2(float x) {
  float e, h, t;
  float f = gi_logk(x, e, h, t);
  precise float hi = uintBitsToFloat(floatBitsToUint(f - h) & 0xfffff000u);
  precise float lo = ((f - hi) - h) + t;
  precise float vhi = hi * 1.44287109;
  precise float vlo = (lo + hi) * -0.000176052854 + lo * 1.44287109;
  precise float w = e + vhi;
  precise float y = (vlo + ((e - w) + vhi)) + w;
  return gi_logsp(x, y);
}
`},
	"gi_log10": {deps: []string{"gi_logk", "gi_logsp"}, src: `float gi_log10(float x) {
  float e, h, t;
  float f = gi_logk(x, e, h, t);
  precise float hi = uintBitsToFloat(floatBitsToUint(f - h) & 0xfffff000u);
  precise float lo = ((f - hi) - h) + t;
  precise float vhi = hi * 0.434326172;
  precise float vlo = (lo + hi) * -3.16899714e-05 + lo * 0.434326172;
  precise float y2 = e * 0.301025391;
  precise float w = y2 + vhi;
  precise float y = ((vlo + e * 4.60503907e-06) + ((y2 - w) + vhi)) + w;
  return gi_logsp(x, y);
}
`},
	// gi_log1p: u = 1 + x and its rounding error c exactly (two-sum),
	// log(1 + x) = log(u) + c / u.
	"gi_log1p": {deps: []string{"gi_logk", "gi_logsp"}, src: `float gi_log1p(float x) {
  precise float u = 1.0 + x;
  precise float bb = u - 1.0;
  precise float c = (1.0 - (u - bb)) + (x - bb);
  float e, h, t;
  float f = gi_logk(u, e, h, t);
  precise float y = e * 0.693115234 - ((h - (t + (e * 3.19461833e-05 + c / u))) - f);
  return x == 0.0 ? x : gi_logsp(u, y);
}
`},
	// gi_powp is x^y for finite x > 0 and finite y: log2(x) as a sum
	// of two floats (good to about 2^-36), y times it as another
	// (Dekker's product), and 2 to that.
	"gi_powp": {deps: []string{"gi_logk", "gi_mulerr", "gi_expp", "gi_scale"}, src: `float gi_powp(float x, float y) {
  float e, h, t;
  float f = gi_logk(x, e, h, t);
  precise float hi = uintBitsToFloat(floatBitsToUint(f - h) & 0xfffff000u);
  precise float ff = f * f;
  precise float hl = 0.5 * gi_mulerr(f, f, ff);
  precise float lo = (((f - hi) - h) - hl) + t;
  precise float vhi = hi * 1.44287109;
  precise float vlo = (lo + hi) * -0.000176052854 + lo * 1.44287109;
  precise float lhi = e + vhi;
  precise float llo = ((e - lhi) + vhi) + vlo;
  precise float ph = y * lhi;
  if (!(abs(ph) < 256.0)) {
    return ph > 0.0 ? uintBitsToFloat(0x7f800000u) : 0.0;
  }
  precise float pl = gi_mulerr(y, lhi, ph) + y * llo;
  precise float w = ph + pl;
  precise float wl = pl - (w - ph);
  float k = roundEven(w);
  return gi_scale(gi_expp(((w - k) + wl) * 0.693147182), int(k));
}
`},
	// gi_pow is C's powf: the special cases of zeros, infinities, NaNs
	// and negative bases (integer exponents only), which GLSL's pow
	// leaves undefined, around gi_powp.
	"gi_pow": {deps: []string{"gi_powp"}, src: `float gi_pow(float x, float y) {
  if (y == 0.0 || x == 1.0) {
    return 1.0;
  }
  if (isnan(x) || isnan(y)) {
    return x + y;
  }
  const float inf = uintBitsToFloat(0x7f800000u);
  bool yint = floor(y) == y;
  bool odd = yint && abs(y) < 16777216.0 && mod(y, 2.0) == 1.0;
  if (isinf(y)) {
    float ax = abs(x);
    return ax == 1.0 ? 1.0 : ((ax > 1.0) == (y > 0.0) ? inf : 0.0);
  }
  if (x == 0.0 || isinf(x)) {
    float z = (x == 0.0) == (y < 0.0) ? inf : 0.0;
    return (odd && floatBitsToUint(x) >> 31 != 0u) ? -z : z;
  }
  if (x < 0.0 && !yint) {
    return uintBitsToFloat(0x7fc00000u);
  }
  float r = gi_powp(abs(x), y);
  return (x < 0.0 && odd) ? -r : r;
}
`},
	// gi_powi is x^n with n's parity from the integer (float(n) rounds
	// beyond 2^24).
	"gi_powi": {deps: []string{"gi_pow"}, src: `float gi_powi(float x, int n) {
  float r = gi_pow(abs(x), float(n));
  return ((n & 1) != 0 && floatBitsToUint(x) >> 31 != 0u) ? -r : r;
}
`},
	// gi_rem_pio2 reduces x = k pi/2 + r + rl, |r| <= pi/4 or so, with
	// rl a correction to r, and returns k mod 4. Below 4096, pi/2 in
	// three 12-bit parts (exact products with k < 2^12) and a fourth,
	// the subtractions' roundings kept in rl (two-sum); beyond,
	// gi_rem_pio2_big. Arguments below 1e-4 are returned as they are.
	"gi_rem_pio2": {deps: []string{"gi_rem_pio2_big"}, src: `int gi_rem_pio2(float x, out float r, out float rl) {
  if (abs(x) < 1e-4) {
    r = x;
    rl = 0.0;
    return 0;
  }
  if (abs(x) < 4096.0) {
    float k = roundEven(x * 0.636619747);
    precise float y0 = x - k * 1.57080078;
    precise float b1 = -(k * -4.45358455e-06);
    precise float y1 = y0 + b1;
    precise float v1 = y1 - y0;
    precise float e1 = (y0 - (y1 - v1)) + (b1 - v1);
    precise float b2 = -(k * -8.70613803e-10);
    precise float y2 = y1 + b2;
    precise float v2 = y2 - y1;
    precise float e2 = (y1 - (y2 - v2)) + (b2 - v2);
    precise float b3 = -(k * 6.22337197e-14);
    precise float y3 = y2 + b3;
    precise float v3 = y3 - y2;
    precise float e3 = (y2 - (y3 - v3)) + (b3 - v3);
    r = y3;
    rl = e1 + e2 + e3;
    return int(k) & 3;
  }
  return gi_rem_pio2_big(x, r, rl);
}
`},
	// gi_rem_pio2_big is Payne and Hanek's reduction in integers: x =
	// M 2^(E-23) times the 96 bits of 2/pi that follow bit E-25 (the
	// earlier bits only add multiples of 4), a 120-bit product whose
	// bits from F = 96 + 23 + o - E up are k and below are the fraction,
	// 64 of which are kept; the fraction nearest 0 (negated from above
	// one half) times pi/2 is r + rl.
	"gi_rem_pio2_big": {deps: []string{"gi_mulerr"}, src: `const uint gi_2opi[8] = uint[8](0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u);

uint gi_bits128(uint p[5], int pos) {
  int w = pos >> 5;
  int sh = pos & 31;
  return sh == 0 ? p[w] : (p[w] >> sh) | (p[w + 1] << (32 - sh));
}

int gi_rem_pio2_big(float x, out float r, out float rl) {
  uint u = floatBitsToUint(x);
  if ((u & 0x7f800000u) == 0x7f800000u) {
    r = uintBitsToFloat(0x7fc00000u);
    rl = 0.0;
    return 0;
  }
  uint M = u & 0x007fffffu | 0x00800000u;
  int E = int((u >> 23) & 0xffu) - 127;
  int o = max(E - 25, 0);
  int w = o >> 5;
  int sh = o & 31;
  uint t[5] = uint[5](gi_2opi[w + 3], gi_2opi[w + 2], gi_2opi[w + 1], gi_2opi[w], 0u);
  uint w0 = gi_bits128(t, 96 - sh);
  uint w1 = gi_bits128(t, 64 - sh);
  uint w2 = gi_bits128(t, 32 - sh);
  uint h0, l0, h1, l1, h2, l2, c1, c2, c3;
  umulExtended(M, w0, h0, l0);
  umulExtended(M, w1, h1, l1);
  umulExtended(M, w2, h2, l2);
  uint p1 = uaddCarry(h2, l1, c1);
  uint p2 = uaddCarry(h1, l0, c2);
  p2 = uaddCarry(p2, c1, c3);
  uint p[5] = uint[5](l2, p1, p2, h0 + c2 + c3, 0u);
  int F = 119 + o - E;
  uint k = gi_bits128(p, F) & 3u;
  uint fh = gi_bits128(p, F - 32);
  uint fl = gi_bits128(p, F - 64);
  bool neg = u >> 31 != 0u;
  if (fh >= 0x80000000u) {
    k += 1u;
    neg = !neg;
    fh = ~fh;
    fl = ~fl + 1u;
    fh += fl == 0u ? 1u : 0u;
  }
  float gh = float(fh & 0xffffff00u) * 2.32830644e-10;
  float gl = (float(fh & 0xffu) + float(fl) * 2.32830644e-10) * 2.32830644e-10;
  precise float y = gh * 1.57079637;
  precise float yl = gi_mulerr(gh, 1.57079637, y) + (gh * -4.37113883e-08 + gl * 1.57079637);
  r = neg ? -y : y;
  rl = neg ? -yl : yl;
  return int((u >> 31 != 0u) ? (4u - k) & 3u : k & 3u);
}
`},
	// gi_sinp and gi_cosp are sin and cos of r + rl, |r| <= pi/4, by
	// their Taylor series (cos with 1 - r^2/2 kept exact in two parts),
	// as y + yl with yl the rounding of y.
	"gi_sinp": {src: `float gi_sinp(float r, float rl, out float yl) {
  float z = r * r;
  precise float T = rl * (1.0 - 0.5 * z) + r * z * (-0.166666672 + z * (0.00833333377 + z * (-0.000198412701 + z * 2.75573188e-06)));
  precise float y = r + T;
  precise float l = (r - y) + T;
  yl = l;
  return y;
}
`},
	"gi_cosp": {src: `float gi_cosp(float r, float rl, out float yl) {
  float z = r * r;
  float hz = 0.5 * z;
  precise float w = 1.0 - hz;
  precise float U = ((1.0 - w) - hz) + (z * z * (0.0416666679 + z * (-0.00138888892 + z * (2.48015876e-05 + z * -2.75573188e-07))) - r * rl);
  precise float y = w + U;
  precise float l = (w - y) + U;
  yl = l;
  return y;
}
`},
	"gi_sin": {deps: []string{"gi_rem_pio2", "gi_sinp", "gi_cosp"}, src: `float gi_sin(float x) {
  float r, rl, yl;
  int k = gi_rem_pio2(x, r, rl);
  float y = (k & 1) == 0 ? gi_sinp(r, rl, yl) : gi_cosp(r, rl, yl);
  return abs(x) < 1e-4 ? x : ((k & 2) == 0 ? y : -y);
}
`},
	"gi_cos": {deps: []string{"gi_rem_pio2", "gi_sinp", "gi_cosp"}, src: `float gi_cos(float x) {
  float r, rl, yl;
  int k = gi_rem_pio2(x, r, rl);
  float y = (k & 1) == 0 ? gi_cosp(r, rl, yl) : gi_sinp(r, rl, yl);
  return ((k + 1) & 2) == 0 ? y : -y;
}
`},
	// gi_tan divides sin by cos (or -cos by sin), each as two floats:
	// the builtin quotient q corrected by the exact remainder of q.
	"gi_tan": {deps: []string{"gi_rem_pio2", "gi_sinp", "gi_cosp", "gi_mulerr"}, src: `float gi_tan(float x) {
  float r, rl, sl, cl;
  int k = gi_rem_pio2(x, r, rl);
  if (abs(x) < 1e-4) {
    return x;
  }
  float s = gi_sinp(r, rl, sl);
  float c = gi_cosp(r, rl, cl);
  float n = s;
  float nl = sl;
  float d = c;
  float dl = cl;
  if ((k & 1) != 0) {
    n = -c;
    nl = -cl;
    d = s;
    dl = sl;
  }
  precise float q = n / d;
  precise float p = q * d;
  precise float rho = ((n - p) - gi_mulerr(q, d, p)) + (nl - q * dl);
  precise float y = q + rho / d;
  return y;
}
`},
	// gi_atanp is atan(a + al) for a >= 0 and a small correction al:
	// reduced to [0, tan(pi/8)] by atan(a) = pi/2 - atan(1/a) and
	// pi/4 + atan((a-1)/(a+1)), the quotients as two floats (the
	// builtin's, corrected by its exact remainder), then an odd
	// polynomial (a fit of atan on [0, tan(pi/8)]) and the offset added
	// with two-sum.
	"gi_atanp": {deps: []string{"gi_mulerr"}, src: `float gi_atanp(float a, float al) {
  float y = 0.0;
  float yl = 0.0;
  precise float u = a;
  precise float ul = al;
  if (a > 2.41421356) {
    y = 1.57079637;
    yl = -4.37113883e-08;
    precise float q = -1.0 / a;
    precise float p = q * a;
    u = q;
    ul = isinf(a) ? 0.0 : ((-1.0 - p) - gi_mulerr(q, a, p) - q * al) / a;
  } else if (a > 0.414213562) {
    y = 0.785398185;
    yl = -2.18556941e-08;
    precise float n = a - 1.0;
    precise float nb = n - a;
    precise float nl = ((a - (n - nb)) + (-1.0 - nb)) + al;
    precise float d = a + 1.0;
    precise float db = d - a;
    precise float dl = ((a - (d - db)) + (1.0 - db)) + al;
    precise float q = n / d;
    precise float p = q * d;
    u = q;
    ul = (((n - p) - gi_mulerr(q, d, p)) + (nl - q * dl)) / d;
  }
  float z = u * u;
  precise float T = ul * (1.0 - z) + u * z * (-0.333333343 + z * (0.199999779 + z * (-0.142841518 + z * (0.110713653 + z * (-0.0862467587 + z * 0.0504813865)))));
  precise float S = y + u;
  precise float sb = S - y;
  precise float Se = (y - (S - sb)) + (u - sb);
  precise float res = S + (Se + (yl + T));
  return res;
}
`},
	"gi_atan": {deps: []string{"gi_atanp"}, src: `float gi_atan(float x) {
  if (isnan(x)) {
    return x;
  }
  float r = gi_atanp(abs(x), 0.0);
  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(x) & 0x80000000u));
}
`},
	// gi_atan2 takes |y / x| as two floats, the correctly rounded
	// quotient and its exact remainder's share; pi - r is formed with pi
	// in two parts. A subnormal x gets no remainder share: the quotient
	// is then above 2^24, where the share is below half an ulp of the
	// result, and a device that flushes subnormals would divide by zero.
	"gi_atan2": {deps: []string{"gi_atanp", "gi_div", "gi_mulerr"}, src: `float gi_atan2(float y, float x) {
  if (isnan(x) || isnan(y)) {
    return x + y;
  }
  bool xneg = floatBitsToUint(x) >> 31 != 0u;
  float r;
  if (isinf(x)) {
    r = isinf(y) ? (xneg ? 2.35619449 : 0.785398185) : (xneg ? 3.14159274 : 0.0);
  } else if (isinf(y) || x == 0.0) {
    r = y == 0.0 ? (xneg ? 3.14159274 : 0.0) : 1.57079637;
  } else {
    float ay = abs(y);
    float ax = abs(x);
    precise float q = gi_div(ay, ax);
    precise float p = q * ax;
    float ql = 0.0;
    if (!isinf(p) && q > 1e-30 && ay > 1e-30 && ax >= 1.17549435e-38) {
      precise float rho = (ay - p) - gi_mulerr(q, ax, p);
      ql = rho / ax;
    }
    r = gi_atanp(q, ql);
    if (xneg) {
      precise float d = (3.14159274 - r) - 8.74227766e-08;
      r = d;
    }
  }
  return uintBitsToFloat(floatBitsToUint(r) | (floatBitsToUint(y) & 0x80000000u));
}
`},
	// gi_tanh: an odd polynomial (a fit of tanh on [0, 0.625]) below
	// 0.625, where the forms with exponentials cancel, 1 - 2 / (e^2a + 1)
	// from there, 1 from 10.
	"gi_tanh": {deps: []string{"gi_expm1", "gi_div"}, src: `float gi_tanh(float x) {
  float a = abs(x);
  if (a < 1e-4) {
    return x;
  }
  if (a < 0.625) {
    float z = x * x;
    return x + x * z * (-0.333333343 + z * (0.133333042 + z * (-0.0539592579 + z * (0.0217689183 + z * (-0.00834394526 + z * 0.00229274482)))));
  }
  if (isnan(x)) {
    return x;
  }
  float r = a > 10.0 ? 1.0 : 1.0 - gi_div(2.0, gi_expm1(2.0 * a) + 2.0);
  return x < 0.0 ? -r : r;
}
`},
	// gi_erf: below 1 x + x P(x^2), a fit of erf(x) / x - 1; to 3.92 (beyond
	// which erf rounds to 1) 1 - erfc(a), erfc(a) = e^(-a^2) G(1/a) with
	// G a fit of erfc(a) e^(a^2) in 1/a and a^2 split exactly.
	"gi_erf": {deps: []string{"gi_exp", "gi_mulerr"}, src: `float gi_erf(float x) {
  float a = abs(x);
  if (a < 1.0) {
    float z = x * x;
    precise float y = x + x * (0.128379166 + z * (-0.376126267 + z * (0.112835947 + z * (-0.026854212 + z * (0.00518908742 + z * (-0.000801686429 + z * 7.87587506e-05))))));
    return y;
  }
  if (isnan(x)) {
    return x;
  }
  float r = 1.0;
  if (a < 3.92) {
    float t = 1.0 / a - 0.625;
    float g = 0.305952996 + t * (0.382283747 + t * (-0.172394767 + t * (0.0437693112 + t * (0.0233305525 + t * (-0.0470378287 + t * (0.0432207212 + t * (-0.0253760088 + t * (0.00463075982 + t * (0.0150107369 + t * (-0.033386495 + t * 0.0284862984))))))))));
    precise float a2 = a * a;
    float l = gi_mulerr(a, a, a2);
    r = 1.0 - gi_exp(-a2) * (1.0 - l) * g;
  }
  return x < 0.0 ? -r : r;
}
`},
}
