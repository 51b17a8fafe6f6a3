package toolflags

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// ReadModules returns the bytes of every --module path in order, with the
// name to show for each in messages: "-" (also the default when no path is
// given) reads stdin, which can be read only once, and is named "<stdin>".
func ReadModules(paths []string, stdin io.Reader) (datas [][]byte, names []string, err error) {
	if len(paths) == 0 {
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
