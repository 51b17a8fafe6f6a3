package toolflags

import (
	"bytes"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
)

func newRegistry(t *testing.T) *hal.Registry {
	t.Helper()
	reg, err := NewRegistry(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func TestNewRegistry(t *testing.T) {
	if _, err := NewRegistry(-1, nil); err == nil || err.Error() != "--task_topology_group_count=-1 must not be negative" {
		t.Errorf("NewRegistry(-1): error %v, want the negative group count named", err)
	}
	reg, err := NewRegistry(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"local-sync", "local-task"} {
		if !slices.Contains(reg.Names(), want) {
			t.Errorf("drivers %v lack %s", reg.Names(), want)
		}
	}
}

func TestDeviceDiscovery(t *testing.T) {
	reg := newRegistry(t)
	for _, tc := range []struct {
		args    []string
		want    []string // lines the output must hold
		notWant string
		wantErr string
	}{
		{[]string{"--list_drivers"}, []string{"# Available HAL drivers", "\n      local-sync\n", "\n      local-task\n"}, "", ""},
		{[]string{"--list_devices"}, []string{"local-sync://0", "local-task://0"}, "", ""},
		{[]string{"--list_devices=local-sync"}, []string{"local-sync://0"}, "local-task", ""},
		{[]string{"--list_devices=nosuch"}, nil, "", `unknown driver "nosuch"`},
		{[]string{"--dump_devices=local-task"}, []string{"# Enumerated devices for driver 'local-task'", "# --device=local-task://0", "id: local-task", "executable formats: "}, "local-sync", ""},
		{[]string{"--dump_devices"}, []string{"# --device=local-sync://0", "# --device=local-task://0"}, "", ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		var d DeviceFlags
		AddDeviceFlags(fs, &d)
		if err := Parse(fs, tc.args); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		done, err := d.Discovery(&out, reg)
		if !done {
			t.Errorf("%v: no discovery action ran", tc.args)
		}
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.args, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%v: output lacks %q:\n%s", tc.args, w, out.String())
			}
		}
		if tc.notWant != "" && strings.Contains(out.String(), tc.notWant) {
			t.Errorf("%v: output holds %q:\n%s", tc.args, tc.notWant, out.String())
		}
	}
}

func TestCreateDevices(t *testing.T) {
	reg := newRegistry(t)
	for _, tc := range []struct {
		devices []string
		ids     []string
		wantErr string
	}{
		{nil, []string{"local-task"}, ""},
		{[]string{"local-sync"}, []string{"local-sync"}, ""},
		{[]string{"local-sync", " local-task://0 "}, []string{"local-sync", "local-task"}, ""},
		{[]string{"local-sync", "nosuch"}, nil, `unknown driver "nosuch"`},
		{[]string{"local-sync://7"}, nil, "not found"},
	} {
		d := DeviceFlags{Devices: tc.devices}
		devs, err := d.CreateDevices(reg)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: error %v, want %q", tc.devices, err, tc.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", tc.devices, err)
		}
		var ids []string
		for _, dev := range devs {
			ids = append(ids, dev.ID())
			dev.Close()
		}
		if strings.Join(ids, ",") != strings.Join(tc.ids, ",") {
			t.Errorf("%v: created %v, want %v", tc.devices, ids, tc.ids)
		}
	}
}

// placeholderDriver lists what an absent GPU driver lists: one placeholder
// entry that says why it cannot run.
type placeholderDriver struct{ why error }

func (placeholderDriver) Name() string { return "absentgpu" }
func (p placeholderDriver) Devices() ([]hal.DeviceInfo, error) {
	return []hal.DeviceInfo{{Index: 0, Name: "unavailable: " + p.why.Error(), Unavailable: p.why}}, nil
}
func (p placeholderDriver) CreateDevice(int) (hal.Device, error) { return nil, p.why }

// TestListDevicesUnavailable checks that a driver which cannot run here
// lists no device among all drivers (IREE's behaviour, which scripts use to
// pick runnable --device values), names its reason when asked for alone,
// and still shows the placeholder in --dump_devices.
func TestListDevicesUnavailable(t *testing.T) {
	reg := newRegistry(t)
	if err := reg.Register(placeholderDriver{errors.New("libabsent.so.1 not found")}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := ListDevices(&out, reg, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "absentgpu") || !strings.Contains(out.String(), "local-sync://0\n") {
		t.Errorf("--list_devices listed:\n%s\nwant the local devices and no absentgpu entry", out.String())
	}
	out.Reset()
	err := ListDevices(&out, reg, "absentgpu")
	if err == nil || err.Error() != "listing devices of driver absentgpu: libabsent.so.1 not found" || out.Len() != 0 {
		t.Errorf("--list_devices=absentgpu: error %v, output %q; want the reason and no output", err, out.String())
	}
	out.Reset()
	if err := DumpDevices(&out, reg, "absentgpu"); err != nil || !strings.Contains(out.String(), "unavailable: libabsent.so.1 not found") {
		t.Errorf("--dump_devices=absentgpu: error %v, output:\n%s", err, out.String())
	}
}
