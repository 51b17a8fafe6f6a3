package toolflags

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// openPTY opens a pseudo-terminal pair with plain ioctls (what openpty(3)
// does) and returns its terminal side.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Skipf("unlocking the pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Skipf("pty number: %v", e)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("opening the pty: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return tty
}

// TestNoModuleOnTerminal: with no --module and a terminal on stdin the tools
// say so at once (IREE's message) instead of waiting for input; an explicit
// /dev/null (a character device, not a terminal) is read and gives no data.
func TestNoModuleOnTerminal(t *testing.T) {
	tty := openPTY(t)
	if !isTerminal(tty) {
		t.Fatal("the pty is not seen as a terminal")
	}
	if _, _, err := ReadModules(nil, tty); !errors.Is(err, ErrNoModule) {
		t.Fatalf("no --module on a terminal: %v, want %v", err, ErrNoModule)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if isTerminal(devnull) {
		t.Error("/dev/null is seen as a terminal")
	}
	if _, _, err := ReadModules(nil, devnull); err == nil || !strings.Contains(err.Error(), "no data") {
		t.Errorf("no --module, stdin /dev/null: %v, want the no-data error", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if isTerminal(pr) {
		t.Error("a pipe is seen as a terminal")
	}
	pw.Write([]byte("module bytes"))
	pw.Close()
	if datas, _, err := ReadModules(nil, pr); err != nil || string(datas[0]) != "module bytes" {
		t.Errorf("no --module, piped: %q, %v", datas, err)
	}
}
