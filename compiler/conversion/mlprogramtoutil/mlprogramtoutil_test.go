package mlprogramtoutil_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/internal/conversiontest"
	"github.com/goiree/goiree/compiler/conversion/mlprogramtoutil"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/pipeline"
	"github.com/goiree/goiree/compiler/target/llvmcpu"
	"github.com/goiree/goiree/compiler/transforms"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	"github.com/goiree/goiree/runtime/tooling/session"
)

func TestGolden(t *testing.T) {
	conversiontest.Golden(t, mlprogramtoutil.Convert, func(name string) bool { return strings.HasPrefix(name, "ml_program.") })
}

// TestState compiles the golden program for llvm-cpu and calls its
// functions in one session: the counter's stores persist between calls
// and the constant table scales the input.
func TestState(t *testing.T) {
	if _, err := (llvmcpu.Options{}).FindClang(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	if _, err := (llvmcpu.Options{}).FindLinker(); err != nil {
		t.Skipf("skipping: %v", err)
	}
	src, err := os.ReadFile(filepath.Join("testdata", "convert.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := pipeline.Compile("convert.mlir", src, pipeline.Options{Targets: transforms.TargetOptions{Backends: []string{"llvm-cpu"}}}, "end")
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	s, err := session.Open(dev, st.Output)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct{ fn, in, want string }{
		{"get_state", "", "f32=2"},
		{"inc", "", "f32=3"},
		{"inc", "", "f32=4"},
		{"get_state", "", "f32=4"},
		{"scaled", "2xf32=3 4", "2xf32=3 8"},
	} {
		var in []string
		if c.in != "" {
			in = append(in, c.in)
		}
		got, err := s.Run(c.fn, in...)
		if err != nil {
			t.Fatalf("%s: %v", c.fn, err)
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s(%s) = %q, want %s", c.fn, c.in, got, c.want)
		}
	}
}

// TestExtern: a global initialized outside the program cannot be given a
// value here; the error names it at its location.
func TestExtern(t *testing.T) {
	src := "module {\n  ml_program.global private @w(#ml_program.extern : tensor<4xf32>) : tensor<4xf32>\n}\n"
	m, err := dialect.Parse("extern.mlir", []byte(src), dialect.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	err = mlprogramtoutil.Convert(m.Op)
	want := "extern.mlir:2:3: error: 'ml_program.global' op global @w is #ml_program.extern (initialized outside the program), which is not supported: give it an initial value"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
