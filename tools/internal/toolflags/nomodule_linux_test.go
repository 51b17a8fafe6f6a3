package toolflags

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/goiree/goiree/tools/internal/terminal"
)

// TestNoModuleOnTerminal: with no --module and a terminal on stdin the tools
// say so at once (IREE's message) instead of waiting for input; /dev/null
// and a pipe are read as before.
func TestNoModuleOnTerminal(t *testing.T) {
	tty, closeAll, err := terminal.OpenPTY()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	defer closeAll()
	if _, _, err := ReadModules(nil, tty); !errors.Is(err, ErrNoModule) {
		t.Fatalf("no --module on a terminal: %v, want %v", err, ErrNoModule)
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if _, _, err := ReadModules(nil, devnull); err == nil || !strings.Contains(err.Error(), "no data") {
		t.Errorf("no --module, stdin /dev/null: %v, want the no-data error", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	pw.Write([]byte("module bytes"))
	pw.Close()
	if datas, _, err := ReadModules(nil, pr); err != nil || string(datas[0]) != "module bytes" {
		t.Errorf("no --module, piped: %q, %v", datas, err)
	}
}
