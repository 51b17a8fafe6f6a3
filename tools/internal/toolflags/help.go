package toolflags

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Help is a tool's --help text, laid out as IREE's tools lay theirs out:
// what the tool does and how it is called first, then its flags in groups,
// the tool's own first and the shared logging flags last.
type Help struct {
	// Usage is the command line synopsis after "Usage: ".
	Usage string
	// Description says in a sentence or two what the tool does.
	Description string
	// Examples are complete command lines (continuation lines included),
	// each optionally followed by what it prints.
	Examples []string
	// Groups list the tool's flags by name under a title; flags in no group
	// are listed under "Other flags", and the logging flags always come
	// last under "Logging flags".
	Groups []Group
}

// Group is a titled list of flag names.
type Group struct {
	Title string
	Flags []string
}

// PrintHelp writes h with fs's flags to w.
func PrintHelp(w io.Writer, fs *flag.FlagSet, h Help) {
	fmt.Fprintf(w, "Usage: %s\n\n", h.Usage)
	if h.Description != "" {
		fmt.Fprintf(w, "%s\n\n", h.Description)
	}
	if len(h.Examples) > 0 {
		fmt.Fprintln(w, "Examples:")
		for _, ex := range h.Examples {
			for _, line := range strings.Split(strings.TrimRight(ex, "\n"), "\n") {
				fmt.Fprintf(w, "  %s\n", line)
			}
			fmt.Fprintln(w)
		}
	}
	listed := map[string]bool{}
	group := func(title string, names []string) {
		var flags []*flag.Flag
		for _, n := range names {
			if f := fs.Lookup(n); f != nil && !listed[n] {
				listed[n] = true
				flags = append(flags, f)
			}
		}
		if len(flags) == 0 {
			return
		}
		fmt.Fprintf(w, "%s:\n", title)
		for _, f := range flags {
			printFlag(w, f)
		}
		fmt.Fprintln(w)
	}
	// Logging flags are kept out of the tool's groups and "Other flags".
	for _, n := range loggingFlags {
		listed[n] = true
	}
	listed["flagfile"] = true
	for _, g := range h.Groups {
		group(g.Title, g.Flags)
	}
	var rest []string
	fs.VisitAll(func(f *flag.Flag) {
		if !listed[f.Name] {
			rest = append(rest, f.Name)
		}
	})
	group("Other flags", rest)
	for _, n := range loggingFlags {
		delete(listed, n)
	}
	delete(listed, "flagfile")
	fmt.Fprintln(w, "Flag files:")
	fmt.Fprintln(w, "  --flagfile=<path>")
	fmt.Fprintln(w, "      read more flags from path, one --name=value per line ('#' and '//' lines are comments); repeatable")
	fmt.Fprintln(w)
	group("Logging flags", slices.Clone(loggingFlags))
}

// printFlag writes one flag in IREE's double-dash spelling with its usage
// and non-empty default:
//
//	--function=<string>
//	    name of the exported function to run (required)
func printFlag(w io.Writer, f *flag.Flag) {
	name, usage := flag.UnquoteUsage(f)
	line := "  --" + f.Name
	if o, ok := f.Value.(*OptionalValue); ok {
		line += "[=<" + o.Placeholder + ">]"
	} else if name != "" {
		line += "=<" + name + ">"
	} else if !isBoolFlag(f) {
		line += "=<value>"
	}
	fmt.Fprintln(w, line)
	if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
		usage += " (default " + f.DefValue + ")"
	}
	fmt.Fprintln(w, "      "+strings.ReplaceAll(usage, "\n", "\n      "))
}

// OptionalValue is a flag given bare (--list_devices) or with a value
// (--list_devices=vulkan), as IREE's action flags are.
type OptionalValue struct {
	// Given is set when the flag appeared (and was not =false).
	Given bool
	// Value is the text after '=', "" when the flag was bare.
	Value string
	// Placeholder names the value in --help.
	Placeholder string
}

// IsBoolFlag lets the flag appear without a value.
func (o *OptionalValue) IsBoolFlag() bool { return true }

// String returns the value ("" when bare or absent).
func (o *OptionalValue) String() string {
	if o == nil {
		return ""
	}
	return o.Value
}

// Set records the flag: "true" (the bare form) and "" mean no value,
// "false" turns it off, anything else is the value.
func (o *OptionalValue) Set(v string) error {
	switch v = strings.TrimSpace(v); v {
	case "true", "":
		o.Given, o.Value = true, ""
	case "false":
		o.Given, o.Value = false, ""
	default:
		o.Given, o.Value = true, v
	}
	return nil
}
