package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/goiree/goiree/tools/internal/terminal"
)

// progressDelay is how long a compile runs before the progress line
// appears: quick compiles, the common case, print nothing.
const progressDelay = 2 * time.Second

// progress keeps one line on a terminal naming the phase and pass a long
// compile is in, rewritten in place, and erases it when the compile ends,
// so the terminal is left as a quick compile leaves it.
type progress struct {
	w     io.Writer
	delay time.Duration
	tick  time.Duration
	start time.Time

	mu    sync.Mutex
	phase string
	pass  string
	shown bool

	done     chan struct{}
	wg       sync.WaitGroup
	stopOnce sync.Once
}

// startProgress starts the line's clock; it returns nil (whose methods do
// nothing) when w, or the writer it wraps (Unwrap), is not a terminal, so
// pipes and files get no control characters. The line is written through
// w itself.
func startProgress(w io.Writer) *progress {
	under := w
	for {
		u, ok := under.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		under = u.Unwrap()
	}
	f, ok := under.(*os.File)
	if !ok || !terminal.Is(f) {
		return nil
	}
	return newProgress(w, progressDelay, 250*time.Millisecond)
}

func newProgress(w io.Writer, delay, tick time.Duration) *progress {
	p := &progress{w: w, delay: delay, tick: tick, start: time.Now(), done: make(chan struct{})}
	p.wg.Add(1)
	go p.loop()
	return p
}

// set records the pass that is about to run.
func (p *progress) set(phase, pass string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.phase, p.pass = phase, pass
	p.mu.Unlock()
}

func (p *progress) loop() {
	defer p.wg.Done()
	t := time.NewTicker(p.tick)
	defer t.Stop()
	for {
		select {
		case <-p.done:
			return
		case <-t.C:
			elapsed := time.Since(p.start)
			if elapsed < p.delay {
				continue
			}
			p.mu.Lock()
			if p.pass != "" {
				// \r and erase-line keep it one line however often it is
				// rewritten.
				fmt.Fprintf(p.w, "\r\x1b[Kiree-compile: %s: %s (%.1fs)", p.phase, p.pass, elapsed.Seconds())
				p.shown = true
			}
			p.mu.Unlock()
		}
	}
}

// stop ends the line before anything else (diagnostics, timing) is
// written to the terminal.
func (p *progress) stop() {
	if p == nil {
		return
	}
	p.stopOnce.Do(func() {
		close(p.done)
		p.wg.Wait()
		if p.shown {
			fmt.Fprint(p.w, "\r\x1b[K")
		}
	})
}
