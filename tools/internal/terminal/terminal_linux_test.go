package terminal

import (
	"os"
	"testing"
)

// TestIs: a pseudo-terminal is a terminal; /dev/null (a character device)
// and a pipe are not.
func TestIs(t *testing.T) {
	tty, closeAll, err := OpenPTY()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	defer closeAll()
	if !Is(tty) {
		t.Error("the pty is not seen as a terminal")
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if Is(devnull) {
		t.Error("/dev/null is seen as a terminal")
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	if Is(pr) {
		t.Error("a pipe is seen as a terminal")
	}
}
