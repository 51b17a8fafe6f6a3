package llvmcpu

// The generated libraries are freestanding (no libm, no compiler-rt), so
// every math function and every half-precision conversion a kernel uses is
// emitted into its C source from here, only when used.
//
// Precision: f64 functions compute in double and aim at a few ulp (the
// e2e accuracy test holds each to its tolerance against Go's math
// package); f32 exp and log have branch-free float versions that clang
// vectorizes (softmax is exp-bound), every other f32 function runs the
// double version and rounds once; f16 and bf16 values live in C floats
// that always hold a representable value: every op computes in float and
// rounds to nearest even at its result (exact for + - * / sqrt, since a
// float has more than twice the bits), and memory holds their 16-bit
// patterns.

// mathHelper is one C helper and the helpers its text calls.
type mathHelper struct {
	deps []string
	src  string
}

// helperOrder is the emission order of the helpers: every helper comes
// after the ones it depends on.
var helperOrder = []string{
	"bits", "divs", "rounding", "half", "exp_f32", "log_f32",
	"exp_f64", "expm1_f64", "exp2_f64", "log_f64", "log1p_f64", "tanh_f64", "erf_f64",
	"trig_f64", "atan_f64", "pow_f64", "fmod_f64", "fma_f64", "matmul",
}

var helperSource = map[string]mathHelper{
	"bits": {src: `static inline uint32_t gi_fbits(float x) { uint32_t u; __builtin_memcpy(&u, &x, 4); return u; }
static inline float gi_bitsf(uint32_t u) { float x; __builtin_memcpy(&x, &u, 4); return x; }
static inline uint64_t gi_dbits(double x) { uint64_t u; __builtin_memcpy(&u, &x, 8); return u; }
static inline double gi_bitsd(uint64_t u) { double x; __builtin_memcpy(&x, &u, 8); return x; }
`},
	// Integer division helpers: a zero divisor gives 0 (and a zero
	// remainder), and INT64_MIN / -1 wraps, instead of trapping.
	"divs": {src: `static inline int64_t gi_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static inline int64_t gi_ceildiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) == (b < 0))) q++;
  return q;
}
static inline int64_t gi_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t m = a % b;
  return m < 0 ? m + (b < 0 ? -b : b) : m;
}
`},
	// Rounding to integers in double (exact for every float, f16 and bf16
	// value too); |x| >= 2^52 is already an integer.
	"rounding": {src: `static inline double gi_trunc(double x) {
  if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return x;
  double t = (double)(int64_t)x;
  return (t == 0.0 && x < 0) ? -0.0 : t;
}
static inline double gi_floor(double x) {
  double t = gi_trunc(x);
  return (t > x) ? t - 1.0 : t;
}
static inline double gi_ceil(double x) {
  double t = gi_trunc(x);
  return (t < x) ? t + 1.0 : t;
}
static inline double gi_round(double x) {
  double t = gi_trunc(x);
  double d = x - t;
  if (d >= 0.5) return t + 1.0;
  if (d <= -0.5) return t - 1.0;
  return t;
}
static inline double gi_roundeven(double x) {
  if (!(x > -4503599627370496.0 && x < 4503599627370496.0)) return x;
  double a = x < 0 ? -x : x;
  double r = (a + 4503599627370496.0) - 4503599627370496.0;
  return x < 0 ? -r : r;
}
static inline int gi_fmod2(double y) {
  double h = y * 0.5;
  return gi_trunc(h) != h;
}
`},
	// f16 and bf16: bit-exact conversions with round to nearest even.
	// gi_rh/gi_rbf round a float to the nearest f16/bf16 value (kept in a
	// float); the _d forms round a double through a float rounded to odd,
	// which keeps the final rounding correct.
	"half": {deps: []string{"bits"}, src: `// Written without branches (every case computed, one selected), so that
// loops over f16/bf16 data vectorize.
static inline float gi_h2f(uint16_t h) {
  uint32_t s = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1Fu, m = h & 0x3FFu;
  uint32_t sub = gi_fbits((float)m * 5.9604644775390625e-8f);
  uint32_t norm = ((e + 112u) << 23) | (m << 13);
  uint32_t special = 0x7F800000u | (m << 13);
  uint32_t mag = e == 0 ? sub : (e == 0x1Fu ? special : norm);
  return gi_bitsf(s | mag);
}
static inline uint16_t gi_f2h(float f) {
  uint32_t u = gi_fbits(f);
  uint32_t s = (u >> 16) & 0x8000u, a = u & 0x7FFFFFFFu;
  uint32_t nan = 0x7E00u | ((a >> 13) & 0x3FFu);
  uint32_t r = a - 0x38000000u;
  uint32_t norm = (r + 0xFFFu + ((r >> 13) & 1u)) >> 13;
  uint32_t sub = gi_fbits(gi_bitsf(a < 0x38800000u ? a : 0u) * 16777216.0f + 8388608.0f) - 0x4B000000u;
  uint32_t h = a > 0x7F800000u ? nan : (a >= 0x477FF000u ? 0x7C00u : (a >= 0x38800000u ? norm : sub));
  return (uint16_t)(s | h);
}
static inline float gi_bf2f(uint16_t b) { return gi_bitsf((uint32_t)b << 16); }
static inline uint16_t gi_f2bf(float f) {
  uint32_t u = gi_fbits(f);
  uint32_t r = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  return (uint16_t)((u & 0x7FFFFFFFu) > 0x7F800000u ? (u >> 16) | 0x40u : r);
}
static inline float gi_d2f_odd(double d) {
  float f = (float)d;
  if (f == f && (double)f != d) {
    uint32_t u = gi_fbits(f);
    double af = (double)(f < 0 ? -f : f), ad = d < 0 ? -d : d;
    if (af > ad) u -= 1u;
    f = gi_bitsf(u | 1u);
  }
  return f;
}
static inline float gi_rh(float x) { return gi_h2f(gi_f2h(x)); }
static inline float gi_rbf(float x) { return gi_bf2f(gi_f2bf(x)); }
static inline float gi_rh_d(double x) { return gi_rh(gi_d2f_odd(x)); }
static inline float gi_rbf_d(double x) { return gi_rbf(gi_d2f_odd(x)); }
`},
	// exp in float without branches or loops, so that clang vectorizes
	// loops that call it: x = k ln2 + r, a degree-7 polynomial for e^r,
	// 2^k applied in two steps so that overflow and gradual underflow
	// come out of the multiplies.
	"exp_f32": {deps: []string{"bits"}, src: `static inline float gi_exp_f32(float x) {
  float xc = x < -104.0f ? -104.0f : (x > 89.0f ? 89.0f : x);
  float k = (xc * 0x1.715476p+0f + 12582912.0f) - 12582912.0f;
  float r = (xc - k * 0x1.63p-1f) - k * -0x1.bd0106p-13f;
  float p = 1.0f + r * (1.0f + r * (0.5f + r * (0x1.555556p-3f + r * (0x1.555556p-5f + r * (0x1.111112p-7f + r * (0x1.6c16c2p-10f + r * 0x1.a01a02p-13f))))));
  int32_t ki = (int32_t)k;
  int32_t k1 = ki / 2, k2 = ki - k1;
  float s1 = gi_bitsf((uint32_t)(k1 + 127) << 23), s2 = gi_bitsf((uint32_t)(k2 + 127) << 23);
  float y = p * s1 * s2;
  return x != x ? x : y;
}
`},
	// log in float without branches: x = m 2^e with m in [sqrt(1/2),
	// sqrt(2)), log m = 2 atanh((m-1)/(m+1)) by its series.
	"log_f32": {deps: []string{"bits"}, src: `static inline float gi_log_f32(float x) {
  int sub = x < 0x1p-126f;
  float xs = sub ? x * 16777216.0f : x;
  uint32_t u = gi_fbits(xs);
  int32_t e = (int32_t)(u >> 23) - 127 - (sub ? 24 : 0);
  float m = gi_bitsf((u & 0x007FFFFFu) | 0x3F800000u);
  int big = m > 1.41421356f;
  m = big ? m * 0.5f : m;
  e += big;
  float f = (m - 1.0f) / (m + 1.0f);
  float f2 = f * f;
  float s = f * (2.0f + f2 * (0x1.555556p-1f + f2 * (0.4f + f2 * (0x1.24924ap-2f + f2 * (0x1.c71c72p-3f + f2 * 0x1.745d18p-3f)))));
  float ef = (float)e;
  float y = ef * 0x1.62ep-1f + (ef * 0x1.0bfbe8p-15f + s);
  y = x == 0x1p+128f ? x : y;
  y = x == 0.0f ? -0x1p+128f : y;
  return (x < 0.0f || x != x) ? __builtin_nanf("") : y;
}
`},
	"exp_f64": {deps: []string{"bits"}, src: `static inline double gi_pow2i(int k) { return gi_bitsd((uint64_t)(int64_t)(k + 1023) << 52); }
// e^r for |r| <= ln2/2 (Taylor to r^13).
static inline double gi_expr_f64(double r) {
  return 1.0 + r * (1.0 + r * (1.0 / 2 + r * (1.0 / 6 + r * (1.0 / 24 + r * (1.0 / 120 + r * (1.0 / 720 + r * (1.0 / 5040 +
    r * (1.0 / 40320 + r * (1.0 / 362880 + r * (1.0 / 3628800 + r * (1.0 / 39916800 + r * (1.0 / 479001600 + r * (1.0 / 6227020800.0)))))))))))));
}
// p * 2^k for k in [-2044, 2046], in two steps.
static inline double gi_scale_f64(double p, int k) {
  int k1 = k / 2, k2 = k - k1;
  return p * gi_pow2i(k1) * gi_pow2i(k2);
}
static inline double gi_exp_f64(double x) {
  if (x != x) return x;
  if (x > 709.79) return __builtin_inf();
  if (x < -745.2) return 0.0;
  int k = (int)(x * 0x1.71547652b82fep+0 + (x < 0 ? -0.5 : 0.5));
  double r = (x - k * 0x1.62e42ffp-1) - k * -0x1.718432a1b0e26p-35;
  return gi_scale_f64(gi_expr_f64(r), k);
}
`},
	"expm1_f64": {deps: []string{"exp_f64"}, src: `static inline double gi_expm1_f64(double x) {
  if (x != x) return x;
  if (x > -0.5 && x < 0.5) {
    double p = 1.0 + x * (1.0 / 19);
    for (int n = 18; n >= 2; n--) p = 1.0 + x * p / n;
    return x * p;
  }
  if (x < -40.0) return -1.0;
  return gi_exp_f64(x) - 1.0;
}
`},
	"exp2_f64": {deps: []string{"exp_f64"}, src: `static inline double gi_exp2_f64(double x) {
  if (x != x) return x;
  if (x >= 1024.0) return __builtin_inf();
  if (x < -1076.0) return 0.0;
  int k = (int)(x + (x < 0 ? -0.5 : 0.5));
  double f = x - k;
  return gi_scale_f64(gi_expr_f64(f * 0x1.62e42fefa39efp-1), k);
}
`},
	// log: x = m 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(f),
	// f = (m-1)/(m+1), by its series (f^2 < 0.03: eleven terms).
	"log_f64": {deps: []string{"bits"}, src: `static inline double gi_logm_f64(double x, int* e) {
  uint64_t u = gi_dbits(x);
  int ex = 0;
  if (u < 0x0010000000000000ull) { x *= 0x1p54; u = gi_dbits(x); ex = -54; }
  ex += (int)(u >> 52) - 1023;
  double m = gi_bitsd((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (m > 0x1.6a09e667f3bcdp+0) { m *= 0.5; ex++; }
  *e = ex;
  double f = (m - 1.0) / (m + 1.0), f2 = f * f;
  double s = 1.0 / 23;
  for (int n = 10; n >= 0; n--) s = 1.0 / (2 * n + 1) + f2 * s;
  return 2.0 * f * s;
}
static inline int gi_log_special(double x, double* r) {
  if (x != x || x < 0) { *r = __builtin_nan(""); return 1; }
  if (x == 0) { *r = -__builtin_inf(); return 1; }
  if (x == __builtin_inf()) { *r = x; return 1; }
  return 0;
}
static inline double gi_log_f64(double x) {
  double r;
  if (gi_log_special(x, &r)) return r;
  int e;
  double s = gi_logm_f64(x, &e);
  return e * 0x1.62e42ffp-1 + (e * -0x1.718432a1b0e26p-35 + s);
}
static inline double gi_log2_f64(double x) {
  double r;
  if (gi_log_special(x, &r)) return r;
  int e;
  double s = gi_logm_f64(x, &e);
  return (double)e + s * 0x1.71547652b82fep+0;
}
static inline double gi_log10_f64(double x) {
  double r;
  if (gi_log_special(x, &r)) return r;
  int e;
  double s = gi_logm_f64(x, &e);
  return e * 0x1.34413509f79ffp-2 + s * 0x1.bcb7b1526e50ep-2;
}
`},
	"log1p_f64": {deps: []string{"log_f64"}, src: `static inline double gi_log1p_f64(double x) {
  if (x != x || x < -1.0) return __builtin_nan("");
  if (x == -1.0) return -__builtin_inf();
  if (x == __builtin_inf()) return x;
  double u = 1.0 + x;
  if (u == 1.0) return x;
  return gi_log_f64(u) * (x / (u - 1.0));
}
`},
	"tanh_f64": {deps: []string{"expm1_f64"}, src: `static inline double gi_tanh_f64(double x) {
  if (x != x) return x;
  double a = x < 0 ? -x : x;
  double r = 1.0;
  if (a < 22.0) { double t = gi_expm1_f64(2.0 * a); r = t / (t + 2.0); }
  return x < 0 ? -r : r;
}
`},
	// erf: below 1 its Taylor series (terms fall fast, little
	// cancellation); from 1 to 6, 1 - erfc with erfc from its continued
	// fraction evaluated backwards (250 levels reach double precision at
	// 1) and e^(-a^2) from the exact square (Dekker's split); beyond, 1.
	"erf_f64": {deps: []string{"exp_f64"}, src: `static inline double gi_expnegsq_f64(double a) {
  double hi = a * a;
  double ah = gi_bitsd(gi_dbits(a) & 0xFFFFFFFFF8000000ull), al = a - ah;
  double lo = ((ah * ah - hi) + 2.0 * ah * al) + al * al;
  return gi_exp_f64(-hi) * (1.0 - lo);
}
static inline double gi_erf_f64(double x) {
  if (x != x) return x;
  double a = x < 0 ? -x : x, r;
  if (a < 1.0) {
    double a2 = a * a, p = a, sum = a;
    for (int n = 1; n < 40; n++) {
      p *= -a2 / n;
      double term = p / (2 * n + 1);
      sum += term;
      if ((term < 0 ? -term : term) < sum * 1e-18) break;
    }
    r = 0x1.20dd750429b6dp+0 * sum;
  } else if (a < 6.0) {
    double t = a;
    for (int n = 250; n >= 1; n--) t = a + (0.5 * n) / t;
    r = 1.0 - gi_expnegsq_f64(a) * 0x1.20dd750429b6dp-1 / t;
  } else {
    r = 1.0;
  }
  return x < 0 ? -r : r;
}
`},
	// sin, cos, tan: x = k pi/2 + r with pi/2 in four 24-bit parts and a
	// fifth (each k * part exact for |k| < 2^29), Taylor series on
	// |r| <= pi/4.
	"trig_f64": {src: `static inline int gi_rem_pio2(double x, double* r) {
  double k = (x * 0x1.45f306dc9c883p-1 + 6755399441055744.0) - 6755399441055744.0;
  *r = ((((x - k * 0x1.921fb6p+0) - k * -0x1.777a5cp-25) - k * -0x1.ee59dap-50) - k * 0x1.98a2ep-77) - k * 0x1.b839a252049c1p-104;
  return (int)((int64_t)k & 3);
}
static inline double gi_sinr(double r) {
  double r2 = r * r, p = -1.0 / 121645100408832000.0;
  static const double c[9] = {1.0 / 355687428096000.0, -1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0,
    1.0 / 362880.0, -1.0 / 5040.0, 1.0 / 120.0, -1.0 / 6.0, 1.0};
  for (int i = 0; i < 9; i++) p = c[i] + r2 * p;
  return r * p;
}
static inline double gi_cosr(double r) {
  double r2 = r * r, p = 1.0 / 2432902008176640000.0;
  static const double c[10] = {-1.0 / 6402373705728000.0, 1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0,
    -1.0 / 3628800.0, 1.0 / 40320.0, -1.0 / 720.0, 1.0 / 24.0, -0.5, 1.0};
  for (int i = 0; i < 10; i++) p = c[i] + r2 * p;
  return p;
}
static inline double gi_sin_f64(double x) {
  if (x != x || x == __builtin_inf() || x == -__builtin_inf()) return __builtin_nan("");
  double r;
  switch (gi_rem_pio2(x, &r)) {
  case 0: return gi_sinr(r);
  case 1: return gi_cosr(r);
  case 2: return -gi_sinr(r);
  default: return -gi_cosr(r);
  }
}
static inline double gi_cos_f64(double x) {
  if (x != x || x == __builtin_inf() || x == -__builtin_inf()) return __builtin_nan("");
  double r;
  switch (gi_rem_pio2(x, &r)) {
  case 0: return gi_cosr(r);
  case 1: return -gi_sinr(r);
  case 2: return -gi_cosr(r);
  default: return gi_sinr(r);
  }
}
static inline double gi_tan_f64(double x) {
  if (x != x || x == __builtin_inf() || x == -__builtin_inf()) return __builtin_nan("");
  double r;
  int q = gi_rem_pio2(x, &r);
  return (q & 1) ? -gi_cosr(r) / gi_sinr(r) : gi_sinr(r) / gi_cosr(r);
}
`},
	// atan: |x| > 1 through pi/2 - atan(1/x), then (tan(pi/8), 1] through
	// pi/4 + atan((a-1)/(a+1)), then the series on |a| <= tan(pi/8).
	"atan_f64": {src: `static inline double gi_atan_f64(double x) {
  if (x != x) return x;
  double a = x < 0 ? -x : x, off = 0.0, offlo = 0.0;
  int inv = a > 1.0;
  if (inv) a = 1.0 / a;
  if (a > 0x1.a827999fcef32p-2) { a = (a - 1.0) / (a + 1.0); off = 0x1.921fb54442d18p-1; offlo = 0x1.1a62633145c07p-55; }
  double a2 = a * a, s = 1.0 / 45;
  for (int n = 21; n >= 0; n--) s = (n & 1 ? -1.0 : 1.0) / (2 * n + 1) + a2 * s;
  double r = off + (offlo + a * s);
  if (inv) r = 0x1.921fb54442d18p+0 - (r - 0x1.1a62633145c07p-54);
  return x < 0 ? -r : r;
}
static inline double gi_atan2_f64(double y, double x) {
  if (x != x || y != y) return x + y;
  double pi = 0x1.921fb54442d18p+1, inf = __builtin_inf(), r;
  int xneg = __builtin_signbit(x) != 0;
  if (y == 0) r = xneg ? pi : 0.0;
  else if (x == 0) r = pi / 2;
  else if (x == inf || x == -inf) {
    if (y == inf || y == -inf) r = xneg ? 3 * pi / 4 : pi / 4;
    else r = xneg ? pi : 0.0;
  } else if (y == inf || y == -inf) r = pi / 2;
  else {
    double t = gi_atan_f64((y < 0 ? -y : y) / (x < 0 ? -x : x));
    r = xneg ? (pi - t) + 0x1.1a62633145c07p-53 : t;
  }
  return __builtin_copysign(r, y);
}
`},
	// pow through exp(y log|x|) with IEEE pow's special cases. The product
	// y log|x| carries log's relative error, so f64 results lose about
	// |y log x| ulp; f32 (computed in double) rounds correctly.
	"pow_f64": {deps: []string{"exp_f64", "log_f64", "rounding"}, src: `static inline double gi_pow_f64(double x, double y) {
  double inf = __builtin_inf();
  if (y == 0 || x == 1.0) return 1.0;
  if (x != x || y != y) return x + y;
  double ay = y < 0 ? -y : y;
  int yint = ay >= 0x1p53 || gi_trunc(y) == y;
  int yodd = yint && ay < 0x1p53 && gi_fmod2(y);
  if (y == inf || y == -inf) {
    double ax = x < 0 ? -x : x;
    if (ax == 1.0) return 1.0;
    return (ax > 1.0) == (y > 0) ? inf : 0.0;
  }
  if (x == 0) {
    double r = y > 0 ? 0.0 : inf;
    return (yodd && __builtin_signbit(x)) ? -r : r;
  }
  if (x == inf) return y > 0 ? inf : 0.0;
  if (x == -inf) { double r = y > 0 ? inf : 0.0; return yodd ? -r : r; }
  if (x < 0 && !yint) return __builtin_nan("");
  double r = gi_exp_f64(y * gi_log_f64(x < 0 ? -x : x));
  return (x < 0 && yodd) ? -r : r;
}
static inline double gi_powi_f64(double x, int64_t n) {
  uint64_t m = n < 0 ? 0 - (uint64_t)n : (uint64_t)n;
  double r = 1.0, b = x;
  while (m) { if (m & 1) r *= b; b *= b; m >>= 1; }
  return n < 0 ? 1.0 / r : r;
}
`},
	// fmod, exact: binary long division by y scaled to x's exponent
	// (every subtraction is exact by Sterbenz's lemma).
	"fmod_f64": {src: `static inline double gi_fmod_f64(double x, double y) {
  double ax = x < 0 ? -x : x, ay = y < 0 ? -y : y;
  if (x != x || y != y || ay == 0 || ax == __builtin_inf()) return __builtin_nan("");
  if (ax < ay) return x;
  double s = ay;
  while (s * 2.0 <= ax) s *= 2.0;
  while (s >= ay) { if (ax >= s) ax -= s; s *= 0.5; }
  return x < 0 ? -ax : ax;
}
`},
	"matmul": {src: matmulHelper},
	// fma without an FMA instruction: Dekker's exact product and Knuth's
	// two-sum, then one final addition of the errors (correct to within
	// a rounding of the error terms).
	"fma_f64": {deps: []string{"bits"}, src: `static inline double gi_fma_f64(double a, double b, double c) {
  double p = a * b;
  if (!(p - p == 0) || !(c - c == 0) || p == 0) return p + c;
  double ah = gi_bitsd(gi_dbits(a) & 0xFFFFFFFFF8000000ull), al = a - ah;
  double bh = gi_bitsd(gi_dbits(b) & 0xFFFFFFFFF8000000ull), bl = b - bh;
  double pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
  double s = p + c, v = s - p;
  double se = (p - (s - v)) + (c - v);
  return s + (se + pe);
}
`},
}

// needHelper marks helper h and everything it uses as emitted.
func needHelper(set map[string]bool, h string) {
	if set[h] {
		return
	}
	set[h] = true
	for _, d := range helperSource[h].deps {
		needHelper(set, d)
	}
}
