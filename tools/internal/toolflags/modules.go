package toolflags

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/goiree/goiree/tools/internal/terminal"
)

// ErrNoModule is IREE's message for a run without a module.
var ErrNoModule = errors.New("no user module specified; use --module=file.vmfb to load from a file or --module=- to load from stdin")

// ReadModules returns the bytes of every --module path in order, with the
// name to show for each in messages: "-" reads stdin, which can be read only
// once, and is named "<stdin>". With no path, a module piped into stdin is
// read; when stdin is a terminal (nobody is piping a module, and reading
// would wait for typing) the error is ErrNoModule, as IREE's tools say.
func ReadModules(paths []string, stdin io.Reader) (datas [][]byte, names []string, err error) {
	implicit := len(paths) == 0
	if implicit {
		if f, ok := stdin.(*os.File); ok && terminal.Is(f) {
			return nil, nil, ErrNoModule
		}
		paths = []string{"-"}
	}
	stdinUsed := false
	for _, p := range paths {
		p = strings.TrimSpace(p)
		if p == "-" {
			if stdinUsed {
				return nil, nil, fmt.Errorf("--module=- given more than once: stdin can be read only once")
			}
			stdinUsed = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, nil, fmt.Errorf("reading module from stdin: %w", err)
			}
			if len(data) == 0 {
				return nil, nil, fmt.Errorf("reading module from stdin: no data (give --module=file.vmfb or pipe a module in)")
			}
			datas, names = append(datas, data), append(names, "<stdin>")
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, fmt.Errorf("reading module: %w", err)
		}
		datas, names = append(datas, data), append(names, p)
	}
	return datas, names, nil
}
