package llvmcpu_test

import (
	"bytes"
	"debug/elf"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
)

// TestMatmulTilesMatchHelper checks config.go's table of register tiles
// against the micro-kernel's preprocessor choices in matmulHelper, so
// that the recorded MR x NR is the one the C computes with.
func TestMatmulTilesMatchHelper(t *testing.T) {
	helper := llvmcpu.MatmulHelper
	re := regexp.MustCompile(`(?m)^#(if|elif|else)\s*(.*)\n#define GI_VL (\d+)\n#define GI_MR (\d+)\n#define GI_NV (\d+)\n`)
	var got []string
	for _, m := range re.FindAllStringSubmatch(helper, -1) {
		vl, _ := strconv.Atoi(m[3])
		nv, _ := strconv.Atoi(m[5])
		got = append(got, m[2]+" "+m[4]+"x"+strconv.Itoa(vl*nv))
	}
	var want []string
	for _, tl := range llvmcpu.MatmulTiles() {
		want = append(want, tl)
	}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("matmulHelper chooses %q, config.go records %q", got, want)
	}
}

// TestConfigSection builds a matmul, a softmax and an elementwise program
// for llvm-cpu and reads each library's ConfigSection as tools do: every
// generated export has its line, the matmul the packed pipeline with the
// portable x86-64 register tile (no AVX: 4 x 12 in blocks 252 wide), the
// softmax one row group of a row a workgroup (8 rows, fewer than the 64
// workgroups).
func TestConfigSection(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	src := `func.func @mm(%a: tensor<64x32xf32>, %b: tensor<32x48xf32>, %c: tensor<64x48xf32>) -> tensor<64x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x32xf32>, tensor<32x48xf32>) outs(%c : tensor<64x48xf32>) -> tensor<64x48xf32>
  return %r : tensor<64x48xf32>
}
func.func @sm(%x: tensor<8x100xf32>) -> tensor<8x100xf32> {
  %e = tensor.empty() : tensor<8x100xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<8x100xf32>) outs(%e : tensor<8x100xf32>) -> tensor<8x100xf32>
  return %r : tensor<8x100xf32>
}
`
	s, err := pipeline.Compile("cfg.mlir", []byte(src), pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]string{}
	ir.Walk(s.Module.Op, func(op *ir.Operation) bool {
		if op.Name != "hal.executable.variant" || hal.InnerModule(op) == nil {
			return true
		}
		so, err := llvmcpu.Build(op, llvmcpu.Options{})
		if err != nil {
			t.Fatal(err)
		}
		f, err := elf.NewFile(bytes.NewReader(so))
		if err != nil {
			t.Fatal(err)
		}
		sec := f.Section(llvmcpu.ConfigSection)
		if sec == nil {
			t.Fatalf("@%s: no %s section", op.ParentOp().SymName(), llvmcpu.ConfigSection)
		}
		if sec.Flags&elf.SHF_ALLOC != 0 {
			t.Errorf("%s is allocated (flags %v): it would be mapped with the library", llvmcpu.ConfigSection, sec.Flags)
		}
		data, err := sec.Data()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			name, cfg, _ := strings.Cut(l, " ")
			lines[name] = cfg
		}
		return false
	})
	want := map[string]string{
		"mm_linalg_0": "#iree_codegen.translation_info<pipeline = CPUMatmulPacked workgroup_size = [1, 1, 1]> #iree_codegen.lowering_config<tile_sizes = [[0, 252, 0], [4, 12, 0], [0, 0, 256]]>",
		"sm_linalg_0": "#iree_codegen.translation_info<pipeline = CPURowGroup workgroup_size = [1, 1, 1]> #iree_codegen.lowering_config<tile_sizes = [[1, 100]]>",
	}
	for name, w := range want {
		if lines[name] != w {
			t.Errorf("%s: recorded %q, want %q", name, lines[name], w)
		}
	}
	if testing.Verbose() {
		for n, l := range lines {
			t.Logf("%s %s", n, l)
		}
	}
}
