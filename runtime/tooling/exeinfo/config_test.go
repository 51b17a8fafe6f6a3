package exeinfo

import (
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
	"github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

func TestDescribeConfigs(t *testing.T) {
	simt := kernelconfig.Config{Pipeline: "CUDAMatmulSimt", WorkgroupSize: [3]uint32{256, 1, 1}, TileSizes: [][]int64{{128, 128, 0}, {8, 8, 0}, {0, 0, 8}}}
	mma := kernelconfig.Config{Pipeline: "CUDAMatmulTensorCore", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32, TileSizes: [][]int64{{128, 128, 0}, {64, 32, 0}, {0, 0, 32}}}
	cu := (&cuda.Executable{
		EntryPoints: []cuda.EntryPoint{{Name: "mm", BlockSize: [3]uint32{256, 1, 1}, ConstantCount: 0, BindingCount: 3}},
		Images: []cuda.Image{
			{Arch: "sm_52", PTX: ".version 4.1\n.target sm_52\n", Configs: []kernelconfig.Config{simt}},
			{Arch: "sm_80", PTX: ".version 7.0\n.target sm_80\n", Configs: []kernelconfig.Config{mma}},
			{Arch: "sm_90", PTX: ".version 7.8\n.target sm_90\n"},
		},
	}).Marshal()
	red := kernelconfig.Config{Pipeline: "SPIRVSubgroupReduce", WorkgroupSize: [3]uint32{64, 1, 1}, SubgroupSize: 32, TileSizes: [][]int64{{1, 0}}}
	sp := (&spirv.Executable{
		EntryPoints: []spirv.EntryPoint{{Name: "sum", BindingCount: 2, SubgroupSize: 32, Config: red}},
		Code:        []uint32{spirv.Magic, 0x10000, 0, 1, 0},
	}).Marshal()
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"cuda", cu, []string{
			"sm_52: #iree_codegen.translation_info<pipeline = CUDAMatmulSimt workgroup_size = [256, 1, 1]> #iree_codegen.lowering_config<tile_sizes = [[128, 128, 0], [8, 8, 0], [0, 0, 8]]>",
			"sm_80: #iree_codegen.translation_info<pipeline = CUDAMatmulTensorCore workgroup_size = [256, 1, 1] subgroup_size = 32> #iree_codegen.lowering_config<tile_sizes = [[128, 128, 0], [64, 32, 0], [0, 0, 32]]>",
		}},
		{"spirv", sp, []string{
			"#iree_codegen.translation_info<pipeline = SPIRVSubgroupReduce workgroup_size = [64, 1, 1] subgroup_size = 32> #iree_codegen.lowering_config<tile_sizes = [[1, 0]]>",
		}},
	}
	for _, tt := range tests {
		info, err := Describe(tt.data)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if len(info.EntryPoints) != 1 || !reflect.DeepEqual(info.EntryPoints[0].Configs, tt.want) {
			t.Errorf("%s: configs\n%q\nwant\n%q", tt.name, info.EntryPoints[0].Configs, tt.want)
		}
	}
}

// configLibrary builds kernels/mul_library.c with a configuration section
// holding text (C string contents, assembler escapes included).
func configLibrary(t *testing.T, text string) []byte {
	t.Helper()
	return kerneltest.Build(t, map[string]string{
		"mul_library.c": kerneltest.Source(t, "mul_library.c"),
		"config.c":      `__asm__(".pushsection ` + kernelconfig.ELFSection + `,\"\",@progbits\n.ascii \"` + text + `\"\n.popsection");` + "\n",
	})
}

func TestDescribeELFConfigs(t *testing.T) {
	const cfg = "#iree_codegen.translation_info<pipeline = CPUElementwise workgroup_size = [64, 1, 1]> #iree_codegen.lowering_config<tile_sizes = [[1024]]>"
	so := configLibrary(t, `simple_mul `+cfg+`\\n`)
	info, err := Describe(so)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(info.Notes, "config of simple_mul: "+cfg) {
		t.Errorf("Describe notes %q lack the configuration", info.Notes)
	}
	if runtime.GOARCH == "amd64" {
		// The runtime's loader maps the library with its unmapped
		// section, and the configuration moves under its entry.
		info, err = DescribeLoaded(so)
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range info.EntryPoints {
			want := []string(nil)
			if ep.Name == "simple_mul" {
				want = []string{cfg}
			}
			if !reflect.DeepEqual(ep.Configs, want) {
				t.Errorf("%s: configs %q, want %q", ep.Name, ep.Configs, want)
			}
		}
		for _, n := range info.Notes {
			if strings.HasPrefix(n, "config of") {
				t.Errorf("note %q left after loading", n)
			}
		}
	}
	for _, tt := range []struct{ text, want string }{
		{`simple_mul\\n`, `unreadable .goiree.config section: line 1 is not "<export name> #iree_codegen.translation_info<...>..."`},
		{`simple_mul ` + cfg + `\\nfail_at pipeline = X\\n`, "line 2 is not"},
		{`simple_mul ` + cfg + `\\tx\\n`, "line 1 has byte 0x09"},
	} {
		info, err := Describe(configLibrary(t, tt.text))
		if err != nil {
			t.Fatal(err)
		}
		if notes := strings.Join(info.Notes, "\n"); !strings.Contains(notes, tt.want) {
			t.Errorf("section %q: notes\n%s\nwant %q", tt.text, notes, tt.want)
		}
	}
}
