package vulkan

import (
	"slices"
	"testing"
)

// TestWithoutDenormPreserve: the DenormPreserve modes (as scanModule finds
// them) of widths the device does not preserve are dropped, the rest of
// the module kept as it was.
func TestWithoutDenormPreserve(t *testing.T) {
	mode := func(width uint32) []uint32 { return []uint32{spvOpExecutionMode, 4, spvModeDenormPreserve, width} }
	module := spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1), mode(32), mode(16))
	plain := spv(capability(1), entry(4, "main"))
	for _, tc := range []struct {
		name      string
		in        []uint32
		preserved uint32
		want      []uint32
	}{
		{"every width preserved", module, 1 | 2 | 4, module},
		{"none preserved (NVIDIA's and lavapipe's f32)", module, 0, spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1))},
		{"16-bit only", module, 1, spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1), mode(16))},
		{"32-bit only", module, 2, spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1), mode(32))},
		{"no mode to drop", plain, 0, plain},
	} {
		t.Run(tc.name, func(t *testing.T) {
			needs, err := scanModule(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			orig := slices.Clone(tc.in)
			got := withoutDenormPreserve(tc.in, needs.denormModes, tc.preserved)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if !slices.Equal(tc.in, orig) {
				t.Error("the input module was modified")
			}
		})
	}
	// A malformed module is refused by the scan, before any mode is
	// dropped.
	bad := []uint32{0x07230203, 0x00010300, 0, 100, 0, 0}
	if _, err := scanModule(bad); err == nil {
		t.Error("malformed module: scanModule accepted it")
	}
}
