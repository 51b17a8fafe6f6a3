package cuda

import (
	"reflect"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

func sample() *Executable {
	return &Executable{
		Name: "executable",
		Images: []Image{
			{Arch: "sm_52", PTX: ".version 4.1\n.target sm_52\n.visible .entry simple_mul()\n{\n ret;\n}\n"},
			{Arch: "sm_80", PTX: ".version 7.0\n.target sm_80\n.visible .entry simple_mul()\n{\n ret;\n}\n"},
		},
		EntryPoints: []EntryPoint{
			{Name: "simple_mul", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3},
			{Name: "simple_mul_inplace", BlockSize: [3]uint32{128, 2, 1}, SharedMemorySize: 4096, BindingCount: 2},
		},
	}
}

// legacyPayload builds a payload as the compiler wrote them before
// ptx_images: the PTX in ptx_image, no name.
func legacyPayload(ptx string, images ...Image) []byte {
	b := flatbuffers.NewBuilder(256)
	text := b.CreateString(ptx)
	var imgs []flatbuffers.UOffsetT
	for _, im := range images {
		p, a := b.CreateString(im.PTX), b.CreateString(im.Arch)
		PTXImageStart(b)
		PTXImageAddArch(b, a)
		PTXImageAddPtx(b, p)
		imgs = append(imgs, PTXImageEnd(b))
	}
	var imageVec flatbuffers.UOffsetT
	if len(imgs) > 0 {
		CUDAExecutableDefStartPtxImagesVector(b, len(imgs))
		for i := len(imgs) - 1; i >= 0; i-- {
			b.PrependUOffsetT(imgs[i])
		}
		imageVec = b.EndVector(len(imgs))
	}
	name := b.CreateString("k")
	CUDAExecutableDefStartEntryPointsVector(b, 1)
	b.PrependUOffsetT(name)
	entries := b.EndVector(1)
	CUDAExecutableDefStartBlockSizesVector(b, 1)
	CreateBlockSize(b, 32, 1, 1)
	blocks := b.EndVector(1)
	CUDAExecutableDefStart(b)
	CUDAExecutableDefAddEntryPoints(b, entries)
	CUDAExecutableDefAddBlockSizes(b, blocks)
	CUDAExecutableDefAddPtxImage(b, text)
	if imageVec != 0 {
		CUDAExecutableDefAddPtxImages(b, imageVec)
	}
	b.FinishWithFileIdentifier(CUDAExecutableDefEnd(b), []byte(FileIdentifier))
	return b.FinishedBytes()
}

func TestRoundTrip(t *testing.T) {
	want := sample()
	data := want.Marshal()
	if string(data[4:8]) != FileIdentifier {
		t.Errorf("identifier %q", data[4:8])
	}
	got, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip: got %+v, want %+v", got, want)
	}
	if a := got.Archs(); !reflect.DeepEqual(a, []string{"sm_52", "sm_80"}) {
		t.Errorf("Archs() = %v", a)
	}
}

// TestLegacyPayload: payloads written before ptx_images decode into one
// image whose arch is the PTX's .target.
func TestLegacyPayload(t *testing.T) {
	for _, tc := range []struct {
		ptx, arch string
	}{
		{"//\n.version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{ ret; }\n", "sm_80"},
		{".version 4.2\n.target sm_52, debug\n", "sm_52"},
		{".version 7.0\n", ""},
		{".version 7.0\n.target compute_80\n", ""},
	} {
		got, err := Unmarshal(legacyPayload(tc.ptx))
		if err != nil {
			t.Fatalf("%q: %v", tc.ptx, err)
		}
		want := []Image{{Arch: tc.arch, PTX: tc.ptx}}
		if !reflect.DeepEqual(got.Images, want) || got.Name != "" {
			t.Errorf("%q: images %+v name %q, want %+v", tc.ptx, got.Images, got.Name, want)
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	good := sample().Marshal()
	withImages := func(images ...Image) []byte {
		e := sample()
		e.Images = images
		return e.Marshal()
	}
	tests := []struct {
		name string
		data []byte
		text string
	}{
		{"empty", nil, "too short"},
		{"truncated", good[:len(good)/2], "outside buffer"},
		{"wrong identifier", append(append([]byte{}, good[:4]...), append([]byte("SPVE"), good[8:]...)...), `file identifier is "SPVE"`},
		{"no entry points", (&Executable{Images: []Image{{Arch: "sm_80", PTX: "x"}}}).Marshal(), "no entry points"},
		{"no image", withImages(), "no PTX image"},
		{"bad arch", withImages(Image{Arch: "gfx90a", PTX: "x"}), `PTX image 0: CUDA architecture "gfx90a" is not of the form`},
		{"empty PTX", withImages(Image{Arch: "sm_80", PTX: "x"}, Image{Arch: "sm_90"}), "PTX image 1 (sm_90) is empty"},
		{"duplicate arch", withImages(Image{Arch: "sm_80", PTX: "x"}, Image{Arch: "sm_80", PTX: "y"}), "two PTX images for sm_80"},
		{"both fields", legacyPayload("x", Image{Arch: "sm_80", PTX: "y"}), "both ptx_image and ptx_images are set"},
	}
	for _, tt := range tests {
		_, err := Unmarshal(tt.data)
		if err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.text)
		}
	}
}

func TestParseArch(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Arch
		err  bool
	}{
		{"sm_52", Arch{Major: 5, Minor: 2}, false},
		{"sm_80", Arch{Major: 8, Minor: 0}, false},
		{"sm_90a", Arch{Major: 9, Minor: 0, Suffix: 'a'}, false},
		{"sm_100", Arch{Major: 10, Minor: 0}, false},
		{"sm_120f", Arch{Major: 12, Minor: 0, Suffix: 'f'}, false},
		{"sm_8", Arch{}, true},
		{"sm_", Arch{}, true},
		{"sm_a", Arch{}, true},
		{"sm_08", Arch{}, true},
		{"sm_80b", Arch{}, true},
		{"compute_80", Arch{}, true},
		{"gfx90a", Arch{}, true},
		{"", Arch{}, true},
		{"sm_99999", Arch{}, true},
	} {
		got, err := ParseArch(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseArch(%q) = %+v, %v; want %+v, error %v", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("ParseArch(%q).String() = %q", tc.in, got.String())
		}
	}
}

func TestRunsOn(t *testing.T) {
	for _, tc := range []struct {
		ptx, dev string
		want     bool
	}{
		{"sm_52", "sm_52", true},
		{"sm_52", "sm_90", true},
		{"sm_80", "sm_75", false},
		{"sm_80", "sm_86", true},
		{"sm_86", "sm_80", false},
		{"sm_90", "sm_100", true},
		{"sm_90a", "sm_90", true},
		{"sm_90a", "sm_100", false},
		{"sm_100f", "sm_103", true},
		{"sm_100f", "sm_120", false},
		{"sm_103f", "sm_100", false},
	} {
		p, _ := ParseArch(tc.ptx)
		d, _ := ParseArch(tc.dev)
		if got := p.RunsOn(d); got != tc.want {
			t.Errorf("%s runs on %s: %v, want %v", tc.ptx, tc.dev, got, tc.want)
		}
	}
}

// FuzzUnmarshal checks that verified payloads decode without panicking.
func FuzzUnmarshal(f *testing.F) {
	f.Add(sample().Marshal())
	f.Add(legacyPayload(".version 7.0\n.target sm_80\n"))
	f.Add(withConfigs().Marshal())
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Unmarshal(data)
	})
}
