package toolflags

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadModules(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.vmfb")
	if err := os.WriteFile(file, []byte("file"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name      string
		paths     []string
		stdin     string
		wantNames string
		wantErr   string
	}{
		{"default is stdin", nil, "piped", "<stdin>", ""},
		{"file then stdin", []string{file, "-"}, "piped", file + ",<stdin>", ""},
		{"stdin twice", []string{"-", "-"}, "piped", "", "--module=- given more than once"},
		{"empty stdin", []string{"-"}, "", "", "reading module from stdin: no data"},
		{"missing file", []string{filepath.Join(dir, "nope.vmfb")}, "", "", "reading module: open "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			datas, names, err := ReadModules(c.paths, strings.NewReader(c.stdin))
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(names, ","); got != c.wantNames {
				t.Errorf("names %s, want %s", got, c.wantNames)
			}
			if len(datas) != len(names) || len(datas[len(datas)-1]) == 0 {
				t.Errorf("datas %q", datas)
			}
		})
	}
}

func TestLoadModulesErrors(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.vmfb")
	if err := os.WriteFile(junk, []byte("not a flatbuffer"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		paths   []string
		stdin   string
		wantErr string
	}{
		{"unreadable file", []string{filepath.Join(dir, "nope.vmfb")}, "", "reading module: open "},
		{"file that is not a module", []string{junk}, "", "loading module " + junk + ": "},
		{"stdin that is not a module", []string{"-"}, "junk", "loading module <stdin>: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ms, err := LoadModules(c.paths, strings.NewReader(c.stdin))
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("LoadModules: %d modules, error %v; want an error containing %q", len(ms), err, c.wantErr)
			}
		})
	}
}
