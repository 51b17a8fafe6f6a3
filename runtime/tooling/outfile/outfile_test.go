package outfile

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// noTemps fails t when dir holds a leftover temporary file.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left in %s", e.Name(), dir)
		}
	}
}

func inode(t *testing.T, p string) uint64 {
	t.Helper()
	fi, err := os.Lstat(p)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Sys().(*syscall.Stat_t).Ino
}

func TestRegularFiles(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name  string
		setup func(p string)
		write func(p string) error
		want  string
		perm  fs.FileMode
	}{
		{"new file", func(string) {}, func(p string) error { return Write(p, []byte("new")) }, "new", 0o644},
		{"replaced, mode kept", func(p string) { os.WriteFile(p, []byte("old contents"), 0o600) },
			func(p string) error { return Write(p, []byte("new")) }, "new", 0o600},
		{"appended", func(p string) { os.WriteFile(p, []byte("old,"), 0o640) },
			func(p string) error { return Append(p, []byte("new")) }, "old,new", 0o640},
		{"append creates", func(string) {}, func(p string) error { return Append(p, []byte("new")) }, "new", 0o644},
	}
	for i, tt := range tests {
		p := filepath.Join(dir, "f"+strconv.Itoa(i))
		tt.setup(p)
		if err := tt.write(p); err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		got, _ := os.ReadFile(p)
		fi, _ := os.Stat(p)
		if string(got) != tt.want || fi.Mode().Perm() != tt.perm {
			t.Errorf("%s: %q mode %v, want %q mode %v", tt.name, got, fi.Mode().Perm(), tt.want, tt.perm)
		}
	}
	noTemps(t, dir)
}

// TestReplaceIsAtomic checks that a regular file is replaced by a rename
// (a new inode), so a reader holding the old file keeps its contents.
func TestReplaceIsAtomic(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.vmfb")
	os.WriteFile(p, []byte("old"), 0o644)
	r, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	before := inode(t, p)
	if err := Write(p, []byte("new contents")); err != nil {
		t.Fatal(err)
	}
	if inode(t, p) == before {
		t.Error("file rewritten in place, not replaced")
	}
	if old, _ := io.ReadAll(r); string(old) != "old" {
		t.Errorf("reader of the old file sees %q", old)
	}
}

func TestSymlinksAreFollowed(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	real := filepath.Join(sub, "real.bin")
	os.WriteFile(real, []byte("old"), 0o644)
	// link -> sub/link2 -> real.bin (relative, resolved from sub).
	os.Symlink("real.bin", filepath.Join(sub, "link2"))
	link := filepath.Join(dir, "link")
	os.Symlink("sub/link2", link)
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("sub/created.bin", dangling)

	if err := Write(link, []byte("via link")); err != nil {
		t.Fatal(err)
	}
	if err := Append(link, []byte(", appended")); err != nil {
		t.Fatal(err)
	}
	if err := Write(dangling, []byte("created")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, filepath.Join(sub, "link2"), dangling} {
		if fi, err := os.Lstat(l); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link: %v %v", l, fi.Mode(), err)
		}
	}
	if got, _ := os.ReadFile(real); string(got) != "via link, appended" {
		t.Errorf("link target holds %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(sub, "created.bin")); string(got) != "created" {
		t.Errorf("dangling link's target holds %q", got)
	}
	noTemps(t, dir)
	noTemps(t, sub)
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop")
	os.Symlink("loop", loop)
	os.Mkdir(filepath.Join(dir, "adir"), 0o755)
	tests := []struct{ path, want string }{
		{filepath.Join(dir, "adir"), "writing " + filepath.Join(dir, "adir") + ": is a directory"},
		{filepath.Join(dir, "missing", "f"), "writing " + filepath.Join(dir, "missing", "f") + ": no such file or directory"},
		{loop, "writing " + loop + ": too many levels of symbolic links"},
	}
	for _, tt := range tests {
		err := Write(tt.path, []byte("x"))
		var oe *Error
		if err == nil || err.Error() != tt.want || !errors.As(err, &oe) {
			t.Errorf("Write(%s): %v, want %q", tt.path, err, tt.want)
		}
	}
	noTemps(t, dir)
}

// readAll starts a goroutine reading path (a FIFO) to the end. It closes
// the FIFO before it hands the data over: a reader still holding the FIFO
// open would let the next writer's open succeed against it, and the next
// reader would then wait for a writer that already came and went.
func readAll(t *testing.T, path string) <-chan []byte {
	t.Helper()
	ch := make(chan []byte, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			ch <- []byte("open: " + err.Error())
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		ch <- b
	}()
	return ch
}

func wait(t *testing.T, ch <-chan []byte) []byte {
	t.Helper()
	select {
	case b := <-ch:
		return b
	case <-time.After(10 * time.Second):
		t.Fatal("FIFO reader got no end of file")
		return nil
	}
}

// TestFIFO writes and appends to a FIFO (directly and through a symbolic
// link) and checks that it is still a FIFO and the reader got the data.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink("pipe", link)
	for _, tc := range []struct {
		path   string
		append bool
	}{{fifo, false}, {fifo, true}, {link, false}} {
		ch := readAll(t, fifo)
		var err error
		if tc.append {
			err = Append(tc.path, []byte("data"))
		} else {
			err = Write(tc.path, []byte("data"))
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := wait(t, ch); string(got) != "data" {
			t.Errorf("%s: reader got %q", tc.path, got)
		}
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("%s is no longer a FIFO: %v %v", fifo, fi.Mode(), err)
		}
	}
	noTemps(t, dir)
}

// TestCharDevice writes to a character device made like /dev/null (1, 3)
// in a temporary directory and checks that it is still that device.
func TestCharDevice(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod of a character device not permitted here (%v); run as root to test device outputs", err)
	}
	if err := Write(dev, []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	if err := Append(dev, []byte("discarded")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(dev)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 || fi.Sys().(*syscall.Stat_t).Rdev != 1<<8|3 {
		t.Fatalf("%s is no longer the character device: %v %v", dev, fi.Mode(), err)
	}
	noTemps(t, dir)
}

// TestProcFD writes to /dev/fd/N for a pipe: the path leads into /proc and
// is written in place.
func TestProcFD(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p := "/dev/fd/" + strconv.Itoa(int(w.Fd()))
	if _, err := os.Stat(p); err != nil {
		w.Close()
		t.Skipf("%s: %v", p, err)
	}
	if err := Write(p, []byte("to the pipe")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, _ := io.ReadAll(r)
	if string(got) != "to the pipe" {
		t.Errorf("pipe got %q", got)
	}
}

// TestCommitRechecks prepares a regular file, replaces it by a FIFO before
// Commit, and checks that Commit writes into the FIFO instead of renaming
// over it.
func TestCommitRechecks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := Prepare(p, []byte("staged"), false)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(p)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		f.Discard()
		t.Skipf("mkfifo: %v", err)
	}
	ch := readAll(t, p)
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := wait(t, ch); !bytes.Equal(got, []byte("staged")) {
		t.Errorf("FIFO got %q", got)
	}
	if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("%s replaced: %v", p, fi.Mode())
	}
	noTemps(t, dir)
}
