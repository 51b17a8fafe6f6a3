package spirv

import (
	"reflect"
	"strings"
	"testing"
)

func sample() *Executable {
	return &Executable{
		Code: []uint32{Magic, 0x00010000, 0, 10, 0, 0x00020011, 1},
		EntryPoints: []EntryPoint{
			{Name: "main", ConstantCount: 1, BindingCount: 3},
			{Name: "other", SubgroupSize: 32},
		},
	}
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
}

func TestUnmarshalErrors(t *testing.T) {
	good := sample().Marshal()
	bad := sample()
	bad.Code[0] = 0x12345678
	tests := []struct {
		name string
		data []byte
		text string
	}{
		{"empty", nil, "too short"},
		{"truncated", good[:len(good)/2], "outside buffer"},
		{"bad magic", bad.Marshal(), "bad magic number"},
		{"no entry points", (&Executable{Code: sample().Code}).Marshal(), "no entry points"},
	}
	for _, tt := range tests {
		_, err := Unmarshal(tt.data)
		if err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: got %v, want %q", tt.name, err, tt.text)
		}
	}
}

// FuzzUnmarshal checks that verified payloads decode without panicking.
func FuzzUnmarshal(f *testing.F) {
	f.Add(sample().Marshal())
	f.Add(withConfigs().Marshal())
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Unmarshal(data)
	})
}
