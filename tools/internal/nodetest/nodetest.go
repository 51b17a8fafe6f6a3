// Package nodetest makes the special files the tools' output tests write
// to: a character device like /dev/null and a FIFO with a reader. The
// tests check that an output path naming one of them is written in place
// and never replaced by a regular file.
package nodetest

import (
	"io"
	"io/fs"
	"os"
	"syscall"
	"testing"
	"time"
)

// nullDev is /dev/null's device number (major 1, minor 3).
const nullDev = 1<<8 | 3

// CharDevice makes a character device at path with /dev/null's device
// number and reports whether it could: mknod needs privileges (root, or
// CAP_MKNOD outside a user namespace); without them it logs why and
// returns false, and the caller skips its device cases.
func CharDevice(t testing.TB, path string) bool {
	t.Helper()
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, nullDev); err != nil {
		t.Logf("skipping the character device cases: mknod %s: %v (run as root to test them)", path, err)
		return false
	}
	return true
}

// FIFO makes a FIFO at path, skipping the test when that fails.
func FIFO(t testing.TB, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo %s: %v", path, err)
	}
}

// Reader is a goroutine reading a FIFO to its end.
type Reader struct {
	got chan []byte
}

// Read opens the FIFO at path for reading in a goroutine (the open waits
// for a writer) and collects everything written until the writer closes.
func Read(path string) *Reader {
	r := &Reader{got: make(chan []byte, 1)}
	go func() {
		f, err := os.Open(path)
		if err != nil {
			r.got <- nil
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		r.got <- b
	}()
	return r
}

// Wait returns what the reader got. If nothing opened the FIFO for writing
// within 10 seconds, it fails t and returns nil; when path is still the
// FIFO it opens and closes it for writing so that the reader goroutine
// ends (when the FIFO was replaced, the goroutine stays blocked on it).
func (r *Reader) Wait(t testing.TB, path string) []byte {
	t.Helper()
	select {
	case b := <-r.got:
		return b
	case <-time.After(10 * time.Second):
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode().Type() == fs.ModeNamedPipe {
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}
	t.Errorf("nothing was written to the FIFO %s", path)
	return nil
}

// Check fails t unless path is still a node of the given type
// (fs.ModeCharDevice|fs.ModeDevice for a character device, fs.ModeNamedPipe
// for a FIFO) and, for a device, still /dev/null's device number.
func Check(t testing.TB, path string, mode fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Errorf("%s is gone: %v", path, err)
		return
	}
	if fi.Mode().Type() != mode {
		t.Errorf("%s is now %v, want a %v node", path, fi.Mode().Type(), mode)
		return
	}
	if mode&fs.ModeDevice != 0 && fi.Sys().(*syscall.Stat_t).Rdev != nullDev {
		t.Errorf("%s has device number %#x, want %#x", path, fi.Sys().(*syscall.Stat_t).Rdev, nullDev)
	}
}
