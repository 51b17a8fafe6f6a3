package vulkan

import "strings"

// The f64 math library of generated shaders. GLSL has no double exp,
// log, sin or the rest, so they are written here in double arithmetic
// with the f32 library's structure (mathf32.go): Cody and Waite's
// reductions with constants split so that their products with the
// reduction's integer are exact, Taylor series or fits of the reduced
// function, and fdlibm's arrangements where rounding errors would
// otherwise add up (log's small term, expm1's and log1p's two-float
// sums, pow's double-float logarithm, sin's and cos's reduced argument
// as two doubles). sin, cos and tan reduce huge arguments in integers
// (Payne and Hanek) with 128 bits of the fraction, enough for the
// doubles nearest to multiples of pi/2. The Dekker products split at
// 26 bits by masking. TestMathAccuracy states each function's bound.

// f64Funcs are the f64 helpers by name.
var f64Funcs = map[string]glslFunc{
	"gi_fmod_d": {src: strings.NewReplacer("FT", "double", "gi_fmodS(", "gi_fmod_d(", "MINNORMAL", "2.2250738585072014e-308LF",
		"TWOSCALE", "18446744073709551616.0LF", "INVSCALE", "5.421010862427522e-20LF").Replace(fmodGLSL)},
	// gi_pow2_d is 2^k for k in [-1022, 1023].
	"gi_pow2_d": {src: `double gi_pow2_d(int k) {
  return packDouble2x32(uvec2(0u, uint(k + 1023) << 20));
}
`},
	"gi_scale_d": {deps: []string{"gi_pow2_d"}, src: `double gi_scale_d(double p, int k) {
  k = clamp(k, -2200, 2200);
  int k1 = clamp(k, -1021, 1023);
  int k2 = clamp(k - k1, -1022, 1023);
  precise double r = p * gi_pow2_d(k1);
  precise double y = r * gi_pow2_d(k2);
  return y;
}
`},
	"gi_mulerr_d": {src: `double gi_mulerr_d(double a, double b, double p) {
  uvec2 ua = unpackDouble2x32(a);
  uvec2 ub = unpackDouble2x32(b);
  precise double ah = packDouble2x32(uvec2(ua.x & 0xf8000000u, ua.y));
  precise double al = a - ah;
  precise double bh = packDouble2x32(uvec2(ub.x & 0xf8000000u, ub.y));
  precise double bl = b - bh;
  precise double e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  return e;
}
`},
	"gi_rsqrt_d": {src: `double gi_rsqrt_d(double x) {
  return 1.0LF / sqrt(x);
}
`},
	"gi_fma_d": {deps: []string{"gi_mulerr_d"}, src: `double gi_fma_dc(double a, double b, double c) {
  precise double p = a * b;
  precise double pe = gi_mulerr_d(a, b, p);
  precise double s = p + c;
  precise double v = s - p;
  precise double se = (p - (s - v)) + (c - v);
  precise double y = s + (se + pe);
  return isinf(s) ? s : y;
}

double gi_fma_d(double a, double b, double c) {
  precise double p = a * b;
  if (isinf(p) || isnan(p) || isinf(c) || isnan(c)) {
    precise double y = p + c;
    return y;
  }
  if (abs(p) < 1e-280LF) {
    if (abs(c) >= 1e-200LF || a == 0.0LF || b == 0.0LF) {
      precise double y = p + c;
      return y;
    }
    return (abs(a) < abs(b) ? gi_fma_dc(a * 1.157920892373162e+77LF, b, c * 1.157920892373162e+77LF) : gi_fma_dc(a, b * 1.157920892373162e+77LF, c * 1.157920892373162e+77LF)) * 8.636168555094445e-78LF;
  }
  return gi_fma_dc(a, b, c);
}
`},
	// gi_expp_d is e^r for |r| <= 0.36 by its Taylor series to r^13.
	"gi_expp_d": {src: `double gi_expp_d(double r) {
  double q = 1.0LF / 6227020800.0LF;
  q = 1.0LF / 479001600.0LF + r * q;
  q = 1.0LF / 39916800.0LF + r * q;
  q = 1.0LF / 3628800.0LF + r * q;
  q = 1.0LF / 362880.0LF + r * q;
  q = 1.0LF / 40320.0LF + r * q;
  q = 1.0LF / 5040.0LF + r * q;
  q = 1.0LF / 720.0LF + r * q;
  q = 1.0LF / 120.0LF + r * q;
  q = 1.0LF / 24.0LF + r * q;
  q = 1.0LF / 6.0LF + r * q;
  q = 0.5LF + r * q;
  precise double y = 1.0LF + (r + r * r * q);
  return y;
}
`},
	"gi_exp_d": {deps: []string{"gi_expp_d", "gi_scale_d"}, src: `double gi_exp_d(double x) {
  double xc = clamp(x, -746.0LF, 710.0LF);
  double k = roundEven(xc * 1.4426950408889634LF);
  precise double r = (xc - k * 0.6931471806019545LF) - k * -4.2009150726810846e-11LF;
  double y = gi_scale_d(gi_expp_d(r), int(k));
  return isnan(x) ? x : y;
}
`},
	"gi_exp2_d": {deps: []string{"gi_expp_d", "gi_scale_d"}, src: `double gi_exp2_d(double x) {
  double xc = clamp(x, -1080.0LF, 1025.0LF);
  double k = roundEven(xc);
  double y = gi_scale_d(gi_expp_d((xc - k) * 0.6931471805599453LF), int(k));
  return isnan(x) ? x : y;
}
`},
	"gi_expm1_d": {deps: []string{"gi_scale_d"}, src: `double gi_expm1_d(double x) {
  if (isnan(x) || x > 709.8LF) {
    return x > 709.8LF ? double(uintBitsToFloat(0x7f800000u)) : x;
  }
  if (x < -40.0LF) {
    return -1.0LF;
  }
  double k = roundEven(x * 1.4426950408889634LF);
  precise double r = (x - k * 0.6931471806019545LF) - k * -4.2009150726810846e-11LF;
  double q = 1.0LF / 87178291200.0LF;
  q = 1.0LF / 6227020800.0LF + r * q;
  q = 1.0LF / 479001600.0LF + r * q;
  q = 1.0LF / 39916800.0LF + r * q;
  q = 1.0LF / 3628800.0LF + r * q;
  q = 1.0LF / 362880.0LF + r * q;
  q = 1.0LF / 40320.0LF + r * q;
  q = 1.0LF / 5040.0LF + r * q;
  q = 1.0LF / 720.0LF + r * q;
  q = 1.0LF / 120.0LF + r * q;
  q = 1.0LF / 24.0LF + r * q;
  q = 1.0LF / 6.0LF + r * q;
  q = 0.5LF + r * q;
  precise double p = r + r * r * q;
  if (k == 0.0LF) {
    return abs(x) < 1e-300LF ? x : p;
  }
  precise double h = 1.0LF + p;
  precise double l = p - (h - 1.0LF);
  int ki = int(k);
  precise double H = gi_scale_d(h, ki);
  precise double S = H - 1.0LF;
  precise double bb = S - H;
  precise double e = (H - (S - bb)) + (-1.0LF - bb);
  precise double y = S + (e + gi_scale_d(l, ki));
  return isinf(H) ? H : y;
}
`},
	// gi_logk_d is gi_logk in double: R to s^22.
	"gi_logr_d": {src: `double gi_logr_d(double z) {
  double R = 2.0LF / 23.0LF;
  R = 2.0LF / 21.0LF + z * R;
  R = 2.0LF / 19.0LF + z * R;
  R = 2.0LF / 17.0LF + z * R;
  R = 2.0LF / 15.0LF + z * R;
  R = 2.0LF / 13.0LF + z * R;
  R = 2.0LF / 11.0LF + z * R;
  R = 2.0LF / 9.0LF + z * R;
  R = 2.0LF / 7.0LF + z * R;
  R = 2.0LF / 5.0LF + z * R;
  R = 2.0LF / 3.0LF + z * R;
  return z * R;
}
`},
	"gi_logk_d": {deps: []string{"gi_logr_d"}, src: `double gi_logk_d(double x, out double e, out double h, out double t) {
  bool sub = x < 2.2250738585072014e-308LF;
  uvec2 u = unpackDouble2x32(sub ? x * 18014398509481984.0LF : x);
  u.y += 0x00095f62u;
  e = double(int(u.y >> 20) - (sub ? 1077 : 1023));
  double f = packDouble2x32(uvec2(u.x, (u.y & 0x000fffffu) + 0x3fe6a09eu)) - 1.0LF;
  double s = f / (2.0LF + f);
  h = 0.5LF * f * f;
  t = s * (h + gi_logr_d(s * s));
  return f;
}
`},
	"gi_logsp_d": {src: `double gi_logsp_d(double x, double y) {
  if (isnan(x) || x < 0.0LF) {
    return double(uintBitsToFloat(0x7fc00000u));
  }
  return x == 0.0LF ? double(uintBitsToFloat(0xff800000u)) : (isinf(x) ? x : y);
}
`},
	"gi_log_d": {deps: []string{"gi_logk_d", "gi_logsp_d"}, src: `double gi_log_d(double x) {
  double e, h, t;
  double f = gi_logk_d(x, e, h, t);
  precise double y = e * 0.6931471806019545LF - ((h - (t + e * -4.2009150726810846e-11LF)) - f);
  return gi_logsp_d(x, y);
}
`},
	"gi_log2_d": {deps: []string{"gi_logk_d", "gi_logsp_d"}, src: `double gi_log2_d(double x) {
  double e, h, t;
  double f = gi_logk_d(x, e, h, t);
  precise double hi = packDouble2x32(uvec2(0u, unpackDouble2x32(f - h).y));
  precise double lo = ((f - hi) - h) + t;
  precise double vhi = hi * 1.4426950407214463LF;
  precise double vlo = (lo + hi) * 1.6751713164886512e-10LF + lo * 1.4426950407214463LF;
  precise double w = e + vhi;
  precise double y = (vlo + ((e - w) + vhi)) + w;
  return gi_logsp_d(x, y);
}
`},
	"gi_log10_d": {deps: []string{"gi_logk_d", "gi_logsp_d"}, src: `double gi_log10_d(double x) {
  double e, h, t;
  double f = gi_logk_d(x, e, h, t);
  precise double hi = packDouble2x32(uvec2(0u, unpackDouble2x32(f - h).y));
  precise double lo = ((f - hi) - h) + t;
  precise double vhi = hi * 0.4342944818781689LF;
  precise double vlo = (lo + hi) * 2.5082946711645275e-11LF + lo * 0.4342944818781689LF;
  precise double y2 = e * 0.3010299956658855LF;
  precise double w = y2 + vhi;
  precise double y = ((vlo + e * -1.9043128467164274e-12LF) + ((y2 - w) + vhi)) + w;
  return gi_logsp_d(x, y);
}
`},
	"gi_log1p_d": {deps: []string{"gi_logk_d", "gi_logsp_d"}, src: `double gi_log1p_d(double x) {
  precise double u = 1.0LF + x;
  precise double bb = u - 1.0LF;
  precise double c = (1.0LF - (u - bb)) + (x - bb);
  double e, h, t;
  double f = gi_logk_d(u, e, h, t);
  precise double y = e * 0.6931471806019545LF - ((h - (t + (e * -4.2009150726810846e-11LF + c / u))) - f);
  return x == 0.0LF ? x : gi_logsp_d(u, y);
}
`},
	// gi_powp_d: log(x) as a sum of two doubles (log(1 + f) = f - h + t
	// with f/(2 + f), h and t each as two doubles, summed with two-sum),
	// y times it (Dekker), and e to that sum (its low part added to the
	// reduced argument).
	"gi_powp_d": {deps: []string{"gi_logk_d", "gi_logr_d", "gi_mulerr_d", "gi_expp_d", "gi_scale_d"}, src: `double gi_powp_d(double x, double y) {
  double e, h, t;
  double f = gi_logk_d(x, e, h, t);
  precise double d = 2.0LF + f;
  precise double dl = (2.0LF - d) + f;
  precise double s = f / d;
  precise double sd = s * d;
  precise double sl = (((f - sd) - gi_mulerr_d(s, d, sd)) - s * dl) / d;
  precise double ff = f * f;
  precise double hl = 0.5LF * gi_mulerr_d(f, f, ff);
  precise double zr = gi_logr_d(s * s);
  precise double H = h + zr;
  precise double Hl = ((h - H) + zr) + hl;
  precise double th = s * H;
  precise double tl = gi_mulerr_d(s, H, th) + (s * Hl + sl * H);
  precise double a1 = f - h;
  precise double v1 = a1 - f;
  precise double a1l = (f - (a1 - v1)) + (-h - v1);
  precise double a2 = a1 + th;
  precise double v2 = a2 - a1;
  precise double a2l = (a1 - (a2 - v2)) + (th - v2);
  precise double low = (a1l + a2l) + (tl - hl);
  precise double gh = a2 + low;
  precise double gl = low - (gh - a2);
  precise double eh = e * 0.6931471806019545LF;
  precise double L0 = eh + gh;
  precise double v3 = L0 - eh;
  precise double l3 = (eh - (L0 - v3)) + (gh - v3);
  precise double L1 = l3 + (gl + e * -4.2009150726810846e-11LF);
  precise double lhi = L0 + L1;
  precise double llo = L1 - (lhi - L0);
  precise double ph = y * lhi;
  if (!(abs(ph) < 1000.0LF)) {
    return ph > 0.0LF ? double(uintBitsToFloat(0x7f800000u)) : 0.0LF;
  }
  precise double pl = gi_mulerr_d(y, lhi, ph) + y * llo;
  precise double w = ph + pl;
  precise double wl = pl - (w - ph);
  double k = roundEven(w * 1.4426950408889634LF);
  precise double r = ((w - k * 0.6931471806019545LF) - k * -4.2009150726810846e-11LF) + wl;
  return gi_scale_d(gi_expp_d(r), int(k));
}
`},
	"gi_pow_d": {deps: []string{"gi_powp_d"}, src: `double gi_pow_d(double x, double y) {
  if (y == 0.0LF || x == 1.0LF) {
    return 1.0LF;
  }
  if (isnan(x) || isnan(y)) {
    return x + y;
  }
  const double inf = double(uintBitsToFloat(0x7f800000u));
  bool yint = floor(y) == y;
  bool odd = yint && abs(y) < 9007199254740992.0LF && mod(y, 2.0LF) == 1.0LF;
  if (isinf(y)) {
    double ax = abs(x);
    return ax == 1.0LF ? 1.0LF : ((ax > 1.0LF) == (y > 0.0LF) ? inf : 0.0LF);
  }
  if (x == 0.0LF || isinf(x)) {
    double z = (x == 0.0LF) == (y < 0.0LF) ? inf : 0.0LF;
    return (odd && unpackDouble2x32(x).y >> 31 != 0u) ? -z : z;
  }
  if (x < 0.0LF && !yint) {
    return double(uintBitsToFloat(0x7fc00000u));
  }
  double r = gi_powp_d(abs(x), y);
  return (x < 0.0LF && odd) ? -r : r;
}
`},
	"gi_powi_d": {deps: []string{"gi_pow_d"}, src: `double gi_powi_d(double x, int n) {
  double r = gi_pow_d(abs(x), double(n));
  return ((n & 1) != 0 && unpackDouble2x32(x).y >> 31 != 0u) ? -r : r;
}
`},
	// gi_rem_pio2_d: x = k pi/2 + r + rl. Below 2^28, pi/2 in four
	// 24-bit parts and a fifth, each product with k exact while
	// |k| < 2^29, the subtractions' roundings kept in rl (two-sum); beyond,
	// gi_rem_pio2_big_d. Arguments below 1e-9 are returned as they are.
	"gi_rem_pio2_d": {deps: []string{"gi_rem_pio2_big_d"}, src: `int gi_rem_pio2_d(double x, out double r, out double rl) {
  if (abs(x) < 1e-9LF) {
    r = x;
    rl = 0.0LF;
    return 0;
  }
  if (!(abs(x) < 268435456.0LF)) {
    return gi_rem_pio2_big_d(x, r, rl);
  }
  double k = roundEven(x * 0.6366197723675814LF);
  precise double y0 = x - k * 1.5707963705062866LF;
  precise double b1 = -(k * -4.371138828673793e-08LF);
  precise double y1 = y0 + b1;
  precise double v1 = y1 - y0;
  precise double e1 = (y0 - (y1 - v1)) + (b1 - v1);
  precise double b2 = -(k * -1.7151245100058819e-15LF);
  precise double y2 = y1 + b2;
  precise double v2 = y2 - y1;
  precise double e2 = (y1 - (y2 - v2)) + (b2 - v2);
  precise double b3 = -(k * 1.056299898220315e-23LF + k * 8.4784276603689e-32LF);
  precise double y3 = y2 + b3;
  precise double v3 = y3 - y2;
  precise double e3 = (y2 - (y3 - v3)) + (b3 - v3);
  r = y3;
  rl = e1 + e2 + e3;
  return int(mod(k, 4.0LF));
}
`},
	// gi_rem_pio2_big_d is gi_rem_pio2_big (mathf32.go) for doubles:
	// the 53-bit significand times the 224 bits of 2/pi that follow bit
	// E-54, a 277-bit product with k at bit F = 224 + 52 + o - E and 128
	// bits of fraction kept (a double's fraction can come within 2^-61 of
	// a multiple of pi/2), normalized and taken as two doubles (the first
	// exact, with 53 bits).
	"gi_rem_pio2_big_d": {deps: []string{"gi_mulerr_d", "gi_pow2_d"}, src: `const uint gi_2opi_d[40] = uint[40](TWOOPI);

uint gi_bits320(uint p[10], int pos) {
  int w = pos >> 5;
  int sh = pos & 31;
  return sh == 0 ? p[w] : (p[w] >> sh) | (p[w + 1] << (32 - sh));
}

int gi_rem_pio2_big_d(double x, out double r, out double rl) {
  uvec2 u = unpackDouble2x32(x);
  int E = int((u.y >> 20) & 0x7ffu) - 1023;
  rl = 0.0LF;
  if (E == 1024) {
    r = double(uintBitsToFloat(0x7fc00000u));
    return 0;
  }
  uint m[2] = uint[2](u.x, u.y & 0x000fffffu | 0x00100000u);
  int o = max(E - 54, 0);
  int w = o >> 5;
  int sh = o & 31;
  uint t[10];
  for (int j = 0; j < 8; j++) {
    t[j] = gi_2opi_d[w + 7 - j];
  }
  t[8] = 0u;
  t[9] = 0u;
  uint p[10];
  for (int j = 0; j < 10; j++) {
    p[j] = 0u;
  }
  for (int i = 0; i < 7; i++) {
    uint wi = gi_bits320(t, 32 + 32 * i - sh);
    for (int j = 0; j < 2; j++) {
      uint hi, lo, c;
      umulExtended(wi, m[j], hi, lo);
      p[i + j] = uaddCarry(p[i + j], lo, c);
      uint c2;
      p[i + j + 1] = uaddCarry(p[i + j + 1], hi + c, c2);
      for (int q = i + j + 2; q < 10; q++) {
        p[q] = uaddCarry(p[q], c2, c2);
      }
    }
  }
  int F = 276 + o - E;
  uint k = gi_bits320(p, F) & 3u;
  uint f[10] = uint[10](0u, 0u, gi_bits320(p, F - 128), gi_bits320(p, F - 96), gi_bits320(p, F - 64), gi_bits320(p, F - 32), 0u, 0u, 0u, 0u);
  bool neg = u.y >> 31 != 0u;
  if (f[5] >= 0x80000000u) {
    k += 1u;
    neg = !neg;
    uint c = 1u;
    for (int j = 2; j < 6; j++) {
      f[j] = uaddCarry(~f[j], c, c);
    }
  }
  int msb = f[5] != 0u ? 160 + findMSB(f[5]) : (f[4] != 0u ? 128 + findMSB(f[4]) : (f[3] != 0u ? 96 + findMSB(f[3]) : 64 + max(findMSB(f[2]), 0)));
  uint n3 = gi_bits320(f, msb - 31);
  uint n2 = gi_bits320(f, msb - 63);
  uint n1 = gi_bits320(f, max(msb - 95, 0));
  double sc = gi_pow2_d(msb - 191);
  double gh = (double(n3) * 2.3283064365386963e-10LF + double(n2 & 0xfffff800u) * 5.421010862427522e-20LF) * sc;
  double gl = (double(n2 & 0x7ffu) + double(n1) * 2.3283064365386963e-10LF) * 5.421010862427522e-20LF * sc;
  precise double y = gh * 1.5707963267948966LF;
  precise double yl = gi_mulerr_d(gh, 1.5707963267948966LF, y) + (gh * 6.123233995736766e-17LF + gl * 1.5707963267948966LF);
  r = neg ? -y : y;
  rl = neg ? -yl : yl;
  return int((u.y >> 31 != 0u) ? (4u - k) & 3u : k & 3u);
}
`},
	// gi_sinp_d and gi_cosp_d are sin and cos of r + rl, |r| <= pi/4,
	// by their Taylor series, as y + yl with yl the rounding of y.
	"gi_sinp_d": {src: `double gi_sinp_d(double r, double rl, out double yl) {
  double z = r * r;
  double q = -1.0LF / 121645100408832000.0LF;
  q = 1.0LF / 355687428096000.0LF + z * q;
  q = -1.0LF / 1307674368000.0LF + z * q;
  q = 1.0LF / 6227020800.0LF + z * q;
  q = -1.0LF / 39916800.0LF + z * q;
  q = 1.0LF / 362880.0LF + z * q;
  q = -1.0LF / 5040.0LF + z * q;
  q = 1.0LF / 120.0LF + z * q;
  q = -1.0LF / 6.0LF + z * q;
  precise double T = rl * (1.0LF - 0.5LF * z) + r * z * q;
  precise double y = r + T;
  precise double l = (r - y) + T;
  yl = l;
  return y;
}
`},
	"gi_cosp_d": {src: `double gi_cosp_d(double r, double rl, out double yl) {
  double z = r * r;
  double q = 1.0LF / 2432902008176640000.0LF;
  q = -1.0LF / 6402373705728000.0LF + z * q;
  q = 1.0LF / 20922789888000.0LF + z * q;
  q = -1.0LF / 87178291200.0LF + z * q;
  q = 1.0LF / 479001600.0LF + z * q;
  q = -1.0LF / 3628800.0LF + z * q;
  q = 1.0LF / 40320.0LF + z * q;
  q = -1.0LF / 720.0LF + z * q;
  q = 1.0LF / 24.0LF + z * q;
  double hz = 0.5LF * z;
  precise double w = 1.0LF - hz;
  precise double U = ((1.0LF - w) - hz) + (z * z * q - r * rl);
  precise double y = w + U;
  precise double l = (w - y) + U;
  yl = l;
  return y;
}
`},
	"gi_sin_d": {deps: []string{"gi_rem_pio2_d", "gi_sinp_d", "gi_cosp_d"}, src: `double gi_sin_d(double x) {
  if (isinf(x) || isnan(x)) {
    return double(uintBitsToFloat(0x7fc00000u));
  }
  double r, rl, yl;
  int k = gi_rem_pio2_d(x, r, rl);
  double y = (k & 1) == 0 ? gi_sinp_d(r, rl, yl) : gi_cosp_d(r, rl, yl);
  return abs(x) < 1e-9LF ? x : ((k & 2) == 0 ? y : -y);
}
`},
	"gi_cos_d": {deps: []string{"gi_rem_pio2_d", "gi_sinp_d", "gi_cosp_d"}, src: `double gi_cos_d(double x) {
  if (isinf(x) || isnan(x)) {
    return double(uintBitsToFloat(0x7fc00000u));
  }
  double r, rl, yl;
  int k = gi_rem_pio2_d(x, r, rl);
  double y = (k & 1) == 0 ? gi_cosp_d(r, rl, yl) : gi_sinp_d(r, rl, yl);
  return ((k + 1) & 2) == 0 ? y : -y;
}
`},
	// gi_tan_d divides sin by cos (or -cos by sin), each as two doubles,
	// the quotient corrected by its exact remainder.
	"gi_tan_d": {deps: []string{"gi_rem_pio2_d", "gi_sinp_d", "gi_cosp_d", "gi_mulerr_d"}, src: `double gi_tan_d(double x) {
  if (isinf(x) || isnan(x)) {
    return double(uintBitsToFloat(0x7fc00000u));
  }
  if (abs(x) < 1e-9LF) {
    return x;
  }
  double r, rl, sl, cl;
  int k = gi_rem_pio2_d(x, r, rl);
  double s = gi_sinp_d(r, rl, sl);
  double c = gi_cosp_d(r, rl, cl);
  double n = s;
  double nl = sl;
  double d = c;
  double dl = cl;
  if ((k & 1) != 0) {
    n = -c;
    nl = -cl;
    d = s;
    dl = sl;
  }
  precise double q = n / d;
  precise double p = q * d;
  precise double rho = ((n - p) - gi_mulerr_d(q, d, p)) + (nl - q * dl);
  precise double y = q + rho / d;
  return y;
}
`},
	// gi_atanp_d is atan(a + al) for a >= 0 and a small correction al:
	// |a| > 1 through pi/2 - atan(1/a), then (tan(pi/8), 1] through
	// pi/4 + atan((a-1)/(a+1)), the quotients as two doubles (exact
	// remainders), then the series on |u| <= tan(pi/8) to u^45, and the
	// offsets added with two-sum.
	"gi_atanp_d": {deps: []string{"gi_mulerr_d"}, src: `double gi_atanp_d(double a, double al) {
  double y = 0.0LF;
  double yl = 0.0LF;
  bool inv = a > 1.0LF;
  precise double u = a;
  precise double ul = al;
  if (inv) {
    precise double q = 1.0LF / a;
    precise double p = q * a;
    ul = isinf(a) ? 0.0LF : (((1.0LF - p) - gi_mulerr_d(q, a, p)) - q * al) / a;
    u = q;
  }
  if (u > 0.41421356237309503LF) {
    y = 0.7853981633974483LF;
    yl = 3.061616997868383e-17LF;
    precise double n = u - 1.0LF;
    precise double nb = n - u;
    precise double nl = ((u - (n - nb)) + (-1.0LF - nb)) + ul;
    precise double d = u + 1.0LF;
    precise double db = d - u;
    precise double dl = ((u - (d - db)) + (1.0LF - db)) + ul;
    precise double q = n / d;
    precise double p = q * d;
    ul = (((n - p) - gi_mulerr_d(q, d, p)) + (nl - q * dl)) / d;
    u = q;
  }
  double z = u * u;
  double s = 1.0LF / 45.0LF;
  for (int n = 21; n >= 1; n--) {
    s = ((n & 1) != 0 ? -1.0LF : 1.0LF) / double(2 * n + 1) + z * s;
  }
  precise double T = ul * (1.0LF - z) + u * z * s;
  precise double S = y + u;
  precise double sb = S - y;
  precise double Se = (y - (S - sb)) + (u - sb);
  precise double r = S + (Se + (yl + T));
  if (inv) {
    precise double R = 1.5707963267948966LF - r;
    precise double rb = R - 1.5707963267948966LF;
    precise double Re = (1.5707963267948966LF - (R - rb)) + (-r - rb);
    precise double q = R + (Re + (6.123233995736766e-17LF - ((S - r) + (Se + (yl + T)))));
    r = q;
  }
  return r;
}
`},
	"gi_atan_d": {deps: []string{"gi_atanp_d"}, src: `double gi_atan_d(double x) {
  if (isnan(x)) {
    return x;
  }
  double r = gi_atanp_d(abs(x), 0.0LF);
  return unpackDouble2x32(x).y >> 31 != 0u ? -r : r;
}
`},
	"gi_atan2_d": {deps: []string{"gi_atanp_d", "gi_mulerr_d"}, src: `double gi_atan2_d(double y, double x) {
  if (isnan(x) || isnan(y)) {
    return x + y;
  }
  const double pi = 3.141592653589793LF;
  bool xneg = unpackDouble2x32(x).y >> 31 != 0u;
  double r;
  if (isinf(x)) {
    r = isinf(y) ? (xneg ? 2.356194490192345LF : 0.7853981633974483LF) : (xneg ? pi : 0.0LF);
  } else if (isinf(y) || x == 0.0LF) {
    r = y == 0.0LF ? (xneg ? pi : 0.0LF) : 1.5707963267948966LF;
  } else {
    double ay = abs(y);
    double ax = abs(x);
    precise double q = ay / ax;
    precise double p = q * ax;
    double ql = 0.0LF;
    if (!isinf(p) && q > 1e-290LF && ay > 1e-290LF) {
      precise double rho = (ay - p) - gi_mulerr_d(q, ax, p);
      ql = rho / ax;
    }
    r = gi_atanp_d(q, ql);
    if (xneg) {
      precise double d = (pi - r) + 1.2246467991473532e-16LF;
      r = d;
    }
  }
  return unpackDouble2x32(y).y >> 31 != 0u ? -r : r;
}
`},
	"gi_tanh_d": {deps: []string{"gi_expm1_d", "gi_mulerr_d"}, src: `double gi_tanh_d(double x) {
  if (isnan(x)) {
    return x;
  }
  double a = abs(x);
  double r = 1.0LF;
  if (a < 22.0LF) {
    precise double t = gi_expm1_d(2.0LF * a);
    precise double d = t + 2.0LF;
    precise double db = d - t;
    precise double dl = (t - (d - db)) + (2.0LF - db);
    precise double q = t / d;
    precise double p = q * d;
    precise double c = q + (((t - p) - gi_mulerr_d(q, d, p)) - q * dl) / d;
    r = c;
  }
  return unpackDouble2x32(x).y >> 31 != 0u ? -r : r;
}
`},
	// gi_erf_d: below 1 its Taylor series; to 6 (beyond, erf rounds to
	// 1) 1 - e^(-a^2) G(a), G a fit of erfc(a) e^(a^2) on [1, 2],
	// [2, 3.5] and [3.5, 6], and a^2 split exactly.
	"gi_erf_d": {deps: []string{"gi_exp_d", "gi_mulerr_d"}, src: `double gi_erf_d(double x) {
  if (isnan(x)) {
    return x;
  }
  double a = abs(x);
  double r = 1.0LF;
  if (a < 1.0LF) {
    double z = a * a;
    double p = a;
    double s = 0.0LF;
    for (int n = 1; n < 28; n++) {
      p *= -z / double(n);
      s += p / double(2 * n + 1);
    }
    r = 1.1283791670955126LF * (a + s);
  } else if (a < 6.0LF) {
    double g;
    if (a < 2.0LF) {
      double t = a - 1.5LF;
      g = ERFC1;
    } else if (a < 3.5LF) {
      double t = a - 2.75LF;
      g = ERFC2;
    } else {
      double t = a - 4.75LF;
      g = ERFC3;
    }
    precise double a2 = a * a;
    double l = gi_mulerr_d(a, a, a2);
    r = 1.0LF - gi_exp_d(-a2) * (1.0LF - l) * g;
  }
  return unpackDouble2x32(x).y >> 31 != 0u ? -r : r;
}
`},
}

// twoOverPi are the first 1280 bits of 2/pi, for gi_rem_pio2_big_d.
const twoOverPi = "0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu, 0xdebbc561u, " +
	"0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu, 0xe88235f5u, 0x2ebb4484u, " +
	"0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu, 0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, " +
	"0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u, 0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, " +
	"0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u, 0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u, 0x9af4361du"

// The fits of erfc(a) e^(a^2) around 1.5, 2.75 and 4.75 in t = a - mid,
// Chebyshev interpolants (relative error below 3e-18) as polynomials.
func init() {
	f := f64Funcs["gi_erf_d"]
	f.src = strings.NewReplacer(
		"ERFC1", "0.3215854164543175LF + t * (-0.16362291773256005LF + t * (0.0761510398554774LF + t * (-0.03293090529956527LF + t * (0.013377340953067394LF + t * (-0.0051459575478377826LF + t * (0.0018861348769919975LF + t * (-0.0006619300701084315LF + t * (0.0002233099453004411LF + t * (-7.265887301589559e-05LF + t * (2.2864299608127746e-05LF + t * (-6.97536222785843e-06LF + t * (2.0670657912156654e-06LF + t * (-5.944961119917664e-07LF + t * (1.6714292901928126e-07LF + t * (-4.9545807838901603e-08LF + t * (1.3242541506849586e-08LF))))))))))))))))",
		"ERFC2", "0.1936620962790687LF + t * (-0.06323763756063484LF + t * (0.019758592987322816LF + t * (-0.005934337896997966LF + t * (0.0017195818852915683LF + t * (-0.0004821950849815436LF + t * (0.0001311818004875362LF + t * (-3.469860956890751e-05LF + t * (8.940156439196906e-06LF + t * (-2.2473735137402935e-06LF + t * (5.519738191507474e-07LF + t * (-1.3262502467727597e-07LF + t * (3.121531648858328e-08LF + t * (-7.2012225046835695e-09LF + t * (1.6194561547466204e-09LF + t * (-3.601905695321358e-10LF + t * (8.88871719258283e-11LF + t * (-1.9033341776852134e-11LF)))))))))))))))))",
		"ERFC3", "0.11630270721024731LF + t * (-0.023503448598163154LF + t * (0.004661326368972341LF + t * (-0.000908098897029584LF + t * (0.00017392830404063835LF + t * (-3.277578113583005e-05LF + t * (6.081114550571976e-06LF + t * (-1.1115677139671447e-06LF + t * (2.0029196903709305e-07LF + t * (-3.5595764153210864e-08LF + t * (6.242436753087514e-09LF + t * (-1.0807335772599074e-09LF + t * (1.8479899143619823e-10LF + t * (-3.1249063672277586e-11LF + t * (5.218027402895151e-12LF + t * (-8.455145736999659e-13LF + t * (1.3818718062031088e-13LF + t * (-2.746518674187926e-14LF + t * (4.375213208037101e-15LF))))))))))))))))))",
	).Replace(f.src)
	f64Funcs["gi_erf_d"] = f
	b := f64Funcs["gi_rem_pio2_big_d"]
	b.src = strings.Replace(b.src, "TWOOPI", twoOverPi, 1)
	f64Funcs["gi_rem_pio2_big_d"] = b
}
