package toolflags

import (
	"flag"
	"io"
	"strings"
	"testing"
)

func TestExecutablePluginFlag(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var l StringList
	AddExecutablePluginFlag(fs, &l)
	if err := Parse(fs, []string{"--executable_plugin=a.so", "--executable_plugin=embedded:b.so"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l, ","); got != "a.so,embedded:b.so" {
		t.Errorf("values %q, want both in order", got)
	}
}

func TestLoadPlugins(t *testing.T) {
	m, err := LoadPlugins(nil)
	if err != nil || m.Len() != 0 {
		t.Fatalf("no flags: manager with %d plugins, error %v", m.Len(), err)
	}
	if err := m.Close(); err != nil {
		t.Error(err)
	}
	_, err = LoadPlugins([]string{" /nonexistent/plugin.so "})
	if err == nil || !strings.Contains(err.Error(), "executable plugin /nonexistent/plugin.so: no such file or directory") {
		t.Errorf("missing file: %v", err)
	}
}
