//go:build !linux

package terminal

import "os"

// Is approximates isatty(3) where the TCGETS ioctl is not at hand:
// a character device (a terminal, or /dev/null).
func Is(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
