package vulkan

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

// TestMissingLoader checks the message a machine without Vulkan gets: the
// library name and dlopen's reason, as UNAVAILABLE.
func TestMissingLoader(t *testing.T) {
	err := probeLoader("libvulkan-goiree-absent.so.1")
	if status.CodeOf(err) != status.Unavailable || !strings.Contains(err.Error(), "vulkan is unavailable: cannot load the Vulkan loader: libvulkan-goiree-absent.so.1") {
		t.Fatalf("error = %v", err)
	}
	if err := probeLoader("libc.so.6"); err == nil || !strings.Contains(err.Error(), "libc.so.6 has no vkGetInstanceProcAddr") {
		t.Fatalf("libc.so.6: %v", err)
	}
}

// TestUnavailableListing checks what Devices lists where the loader
// cannot be opened: the test binary runs itself with LoaderEnv naming a
// library that does not exist.
func TestUnavailableListing(t *testing.T) {
	if os.Getenv(LoaderEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUnavailableListing$", "-test.v")
		cmd.Env = append(os.Environ(), LoaderEnv+"=libvulkan-goiree-absent.so.1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestUnavailableListing") {
			t.Fatalf("child test: %v\n%s", err, out)
		}
		return
	}
	infos, err := NewDriver().Devices()
	if err != nil || len(infos) != 1 || !strings.HasPrefix(infos[0].Name, "unavailable: cannot load the Vulkan loader") {
		t.Fatalf("Devices() = %+v, %v", infos, err)
	}
	if _, err := NewDriver().CreateDevice(0); status.CodeOf(err) != status.Unavailable {
		t.Fatalf("CreateDevice(0) = %v, want UNAVAILABLE", err)
	}
	t.Logf("listed: vulkan://0: %s", infos[0].Name)
}

// FuzzEntryPoints: the SPIR-V entry point scan never panics and finds the
// names it is given back.
func FuzzEntryPoints(f *testing.F) {
	f.Add([]byte{0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0x0f, 0, 5, 0, 5, 0, 0, 0, 1, 0, 0, 0, 'm', 'a', 'i', 'n', 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		code := make([]uint32, len(data)/4)
		for i := range code {
			code[i] = uint32(data[4*i]) | uint32(data[4*i+1])<<8 | uint32(data[4*i+2])<<16 | uint32(data[4*i+3])<<24
		}
		names, err := spirvEntryPoints(code)
		if err == nil && names == nil {
			t.Fatal("nil map without an error")
		}
	})
}
