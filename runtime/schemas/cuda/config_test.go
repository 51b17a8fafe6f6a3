package cuda

import (
	"reflect"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
)

// withConfigs is sample() with a config per entry point on each image:
// SIMT tiles on sm_52, tensor-core ones on sm_80.
func withConfigs() *Executable {
	e := sample()
	e.Images[0].Configs = []kernelconfig.Config{
		{Pipeline: "CUDAMatmulSimt", WorkgroupSize: [3]uint32{256, 1, 1}, TileSizes: [][]int64{{128, 128, 0}, {8, 8, 0}, {0, 0, 8}}},
		{Pipeline: "CUDAElementwise", WorkgroupSize: [3]uint32{128, 2, 1}, TileSizes: [][]int64{{1024}}},
	}
	e.Images[1].Configs = []kernelconfig.Config{
		{Pipeline: "CUDAMatmulTensorCore", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32, TileSizes: [][]int64{{128, 128, 0}, {64, 32, 0}, {0, 0, 32}, {16, 8, 16}}},
		{Pipeline: "CUDAElementwise", WorkgroupSize: [3]uint32{128, 2, 1}},
	}
	return e
}

func TestConfigsRoundTrip(t *testing.T) {
	want := withConfigs()
	got, err := Unmarshal(want.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\ngot  %+v\nwant %+v", got.Images, want.Images)
	}
	// A payload without configs (written before they existed) still
	// loads, with none.
	old, err := Unmarshal(sample().Marshal())
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range old.Images {
		if im.Configs != nil {
			t.Errorf("%s: configs %v from a payload without them", im.Arch, im.Configs)
		}
	}
}

// rawConfigPayload is sample() whose sm_80 image has one config per entry
// point written field by field, so that tests can write what Marshal
// never does (a workgroup size of two entries, say).
func rawConfigPayload(pipeline string, workgroup []uint32, levels [][]int64) []byte {
	b := flatbuffers.NewBuilder(512)
	var cfgs []flatbuffers.UOffsetT
	for range sample().EntryPoints {
		var tl []flatbuffers.UOffsetT
		for _, lv := range levels {
			TileLevelStartSizesVector(b, len(lv))
			for j := len(lv) - 1; j >= 0; j-- {
				b.PrependInt64(lv[j])
			}
			v := b.EndVector(len(lv))
			TileLevelStart(b)
			TileLevelAddSizes(b, v)
			tl = append(tl, TileLevelEnd(b))
		}
		KernelConfigStartTileSizesVector(b, len(tl))
		for j := len(tl) - 1; j >= 0; j-- {
			b.PrependUOffsetT(tl[j])
		}
		tiles := b.EndVector(len(tl))
		KernelConfigStartWorkgroupSizeVector(b, len(workgroup))
		for j := len(workgroup) - 1; j >= 0; j-- {
			b.PrependUint32(workgroup[j])
		}
		ws := b.EndVector(len(workgroup))
		p := b.CreateString(pipeline)
		KernelConfigStart(b)
		KernelConfigAddPipeline(b, p)
		KernelConfigAddWorkgroupSize(b, ws)
		KernelConfigAddTileSizes(b, tiles)
		cfgs = append(cfgs, KernelConfigEnd(b))
	}
	PTXImageStartConfigsVector(b, len(cfgs))
	for j := len(cfgs) - 1; j >= 0; j-- {
		b.PrependUOffsetT(cfgs[j])
	}
	cv := b.EndVector(len(cfgs))
	ptx := b.CreateString(".version 7.0\n.target sm_80\n")
	arch := b.CreateString("sm_80")
	PTXImageStart(b)
	PTXImageAddArch(b, arch)
	PTXImageAddPtx(b, ptx)
	PTXImageAddConfigs(b, cv)
	img := PTXImageEnd(b)
	CUDAExecutableDefStartPtxImagesVector(b, 1)
	b.PrependUOffsetT(img)
	images := b.EndVector(1)
	var names []flatbuffers.UOffsetT
	for _, ep := range sample().EntryPoints {
		names = append(names, b.CreateString(ep.Name))
	}
	CUDAExecutableDefStartEntryPointsVector(b, len(names))
	for j := len(names) - 1; j >= 0; j-- {
		b.PrependUOffsetT(names[j])
	}
	entries := b.EndVector(len(names))
	CUDAExecutableDefStartBlockSizesVector(b, len(names))
	for range names {
		CreateBlockSize(b, 32, 1, 1)
	}
	blocks := b.EndVector(len(names))
	CUDAExecutableDefStart(b)
	CUDAExecutableDefAddEntryPoints(b, entries)
	CUDAExecutableDefAddBlockSizes(b, blocks)
	CUDAExecutableDefAddPtxImages(b, images)
	b.FinishWithFileIdentifier(CUDAExecutableDefEnd(b), []byte(FileIdentifier))
	return b.FinishedBytes()
}

func TestConfigErrors(t *testing.T) {
	if _, err := Unmarshal(rawConfigPayload("CUDAMatmulSimt", []uint32{32, 1, 1}, [][]int64{{128, 0}})); err != nil {
		t.Fatalf("well-formed raw payload: %v", err)
	}
	oneConfig := withConfigs()
	oneConfig.Images[1].Configs = oneConfig.Images[1].Configs[:1]
	tests := []struct {
		name string
		data []byte
		text string
	}{
		{"one config for two entry points", oneConfig.Marshal(), "PTX image 1 (sm_80) has 1 configs for 2 entry points"},
		{"two-entry workgroup size", rawConfigPayload("P", []uint32{32, 1}, nil), "PTX image 0 (sm_80): config 0: workgroup_size has 2 entries, want 3"},
		{"no pipeline", rawConfigPayload("", []uint32{32, 1, 1}, nil), `config 0: pipeline "" is not an identifier`},
		{"zero threads", rawConfigPayload("P", []uint32{32, 0, 1}, nil), "no threads in dimension 1"},
		{"negative tile", rawConfigPayload("P", []uint32{32, 1, 1}, [][]int64{{4, -2}}), "tiling level 0 has negative size -2"},
		{"too many levels", rawConfigPayload("P", []uint32{32, 1, 1}, make([][]int64, kernelconfig.MaxLevels+1)), "9 tiling levels (at most 8)"},
		{"too many loops", rawConfigPayload("P", []uint32{32, 1, 1}, [][]int64{make([]int64, kernelconfig.MaxLoops+1)}), "tiling level 0 has 65 sizes"},
	}
	for _, tt := range tests {
		_, err := Unmarshal(tt.data)
		if err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.text)
		}
	}
}
