package main

import (
	"io"
	"testing"

	"github.com/goiree/goiree/tools/internal/panicguard/guardtest"
)

// TestFuzzCorporaNeverReachTheGuard loads and dumps every module the VM's
// fuzzers kept and the corrupt test modules (see guardtest.CheckCorpora).
func TestFuzzCorporaNeverReachTheGuard(t *testing.T) {
	guardtest.CheckCorpora(t, func(args []string, stdout, stderr io.Writer) int { return run(args, nil, stdout, stderr) },
		func(module string) []string { return []string{"--output=all", module} })
}
