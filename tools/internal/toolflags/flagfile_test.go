package toolflags

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpandFlagfiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	basic := write("basic.flags", "# a comment\n\n  --function=main  \n// another comment\n--input=\"4xf32=1 2 3 4\"\n--print_statistics\n")
	nested := write("nested.flags", "--flagfile="+basic+"\n--input=5\n")
	self := filepath.Join(dir, "self.flags")
	write("self.flags", "--flagfile="+self+"\n")
	positional := write("positional.flags", "--function=main\nmodule.vmfb\n")
	noname := write("noname.flags", "--=3\n")
	for _, tc := range []struct {
		name    string
		args    []string
		want    []string
		wantErr string
	}{
		{"no flag files", []string{"--a=1", "-b"}, []string{"--a=1", "-b"}, ""},
		{"comments, blanks, spaces and quotes", []string{"--x=0", "--flagfile=" + basic, "--y=1"},
			[]string{"--x=0", "--function=main", "--input=4xf32=1 2 3 4", "--print_statistics", "--y=1"}, ""},
		{"single dash spelling", []string{"-flagfile=" + basic}, []string{"--function=main", "--input=4xf32=1 2 3 4", "--print_statistics"}, ""},
		{"nested", []string{"--flagfile=" + nested}, []string{"--function=main", "--input=4xf32=1 2 3 4", "--print_statistics", "--input=5"}, ""},
		{"missing file", []string{"--flagfile=" + filepath.Join(dir, "nope")}, nil, "reading flag file: open " + filepath.Join(dir, "nope")},
		{"empty path", []string{"--flagfile="}, nil, "--flagfile= requires a file path"},
		{"bare", []string{"--flagfile"}, nil, "--flagfile= requires a file path"},
		{"names itself", []string{"--flagfile=" + self}, nil, "nest more than 8 deep"},
		{"positional in file", []string{"--flagfile=" + positional}, nil, positional + ":2: positional arguments not allowed in flag files"},
		{"no flag name", []string{"--flagfile=" + noname}, nil, noname + ":1: no flag name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ExpandFlagfiles(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestParseSuggestsClosestFlag(t *testing.T) {
	for _, tc := range []struct {
		arg, want string
	}{
		{"--fucntion=main", "did you mean --function?"},
		{"--inptu=1", "did you mean --input?"},
		{"--function_inputs=1", "did you mean --function_input?"},
		{"--logtostder", "did you mean --logtostderr?"},
		{"--flagfiel=x", "did you mean --flagfile?"},
		{"--completely_different=1", "flag provided but not defined: -completely_different (see --help)"},
	} {
		fs, _, _, _ := newSet()
		err := Parse(fs, []string{tc.arg})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.arg, err, tc.want)
		}
		if strings.Contains(tc.want, "see --help") && strings.Contains(err.Error(), "did you mean") {
			t.Errorf("%s: suggested a flag for an unrelated name: %v", tc.arg, err)
		}
	}
}

func TestParseReadsFlagfile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.flags")
	if err := os.WriteFile(p, []byte("--input=2\n--function=f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs, list, fn, _ := newSet()
	if err := Parse(fs, []string{"--input=1", "--flagfile=" + p, "--input=3"}); err != nil {
		t.Fatal(err)
	}
	if list.String() != "1,2,3" || *fn != "f" {
		t.Errorf("inputs %q function %q, want 1,2,3 and f", list.String(), *fn)
	}
}

func TestOptionalValue(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		given bool
		value string
	}{
		{nil, false, ""},
		{[]string{"--list_devices"}, true, ""},
		{[]string{"--list_devices=true"}, true, ""},
		{[]string{"--list_devices=vulkan"}, true, "vulkan"},
		{[]string{"--list_devices=cuda", "--list_devices=false"}, false, ""},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		var o OptionalValue
		fs.Var(&o, "list_devices", "")
		if err := Parse(fs, tc.args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if o.Given != tc.given || o.Value != tc.value {
			t.Errorf("%v: given %v value %q, want %v %q", tc.args, o.Given, o.Value, tc.given, tc.value)
		}
	}
}

func TestPrintHelpGroups(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("module", "", "module `path`")
	fs.String("function", "", "function")
	fs.String("input", "", "input")
	fs.Bool("zeta", false, "ungrouped")
	var d DeviceFlags
	AddDeviceFlags(fs, &d)
	AddLoggingFlags(fs)
	var out bytes.Buffer
	PrintHelp(&out, fs, Help{
		Usage:       "t --module=m.vmfb",
		Description: "Does things.",
		Examples:    []string{"t --module=a.vmfb\n    --function=f", "t --module=b.vmfb"},
		Groups: []Group{
			{"Module and function", []string{"module", "function"}},
			{"Inputs", []string{"input"}},
			{"Devices", DeviceFlagNames},
		},
	})
	text := out.String()
	order := []string{"Usage: t --module=m.vmfb\n", "Does things.", "Examples:\n  t --module=a.vmfb\n      --function=f\n", "  t --module=b.vmfb\n",
		"Module and function:\n  --module=<path>\n", "  --function=<string>\n", "Inputs:\n  --input=<string>\n",
		"Devices:\n  --device=<uri>\n", "  --list_devices[=<driver>]\n", "Other flags:\n  --zeta\n",
		"Flag files:\n  --flagfile=<path>\n", "Logging flags:\n  --v=<value>\n", "  --logtostderr\n"}
	at := 0
	for _, s := range order {
		i := strings.Index(text[at:], s)
		if i < 0 {
			t.Fatalf("help lacks %q after byte %d:\n%s", s, at, text)
		}
		at += i + len(s)
	}
	if strings.Count(text, "--flagfile") != 1 || strings.Count(text, "--v=") != 1 {
		t.Errorf("a flag is listed twice:\n%s", text)
	}
}

func TestLoggingGoesToStderr(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	AddLoggingFlags(fs)
	if f := fs.Lookup("logtostderr"); f == nil || f.Value.String() != "true" {
		t.Fatalf("--logtostderr defaults to %v, want true (glog would write files into %s)", f, os.TempDir())
	}
	if err := Parse(fs, []string{"--logtostderr=false"}); err != nil {
		t.Fatal(err)
	}
	if fs.Lookup("logtostderr").Value.String() != "false" {
		t.Error("--logtostderr=false was not honoured")
	}
	_ = fs.Lookup("logtostderr").Value.Set("true")
}
