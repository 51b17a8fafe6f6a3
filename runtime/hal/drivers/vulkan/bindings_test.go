package vulkan

import (
	"strings"
	"testing"
)

func TestCheckStorageBuffers(t *testing.T) {
	cases := []struct {
		bindings int
		limit    uint32
		want     string
	}{
		{bindings: 8, limit: 32},
		{bindings: 32, limit: 32},
		{bindings: 33, limit: 32, want: `entry point "main" binds 33 storage buffers, beyond device "dev"'s maxPerStageDescriptorStorageBuffers 32`},
		{bindings: 64, limit: 0},
	}
	for _, c := range cases {
		err := checkStorageBuffers("main", c.bindings, "dev", c.limit)
		if c.want == "" {
			if err != nil {
				t.Errorf("%d bindings, limit %d: %v", c.bindings, c.limit, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%d bindings, limit %d: error %v, want %q", c.bindings, c.limit, err, c.want)
		}
	}
}
