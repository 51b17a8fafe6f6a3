package vmgen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/scftocf"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/vmgen"
	rhal "github.com/goiree/goiree/runtime/hal"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	"github.com/goiree/goiree/runtime/tooling/session"
)

// hostSession compiles a host-only program of testdata/host (no
// executables; scf lowered to cf first) and opens it on local-sync.
func hostSession(t *testing.T, file string) *session.Session {
	t.Helper()
	path := filepath.Join("testdata", "host", file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := hostSessionSource(t, path, src)
	return s
}

// hostSessionSource is hostSession for a program given as text; it also
// returns the device.
func hostSessionSource(t *testing.T, path string, src []byte) (*session.Session, rhal.Device) {
	t.Helper()
	out := mustEmitSource(t, path, src)
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	s, err := session.Open(dev, out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, dev
}

// call runs fn and returns its printed results, separated by "; ".
func call(t *testing.T, s *session.Session, fn string, inputs ...string) string {
	t.Helper()
	out, err := s.Run(fn, inputs...)
	if err != nil {
		t.Fatalf("%s(%s): %v", fn, strings.Join(inputs, ", "), err)
	}
	var vals []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if _, v, ok := strings.Cut(line, ": "); ok && strings.HasPrefix(line, "result[") {
			line = v
		}
		vals = append(vals, strings.TrimSpace(line))
	}
	return strings.Join(vals, "; ")
}

// mustEmitSource parses a host-only program, lowers its scf to cf,
// verifies it and emits its module.
func mustEmitSource(t *testing.T, path string, src []byte) []byte {
	t.Helper()
	reg := dialect.NewRegistry()
	m, err := dialect.Parse(path, src, reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := scftocf.Run(m.Op); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatal(err)
	}
	out, err := vmgen.Emit(m.Op, vmgen.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
