package vulkan

import (
	"slices"
	"testing"
)

// TestWithoutDenormPreserve: the DenormPreserve modes of widths the device
// does not preserve are dropped, the rest of the module kept as it was.
func TestWithoutDenormPreserve(t *testing.T) {
	mode := func(width uint32) []uint32 { return []uint32{spvOpExecutionMode, 4, spvModeDenormPreserve, width} }
	module := spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1), mode(32), mode(16))
	for _, tc := range []struct {
		name      string
		preserved uint32
		want      []uint32
	}{
		{"every width preserved", 1 | 2 | 4, module},
		{"none preserved (NVIDIA's and lavapipe's f32)", 0, spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1))},
		{"16-bit only", 1, spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1), mode(16))},
		{"32-bit only", 2, spv(capability(1), capability(4464), entry(4, "main"), localSize(4, 64, 1, 1), mode(32))},
		{"no mode to drop", 0, spv(capability(1), entry(4, "main"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := module
			if tc.name == "no mode to drop" {
				in = tc.want
			}
			orig := slices.Clone(in)
			got := withoutDenormPreserve(in, tc.preserved)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			if !slices.Equal(in, orig) {
				t.Error("the input module was modified")
			}
		})
	}
	// A malformed module comes back unchanged.
	bad := []uint32{0x07230203, 0x00010300, 0, 100, 0, 0}
	if got := withoutDenormPreserve(bad, 0); !slices.Equal(got, bad) {
		t.Errorf("malformed module: got %v", got)
	}
}
