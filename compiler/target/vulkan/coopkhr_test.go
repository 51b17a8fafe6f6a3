package vulkan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// coopGLSL is a shader on NVIDIA's cooperative matrices around main's
// body: f16 inputs a and b and an f32 output c.
func coopGLSL(body string) string {
	return `#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) buffer C { float c[]; };
layout(push_constant) uniform P { uint n; } p;
#define H fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define F fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
void main() {
` + body + "\n}\n"
}

// spvModule indexes a SPIR-V module for the checks: each instruction by
// the id it defines.
type spvModule struct {
	defs  map[uint32][]uint32
	insns [][]uint32
	bound uint32
}

func indexSPIRV(t *testing.T, code []uint32) spvModule {
	t.Helper()
	m := spvModule{defs: map[uint32][]uint32{}, bound: code[3]}
	// The opcodes with a result id but no result type (strings, imports,
	// types, labels) and those without a result id, among those these
	// shaders use.
	noType := map[uint32]bool{7: true, 11: true, 248: true, opTypeCoopKHR: true, opTypeCoopNV: true}
	for op := uint32(19); op <= 38; op++ {
		noType[op] = true
	}
	noResult := map[uint32]bool{opStoreCoopNV: true, opStoreCoopKHR: true}
	for _, op := range []uint32{0, 2, 3, 4, 5, 6, 8, 10, 14, 15, 16, 17, 39, 56, 62, 63, 71, 72, 224, 225,
		246, 247, 249, 250, 251, 252, 253, 254, 255, 317, 330, 331, 332} {
		noResult[op] = true
	}
	err := eachInstruction(code, func(at int, w []uint32) error {
		m.insns = append(m.insns, w)
		op := w[0] & 0xffff
		var id uint32
		switch {
		case noResult[op]:
			return nil
		case noType[op]:
			id = w[1]
		case len(w) >= 3:
			id = w[2]
		default:
			return nil
		}
		if m.defs[id] != nil {
			return fmt.Errorf("id %%%d is defined twice (word %d)", id, at)
		}
		if id >= m.bound {
			return fmt.Errorf("id %%%d (word %d) is not below the bound %d", id, at, m.bound)
		}
		m.defs[id] = w
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// constant returns the value of the OpConstant id.
func (m spvModule) constant(t *testing.T, id uint32) uint32 {
	t.Helper()
	w := m.defs[id]
	if w == nil || w[0]&0xffff != opConstant {
		t.Fatalf("%%%d is not an OpConstant", id)
	}
	return w[3]
}

// checkKHR checks a rewritten module: no NV instruction, capability or
// extension left; each multiply-add's operands of KHR matrix types with
// the use and shape of their place (A M x K, B K x N, accumulator M x N);
// each load and store with a row- or column-major constant.
func checkKHR(t *testing.T, code []uint32) {
	t.Helper()
	m := indexSPIRV(t, code)
	var caps, exts []string
	muladds := 0
	for _, w := range m.insns {
		op := w[0] & 0xffff
		switch op {
		case opTypeCoopNV, opLoadCoopNV, opStoreCoopNV, opMulAddCoopNV, opLengthCoopNV:
			t.Fatalf("NV instruction %d left in the module", op)
		case opCapability:
			caps = append(caps, fmt.Sprint(w[1]))
		case opExtension:
			s, _ := literalString(w[1:])
			exts = append(exts, s)
		case opLoadCoopKHR, opStoreCoopKHR:
			l := w[4]
			if op == opStoreCoopKHR {
				l = w[3]
			}
			if v := m.constant(t, l); v != rowMajor && v != colMajor {
				t.Fatalf("layout %d is neither row- nor column-major", v)
			}
		case opMulAddCoopKHR:
			muladds++
			typ := func(id uint32) []uint32 {
				v := m.defs[id]
				if v == nil {
					t.Fatalf("multiply-add operand %%%d is not defined", id)
				}
				tw := m.defs[v[1]]
				if tw == nil || tw[0]&0xffff != opTypeCoopKHR {
					t.Fatalf("multiply-add operand %%%d has type %%%d, not a KHR cooperative matrix", id, v[1])
				}
				return tw
			}
			rt := m.defs[w[1]]
			a, b, c := typ(w[3]), typ(w[4]), typ(w[5])
			rows, cols, use := func(x []uint32) uint32 { return m.constant(t, x[4]) }, func(x []uint32) uint32 { return m.constant(t, x[5]) }, func(x []uint32) uint32 { return m.constant(t, x[6]) }
			if use(a) != useA || use(b) != useB || use(c) != useAcc || use(rt) != useAcc {
				t.Fatalf("multiply-add uses: A %d, B %d, C %d, result %d; want 0 1 2 2", use(a), use(b), use(c), use(rt))
			}
			if rows(a) != rows(c) || cols(a) != rows(b) || cols(b) != cols(c) || rows(rt) != rows(c) || cols(rt) != cols(c) {
				t.Fatalf("multiply-add shapes A %dx%d, B %dx%d, C %dx%d do not chain", rows(a), cols(a), rows(b), cols(b), rows(c), cols(c))
			}
		}
	}
	if muladds == 0 {
		t.Fatal("no multiply-add in the rewritten module")
	}
	if strings.Contains(strings.Join(caps, " "), fmt.Sprint(capCoopNV)) || !strings.Contains(strings.Join(caps, " "), fmt.Sprint(capCoopKHR)) {
		t.Fatalf("capabilities %v: want CooperativeMatrixKHR (%d) and not the NV one", caps, capCoopKHR)
	}
	if slices.Contains(exts, "SPV_NV_cooperative_matrix") || !slices.Contains(exts, "SPV_KHR_cooperative_matrix") {
		t.Fatalf("extensions %v: want SPV_KHR_cooperative_matrix and not the NV one", exts)
	}
}

// khrValidator returns a spirv-val that knows SPV_KHR_cooperative_matrix
// (SPIRV-Tools 2023.4 or newer; $GOIREE_SPIRV_VAL or spirv-val on PATH),
// or "".
func khrValidator(t *testing.T) string {
	path := os.Getenv("GOIREE_SPIRV_VAL")
	if path == "" {
		path, _ = exec.LookPath("spirv-val")
	}
	if path == "" {
		return ""
	}
	// A module declaring only the KHR capability: older validators reject
	// the operand.
	probe := []uint32{0x07230203, 0x00010300, 0, 1, 0, 2<<16 | opCapability, 1, 2<<16 | opCapability, capCoopKHR,
		3<<16 | 14, 0, 1}
	f := filepath.Join(t.TempDir(), "probe.spv")
	if err := os.WriteFile(f, wordBytes(probe), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := exec.Command(path, f).CombinedOutput()
	if strings.Contains(string(out), "Invalid capability operand") {
		return ""
	}
	return path
}

// TestCoopKHR rewrites shaders written for GL_NV_cooperative_matrix to
// SPV_KHR_cooperative_matrix: a fragment type that serves as A and B is
// split, uses travel through variables, copies and conditionals, and
// shaders the rewrite cannot express are refused with the reason.
func TestCoopKHR(t *testing.T) {
	glslc, err := (Options{}).FindGlslc()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	val := khrValidator(t)
	for _, c := range []struct {
		name, body, err string
	}{
		{name: "one product", body: `H x; H y; F acc = F(0.0);
  coopMatLoadNV(x, a, 0u, 16u, false);
  coopMatLoadNV(y, b, 0u, 16u, true);
  acc = coopMatMulAddNV(x, y, acc);
  coopMatStoreNV(acc, c, 0u, 16u, false);`},
		{name: "copies and branches", body: `H x; H x2; H y; H z; F acc; F acc2;
  coopMatLoadNV(acc, c, 0u, 16u, false);
  coopMatLoadNV(x, a, 0u, 16u, false);
  coopMatLoadNV(x2, a, 256u, 16u, false);
  coopMatLoadNV(y, b, 0u, 16u, false);
  if (p.n > 3u) { z = x; } else { z = x2; }
  for (uint i = 0u; i < p.n; i++) {
    acc2 = acc;
    acc = coopMatMulAddNV(x, y, acc2);
  }
  acc = coopMatMulAddNV(z, y, acc);
  coopMatStoreNV(acc, c, 0u, 16u, false);`},
		{name: "select of an A and a B", body: `H x; H y; H z; F acc = F(0.0);
  coopMatLoadNV(x, a, 0u, 16u, false);
  coopMatLoadNV(y, b, 0u, 16u, false);
  if (p.n > 3u) { z = x; } else { z = y; }
  acc = coopMatMulAddNV(z, y, acc);
  coopMatStoreNV(acc, c, 0u, 16u, false);`, err: "used as [A B] of multiply-adds"},
		{name: "loop", body: `H x; H y; F acc = F(1.0);
  for (uint i = 0u; i < p.n; i++) {
    coopMatLoadNV(x, a, i * 256u, 16u, false);
    coopMatLoadNV(y, b, i * 256u, 16u, false);
    H x2 = x;
    acc = coopMatMulAddNV(x2, y, acc * float(2.0));
  }
  coopMatStoreNV(acc, c, 0u, 16u, false);`},
		{name: "one fragment both operands", body: `H x; F acc = F(0.0);
  coopMatLoadNV(x, a, 0u, 16u, false);
  acc = coopMatMulAddNV(x, x, acc);
  coopMatStoreNV(acc, c, 0u, 16u, false);`, err: "used as [A B] of multiply-adds; a KHR matrix has one use"},
		{name: "array of matrices", body: `H x[2]; F acc = F(0.0);
  coopMatLoadNV(x[0], a, 0u, 16u, false);
  coopMatLoadNV(x[1], b, 0u, 16u, false);
  acc = coopMatMulAddNV(x[0], x[1], acc);
  coopMatStoreNV(acc, c, 0u, 16u, false);`, err: "inside an aggregate or function type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			nv, err := CompileGLSL(glslc, coopGLSL(c.body))
			if err != nil {
				t.Fatal(err)
			}
			if !usesNVCoopMatrix(nv) {
				t.Fatal("glslc's module does not declare CooperativeMatrixNV")
			}
			khr, err := coopKHR(nv)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkKHR(t, khr)
			if val == "" {
				t.Log("no spirv-val that knows SPV_KHR_cooperative_matrix (SPIRV-Tools 2023.4+; set GOIREE_SPIRV_VAL): structural checks only")
				return
			}
			f := filepath.Join(t.TempDir(), "khr.spv")
			if err := os.WriteFile(f, wordBytes(khr), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(val, "--target-env", "vulkan1.1", f).CombinedOutput(); err != nil {
				t.Fatalf("%s rejects the rewritten module: %v\n%s", val, err, out)
			}
		})
	}
}

// coopTypes lists a module's KHR cooperative matrix types as "scope
// rows x columns use" (scope 2 is the workgroup, 3 the subgroup; use 0
// is A, 1 B, 2 the accumulator), sorted.
func coopTypes(t *testing.T, code []uint32) []string {
	t.Helper()
	m := indexSPIRV(t, code)
	var out []string
	for _, w := range m.insns {
		if w[0]&0xffff == opTypeCoopKHR {
			out = append(out, fmt.Sprintf("%d %dx%d %d", m.constant(t, w[3]), m.constant(t, w[4]), m.constant(t, w[5]), m.constant(t, w[6])))
		}
	}
	slices.Sort(out)
	return out
}
