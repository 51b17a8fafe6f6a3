package target

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDump(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := Dump(dir, "k.c", []byte("int x;")); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "k.c")); err != nil || string(got) != "int x;" {
		t.Errorf("dumped %q, %v", got, err)
	}

	// A tool's writer replaces the default; its errors name the file.
	old := WriteDump
	defer func() { WriteDump = old }()
	var wrote []string
	WriteDump = func(path string, data []byte) error {
		wrote = append(wrote, filepath.Base(path))
		return errors.New("disk full")
	}
	err := Dump(dir, "k.so", []byte{1})
	if err == nil || !strings.Contains(err.Error(), "dumping k.so: disk full") || len(wrote) != 1 {
		t.Errorf("Dump through a failing writer: %v (wrote %v)", err, wrote)
	}
}
