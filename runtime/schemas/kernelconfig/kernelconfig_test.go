package kernelconfig

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct {
		c    Config
		want string
	}{
		{Config{Pipeline: "CUDAMatmulTensorCore", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
			TileSizes: [][]int64{{128, 128, 0}, {64, 32, 0}, {0, 0, 32}}},
			"#iree_codegen.translation_info<pipeline = CUDAMatmulTensorCore workgroup_size = [256, 1, 1] subgroup_size = 32> " +
				"#iree_codegen.lowering_config<tile_sizes = [[128, 128, 0], [64, 32, 0], [0, 0, 32]]>"},
		{Config{Pipeline: "SPIRVBaseDistribute", WorkgroupSize: [3]uint32{64, 2, 1}},
			"#iree_codegen.translation_info<pipeline = SPIRVBaseDistribute workgroup_size = [64, 2, 1]>"},
		{Config{Pipeline: "CPUDefault", WorkgroupSize: [3]uint32{1, 1, 1}, TileSizes: [][]int64{{}}},
			"#iree_codegen.translation_info<pipeline = CPUDefault workgroup_size = [1, 1, 1]> #iree_codegen.lowering_config<tile_sizes = [[]]>"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("String() =\n%s\nwant\n%s", got, tt.want)
		}
		if err := tt.c.Validate(); err != nil {
			t.Errorf("Validate(%+v): %v", tt.c, err)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Pipeline: "P", WorkgroupSize: [3]uint32{1, 1, 1}}
	tests := []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"no pipeline", func(c *Config) { c.Pipeline = "" }, `pipeline "" is not an identifier`},
		{"pipeline with space", func(c *Config) { c.Pipeline = "a b" }, `pipeline "a b" is not an identifier`},
		{"pipeline starting with a digit", func(c *Config) { c.Pipeline = "9x" }, "not an identifier"},
		{"empty workgroup", func(c *Config) { c.WorkgroupSize[2] = 0 }, "no threads in dimension 2"},
		{"negative tile", func(c *Config) { c.TileSizes = [][]int64{{4, -1}} }, "tiling level 0 has negative size -1"},
		{"too many levels", func(c *Config) { c.TileSizes = make([][]int64, MaxLevels+1) }, "9 tiling levels"},
		{"too many loops", func(c *Config) { c.TileSizes = [][]int64{nil, make([]int64, MaxLoops+1)} }, "tiling level 1 has 65 sizes"},
	}
	for _, tt := range tests {
		c := ok
		tt.edit(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestEqual(t *testing.T) {
	a := Config{Pipeline: "P", WorkgroupSize: [3]uint32{2, 1, 1}, TileSizes: [][]int64{{1, 2}, {3}}}
	for _, tt := range []struct {
		b    Config
		want bool
	}{
		{Config{Pipeline: "P", WorkgroupSize: [3]uint32{2, 1, 1}, TileSizes: [][]int64{{1, 2}, {3}}}, true},
		{Config{Pipeline: "P", WorkgroupSize: [3]uint32{2, 1, 1}, TileSizes: [][]int64{{1, 2}, {4}}}, false},
		{Config{Pipeline: "P", WorkgroupSize: [3]uint32{2, 1, 1}, TileSizes: [][]int64{{1, 2}}}, false},
		{Config{Pipeline: "P", WorkgroupSize: [3]uint32{2, 1, 1}, TileSizes: [][]int64{{1, 2}, {3, 0}}}, false},
		{Config{Pipeline: "P", WorkgroupSize: [3]uint32{2, 1, 1}, SubgroupSize: 32, TileSizes: [][]int64{{1, 2}, {3}}}, false},
		{Config{Pipeline: "Q", WorkgroupSize: [3]uint32{2, 1, 1}, TileSizes: [][]int64{{1, 2}, {3}}}, false},
	} {
		if got := Equal(a, tt.b); got != tt.want {
			t.Errorf("Equal(%+v, %+v) = %v", a, tt.b, got)
		}
	}
}
