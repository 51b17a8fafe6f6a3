package toolflags

import (
	"flag"
	"strings"
)

// unknownFlag extracts the name from the flag package's "flag provided but
// not defined: -name" error.
func unknownFlag(err error) (string, bool) {
	const prefix = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, prefix) {
		return "", false
	}
	return strings.TrimLeft(strings.TrimPrefix(msg, prefix), "-"), true
}

// flagNames lists fs's flag names.
func flagNames(fs *flag.FlagSet) []string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}
