package local_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
)

func loadFaults(t *testing.T) *local.Executable {
	t.Helper()
	exe, err := local.Load(hal.ExecutableParams{Name: "@faults::@x86_64", Format: local.FormatEmbeddedELFX86_64, Data: kerneltest.FaultLibrary(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { exe.Release() })
	return exe
}

// runFault dispatches export ordinal of the fault library over 8
// workgroups, faulting in workgroup 5 with value v, and returns the error
// and which workgroups ran.
func runFault(t *testing.T, exe *local.Executable, ordinal int, v int64) (error, []bool) {
	t.Helper()
	marks := make([]byte, 4*8)
	val := make([]byte, 8)
	binary.LittleEndian.PutUint64(val, uint64(v))
	d, err := exe.PrepareDispatch(ordinal, [3]uint32{8, 1, 1}, []uint32{5}, [][]byte{marks, val}, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Release()
	err = d.Run(0, nil, 0, 8)
	ran := make([]bool, 8)
	for i := range ran {
		ran[i] = binary.LittleEndian.Uint32(marks[4*i:]) == 1
	}
	return err, ran
}

// TestKernelFaults: a kernel that writes through NULL, divides by zero,
// executes an illegal instruction or overflows its stack is reported as
// its dispatch's error, naming the signal, the executable, the export and
// the workgroup, and the process goes on: the same fault again on the same
// thread is caught too (the handler restored the signal mask), the kernel
// runs normally with a harmless value, and so do faults on several threads
// at once.
func TestKernelFaults(t *testing.T) {
	exe := loadFaults(t)
	tests := []struct {
		ordinal int
		want    string
	}{
		{kerneltest.FaultNullStore, `kernel crashed: SIGSEGV (address not mapped, address 0x0) in executable @faults::@x86_64, export 0 ("null_store"), workgroup (5, 0, 0)`},
		{kerneltest.FaultDivZero, `kernel crashed: SIGFPE (integer divide by zero at pc 0x`},
		{kerneltest.FaultIllegal, `kernel crashed: SIGILL (illegal operand at pc 0x`},
		{kerneltest.FaultOverflow, `kernel crashed: SIGSEGV (`},
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, tt := range tests {
		for round := 0; round < 2; round++ {
			err, ran := runFault(t, exe, tt.ordinal, 0)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "workgroup (5, 0, 0)") {
				t.Fatalf("export %d round %d: error %v, want %q at workgroup (5, 0, 0)", tt.ordinal, round, err, tt.want)
			}
			for i, r := range ran {
				if r != (i <= 5) {
					t.Errorf("export %d: workgroup %d ran = %v", tt.ordinal, i, r)
				}
			}
		}
		if err, ran := runFault(t, exe, tt.ordinal, 1); err != nil || !ran[7] {
			t.Errorf("export %d with a harmless value: %v, ran %v", tt.ordinal, err, ran)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for g := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[g], _ = runFault(t, exe, g%3, 0)
		}()
	}
	wg.Wait()
	for g, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "kernel crashed: ") {
			t.Errorf("goroutine %d: %v", g, err)
		}
	}
}

// TestGoFaultsStillPanic: with the kernel fault handler installed, a fault
// in Go code still reaches Go's handler and becomes a recoverable panic.
func TestGoFaultsStillPanic(t *testing.T) {
	loadFaults(t)
	var p *[1 << 20]byte
	err := func() (err error) {
		defer func() { err = fmt.Errorf("%v", recover()) }()
		p[12345] = 1
		return nil
	}()
	if !strings.Contains(err.Error(), "nil pointer dereference") {
		t.Fatalf("Go nil dereference after installing the handler: %v", err)
	}
}

// TestFaultReportsOff: with SetFaultReports(false) (the tools' -v) a kernel
// fault is left to Go's runtime, which prints its dump and exits with 2. It
// runs in a child process, since that kills the process.
func TestFaultReportsOff(t *testing.T) {
	if os.Getenv("GOIREE_FAULT_CHILD") == "1" {
		local.SetFaultReports(false)
		exe := loadFaults(t)
		err, _ := runFault(t, exe, kerneltest.FaultNullStore, 0)
		t.Fatalf("the fault returned: %v", err)
	}
	kerneltest.FaultLibrary(t) // skip here, not in the child, without clang
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultReportsOff$")
	// The child dies without removing its temporary files; they go
	// under this test's directory, which is removed.
	cmd.Env = append(os.Environ(), "GOIREE_FAULT_CHILD=1", "TMPDIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "SIGSEGV") || !strings.Contains(string(out), "goroutine ") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
