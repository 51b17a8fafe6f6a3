package kernelconfig

import (
	"reflect"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// tables builds configs with BuildTables and returns each KernelConfig
// table of the vector.
func tables(t *testing.T, configs []Config) []flatbuffers.Table {
	t.Helper()
	b := flatbuffers.NewBuilder(0)
	v := BuildTables(b, configs)
	b.StartObject(1)
	b.PrependUOffsetTSlot(0, v, 0)
	b.Finish(b.EndObject())
	buf := b.FinishedBytes()
	root := flatbuffers.Table{Bytes: buf, Pos: flatbuffers.GetUOffsetT(buf)}
	o := flatbuffers.UOffsetT(root.Offset(4))
	var out []flatbuffers.Table
	for i, a := 0, root.Vector(o); i < root.VectorLen(o); i++ {
		out = append(out, flatbuffers.Table{Bytes: buf, Pos: root.Indirect(a + flatbuffers.UOffsetT(4*i))})
	}
	return out
}

// TestTables writes configurations as the payloads do and reads them
// back, and refuses tables a corrupt or hand-made payload could hold.
func TestTables(t *testing.T) {
	good := []Config{
		{Pipeline: "CUDAMatmulTensorCore", WorkgroupSize: [3]uint32{256, 1, 1}, SubgroupSize: 32,
			TileSizes: [][]int64{{128, 128, 0}, {64, 32, 0}, {0, 0, 32}}},
		{Pipeline: "SPIRVBaseDistribute", WorkgroupSize: [3]uint32{64, 2, 1}, TileSizes: [][]int64{{16}, {}}},
		{Pipeline: "CUDAElementwise", WorkgroupSize: [3]uint32{256, 1, 1}},
	}
	for i, tab := range tables(t, good) {
		c, err := ReadTable(tab)
		if err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		want := good[i]
		for l := range want.TileSizes {
			if want.TileSizes[l] == nil {
				want.TileSizes[l] = []int64{}
			}
		}
		if !reflect.DeepEqual(c, want) {
			t.Errorf("config %d read back as %+v, want %+v", i, c, want)
		}
	}
	if BuildTables(flatbuffers.NewBuilder(0), nil) != 0 {
		t.Error("no configs should leave the field out")
	}
	// Tables BuildTables never writes, made by hand.
	raw := func(ws []uint32, levels int, sizes int) flatbuffers.Table {
		b := flatbuffers.NewBuilder(0)
		lv := make([]flatbuffers.UOffsetT, levels)
		for l := range lv {
			b.StartVector(8, sizes, 8)
			for j := 0; j < sizes; j++ {
				b.PrependInt64(1)
			}
			v := b.EndVector(sizes)
			b.StartObject(1)
			b.PrependUOffsetTSlot(slotSizes, v, 0)
			lv[l] = b.EndObject()
		}
		b.StartVector(4, levels, 4)
		for l := levels - 1; l >= 0; l-- {
			b.PrependUOffsetT(lv[l])
		}
		tiles := b.EndVector(levels)
		b.StartVector(4, len(ws), 4)
		for j := len(ws) - 1; j >= 0; j-- {
			b.PrependUint32(ws[j])
		}
		w := b.EndVector(len(ws))
		p := b.CreateString("P")
		b.StartObject(4)
		b.PrependUOffsetTSlot(slotPipeline, p, 0)
		b.PrependUOffsetTSlot(slotWorkgroupSize, w, 0)
		b.PrependUOffsetTSlot(slotTileSizes, tiles, 0)
		b.Finish(b.EndObject())
		buf := b.FinishedBytes()
		return flatbuffers.Table{Bytes: buf, Pos: flatbuffers.GetUOffsetT(buf)}
	}
	for _, c := range []struct {
		name string
		tab  flatbuffers.Table
		want string
	}{
		{"two workgroup sizes", raw([]uint32{1, 1}, 1, 1), "workgroup_size has 2 entries, want 3"},
		{"too many levels", raw([]uint32{1, 1, 1}, MaxLevels+1, 1), "tiling levels (at most"},
		{"too many sizes", raw([]uint32{1, 1, 1}, 1, MaxLoops+1), "tiling level 0 has"},
	} {
		if _, err := ReadTable(c.tab); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
