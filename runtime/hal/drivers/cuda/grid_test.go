package cuda

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

// TestCheckGrid: counts up to CUDA's grid limits pass; one more in any
// dimension is OUT_OF_RANGE naming the export and the count (runs without
// a GPU).
func TestCheckGrid(t *testing.T) {
	for _, wg := range [][3]uint32{{1, 1, 1}, {1<<31 - 1, 65535, 65535}} {
		if err := checkGrid("k", wg); err != nil {
			t.Errorf("%v: %v", wg, err)
		}
	}
	for _, wg := range [][3]uint32{{1 << 31, 1, 1}, {1, 65536, 1}, {1, 1, 65536}, {1<<32 - 1, 1, 1}} {
		err := checkGrid("simple_mul", wg)
		if status.CodeOf(err) != status.OutOfRange || !strings.Contains(err.Error(), `dispatch of "simple_mul": workgroup count`) {
			t.Errorf("%v: %v", wg, err)
		}
	}
}
