package vm

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

// TestRodataDigest: a segment added with RodataChecked carries its SHA-256
// and name; the loader accepts it intact and refuses it with DATA_LOSS,
// naming the executable, when a byte of the contents or of the digest
// changed; a segment without a digest (all of an older module's) loads with
// SHA256 nil. Both storage forms are covered.
func TestRodataDigest(t *testing.T) {
	payload := bytes.Repeat([]byte("\x7fELF executable bytes "), 40)
	for _, external := range []bool{false, true} {
		b := sumModule()
		if external {
			b.StoreRodataExternally()
		}
		b.Rodata([]byte("plain"), "text/plain")
		b.RodataChecked("@kernels::@x86_64", payload, "application/x-elf")
		data, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		m, err := LoadBytecodeModule(data)
		if err != nil {
			t.Fatalf("external=%v: intact module: %v", external, err)
		}
		segs := m.RodataSegments()
		sum := sha256.Sum256(payload)
		if segs[0].SHA256 != nil || segs[0].Name != "" {
			t.Errorf("unchecked segment: %+v", segs[0])
		}
		if !bytes.Equal(segs[1].SHA256, sum[:]) || segs[1].Name != "@kernels::@x86_64" {
			t.Errorf("checked segment: name %q digest %x", segs[1].Name, segs[1].SHA256)
		}
		at := bytes.Index(data, payload)
		dig := bytes.Index(data, sum[:])
		if at < 0 || dig < 0 {
			t.Fatal("payload or digest not found in the module")
		}
		for _, off := range []int{at, at + len(payload)/2, at + len(payload) - 1, dig, dig + 31} {
			bad := bytes.Clone(data)
			bad[off] ^= 0x10
			_, err := LoadBytecodeModule(bad)
			if status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "executable @kernels::@x86_64 (rodata segment 1) is damaged") {
				t.Errorf("external=%v: byte %d flipped: %v, want DATA_LOSS naming the executable", external, off, err)
			}
		}
	}
}

// TestUnprintableNames: names with control characters or invalid UTF-8
// (what a damaged string length yields) are refused with the name quoted,
// so the error stays on one line.
func TestUnprintableNames(t *testing.T) {
	for _, name := range []string{"bad\nmodule", "bad\xffname"} {
		b := NewModuleBuilder(name)
		data, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		_, err = LoadBytecodeModule(data)
		if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "unprintable characters") {
			t.Errorf("module %q: %v", name, err)
		}
	}
	b := sumModule()
	b.Import("hal.x\ny", "0v_v")
	data, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadBytecodeModule(data); err == nil || strings.Contains(err.Error(), "\n") {
		t.Errorf("import with a newline: %v", err)
	}
}
