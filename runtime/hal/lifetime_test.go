package hal

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
)

// TestBufferReferences checks the reference counts of buffers, subspans
// and views against the allocator's live bytes: memory goes back exactly
// when the last reference over it goes.
func TestBufferReferences(t *testing.T) {
	a := NewHostAllocator(-1)
	live := func() int64 { s := a.Statistics(); return s.HostBytesAllocated - s.HostBytesFreed }
	b, err := a.AllocateBuffer(BufferParams{}, 1000)
	if err != nil {
		t.Fatal(err)
	}
	b.Retain()
	sub, err := b.Subspan(100, 100)
	if err != nil {
		t.Fatal(err)
	}
	view, err := NewBufferView(sub, Shape{25}, ElementTypeF32, EncodingDenseRowMajor)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		release func() error
		live    bool
	}{
		{"first of two buffer references", b.Release, true},
		{"last buffer reference (the view's subspan remains)", b.Release, true},
		{"the view (releasing its subspan, the last user)", view.Release, false},
	}
	for _, s := range steps {
		if err := s.release(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := live() > 0; got != s.live {
			t.Fatalf("after releasing %s: memory live = %v, want %v", s.name, got, s.live)
		}
	}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"buffer released twice", b.Release(), "buffer released twice"},
		{"view released twice", view.Release(), "buffer view 25xf32 released twice"},
		{"use after release", b.Write(0, []byte{1}), "use of a released buffer"},
		{"subspan after release", func() error { _, err := b.Subspan(0, 1); return err }(), "use of a released buffer"},
		{"view of a released buffer", func() error { _, err := NewBufferView(b, Shape{1}, ElementTypeF32, EncodingDenseRowMajor); return err }(), "use of a released buffer"},
		{"view use after release", view.Live(), "use of a released buffer view"},
	} {
		if status.CodeOf(tc.err) != status.FailedPrecondition || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: %v, want FAILED_PRECONDITION containing %q", tc.name, tc.err, tc.want)
		}
	}
	b.Retain() // a released buffer stays released
	if !b.Released() {
		t.Error("Retain revived a released buffer")
	}
}

// TestDecommit checks queue-dealloca semantics: the memory returns at
// once, references stay releasable, uses fail.
func TestDecommit(t *testing.T) {
	a := NewHostAllocator(-1)
	b, err := a.AllocateBuffer(BufferParams{}, 4096)
	if err != nil {
		t.Fatal(err)
	}
	b.Retain()
	if err := b.Decommit(); err != nil {
		t.Fatal(err)
	}
	if s := a.Statistics(); s.HostBytesAllocated != s.HostBytesFreed {
		t.Errorf("live after decommit: %d bytes", s.HostBytesAllocated-s.HostBytesFreed)
	}
	if err := b.Write(0, []byte{1}); status.CodeOf(err) != status.FailedPrecondition || !strings.Contains(err.Error(), "deallocated") {
		t.Errorf("write after decommit: %v", err)
	}
	if err := b.Decommit(); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("second decommit: %v", err)
	}
	freed := a.Statistics().HostBytesFreed
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if err := b.Release(); err != nil {
		t.Fatal(err)
	}
	if got := a.Statistics().HostBytesFreed; got != freed {
		t.Errorf("releasing a decommitted buffer freed its memory again: %d -> %d", freed, got)
	}
}

// TestLeakReporter: with reporting on, an allocation whose buffers become
// garbage unreleased is reported (its memory is not returned: only
// Release returns memory); a released one is not.
func TestLeakReporter(t *testing.T) {
	msgs := make(chan string, 16)
	SetLeakReporter(func(m string) { msgs <- m })
	defer SetLeakReporter(nil)
	a := NewHostAllocator(0)
	func() {
		kept, err := a.AllocateBuffer(BufferParams{}, 12345)
		if err != nil {
			t.Fatal(err)
		}
		_ = kept // dropped unreleased
		done, err := a.AllocateBuffer(BufferParams{}, 777)
		if err != nil {
			t.Fatal(err)
		}
		if err := done.Release(); err != nil {
			t.Fatal(err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		select {
		case m := <-msgs:
			if !strings.Contains(m, "leaked buffer: 12345 bytes") {
				t.Fatalf("report %q, want the unreleased 12345-byte buffer", m)
			}
			if s := a.Statistics(); s.HostBytesAllocated-s.HostBytesFreed != SizeClass(12345) {
				t.Errorf("live after the leak: %+v, want the leaked buffer's class", s)
			}
			select {
			case m := <-msgs:
				t.Errorf("a second report %q (the released buffer is no leak)", m)
			case <-time.After(50 * time.Millisecond):
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("no leak reported within 5 s of garbage collection")
}
