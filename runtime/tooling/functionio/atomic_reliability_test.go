package functionio

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// TestWriteOutputsAllOrNothing fails the second of two file outputs and
// checks that the first file, which already existed, keeps its old
// contents: every file is staged before any is renamed into place. Errors
// name the output, never the temporary file.
func TestWriteOutputsAllOrNothing(t *testing.T) {
	alloc := hal.NewHostAllocator(0)
	results := []vm.Value{viewValue(t, alloc, "4xf32=1 2 3 4"), viewValue(t, alloc, "2xi32=5 6")}
	dir := t.TempDir()
	first := filepath.Join(dir, "first.bin")
	old := []byte("old contents")
	if err := os.WriteFile(first, old, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir.npy"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		second, want string
	}{
		{filepath.Join(dir, "missing", "second.npy"), "writing " + filepath.Join(dir, "missing", "second.npy") + ": no such file or directory"},
		{filepath.Join(dir, "adir.npy"), "writing " + filepath.Join(dir, "adir.npy") + ": is a directory"},
	}
	for _, tc := range tests {
		var out bytes.Buffer
		err := WriteOutputs(&out, results, []string{"@" + first, "@" + tc.second}, 1024)
		if err == nil || err.Error() != tc.want {
			t.Errorf("second output %s: error %v, want %q", tc.second, err, tc.want)
		}
		if got, _ := os.ReadFile(first); !bytes.Equal(got, old) {
			t.Errorf("second output %s failed but %s was replaced: %q", tc.second, first, got)
		}
		if out.Len() != 0 {
			t.Errorf("stdout %q after a failed write", out.String())
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
	// Both succeed together, with the usual file mode.
	second := filepath.Join(dir, "second.bin")
	if err := WriteOutputs(&bytes.Buffer{}, results, []string{"@" + first, "@" + second}, 1024); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{first, second} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != 0o644 {
			t.Errorf("%s: %v, mode %v", p, err, fi.Mode())
		}
	}
	if got, _ := os.ReadFile(first); len(got) != 16 {
		t.Errorf("%s holds %d bytes, want 16", first, len(got))
	}
}

// TestWriteOutputsSpecialFiles writes results with '@' and '+' to a FIFO
// (with a reader) and to a character device made like /dev/null, and
// checks that both are still there, of the same kind, beside a regular
// file written in the same call.
func TestWriteOutputsSpecialFiles(t *testing.T) {
	alloc := hal.NewHostAllocator(0)
	results := []vm.Value{viewValue(t, alloc, "2xi32=1 2"), viewValue(t, alloc, "2xi32=3 4")}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.bin")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dev := filepath.Join(dir, "null.bin")
	haveDev := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3) == nil
	if !haveDev {
		t.Log("mknod of a character device not permitted here; testing the FIFO only")
	}
	for _, mode := range []string{"@", "+"} {
		got := make(chan []byte, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- nil
				return
			}
			defer f.Close()
			b, _ := io.ReadAll(f)
			got <- b
		}()
		second := filepath.Join(dir, "regular.bin")
		if haveDev {
			second = dev
		}
		if err := WriteOutputs(io.Discard, results, []string{mode + fifo, mode + second}, 1024); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		select {
		case b := <-got:
			if !bytes.Equal(b, []byte{1, 0, 0, 0, 2, 0, 0, 0}) {
				t.Errorf("%s: FIFO reader got %v", mode, b)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: FIFO reader got no end of file", mode)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("%s: %s is no longer a FIFO: %v", mode, fifo, err)
		}
		if fi, err := os.Lstat(dev); haveDev && (err != nil || fi.Mode()&fs.ModeCharDevice == 0) {
			t.Fatalf("%s: %s is no longer a character device: %v", mode, dev, err)
		}
	}
}
