package objects

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/goiree/goiree/compiler/dialect/hal"
)

func TestFind(t *testing.T) {
	dir := t.TempDir()
	sp1, sp2 := filepath.Join(dir, "sp1"), filepath.Join(dir, "sp2")
	for _, d := range []string{sp1, sp2} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(sp2, "a.o"))
	write(filepath.Join(sp1, "b.o"))
	write(filepath.Join(sp2, "b.o"))
	write(filepath.Join(dir, "abs.o"))
	write(filepath.Join(dir, "cwd.o"))
	write(filepath.Join(sp1, "cwd.o"))
	t.Chdir(dir)
	r := &Resolver{SearchPaths: []string{sp1, sp2}}
	cases := []struct {
		path, want, wantErr string
	}{
		{"a.o", filepath.Join(sp2, "a.o"), ""},
		{"b.o", filepath.Join(sp1, "b.o"), ""}, // first search path wins
		{filepath.Join(dir, "abs.o"), filepath.Join(dir, "abs.o"), ""},
		{"cwd.o", "cwd.o", ""}, // cwd-relative before search paths
		{"missing.o", "", `referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: #hal.executable.object<{path = "missing.o"}> (tried: missing.o, ` + filepath.Join(sp1, "missing.o") + ", " + filepath.Join(sp2, "missing.o") + ")"},
		// An absolute path is never looked up on the search paths.
		{"/nonexistent/a.o", "", `referenced object file not found on any path; use --iree-hal-executable-object-search-path= to add search paths: #hal.executable.object<{path = "/nonexistent/a.o"}> (tried: /nonexistent/a.o)`},
	}
	for _, c := range cases {
		got, err := r.Find(&hal.ExecutableObjectAttr{Path: c.path, HasPath: true})
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("Find(%s) error = %v\nwant %s", c.path, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("Find(%s) = %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}
