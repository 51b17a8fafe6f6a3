// Package toolflags holds the command-line conventions shared by the
// iree-* tools: repeatable flags, glog's logging flags (-v, --logtostderr,
// ...) on a tool's own flag set, IREE's rejection of positional arguments,
// and one-line error reporting.
package toolflags

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/golang/glog"
)

// PositionalError is IREE's message for a stray positional argument.
const PositionalError = "[ERROR] unexpected positional argument (expected none). Did you use pass a flag with a single dash ('-')? Use '--' instead."

// StringList is a repeatable string flag: every occurrence appends.
type StringList []string

// String joins the values with commas (for flag defaults).
func (l *StringList) String() string { return strings.Join(*l, ",") }

// Set appends one value.
func (l *StringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// AddAlias registers name as another spelling of the flag old, already
// defined on fs (IREE's older flag names, such as --entry_function for
// --function). The alias shares the flag's value.
func AddAlias(fs *flag.FlagSet, name, old string) error {
	f := fs.Lookup(old)
	if f == nil {
		return fmt.Errorf("alias --%s names undefined flag --%s", name, old)
	}
	fs.Var(f.Value, name, "older spelling of --"+old)
	return nil
}

// AddLoggingFlags adds glog's flags (-v, --logtostderr, --alsologtostderr,
// --stderrthreshold, --log_dir, --vmodule, --log_backtrace_at) to fs. glog
// registers them on flag.CommandLine; sharing the flag.Value objects makes
// them take effect while the tool parses its own flag set.
func AddLoggingFlags(fs *flag.FlagSet) {
	_ = glog.V(0) // keep the import: glog's init registers the flags
	for _, name := range loggingFlags {
		if f := flag.CommandLine.Lookup(name); f != nil && fs.Lookup(name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
		}
	}
}

// loggingFlags are the flags glog registers; only these are taken from
// flag.CommandLine, so that flags other packages register there (or go
// test's own) never appear in a tool's --help.
var loggingFlags = []string{
	"v", "vmodule", "logtostderr", "alsologtostderr", "stderrthreshold",
	"log_dir", "log_link", "log_backtrace_at", "logbuflevel",
}

// ErrHelp is returned by Parse after printing the usage for --help.
var ErrHelp = flag.ErrHelp

// Parse parses args into fs (which must use flag.ContinueOnError) and
// rejects positional arguments with IREE's message. Parse errors are
// returned, not printed; --help prints the usage to fs.Output() and returns
// ErrHelp.
func Parse(fs *flag.FlagSet, args []string) error {
	out := fs.Output()
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	fs.SetOutput(out)
	if errors.Is(err, flag.ErrHelp) {
		fs.Usage()
		return ErrHelp
	}
	if err != nil {
		return fmt.Errorf("[ERROR] %v (see --help)", err)
	}
	if fs.NArg() > 0 {
		return errors.New(PositionalError)
	}
	return nil
}

// Report writes err to w as one line (newlines inside the message are
// kept, a trailing one added) and returns the exit code 1.
func Report(w io.Writer, err error) int {
	msg := err.Error()
	if !strings.HasPrefix(msg, "[ERROR]") {
		msg = "[ERROR] " + msg
	}
	fmt.Fprintln(w, strings.TrimRight(msg, "\n"))
	return 1
}

// PrintFlags lists fs's flags in IREE's double-dash spelling, sorted by
// name, each with its usage and non-empty default:
//
//	--function=<string>
//	    name of the exported function to run (required)
func PrintFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if name != "" {
			line += "=<" + name + ">"
		} else if !isBoolFlag(f) {
			line += "=<value>"
		}
		fmt.Fprintln(w, line)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			usage += " (default " + f.DefValue + ")"
		}
		fmt.Fprintln(w, "      "+strings.ReplaceAll(usage, "\n", "\n      "))
	})
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
