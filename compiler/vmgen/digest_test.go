package vmgen_test

import (
	"bytes"
	"crypto/sha256"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/vm"
)

// TestExecutableDigests: every executable the compiler embeds carries its
// name and the SHA-256 of its bytes, and a module whose executable bytes
// changed afterwards does not load (DATA_LOSS naming the executable).
func TestExecutableDigests(t *testing.T) {
	needTools(t)
	data := emit(t, "reuse.mlir")
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range m.RodataSegments() {
		if s.MimeType != "application/x-elf" {
			continue
		}
		n++
		sum := sha256.Sum256(s.Data)
		if !bytes.Equal(s.SHA256, sum[:]) || !strings.HasPrefix(s.Name, "@") || !strings.Contains(s.Name, "::@") {
			t.Errorf("executable segment: name %q, digest %x", s.Name, s.SHA256)
		}
		bad := bytes.Clone(data)
		bad[bytes.Index(data, s.Data)+len(s.Data)/3] ^= 0x80
		if _, err := vm.LoadBytecodeModule(bad); status.CodeOf(err) != status.DataLoss || !strings.Contains(err.Error(), "executable "+s.Name) {
			t.Errorf("flipped byte in %s: %v", s.Name, err)
		}
	}
	if n == 0 {
		t.Fatal("the module embeds no executable")
	}
}
