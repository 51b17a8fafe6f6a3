package hal

import (
	"sync"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
)

// InfiniteTimeout makes a wait block until the semaphore reaches its value.
const InfiniteTimeout time.Duration = -1

// Semaphore is a host timeline semaphore: a monotonically increasing uint64
// payload that waiters can block on. A failed semaphore wakes all waiters
// with its error. It is safe for concurrent use.
type Semaphore struct {
	mu      sync.Mutex
	value   uint64
	failure error
	changed chan struct{} // made by the first waiter, closed on the next change
}

// NewSemaphore returns a semaphore with the given initial payload.
func NewSemaphore(initial uint64) *Semaphore {
	return &Semaphore{value: initial}
}

// Value returns the current payload, or the failure error.
func (s *Semaphore) Value() (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.value, s.failure
}

// Signal advances the payload to value. Payloads never decrease: signaling a
// value not above the current one is an error.
func (s *Semaphore) Signal(value uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failure != nil {
		return errContext(s.failure, "signaling a failed semaphore")
	}
	if value <= s.value {
		return status.Errorf(status.OutOfRange, "semaphore payload must increase: signaled %d, current %d", value, s.value)
	}
	s.value = value
	s.notify()
	return nil
}

// Fail puts the semaphore into a failed state; current and future waits
// return err. Only the first failure is kept.
func (s *Semaphore) Fail(err error) {
	if err == nil {
		err = status.Errorf(status.Unknown, "semaphore failed")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failure != nil {
		return
	}
	s.failure = err
	s.notify()
}

// notify wakes the waiters; s.mu must be held.
func (s *Semaphore) notify() {
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
}

// Wait blocks until the payload reaches value, the semaphore fails, or the
// timeout passes (InfiniteTimeout waits forever; 0 polls).
func (s *Semaphore) Wait(value uint64, timeout time.Duration) error {
	var deadline <-chan time.Time
	for {
		s.mu.Lock()
		cur, failure := s.value, s.failure
		if failure != nil {
			s.mu.Unlock()
			return failure
		}
		if cur >= value {
			s.mu.Unlock()
			return nil
		}
		if timeout == 0 {
			s.mu.Unlock()
			return status.Errorf(status.DeadlineExceeded, "semaphore wait for %d timed out at %d", value, cur)
		}
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if deadline == nil && timeout > 0 {
			t := time.NewTimer(timeout)
			defer t.Stop()
			deadline = t.C
		}
		select {
		case <-changed:
		case <-deadline:
			return status.Errorf(status.DeadlineExceeded, "semaphore wait for %d timed out after %v at %d", value, timeout, cur)
		}
	}
}

// SemaphorePoint is one (semaphore, value) pair.
type SemaphorePoint struct {
	Semaphore *Semaphore
	Value     uint64
}

// Fence is a set of semaphore points: it is reached when every semaphore
// reaches its value. A nil *Fence is empty.
type Fence struct {
	points []SemaphorePoint
	// first backs points for the common one-point fence.
	first [1]SemaphorePoint
}

// NewFence returns a fence with the given points.
func NewFence(points ...SemaphorePoint) *Fence {
	f := &Fence{}
	f.points = f.first[:0]
	for _, p := range points {
		f.Insert(p.Semaphore, p.Value)
	}
	return f
}

// Insert adds (s, value); a semaphore already present keeps the larger value.
func (f *Fence) Insert(s *Semaphore, value uint64) {
	for i := range f.points {
		if f.points[i].Semaphore == s {
			f.points[i].Value = max(f.points[i].Value, value)
			return
		}
	}
	f.points = append(f.points, SemaphorePoint{s, value})
}

// Len returns the number of points.
func (f *Fence) Len() int {
	if f == nil {
		return 0
	}
	return len(f.points)
}

// Points returns a copy of the fence's points.
func (f *Fence) Points() []SemaphorePoint {
	if f == nil {
		return nil
	}
	return append([]SemaphorePoint(nil), f.points...)
}

// Wait waits for all points within timeout.
func (f *Fence) Wait(timeout time.Duration) error {
	if f == nil {
		return nil
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for _, p := range f.points {
		t := timeout
		if timeout > 0 {
			t = max(time.Until(deadline), 0)
		}
		if err := p.Semaphore.Wait(p.Value, t); err != nil {
			return err
		}
	}
	return nil
}

// Signal signals every point. The first error is returned; the others are
// still signaled.
func (f *Fence) Signal() error {
	if f == nil {
		return nil
	}
	var first error
	for _, p := range f.points {
		if err := p.Semaphore.Signal(p.Value); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Fail fails every semaphore of the fence with err.
func (f *Fence) Fail(err error) {
	if f == nil {
		return
	}
	for _, p := range f.points {
		p.Semaphore.Fail(err)
	}
}
