package cuda

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
)

func payload(eps ...cudafb.EntryPoint) []byte {
	return (&cudafb.Executable{Images: []cudafb.Image{{Arch: "sm_80", PTX: ".version 7.0\n"}}, EntryPoints: eps}).Marshal()
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
		{"block z", hal.ExecutableParams{Format: Format, Data: payload(cudafb.EntryPoint{Name: "k", BlockSize: [3]uint32{1, 2, 128}})}, `entry point "k": block size [1 2 128] is beyond CUDA's block dimensions [1024 1024 64]`},
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

// TestSelectImage: the newest image the device runs, never PTX for a
// newer architecture, and an error naming the executable, the images'
// archs and the device's when none runs.
func TestSelectImage(t *testing.T) {
	images := func(archs ...string) *cudafb.Executable {
		e := &cudafb.Executable{Name: "executable"}
		for _, a := range archs {
			e.Images = append(e.Images, cudafb.Image{Arch: a, PTX: "ptx for " + a})
		}
		return e
	}
	for _, tc := range []struct {
		name   string
		device string
		exe    *cudafb.Executable
		want   string // the chosen arch, or the error's text
		err    bool
	}{
		{"5.2 of 52+80", "sm_52", images("sm_52", "sm_80"), "sm_52", false},
		{"8.0 of 52+80", "sm_80", images("sm_52", "sm_80"), "sm_80", false},
		{"9.0 of 52+80", "sm_90", images("sm_52", "sm_80"), "sm_80", false},
		{"9.0 of 80+52 (order)", "sm_90", images("sm_80", "sm_52"), "sm_80", false},
		{"8.6 of 52+80+90", "sm_86", images("sm_52", "sm_80", "sm_90"), "sm_80", false},
		{"9.0 of 52+80+90", "sm_90", images("sm_52", "sm_80", "sm_90"), "sm_90", false},
		{"5.2 of 52 only", "sm_52", images("sm_52"), "sm_52", false},
		{"9.0 of 52 only", "sm_90", images("sm_52"), "sm_52", false},
		{"10.0 of 90+100", "sm_100", images("sm_90", "sm_100"), "sm_100", false},
		{"9.0 prefers 90a", "sm_90", images("sm_80", "sm_90", "sm_90a"), "sm_90a", false},
		{"9.0 prefers 90a (order)", "sm_90", images("sm_90a", "sm_90"), "sm_90a", false},
		{"10.0 skips 90a", "sm_100", images("sm_80", "sm_90a"), "sm_80", false},
		{"10.3 runs 100f", "sm_103", images("sm_90", "sm_100f"), "sm_100f", false},
		{"8.0 skips newer only", "sm_80", images("sm_86", "sm_90"), `cuda executable @executable has PTX for sm_86, sm_90 only, none of which runs on this sm_80 device`, true},
		{"5.2 none", "sm_52", images("sm_80"), `@executable has PTX for sm_80 only, none of which runs on this sm_52 device`, true},
		{"8.6 of 90a+100", "sm_86", images("sm_90a", "sm_100"), "has PTX for sm_90a, sm_100 only", true},
		{"unknown arch image as fallback", "sm_80", &cudafb.Executable{Images: []cudafb.Image{{PTX: "old"}}}, "", false},
		{"known arch before unknown", "sm_90", &cudafb.Executable{Images: []cudafb.Image{{PTX: "old"}, {Arch: "sm_80", PTX: "new"}}}, "sm_80", false},
		{"unnamed executable", "sm_52", &cudafb.Executable{Images: []cudafb.Image{{Arch: "sm_90", PTX: "x"}}}, "cuda executable has PTX for sm_90 only", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, err := SelectImage(tc.exe, tc.device)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got image %d, %v; want an error containing %q", i, err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.exe.Images[i].Arch; got != tc.want {
				t.Fatalf("chose %q (image %d), want %q", got, i, tc.want)
			}
		})
	}
}

// TestLegacyPayload: testdata/legacy_sm_80.cudafb is the sample's
// executable as the compiler wrote it before per-arch images (commit
// c7c19c6, --iree-hal-dump-executable-binaries-to): its one ptx_image
// becomes the sm_80 image (its .target), which devices of 8.0 and newer
// load and older ones refuse by name.
func TestLegacyPayload(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "legacy_sm_80.cudafb"))
	if err != nil {
		t.Fatal(err)
	}
	def, exports, err := ParseExecutable(hal.ExecutableParams{Format: Format, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if len(exports) != 2 || exports[0].Name != "simple_mul" || exports[1].Name != "simple_mul_inplace" {
		t.Fatalf("exports %+v", exports)
	}
	if got := def.Archs(); len(got) != 1 || got[0] != "sm_80" || def.Name != "" {
		t.Fatalf("images %v, name %q: want one sm_80 image and no name", got, def.Name)
	}
	for _, dev := range []string{"sm_80", "sm_90"} {
		if i, err := SelectImage(def, dev); err != nil || i != 0 {
			t.Errorf("%s: image %d, %v", dev, i, err)
		}
	}
	if _, err := SelectImage(def, "sm_75"); err == nil || !strings.Contains(err.Error(), "cuda executable has PTX for sm_80 only, none of which runs on this sm_75 device") {
		t.Errorf("sm_75: got %v", err)
	}
}

func FuzzParseExecutable(f *testing.F) {
	f.Add(payload(cudafb.EntryPoint{Name: "simple_mul", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3}))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		def, exports, err := ParseExecutable(hal.ExecutableParams{Format: Format, Data: data})
		if err == nil && len(exports) == 0 {
			t.Fatal("no error and no exports")
		}
		if err == nil {
			for _, dev := range []string{"sm_52", "sm_90"} {
				if i, err := SelectImage(def, dev); err == nil && (i < 0 || i >= len(def.Images)) {
					t.Fatalf("SelectImage(%s) = %d of %d images", dev, i, len(def.Images))
				}
			}
		}
	})
}
