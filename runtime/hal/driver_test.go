package hal

import (
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
)

func TestParseDeviceURI(t *testing.T) {
	tests := []struct {
		in   string
		want DeviceURI
		err  string
	}{
		{"local-task", DeviceURI{Driver: "local-task"}, ""},
		{"vulkan://0", DeviceURI{Driver: "vulkan", Index: 0, HasIndex: true}, ""},
		{"cuda://12", DeviceURI{Driver: "cuda", Index: 12, HasIndex: true}, ""},
		{"", DeviceURI{}, "missing driver name"},
		{"://0", DeviceURI{}, "missing driver name"},
		{"cuda://", DeviceURI{}, `device index "" is not a non-negative integer`},
		{"cuda://-1", DeviceURI{}, `device index "-1"`},
		{"cuda://x", DeviceURI{}, `device index "x"`},
		{"Local Task", DeviceURI{}, "bad character"},
	}
	for _, tt := range tests {
		got, err := ParseDeviceURI(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseDeviceURI(%q) error = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseDeviceURI(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
		if got.String() != tt.in {
			t.Errorf("String() = %q, want %q", got.String(), tt.in)
		}
	}
}

type listDriver struct {
	name  string
	count int
}

func (d listDriver) Name() string { return d.name }
func (d listDriver) Devices() ([]DeviceInfo, error) {
	out := make([]DeviceInfo, d.count)
	for i := range out {
		out[i] = DeviceInfo{Index: i, Name: d.name}
	}
	return out, nil
}
func (d listDriver) CreateDevice(index int) (Device, error) {
	return nil, status.Errorf(status.Unimplemented, "driver %s creates no devices in this test", d.name)
}

func TestRegistry(t *testing.T) {
	r := &Registry{}
	if _, err := r.CreateDevice("local-task"); err == nil || !strings.HasSuffix(err.Error(), `unknown driver "local-task" (available drivers: none)`) {
		t.Errorf("empty registry: %v", err)
	}
	for _, d := range []listDriver{{"b-driver", 1}, {"a-driver", 2}} {
		if err := r.Register(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Register(listDriver{"a-driver", 1}); err == nil || status.CodeOf(err) != status.AlreadyExists {
		t.Errorf("duplicate registration: %v", err)
	}
	if got := strings.Join(r.Names(), ","); got != "a-driver,b-driver" {
		t.Errorf("Names = %s", got)
	}
	_, err := r.CreateDevice("c-driver://0")
	if err == nil || !strings.HasSuffix(err.Error(), `unknown driver "c-driver" (available drivers: a-driver, b-driver)`) {
		t.Errorf("unknown driver: %v", err)
	}
	if _, err := r.CreateDevice("b-driver://1"); err == nil || !strings.Contains(err.Error(), `driver "b-driver" has 1 device(s)`) {
		t.Errorf("index out of range: %v", err)
	}
	if _, err := r.CreateDevice("a-driver://1"); err == nil || status.CodeOf(err) != status.Unimplemented {
		t.Errorf("create passes through driver error: %v", err)
	}
}

func TestSemaphoreAndFence(t *testing.T) {
	s := NewSemaphore(0)
	if err := s.Wait(1, 0); status.CodeOf(err) != status.DeadlineExceeded {
		t.Errorf("poll: %v", err)
	}
	if err := s.Wait(1, time.Millisecond); status.CodeOf(err) != status.DeadlineExceeded {
		t.Errorf("timed wait: %v", err)
	}
	done := make(chan error)
	go func() { done <- s.Wait(2, InfiniteTimeout) }()
	s.Signal(1)
	s.Signal(2)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(2); err == nil {
		t.Error("non-increasing signal succeeded")
	}
	s2 := NewSemaphore(0)
	f := NewFence(SemaphorePoint{s, 3}, SemaphorePoint{s2, 1})
	f.Insert(s, 5)
	if len(f.Points()) != 2 || f.Points()[0].Value != 5 {
		t.Errorf("points = %+v", f.Points())
	}
	go f.Signal()
	if err := f.Wait(InfiniteTimeout); err != nil {
		t.Fatal(err)
	}
	if err := WaitSemaphores(WaitAny, NewFence(SemaphorePoint{s, 100}, SemaphorePoint{s2, 1}), 0); err != nil {
		t.Errorf("wait any: %v", err)
	}
	s3 := NewSemaphore(0)
	go s3.Fail(status.Errorf(status.Aborted, "kernel failed"))
	if err := s3.Wait(1, InfiniteTimeout); err == nil || err.Error() != "ABORTED; kernel failed" || status.CodeOf(err) != status.Aborted {
		t.Errorf("failed semaphore: %v", err)
	}
}

func TestQueryDevice(t *testing.T) {
	formats := []string{"embedded-elf-x86_64"}
	tests := []struct {
		cat, key string
		want     int64
		err      bool
	}{
		{"hal.executable.format", "embedded-elf-x86_64", 1, false},
		{"hal.executable.format", "cuda-nvptx-fb", 0, false},
		{"hal.device.id", "local*", 1, false},
		{"hal.device.id", "vulkan*", 0, false},
		{"hal.device", "concurrency", 4, false},
		{"hal.nope", "x", 0, true},
	}
	for _, tt := range tests {
		got, err := QueryDevice("local-task", formats, 4, tt.cat, tt.key)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("QueryDevice(%s::%s) = %d, %v", tt.cat, tt.key, got, err)
		}
	}
}
