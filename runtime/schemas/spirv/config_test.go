package spirv

import (
	"reflect"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// withConfigs is sample() with a config on each entry point.
func withConfigs() *Executable {
	e := sample()
	e.EntryPoints[0].Config = kernelconfig.Config{Pipeline: "SPIRVMatmulPromoteVectorize", WorkgroupSize: [3]uint32{128, 1, 1},
		TileSizes: [][]int64{{64, 128, 0}, {8, 8, 0}, {0, 0, 8}}}
	e.EntryPoints[1].Config = kernelconfig.Config{Pipeline: "SPIRVSubgroupReduce", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
		TileSizes: [][]int64{{1, 0}, {0, 4}}}
	return e
}

func TestConfigsRoundTrip(t *testing.T) {
	want := withConfigs()
	got, err := Unmarshal(want.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got.EntryPoints, want.EntryPoints)
	}
	// Configs are all or nothing: one entry point without a config
	// writes none.
	partial := withConfigs()
	partial.EntryPoints[1].Config = kernelconfig.Config{}
	got, err = Unmarshal(partial.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for _, ep := range got.EntryPoints {
		if !ep.Config.IsZero() {
			t.Errorf("%s: config %v written though another entry point had none", ep.Name, ep.Config)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	noPipeline := withConfigs()
	noPipeline.EntryPoints[1].Config.Pipeline = "two words"
	zero := withConfigs()
	zero.EntryPoints[0].Config.WorkgroupSize[0] = 0
	negative := withConfigs()
	negative.EntryPoints[1].Config.TileSizes[1][1] = -4
	tests := []struct {
		name string
		data []byte
		text string
	}{
		{"bad pipeline", noPipeline.Marshal(), `config of entry point 1 (other): pipeline "two words" is not an identifier`},
		{"zero threads", zero.Marshal(), "config of entry point 0 (main): workgroup size [0 1 1] has no threads in dimension 0"},
		{"negative tile", negative.Marshal(), "tiling level 1 has negative size -4"},
	}
	for _, tt := range tests {
		_, err := Unmarshal(tt.data)
		if err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.text)
		}
	}
}
