package terminal

import (
	"os"
	"syscall"
	"unsafe"
)

// Is reports whether f is a terminal: the TCGETS ioctl (what
// isatty(3) does) succeeds only on one. The standard library's syscall
// package has the ioctl, so no dependency is needed; a character-device
// check (os.ModeCharDevice) would also match /dev/null, whose reader should
// get "no data" rather than be told no module was given.
func Is(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
