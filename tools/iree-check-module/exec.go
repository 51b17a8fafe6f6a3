package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local/plugin"
	"github.com/goiree/goiree/runtime/modules/check"
	"github.com/goiree/goiree/runtime/tooling/session"
	"github.com/goiree/goiree/runtime/vm"
	"github.com/goiree/goiree/tools/internal/toolflags"
)

// testNames returns the tests of m: the functions it exports for callers
// (internal "__" and special "$" exports left out), in export order. As in
// IREE, a test must take no arguments and return nothing; any other export
// is an error naming it.
func testNames(m *vm.BytecodeModule) ([]string, error) {
	ccs := map[string]string{}
	for _, e := range m.Exports() {
		ccs[e.Name] = e.CallingConvention
	}
	names := session.ExportedFunctions(m)
	for _, name := range names {
		sig, err := vm.ParseSignature(ccs[name])
		if err != nil {
			return nil, fmt.Errorf("export '%s' of module %s: %w", name, m.Name(), err)
		}
		if len(sig.Args) != 0 || len(sig.Results) != 0 {
			return nil, fmt.Errorf("expected function with no inputs or outputs, but export '%s' has signature '%s'", name, ccs[name])
		}
	}
	return names, nil
}

// result is the outcome of one test.
type result struct {
	name     string
	failures []failure // in order
	elapsed  time.Duration
}

func (r *result) failed() bool { return len(r.failures) > 0 }

// failure is one failure of a test: where it happened (the check's source
// location and function, or the test) and the message.
type failure struct {
	where, message string
}

// String is what the tool prints for f, as gtest prints a failure.
func (f failure) String() string { return f.where + ": Failure\n" + f.message + "\n" }

// runner runs tests, each in a fresh context of the hal module, the check
// module and the program's modules, as IREE's tool gives each test its own
// context (so globals start over).
type runner struct {
	dev     hal.Device
	modules []*vm.BytecodeModule
	check   *check.Module
	opts    session.Options
	plugins *plugin.Manager
	stdout  io.Writer
}

// newSession makes the context of one test.
func (r *runner) newSession() (*session.Session, error) {
	return session.New(r.dev, r.modules, r.opts)
}

// runTest runs the exported function name of the main module in s, then
// closes s. A failed expectation and an error that ends the function are
// both failures of the test.
func (r *runner) runTest(s *session.Session, name string) *result {
	res := &result{name: s.Main().Name() + "." + name}
	fmt.Fprintf(r.stdout, "[ RUN      ] %s\n", res.name)
	start := time.Now()
	fail := func(where, msg string) {
		f := failure{where, msg}
		res.failures = append(res.failures, f)
		io.WriteString(r.stdout, f.String())
	}
	r.check.TakeFailures() // none are left over, but a test starts clean
	fn, err := s.Context.LookupFunction(res.name)
	var results []vm.Value
	if err == nil {
		results, err = s.Invoke(fn, nil)
	}
	// What system plugins printed during the call comes before the
	// verdict.
	r.plugins.Flush()
	for _, f := range r.check.TakeFailures() {
		// gtest names the place of a failure; here it is the check op's
		// source location when the module records it.
		where := "check." + f.Function
		if f.Location != "" {
			where = f.Location + ": " + where
		}
		fail(where, f.Message)
	}
	if err != nil {
		fail(res.name, err.Error())
	}
	if err := vm.ReleaseValues(results); err != nil {
		fail(res.name, fmt.Sprintf("releasing the results: %v", err))
	}
	if err := s.Close(); err != nil {
		fail(res.name, fmt.Sprintf("closing the context: %v", err))
	}
	res.elapsed = time.Since(start)
	if res.failed() {
		fmt.Fprintf(r.stdout, "[  FAILED  ] %s (%d ms)\n", res.name, res.elapsed.Milliseconds())
	} else {
		fmt.Fprintf(r.stdout, "[       OK ] %s (%d ms)\n", res.name, res.elapsed.Milliseconds())
	}
	return res
}

// plural is gtest's "1 test" / "2 tests".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// execute does everything after flag parsing and returns the exit code.
func execute(o *options, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	rt, done, err := toolflags.StartRuntime(o.plugins, o.groupCount, &o.devices, stdout)
	if err != nil {
		return 0, err
	}
	// Closed after the device (defers run last-in first-out).
	defer rt.Close()
	if done {
		return 0, nil
	}
	plugins, reg := rt.Plugins, rt.Registry
	filter, err := parseFilter(o.filter)
	if err != nil {
		return 0, err
	}
	modules, err := toolflags.LoadModules(o.modules, stdin)
	if err != nil {
		return 0, err
	}
	main := modules[len(modules)-1]
	all, err := testNames(main)
	if err != nil {
		return 0, err
	}
	var tests []string
	for _, name := range all {
		if filter.match(main.Name() + "." + name) {
			tests = append(tests, name)
		}
	}
	if o.listTests {
		if len(tests) > 0 {
			fmt.Fprintf(stdout, "%s.\n", main.Name())
		}
		for _, name := range tests {
			fmt.Fprintf(stdout, "  %s\n", name)
		}
		return 0, nil
	}

	devs, err := o.devices.CreateDevices(reg)
	if err != nil {
		return 0, err
	}
	defer func() {
		for _, d := range devs {
			d.Close()
		}
	}()
	dev := devs[0]
	glog.V(1).Infof("created device %s (executable formats: %s)", dev.ID(), strings.Join(dev.ExecutableFormats(), ", "))
	r := &runner{dev: dev, modules: modules, check: check.New(), plugins: plugins, stdout: stdout}
	r.opts.Natives = []vm.NativeModule{r.check}
	if o.traceExecution {
		r.opts.Trace = stderr
	}
	// The first context is made before any test runs: a program whose
	// imports do not resolve, or whose initializer fails, is one error
	// for the whole run rather than one per test.
	var first *session.Session
	if len(tests) > 0 {
		if first, err = r.newSession(); err != nil {
			return 0, err
		}
	}

	suites := 0
	if len(tests) > 0 {
		suites = 1
	}
	fmt.Fprintf(stdout, "[==========] Running %s from %s.\n", plural(len(tests), "test"), plural(suites, "test suite"))
	fmt.Fprintf(stdout, "[----------] Global test environment set-up.\n")
	start := time.Now()
	var results []*result
	if len(tests) > 0 {
		fmt.Fprintf(stdout, "[----------] %s from %s\n", plural(len(tests), "test"), main.Name())
		for i, name := range tests {
			s := first
			if i > 0 {
				if s, err = r.newSession(); err != nil {
					// Contexts were made before; a later one failing is
					// this test's failure.
					res := &result{name: main.Name() + "." + name}
					fmt.Fprintf(stdout, "[ RUN      ] %s\n", res.name)
					f := failure{res.name, err.Error()}
					res.failures = []failure{f}
					fmt.Fprintf(stdout, "%s[  FAILED  ] %s (0 ms)\n", f, res.name)
					results = append(results, res)
					continue
				}
			}
			results = append(results, r.runTest(s, name))
		}
		fmt.Fprintf(stdout, "[----------] %s from %s (%d ms total)\n\n", plural(len(tests), "test"), main.Name(), time.Since(start).Milliseconds())
	}
	fmt.Fprintf(stdout, "[----------] Global test environment tear-down\n")
	fmt.Fprintf(stdout, "[==========] %s from %s ran. (%d ms total)\n", plural(len(tests), "test"), plural(suites, "test suite"), time.Since(start).Milliseconds())
	var failed []*result
	for _, res := range results {
		if res.failed() {
			failed = append(failed, res)
		}
	}
	fmt.Fprintf(stdout, "[  PASSED  ] %s.\n", plural(len(results)-len(failed), "test"))
	if len(failed) > 0 {
		fmt.Fprintf(stdout, "[  FAILED  ] %s, listed below:\n", plural(len(failed), "test"))
		for _, res := range failed {
			fmt.Fprintf(stdout, "[  FAILED  ] %s\n", res.name)
		}
		fmt.Fprintf(stdout, "\n%2d FAILED %s\n", len(failed), map[bool]string{true: "TEST", false: "TESTS"}[len(failed) == 1])
	}

	if o.expectFailure {
		if len(failed) == 0 {
			fmt.Fprintln(stdout, "Test passed but expected failure")
			fmt.Fprintf(stderr, "[ERROR] --expect_failure: all %s passed\n", plural(len(results), "test"))
			return 1, nil
		}
		fmt.Fprintln(stdout, "Test failed as expected")
		return 0, nil
	}
	if len(failed) > 0 {
		// One line on stderr says what failed first (stdout has it all).
		f := failed[0].failures[0]
		msg, _, _ := strings.Cut(f.message, "\n")
		fmt.Fprintf(stderr, "[ERROR] %d of %s failed; first: %s: %s: %s\n", len(failed), plural(len(results), "test"), failed[0].name, f.where, strings.TrimSpace(msg))
		return 1, nil
	}
	return 0, nil
}
