package toolflags

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/terminal"
)

// LoadModules reads every --module path as ReadModules does and loads each
// as a bytecode module, in order; an error names the module that failed.
func LoadModules(paths []string, stdin io.Reader) ([]*vm.BytecodeModule, error) {
	datas, names, err := ReadModules(paths, stdin)
	if err != nil {
		return nil, err
	}
	var modules []*vm.BytecodeModule
	for i, data := range datas {
		m, err := session.LoadModule(names[i], data)
		if err != nil {
			return nil, err
		}
		glog.V(1).Infof("loaded module %s from %s (%d bytes)", m.Name(), names[i], len(data))
		modules = append(modules, m)
	}
	return modules, nil
}

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
