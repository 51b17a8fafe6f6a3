package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// withCleanup runs the tool with a private temporary directory and stops
// cleanly on SIGINT, SIGTERM or SIGHUP: the directory becomes TMPDIR for
// the whole process and for the tools it runs (clang, ld.lld, glslc), so
// every temporary file of a compile lives under it whichever package made
// it; on a signal the child processes are stopped, the directory is
// removed and the tool exits with 128+signal, as a shell reports a
// process killed by that signal. On a normal return the directory is
// removed too. run gets the stderr to write to: once a signal arrived it
// drops what run writes, so that the failure of a child stopped on
// purpose is not reported as a compile error.
func withCleanup(stderr io.Writer, run func(stderr io.Writer) int) int {
	var interrupted atomic.Bool
	guarded := &guardedWriter{w: stderr, off: &interrupted}
	dir, err := os.MkdirTemp("", "iree-compile-")
	if err != nil {
		// Without a private directory the compile still works; only the
		// cleanup on a signal is lost.
		return run(stderr)
	}
	oldTmp, hadTmp := os.LookupEnv("TMPDIR")
	os.Setenv("TMPDIR", dir)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			// Set before any child is stopped: the compile sees the
			// children fail only after this.
			interrupted.Store(true)
			sig, _ := s.(syscall.Signal)
			stopChildren()
			os.RemoveAll(dir)
			// A child started while the first ones were stopped (the next
			// step of a failing build) is stopped too.
			stopChildren()
			os.RemoveAll(dir)
			fmt.Fprintf(stderr, "iree-compile: interrupted by %s; stopped its child processes and removed %s\n", signalName(sig), dir)
			os.Exit(128 + int(sig))
		case <-done:
		}
	}()
	code := run(guarded)
	if interrupted.Load() {
		// The signal handler exits the process with the signal's status.
		select {}
	}
	signal.Stop(sigs)
	close(done)
	if hadTmp {
		os.Setenv("TMPDIR", oldTmp)
	} else {
		os.Unsetenv("TMPDIR")
	}
	os.RemoveAll(dir)
	return code
}

// guardedWriter passes writes to w until off is set, then drops them.
type guardedWriter struct {
	w   io.Writer
	off *atomic.Bool
}

func (g *guardedWriter) Write(p []byte) (int, error) {
	if g.off.Load() {
		return len(p), nil
	}
	return g.w.Write(p)
}

// Unwrap returns the writer underneath, so that a terminal behind the
// guard is still recognised as one.
func (g *guardedWriter) Unwrap() io.Writer { return g.w }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}

// stopChildren sends SIGTERM to every descendant of this process, waits
// up to half a second for them to exit and kills those left. Descendants
// are found through /proc (on systems without it nothing is stopped here;
// a terminal's Ctrl-C still reaches the children, which share the
// process group).
func stopChildren() {
	pids := descendants(os.Getpid())
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGTERM)
	}
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		alive := false
		for _, p := range pids {
			if running(p) {
				alive = true
				break
			}
		}
		if !alive {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, p := range pids {
		syscall.Kill(p, syscall.SIGKILL)
	}
}

// descendants lists the processes below pid, children before their own
// children, from /proc/<pid>/stat.
func descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, ok := parentOf(p); ok {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// parentOf reads a process's parent from /proc/<pid>/stat, whose second
// field (the command name, in parentheses) may itself hold spaces and
// parentheses.
func parentOf(pid int) (int, bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, false
	}
	pp, err := strconv.Atoi(f[1])
	return pp, err == nil
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || !strings.HasPrefix(strings.TrimSpace(s[i+1:]), "Z")
}
