package vmgen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/vmgen"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	checkmodule "github.com/goiree/goiree/runtime/modules/check"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
)

// TestChecks runs check ops against the check module: passing ones record
// nothing, failing ones are each recorded and the program runs on.
func TestChecks(t *testing.T) {
	path := filepath.Join("testdata", "host", "checks.mlir")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reg := dialect.NewRegistry()
	m, err := dialect.Parse(path, src, reg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := vmgen.Emit(m.Op, vmgen.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	bm, err := vm.LoadBytecodeModule(out)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	chk := checkmodule.New()
	s, err := session.New(dev, []*vm.BytecodeModule{bm}, session.Options{Natives: []vm.NativeModule{chk}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Call("passing"); err != nil {
		t.Fatal(err)
	}
	if f := chk.TakeFailures(); len(f) != 0 {
		t.Errorf("passing checks recorded failures: %v", f)
	}
	if _, err := s.Call("failing"); err != nil {
		t.Fatal(err)
	}
	f := chk.TakeFailures()
	if len(f) != 2 || f[0].Function != "expect_eq" || f[1].Function != "expect_true" {
		t.Fatalf("failing: got failures %v, want expect_eq then expect_true", f)
	}
	if !strings.Contains(f[0].Message, "3xi32=1 5 3") {
		t.Errorf("expect_eq failure does not print the expected value:\n%s", f[0].Message)
	}
	if _, err := s.Call("arg_is", "2xf32=0.505 0.25"); err != nil {
		t.Fatal(err)
	}
	if f := chk.TakeFailures(); len(f) != 0 {
		t.Errorf("arg_is within atol recorded failures: %v", f)
	}
	if _, err := s.Call("arg_is", "2xf32=0.6 0.25"); err != nil {
		t.Fatal(err)
	}
	if f := chk.TakeFailures(); len(f) != 1 || f[0].Function != "expect_almost_eq" {
		t.Errorf("arg_is outside atol: got failures %v, want one expect_almost_eq", f)
	}
}
