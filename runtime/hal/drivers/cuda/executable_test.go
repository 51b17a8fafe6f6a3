package cuda

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
)

func payload(eps ...cudafb.EntryPoint) []byte {
	return (&cudafb.Executable{PTX: ".version 7.0\n", EntryPoints: eps}).Marshal()
}

func TestParseExecutable(t *testing.T) {
	good := payload(cudafb.EntryPoint{Name: "simple_mul", BlockSize: [3]uint32{64, 0, 0}, ConstantCount: 1, BindingCount: 3})
	_, exports, err := ParseExecutable(hal.ExecutableParams{Format: Format, Data: good})
	if err != nil {
		t.Fatal(err)
	}
	want := hal.ExportInfo{Name: "simple_mul", ConstantCount: 1, BindingCount: 3, WorkgroupSize: [3]uint32{64, 1, 1}}
	if len(exports) != 1 || exports[0] != want {
		t.Fatalf("exports %+v, want [%+v]", exports, want)
	}
	for _, tc := range []struct {
		name   string
		params hal.ExecutableParams
		want   string
	}{
		{"format", hal.ExecutableParams{Format: "embedded-elf-x86_64", Data: good}, `format "embedded-elf-x86_64" is not supported by the cuda driver`},
		{"garbage", hal.ExecutableParams{Format: Format, Data: []byte("not a flatbuffer")}, "decoding CUDA executable"},
		{"block", hal.ExecutableParams{Format: Format, Data: payload(cudafb.EntryPoint{Name: "k", BlockSize: [3]uint32{64, 32, 1}})}, "2048 threads, over CUDA's 1024"},
		{"layout count", hal.ExecutableParams{Format: Format, Data: good, Layouts: []hal.PipelineLayout{{ConstantCount: 1, BindingCount: 3}, {ConstantCount: 1, BindingCount: 3}}}, "1 export(s) but 2 pipeline layout(s)"},
		{"layout bindings", hal.ExecutableParams{Format: Format, Data: good, Layouts: []hal.PipelineLayout{{ConstantCount: 1, BindingCount: 2}}}, "declares 3 binding(s) but its layout has 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := ParseExecutable(tc.params)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func FuzzParseExecutable(f *testing.F) {
	f.Add(payload(cudafb.EntryPoint{Name: "simple_mul", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, exports, err := ParseExecutable(hal.ExecutableParams{Format: Format, Data: data})
		if err == nil && len(exports) == 0 {
			t.Fatal("no error and no exports")
		}
	})
}
