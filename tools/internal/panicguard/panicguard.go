// Package panicguard is the tools' last guard against their own bugs: a
// panic in a tool's main goroutine becomes one "[ERROR] internal error: …"
// line naming the modules on the command line, exit code 70 (EX_SOFTWARE,
// as sysexits.h names an internal software error), and Go's trace only
// under -v. The panic is still a bug to fix; the guard only keeps a user
// from a page of goroutine dumps.
package panicguard

import (
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// ExitCode is the exit status of a tool that panicked.
const ExitCode = 70

// Run returns run's exit code, or ExitCode after reporting a panic of run
// to stderr. args are the tool's arguments, read only to name the modules
// and to see whether -v asks for the trace.
func Run(args []string, stderr io.Writer, run func() int) (code int) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		fmt.Fprintf(stderr, "[ERROR] internal error: %v%s; this is a bug in the tool (rerun with -v=1 for Go's trace)\n", r, subject(args))
		if verbose(args) {
			stderr.Write(debug.Stack())
		}
		code = ExitCode
	}()
	return run()
}

// subject names the modules (or compiler inputs) args give: --module=X,
// --module X, and positional .vmfb, .mlir and .mlirbc files other than
// iree-compile's -o output.
func subject(args []string) string {
	var names []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case strings.HasPrefix(a, "-") && name == "module" && hasValue:
			names = append(names, value)
		case strings.HasPrefix(a, "-") && name == "module" && i+1 < len(args):
			names = append(names, args[i+1])
			i++
		case a == "-o" || a == "--o":
			i++ // the output, not an input
		case !strings.HasPrefix(a, "-"):
			switch filepath.Ext(a) {
			case ".vmfb", ".mlir", ".mlirbc":
				names = append(names, a)
			}
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return " (module " + names[0] + ")"
	}
	return " (modules " + strings.Join(names, ", ") + ")"
}

// verbose reports whether args set glog's -v to a level above 0.
func verbose(args []string) bool {
	for _, a := range args {
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "v" && hasValue && value != "0" && value != "" {
			return true
		}
	}
	return false
}
