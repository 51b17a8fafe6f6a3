package toolflags

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

func newSet() (*flag.FlagSet, *StringList, *string, *bytes.Buffer) {
	var out bytes.Buffer
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(&out)
	var list StringList
	var s string
	fs.Var(&list, "input", "inputs")
	fs.StringVar(&s, "function", "", "function")
	if err := AddAlias(fs, "function_input", "input"); err != nil {
		panic(err)
	}
	AddLoggingFlags(fs)
	fs.Usage = func() { PrintFlags(fs.Output(), fs) }
	return fs, &list, &s, &out
}

func TestParse(t *testing.T) {
	tests := []struct {
		args    []string
		inputs  string
		wantErr string
	}{
		{[]string{"--input=1", "--function_input=2", "-input", "3"}, "1,2,3", ""},
		{[]string{"--input=a", "stray"}, "", PositionalError},
		{[]string{"--nope"}, "", "flag provided but not defined"},
		{[]string{"--v=2", "--logtostderr"}, "", ""},
	}
	for _, tc := range tests {
		fs, list, _, _ := newSet()
		err := Parse(fs, tc.args)
		if tc.wantErr == "" {
			if err != nil {
				t.Errorf("%v: %v", tc.args, err)
			} else if list.String() != tc.inputs {
				t.Errorf("%v: inputs %q, want %q", tc.args, list.String(), tc.inputs)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.wantErr)
		}
	}
	fs, _, _, out := newSet()
	if err := Parse(fs, []string{"--help"}); !errors.Is(err, ErrHelp) {
		t.Errorf("--help: %v", err)
	}
	if !strings.Contains(out.String(), "  --function=<string>\n      function\n") || !strings.Contains(out.String(), "  --logtostderr\n") {
		t.Errorf("usage:\n%s", out.String())
	}
	if strings.Contains(out.String(), "test.v") {
		t.Error("go test's flags leaked into the tool's flag set")
	}
	if err := AddAlias(fs, "x", "undefined"); err == nil {
		t.Error("alias of an undefined flag accepted")
	}
}

func TestReport(t *testing.T) {
	var b bytes.Buffer
	if code := Report(&b, errors.New("boom\n")); code != 1 || b.String() != "[ERROR] boom\n" {
		t.Errorf("Report: %d %q", code, b.String())
	}
}
