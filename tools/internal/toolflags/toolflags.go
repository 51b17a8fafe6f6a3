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

	"github.com/goiree/goiree/tools/internal/flagsuggest"
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
// them take effect while the tool parses its own flag set. Logging goes to
// stderr by default: glog's own default writes log files into the temporary
// directory, which a command-line tool must not litter
// (--logtostderr=false --log_dir=<dir> still asks for files).
func AddLoggingFlags(fs *flag.FlagSet) {
	_ = glog.V(0) // keep the import: glog's init registers the flags
	if f := flag.CommandLine.Lookup("logtostderr"); f != nil {
		_ = f.Value.Set("true")
		f.DefValue = "true"
	}
	for _, name := range loggingFlags {
		if f := flag.CommandLine.Lookup(name); f != nil && fs.Lookup(name) == nil {
			fs.Var(f.Value, f.Name, f.Usage)
			// The default is glog's, not whatever an earlier parse set.
			fs.Lookup(name).DefValue = f.DefValue
		}
	}
	if fs.Lookup("flagfile") == nil {
		fs.Var(flagfileFlag{}, "flagfile", "read more flags from `path`, one --name=value per line ('#' and '//' lines are comments); repeatable")
	}
}

// flagfileFlag stands for --flagfile in the flag set (so that it is known
// to suggestions); Parse expands flag files before the set sees them.
type flagfileFlag struct{}

func (flagfileFlag) String() string { return "" }
func (flagfileFlag) Set(string) error {
	return errors.New("--flagfile must be expanded by toolflags.Parse")
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
// rejects positional arguments with IREE's message. --flagfile=<path>
// arguments are first replaced by the flags their files hold
// (ExpandFlagfiles). Parse errors are returned, not printed; an unknown
// flag names the closest defined one when there is one. --help prints the
// usage and returns ErrHelp.
func Parse(fs *flag.FlagSet, args []string) error {
	args, err := ExpandFlagfiles(args)
	if err != nil {
		return fmt.Errorf("[ERROR] %v", err)
	}
	// The flag package prints the usage on every parse error; only --help
	// should print it.
	out, usage := fs.Output(), fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err = fs.Parse(args)
	fs.SetOutput(out)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		if usage != nil {
			usage()
		} else {
			PrintFlags(out, fs)
		}
		return ErrHelp
	}
	if err != nil {
		if name, ok := unknownFlag(err); ok {
			if s := flagsuggest.Closest(name, flagNames(fs)); s != "" {
				return fmt.Errorf("[ERROR] %v; did you mean --%s? (see --help)", err, s)
			}
		}
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
	fs.VisitAll(func(f *flag.Flag) { printFlag(w, f) })
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// SplitPositional separates the positional arguments (file paths, "-")
// from the flags of fs in args, so that, as with IREE's tools, files may
// come before, between or after the flags: a flag of fs that takes a value
// and is written without '=' takes the next argument with it.
func SplitPositional(fs *flag.FlagSet, args []string) (positional, flags []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-" || !strings.HasPrefix(a, "-") {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		if name := strings.TrimLeft(a, "-"); !strings.Contains(name, "=") && i+1 < len(args) {
			if f := fs.Lookup(name); f != nil && !isBoolFlag(f) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	return positional, flags
}
