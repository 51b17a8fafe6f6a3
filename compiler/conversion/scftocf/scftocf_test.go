package scftocf_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/scftocf"
	"github.com/goiree/goiree/compiler/dialect"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/vmgen"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	"github.com/goiree/goiree/runtime/tooling/session"
)

var update = flag.Bool("update", false, "rewrite testdata/*.cf.mlir")

// lowered parses a testdata program, lowers it and verifies the result.
func lowered(t *testing.T, file string) (*ir.Module, *ir.Registry) {
	t.Helper()
	path := filepath.Join("testdata", file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	reg := dialect.NewRegistry()
	m, err := dialect.Parse(path, src, reg)
	if err != nil {
		t.Fatal(err)
	}
	if err := scftocf.Run(m.Op); err != nil {
		t.Fatal(err)
	}
	if err := dialect.Verify(reg, m.Op); err != nil {
		t.Fatalf("after lowering: %v", err)
	}
	return m, reg
}

// TestGolden pins the lowered IR (run with -update to rewrite): every
// host scf op is gone, the loop inside a dispatch region (device code)
// stays, and the output parses back.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		file      string
		deviceFor int // scf.for ops expected to remain
	}{{"loops.mlir", 0}, {"device_code.mlir", 1}} {
		t.Run(c.file, func(t *testing.T) {
			m, reg := lowered(t, c.file)
			got := ir.PrintModule(m, reg, ir.PrintOptions{})
			if n := strings.Count(got, "scf.for"); n != c.deviceFor || strings.Contains(got, "scf.if") || strings.Contains(got, "scf.while") || strings.Contains(got, "scf.execute_region") {
				t.Errorf("after lowering, want %d scf.for (device code) and no other scf op:\n%s", c.deviceFor, got)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(c.file, ".mlir")+".cf.mlir")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("lowered IR differs from %s (run with -update to accept):\n%s", golden, got)
			}
			if _, err := dialect.Parse(golden, []byte(got), dialect.NewRegistry()); err != nil {
				t.Errorf("lowered IR does not parse back: %v", err)
			}
		})
	}
}

// TestSemantics compiles the lowered program to host code, runs it and
// compares each function with the same loops in Go.
func TestSemantics(t *testing.T) {
	m, reg := lowered(t, "loops.mlir")
	out, err := vmgen.Emit(m.Op, vmgen.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	dev, err := localsync.NewDevice()
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	s, err := session.Open(dev, out)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	run := func(fn string, in ...string) string {
		t.Helper()
		res, err := s.Run(fn, in...)
		if err != nil {
			t.Fatalf("%s%v: %v", fn, in, err)
		}
		var vals []string
		for _, l := range strings.Split(strings.TrimSpace(res), "\n") {
			_, v, _ := strings.Cut(l, ": ")
			vals = append(vals, v)
		}
		return strings.Join(vals, " ")
	}
	for _, c := range [][3]int64{{0, 10, 1}, {3, 20, 4}, {5, 5, 1}, {-4, 7, 3}} {
		want := int64(0)
		for i := c[0]; i < c[1]; i += c[2] {
			want += i * i
		}
		if got := run("sum_squares", fmt.Sprint(c[0]), fmt.Sprint(c[1]), fmt.Sprint(c[2])); got != fmt.Sprintf("i64=%d", want) {
			t.Errorf("sum_squares%v = %s, want i64=%d", c, got, want)
		}
	}
	for _, n := range []int32{0, 1, 2, 7, 30} {
		even, odd := int32(0), int32(0)
		for i := int32(0); i < n; i++ {
			for j := i + 1; j < n; j++ {
				if (i+j)%2 == 0 {
					even++
				} else {
					odd += i + j
				}
			}
		}
		if got, want := run("pairs", fmt.Sprint(n)), fmt.Sprintf("i32=%d i32=%d", even, odd); got != want {
			t.Errorf("pairs(%d) = %s, want %s", n, got, want)
		}
	}
	for _, x := range []float32{0.5, 1, 3, 1000} {
		k := int32(0)
		for v := x; v >= 1; v /= 2 {
			k++
		}
		flag := int32(0)
		if k > 1 {
			flag = 1
		}
		if got, want := run("halvings", fmt.Sprint(x)), fmt.Sprintf("i32=%d i32=%d", k, flag); got != want {
			t.Errorf("halvings(%v) = %s, want %s", x, got, want)
		}
	}
}
