package terminal

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// OpenPTY opens a pseudo-terminal pair with plain ioctls (what openpty(3)
// does) and returns its terminal side and a function that closes both
// sides. Tests use it to give a tool a real terminal.
func OpenPTY() (tty *os.File, closeAll func(), err error) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("no pseudo-terminals here: %w", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		ptmx.Close()
		return nil, nil, fmt.Errorf("unlocking the pty: %w", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		ptmx.Close()
		return nil, nil, fmt.Errorf("pty number: %w", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptmx.Close()
		return nil, nil, fmt.Errorf("opening the pty: %w", err)
	}
	return tty, func() { tty.Close(); ptmx.Close() }, nil
}
