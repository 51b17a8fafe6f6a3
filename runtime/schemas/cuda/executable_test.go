package cuda

import (
	"reflect"
	"strings"
	"testing"
)

func sample() *Executable {
	return &Executable{
		PTX: ".version 7.0\n.target sm_80\n.visible .entry simple_mul()\n{\n ret;\n}\n",
		EntryPoints: []EntryPoint{
			{Name: "simple_mul", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, BindingCount: 3},
			{Name: "simple_mul_inplace", BlockSize: [3]uint32{128, 2, 1}, SharedMemorySize: 4096, BindingCount: 2},
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
	tests := []struct {
		name string
		data []byte
		text string
	}{
		{"empty", nil, "too short"},
		{"truncated", good[:len(good)/2], "outside buffer"},
		{"wrong identifier", append(append([]byte{}, good[:4]...), append([]byte("SPVE"), good[8:]...)...), `file identifier is "SPVE"`},
		{"no entry points", (&Executable{PTX: "x"}).Marshal(), "no entry points"},
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
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = Unmarshal(data)
	})
}
