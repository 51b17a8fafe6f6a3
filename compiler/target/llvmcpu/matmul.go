package llvmcpu

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/loopnest"
)

// Matmul-like loop nests (f32 C[b?, i, j] += A[b?, i|k, k|i] *
// B[b?, k|j, j|k], one reduction loop) get a packed, register-blocked
// kernel instead of the generic nest: the workgroups share out 2-D blocks
// of C (the contract lets a target divide the work differently from the
// 1-D split); per block, K is cut into KC-deep slices, B's slice is packed
// into NR-wide column panels and each MR-row strip of A into an MR-wide
// panel, and a micro-kernel keeps an MR x NR tile of C in vector
// registers across the slice. Each element of C still accumulates its
// products in k order onto its init (the tile is loaded from C, or the
// init for the first slice, and stored back after each slice).
//
// The tile shape follows the CPU the C is compiled for (clang's feature
// macros): 8x32 with AVX-512, 4x24 with AVX, 4x12 with 16-byte vectors.

// matmulKC and matmulBN bound the packing buffers, which live in the
// workgroup's local memory (matmulLocalPages 4 KiB pages: an MR x KC
// panel of A, a KC x BN block of B and room to align them). A kernel
// whose epilogue stores another element type than its f32 accumulators
// also keeps its block of C in local memory, at most matmulAccRows rows
// (matmulAccPages in all).
const (
	matmulKC         = 256
	matmulBN         = 256
	matmulMaxMR      = 8
	matmulLocalPages = (matmulKC*(matmulMaxMR+matmulBN)*4 + 128 + 4095) / 4096
	matmulAccRows    = 32
	matmulAccPages   = (matmulKC*(matmulMaxMR+matmulBN)*4 + matmulAccRows*matmulBN*4 + 128 + 4095) / 4096
)

var matmulHelper = `#if defined(__AVX512F__)
#define GI_VL 16
#define GI_MR 8
#define GI_NV 2
#elif defined(__AVX__)
#define GI_VL 8
#define GI_MR 4
#define GI_NV 3
#else
#define GI_VL 4
#define GI_MR 4
#define GI_NV 3
#endif
#define GI_NR (GI_VL * GI_NV)
#define GI_KC ` + strconv.Itoa(matmulKC) + `
#define GI_BN ((` + strconv.Itoa(matmulBN) + ` / GI_NR) * GI_NR)
typedef float gi_vf __attribute__((vector_size(GI_VL * 4)));
typedef float gi_vfu __attribute__((vector_size(GI_VL * 4), aligned(4)));
typedef struct gi_mm gi_mm_t;
struct gi_mm {
  int64_t M, N, K;
  const float* a; int64_t sai, sak;
  const float* b; int64_t sbk, sbj;
  const float* init; /* NULL: C starts from zero */
  float* c; int64_t sci;
  int64_t sii; /* the init's row stride */
  /* C's element (i, j) is at c + (i - ci0) * sci + (j - cj0): C may be
     the block's own buffer. */
  int64_t ci0, cj0;
  /* The kernel's epilogue, when it has one: applied to each finished
     mr x nr tile of C at rows i0.., columns j0.. (of batch), in place. */
  void (*epi)(const gi_mm_t* p, int64_t i0, int64_t j0, int64_t mr, int64_t nr);
  const void* ctx;
  int64_t batch;
};
// One MR x NR tile of C over a KC slice: acc = from (C, the init, or 0),
// acc += A panel * B panel in k order, C = acc. Partial tiles go through
// a full-size temporary (the panels are zero-padded).
static inline void gi_mm_micro(int64_t kc, const float* restrict ap, const float* restrict bp, float* c, const float* from, int64_t ldc, int64_t ldf, int64_t mr, int64_t nr) {
  gi_vf acc[GI_MR][GI_NV];
  float tmp[GI_MR * GI_NR] __attribute__((aligned(64)));
  const int full = mr == GI_MR && nr == GI_NR;
  if (full) {
    for (int r = 0; r < GI_MR; r++)
      for (int v = 0; v < GI_NV; v++)
        acc[r][v] = from ? *(const gi_vfu*)(from + r * ldf + v * GI_VL) : (gi_vf){0};
  } else {
    for (int r = 0; r < GI_MR; r++)
      for (int j = 0; j < GI_NR; j++)
        tmp[r * GI_NR + j] = (from && r < mr && j < nr) ? from[r * ldf + j] : 0.0f;
    for (int r = 0; r < GI_MR; r++)
      for (int v = 0; v < GI_NV; v++)
        acc[r][v] = *(const gi_vf*)(tmp + r * GI_NR + v * GI_VL);
  }
  for (int64_t k = 0; k < kc; k++) {
    const gi_vf* bv = (const gi_vf*)(bp + k * GI_NR);
    for (int r = 0; r < GI_MR; r++) {
      gi_vf av;
      for (int l = 0; l < GI_VL; l++) av[l] = ap[k * GI_MR + r];
      for (int v = 0; v < GI_NV; v++) acc[r][v] = acc[r][v] + av * bv[v];
    }
  }
  if (full) {
    for (int r = 0; r < GI_MR; r++)
      for (int v = 0; v < GI_NV; v++)
        *(gi_vfu*)(c + r * ldc + v * GI_VL) = acc[r][v];
  } else {
    for (int r = 0; r < GI_MR; r++)
      for (int v = 0; v < GI_NV; v++)
        *(gi_vf*)(tmp + r * GI_NR + v * GI_VL) = acc[r][v];
    for (int64_t r = 0; r < mr; r++)
      for (int64_t j = 0; j < nr; j++)
        c[r * ldc + j] = tmp[r * GI_NR + j];
  }
}
// C[i0:i1, j0:j1] (j1 - j0 <= GI_BN) with packing buffers ap (GI_MR x
// GI_KC) and bp (GI_KC x GI_BN), both 64-byte aligned. The epilogue runs
// on each tile right after its last K slice, while it is in L1.
static void gi_mm_block(const gi_mm_t* p, int64_t i0, int64_t i1, int64_t j0, int64_t j1, float* restrict ap, float* restrict bp) {
  if (p->K == 0) {
    for (int64_t i = i0; i < i1; i++)
      for (int64_t j = j0; j < j1; j++)
        p->c[(i - p->ci0) * p->sci + (j - p->cj0)] = p->init ? p->init[i * p->sii + j] : 0.0f;
    if (p->epi) p->epi(p, i0, j0, i1 - i0, j1 - j0);
    return;
  }
  for (int64_t kb = 0; kb < p->K; kb += GI_KC) {
    const int64_t kc = p->K - kb < GI_KC ? p->K - kb : GI_KC;
    for (int64_t jp = j0; jp < j1; jp += GI_NR) {
      const int64_t nr = j1 - jp < GI_NR ? j1 - jp : GI_NR;
      float* dst = bp + (jp - j0) * kc;
      for (int64_t k = 0; k < kc; k++) {
        const float* src = p->b + (kb + k) * p->sbk + jp * p->sbj;
        if (nr == GI_NR && p->sbj == 1) {
          for (int j = 0; j < GI_NR; j++) dst[k * GI_NR + j] = src[j];
        } else {
          for (int64_t j = 0; j < GI_NR; j++) dst[k * GI_NR + j] = j < nr ? src[j * p->sbj] : 0.0f;
        }
      }
    }
    for (int64_t ib = i0; ib < i1; ib += GI_MR) {
      const int64_t mr = i1 - ib < GI_MR ? i1 - ib : GI_MR;
      for (int64_t k = 0; k < kc; k++)
        for (int r = 0; r < GI_MR; r++)
          ap[k * GI_MR + r] = r < mr ? p->a[(ib + r) * p->sai + (kb + k) * p->sak] : 0.0f;
      for (int64_t jp = j0; jp < j1; jp += GI_NR) {
        const int64_t nr = j1 - jp < GI_NR ? j1 - jp : GI_NR;
        float* c = p->c + (ib - p->ci0) * p->sci + (jp - p->cj0);
        const float* from = kb > 0 ? c : p->init ? p->init + ib * p->sii + jp : (const float*)0;
        gi_mm_micro(kc, ap, bp + (jp - j0) * kc, c, from, p->sci, kb > 0 ? p->sci : p->sii, mr, nr);
        if (p->epi && kb + kc == p->K) p->epi(p, ib, jp, mr, nr);
      }
    }
  }
}
`

// matmulShape is a recognized matmul-like kernel: the loops playing i, j,
// k and an optional batch loop, and which input is A.
type matmulShape struct {
	i, j, k, batch int // batch is -1 when absent
	a, b           int // input indices of A (indexed by i, k) and B (k, j)
}

// matchMatmul reports whether a kernel is an f32 matmul its micro-kernel
// computes: parallel loops [batch,] i, j indexing C as [batch,] i, j, one
// reduction loop k, inputs A over {i, k} and B over {k, j} (each in
// either order, behind the same batch index), and the body acc + a * b.
func matchMatmul(k *loopnest.Kernel, body *ir.Operation) (matmulShape, bool) {
	m := matmulShape{batch: -1}
	f32 := func(t ir.Type) bool { ft, ok := t.(ir.FloatType); return ok && ft.Name == "f32" }
	// The accumulators are f32; the output too, unless an epilogue
	// stores another element type.
	if len(k.Inputs) != 2 || len(k.Outputs) != 1 || !f32(k.Outputs[0].AccElem()) || k.FirstIndexed() >= 0 {
		return m, false
	}
	var reds []int
	for l, it := range k.Iterators {
		if it == "reduction" {
			reds = append(reds, l)
		}
	}
	out := k.Outputs[0].Map.Results
	if len(reds) != 1 || len(out) < 2 || len(out) > 3 || len(out) != len(k.Ranges)-1 {
		return m, false
	}
	m.k, m.i, m.j = reds[0], out[len(out)-2].Pos, out[len(out)-1].Pos
	if len(out) == 3 {
		m.batch = out[0].Pos
	}
	// dims lists an operand's bare loop indices (false if any is not).
	dims := func(o loopnest.Operand) ([]int, bool) {
		var ds []int
		for _, e := range o.Map.Results {
			if e.Kind != ir.AffineDim {
				return nil, false
			}
			ds = append(ds, e.Pos)
		}
		return ds, true
	}
	// fits reports whether ds is [batch,] then x and y in either order.
	fits := func(ds []int, x, y int) bool {
		if m.batch >= 0 {
			if len(ds) != 3 || ds[0] != m.batch {
				return false
			}
			ds = ds[1:]
		}
		return len(ds) == 2 && (ds[0] == x && ds[1] == y || ds[0] == y && ds[1] == x)
	}
	var ds [2][]int
	for n, in := range k.Inputs {
		if in.Scalar != nil || !f32(in.Type.Elem) {
			return m, false
		}
		var ok bool
		if ds[n], ok = dims(in); !ok {
			return m, false
		}
	}
	switch {
	case fits(ds[0], m.i, m.k) && fits(ds[1], m.k, m.j):
		m.a, m.b = 0, 1
	case fits(ds[1], m.i, m.k) && fits(ds[0], m.k, m.j):
		m.a, m.b = 1, 0
	default:
		return m, false
	}
	// The body: mul of the two input arguments, add of it and the
	// accumulator, returned.
	ops := body.Body().Ops
	if len(ops) != 3 || ops[0].Name != "arith.mulf" || ops[1].Name != "arith.addf" || ops[2].Name != "func.return" {
		return m, false
	}
	args := body.Body().Args
	nl := len(k.Ranges)
	isArgs := func(vs []*ir.Value, x, y *ir.Value) bool {
		return len(vs) == 2 && (vs[0] == x && vs[1] == y || vs[0] == y && vs[1] == x)
	}
	mul, add := ops[0], ops[1]
	if !isArgs(mul.Operands, args[nl], args[nl+1]) || !isArgs(add.Operands, mul.Results[0], args[nl+2]) ||
		len(ops[2].Operands) != 1 || ops[2].Operands[0] != add.Results[0] || len(mul.Attrs) > 0 || len(add.Attrs) > 0 {
		return m, false
	}
	return m, true
}

// matmulNest writes the body of a matmul-like kernel's entry function
// (after the prologue that checked the bindings) with the micro-kernel.
// find gives a binding's index by role; strides and ranges are the C
// expressions the prologue defined.
//
// With an epilogue (withEpilogue), matmulTile has written the function
// <cname>_tile that applies it to a tile, and the context it reads. When
// the epilogue stores another element type than the f32 accumulators,
// each block of C accumulates in local memory instead of in the output,
// and the tile function stores the output.
func (g *cgen) matmulNest(w *strings.Builder, k *loopnest.Kernel, m matmulShape, find func(string, int) int, strides [][]string, ranges []string, cname string, withEpilogue bool) {
	g.helpers["matmul"] = true
	bindings := k.Bindings()
	// stride returns the element stride of loop l in binding bi ("0" when
	// the binding does not use it).
	stride := func(bi, l int) string {
		for r, e := range bindings[bi].Map.Results {
			if e.Kind == ir.AffineDim && e.Pos == l {
				return strides[bi][r]
			}
		}
		return "0LL"
	}
	a, b, c := find("in", m.a), find("in", m.b), find("out", 0)
	acc := k.Outputs[0].Acc != nil
	init, sii := "(const float*)0", "0LL"
	ci := -1
	if k.Outputs[0].Init {
		ci = find("init", 0)
		init, sii = "init0", stride(ci, m.i)
	}
	cp, local := "out0", "GI_KC * (GI_MR + GI_BN) * 4 + 128"
	if acc {
		cp, local = "(float*)0", local+" + "+strconv.Itoa(matmulAccRows)+" * GI_BN * 4"
	}
	fmt.Fprintf(w, "  gi_mm_t gi_p = {%s, %s, %s, in%d, %s, %s, in%d, %s, %s, %s, %s, %s};\n",
		ranges[m.i], ranges[m.j], ranges[m.k], m.a, stride(a, m.i), stride(a, m.k), m.b, stride(b, m.k), stride(b, m.j), init, cp, stride(c, m.i))
	fmt.Fprintf(w, "  gi_p.sii = %s;\n", sii)
	if withEpilogue {
		var ptrs, vals []string
		for _, bi := range tileBindings(k, bindings) {
			ptrs = append(ptrs, fmt.Sprintf("%s%d", bindings[bi].Role, bindings[bi].Index))
			vals = append(vals, strides[bi][:len(strides[bi])-min(len(strides[bi]), 1)]...)
		}
		fmt.Fprintf(w, "  const %s_ctx_t gi_x = {%s};\n", cname, strings.Join(append(ptrs, "{"+strings.Join(append(vals, "0"), ", ")+"}"), ", "))
		fmt.Fprintf(w, "  gi_p.epi = %s_tile;\n  gi_p.ctx = &gi_x;\n", cname)
	}
	batch := "1LL"
	if m.batch >= 0 {
		batch = ranges[m.batch]
	}
	maxRows := ""
	if acc {
		maxRows = fmt.Sprintf("  if (gi_bm > %d) gi_bm = %d;\n", matmulAccRows, matmulAccRows)
	}
	// Blocks: columns in GI_BN-wide strips, rows cut so that there are
	// about as many blocks as workgroups; workgroup w takes blocks w,
	// w + count, ...
	fmt.Fprintf(w, `  const int64_t gi_nb = %s;
  const int64_t gi_wgs = (int64_t)ds->workgroup_count_x;
  const int64_t gi_gn = (gi_p.N + GI_BN - 1) / GI_BN;
  int64_t gi_gm = (gi_wgs + gi_nb * gi_gn - 1) / (gi_nb * gi_gn);
  if (gi_gm < 1) gi_gm = 1;
  int64_t gi_bm = (gi_p.M + gi_gm - 1) / gi_gm;
  gi_bm = (gi_bm + GI_MR - 1) / GI_MR * GI_MR;
  if (gi_bm < GI_MR) gi_bm = GI_MR;
%s  gi_gm = (gi_p.M + gi_bm - 1) / gi_bm;
  if ((uint64_t)ws->local_memory_size < (uint64_t)(%s)) return 1;
  float* gi_ap = (float*)(((__UINTPTR_TYPE__)ws->local_memory + 63) & ~(__UINTPTR_TYPE__)63);
  float* gi_bp = gi_ap + GI_KC * GI_MR;
  for (int64_t gi_item = ws->workgroup_id_x; gi_item < gi_nb * gi_gm * gi_gn; gi_item += gi_wgs) {
    const int64_t gi_b = gi_item / (gi_gm * gi_gn), gi_r = gi_item %% (gi_gm * gi_gn);
    const int64_t gi_i0 = gi_r / gi_gn * gi_bm, gi_j0 = gi_r %% gi_gn * GI_BN;
    gi_mm_t gi_q = gi_p;
`, batch, maxRows, local)
	if acc {
		// The block's accumulators, row-major GI_BN wide, after B's
		// packing buffer.
		w.WriteString("    gi_q.c = gi_bp + GI_KC * GI_BN; gi_q.sci = GI_BN; gi_q.ci0 = gi_i0; gi_q.cj0 = gi_j0;\n")
	}
	if m.batch >= 0 {
		fmt.Fprintf(w, "    gi_q.a += gi_b * %s; gi_q.b += gi_b * %s; gi_q.batch = gi_b;\n", stride(a, m.batch), stride(b, m.batch))
		if !acc {
			fmt.Fprintf(w, "    gi_q.c += gi_b * %s;\n", stride(c, m.batch))
		}
		if ci >= 0 {
			fmt.Fprintf(w, "    gi_q.init += gi_b * %s;\n", stride(ci, m.batch))
		}
	} else {
		w.WriteString("    (void)gi_b;\n")
	}
	w.WriteString(`    const int64_t gi_i1 = gi_i0 + gi_bm < gi_p.M ? gi_i0 + gi_bm : gi_p.M;
    const int64_t gi_j1 = gi_j0 + GI_BN < gi_p.N ? gi_j0 + GI_BN : gi_p.N;
    if (gi_i0 < gi_i1 && gi_j0 < gi_j1) gi_mm_block(&gi_q, gi_i0, gi_i1, gi_j0, gi_j1, gi_ap, gi_bp);
  }
  return 0;
}

`)
}

// tileBindings lists the bindings a matmul's tile function reads through
// its context: the epilogue inputs, and the output when the block
// accumulates apart from it.
func tileBindings(k *loopnest.Kernel, bindings []loopnest.Binding) []int {
	var out []int
	for bi, b := range bindings {
		if b.Role == "epilogue" || b.Role == "out" && k.Outputs[0].Acc != nil {
			out = append(out, bi)
		}
	}
	return out
}

// matmulTile writes, before the kernel's entry function, what its
// micro-kernel needs to apply the epilogue to a finished tile of C: the
// context struct <cname>_ctx_t (the pointers of the tileBindings and
// their strides that are variables of the entry, in binding and dimension
// order) and <cname>_tile, which runs the epilogue over the tile's
// elements: in place, or from the block's f32 accumulators into the
// output when it has another element type. epilogueArgs are the epilogue
// input loads of the generic nest and outOffset the output's offset,
// which use the same names.
func (g *cgen) matmulTile(k *loopnest.Kernel, m matmulShape, cname, ename string, bindings []loopnest.Binding, strides [][]string, epilogueArgs []string, outOffset string) {
	w := &g.body
	var fields, decls []string
	n := 0
	for _, bi := range tileBindings(k, bindings) {
		b := bindings[bi]
		ct, _ := storageType(b.Type.Elem)
		q := "const "
		if b.Role == "out" {
			q = ""
		}
		name := fmt.Sprintf("%s%d", b.Role, b.Index)
		fields = append(fields, fmt.Sprintf("%s%s* %s;", q, ct, name))
		decls = append(decls, fmt.Sprintf("  %s%s* restrict %s = x->%s;\n", q, ct, name, name))
		st := strides[bi]
		for _, v := range st[:len(st)-min(len(st), 1)] {
			if !strings.HasSuffix(v, "LL") {
				decls = append(decls, fmt.Sprintf("  const int64_t %s = x->v[%d];\n", v, n))
			}
			n++
		}
	}
	fmt.Fprintf(w, "typedef struct { %s int64_t v[%d]; } %s_ctx_t;\n", strings.Join(fields, " "), n+1, cname)
	fmt.Fprintf(w, "static void %s_tile(const gi_mm_t* p, int64_t i0, int64_t j0, int64_t mr, int64_t nr) {\n", cname)
	fmt.Fprintf(w, "  const %s_ctx_t* x = (const %s_ctx_t*)p->ctx;\n  (void)x;\n", cname, cname)
	for _, d := range decls {
		w.WriteString(d)
	}
	if m.batch >= 0 {
		fmt.Fprintf(w, "  const int64_t d%d = p->batch;\n", m.batch)
	}
	var args []string
	for _, l := range k.Parallel() {
		args = append(args, "d"+strconv.Itoa(l))
	}
	args = append(append(args, "gi_c[gi_t]"), epilogueArgs...)
	store := ""
	if o := k.Outputs[0]; o.Acc != nil {
		ct, _ := cType(o.Type.Elem)
		store = fmt.Sprintf("%s gi_v;\n      %s(%s, &gi_v);\n      out0[%s] = %s;", ct, ename, strings.Join(args, ", "), outOffset, storeValue(g.helpers, o.Type.Elem, "gi_v"))
	} else {
		store = fmt.Sprintf("%s(%s, &gi_c[gi_t]);", ename, strings.Join(args, ", "))
	}
	fmt.Fprintf(w, `  for (int64_t gi_s = 0; gi_s < mr; gi_s++) {
    const int64_t d%d = i0 + gi_s;
    float* restrict gi_c = p->c + (d%d - p->ci0) * p->sci + (j0 - p->cj0);
    for (int64_t gi_t = 0; gi_t < nr; gi_t++) {
      const int64_t d%d = j0 + gi_t;
      %s
    }
  }
}

`, m.i, m.i, m.j, store)
}
