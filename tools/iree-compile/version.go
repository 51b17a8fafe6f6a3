package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// printVersion writes --version's text in the shape of IREE's (a header
// line, then the compiler's version and revision, then what it was built
// with): the module version and VCS revision come from the build
// information Go embeds in the binary.
func printVersion(w io.Writer) {
	version, revision, modified := "(devel)", "unknown", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if len(revision) > 12 {
		revision = revision[:12]
	}
	if modified {
		revision += " (modified)"
	}
	fmt.Fprintln(w, "goiree, an IREE-compatible compiler and runtime:")
	fmt.Fprintf(w, "  iree-compile version %s @ %s\n", version, revision)
	fmt.Fprintf(w, "  Go version %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
