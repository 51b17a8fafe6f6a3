package main

import (
	"bytes"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/goiree/goiree/tools/internal/terminal"
)

// lockedBuffer is a bytes.Buffer safe for the progress goroutine and the
// test to use at once.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func TestProgressLine(t *testing.T) {
	t.Run("a long compile shows its pass and erases the line", func(t *testing.T) {
		var w lockedBuffer
		p := newProgress(&w, 0, time.Millisecond)
		p.set("executable-sources", "resolve-objects")
		deadline := time.Now().Add(10 * time.Second)
		for !strings.Contains(w.String(), "resolve-objects") && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		p.stop()
		got := w.String()
		if !strings.HasPrefix(got, "\r\x1b[Kiree-compile: executable-sources: resolve-objects (") {
			t.Errorf("progress line = %q", got)
		}
		if !strings.HasSuffix(got, "\r\x1b[K") {
			t.Errorf("the line is not erased at the end: %q", got)
		}
		if strings.Contains(got, "\n") {
			t.Errorf("the progress line must stay one line: %q", got)
		}
	})
	t.Run("a quick compile prints nothing", func(t *testing.T) {
		var w lockedBuffer
		p := newProgress(&w, time.Hour, time.Millisecond)
		p.set("input", "verify-input")
		time.Sleep(5 * time.Millisecond)
		p.stop()
		if got := w.String(); got != "" {
			t.Errorf("wrote %q before the delay", got)
		}
	})
	t.Run("a terminal", func(t *testing.T) {
		tty, closeAll, err := terminal.OpenPTY()
		if err != nil {
			t.Skipf("skipping: %v", err)
		}
		defer closeAll()
		p := startProgress(tty)
		if p == nil {
			t.Fatal("a pseudo-terminal got no progress line")
		}
		p.stop()
		p.stop() // stopping twice is harmless
		// The tool's stderr is guarded for signals; the terminal behind
		// the guard still counts.
		if p := startProgress(&guardedWriter{w: tty, off: new(atomic.Bool)}); p == nil {
			t.Error("a guarded pseudo-terminal got no progress line")
		} else {
			p.stop()
		}
	})
	t.Run("not a terminal", func(t *testing.T) {
		f, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if p := startProgress(f); p != nil {
			p.stop()
			t.Error("a regular file was taken for a terminal")
		}
		var b bytes.Buffer
		if p := startProgress(&b); p != nil {
			p.stop()
			t.Error("a buffer was taken for a terminal")
		}
		// A nil progress is safe to use.
		var p *progress
		p.set("input", "verify-input")
		p.stop()
	})
}
