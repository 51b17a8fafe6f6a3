package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/vm"
)

// TestBadModules dumps a copy of the demonstration module whose embedded
// ELF is corrupt: the dump reports it in place (exit 0) without loading it.
// Modules that cannot be read at all (empty, truncated, a size prefix past
// the end) are in the table of all four tools in tools/internal/badinput.
func TestBadModules(t *testing.T) {
	data, err := os.ReadFile(demoModule(t))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	badELF := bytes.Clone(data)
	i := bytes.Index(badELF, []byte("\x7fELF\x02\x01\x01"))
	if i < 0 {
		t.Fatal("the demonstration module embeds no ELF image")
	}
	binary.LittleEndian.PutUint64(badELF[i+32:], 1<<40) // e_phoff
	m, err := vm.LoadBytecodeModule(data)
	if err != nil {
		t.Fatal(err)
	}
	elfSize := 0
	for _, r := range m.RodataSegments() {
		if bytes.HasPrefix(r.Data, []byte("\x7fELF")) {
			elfSize = len(r.Data)
		}
	}
	tests := []struct {
		name   string
		data   []byte
		args   []string
		code   int
		stderr string
		stdout string // a line stdout must contain, for exit 0
	}{
		{"corrupt ELF", badELF, []string{"--output=executables"}, 0, "", "bytes, unreadable executable: parsing ELF: a header table lies past the end of the " + strconv.Itoa(elfSize) + "-byte image (truncated or corrupt)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "_")+".vmfb", tc.data)
			code, stdout, stderr := runTool(t, nil, append(tc.args, p)...)
			want := strings.ReplaceAll(tc.stderr, "PATH", p)
			if code != tc.code || stderr != want || (tc.code != 0 && stdout != "") || !strings.Contains(stdout, tc.stdout) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stderr %q, stdout containing %q", code, stdout, stderr, tc.code, want, tc.stdout)
			}
		})
	}
}
