package task

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestDetectTopology(t *testing.T) {
	tests := []struct {
		group, max int
		want       int
		err        bool
	}{
		{3, 0, 3, false},
		{0, 0, min(runtime.NumCPU(), DefaultMaxGroupCount), false},
		{0, 1, 1, false},
		{-1, 0, 0, true},
		{MaxWorkers + 1, 0, 0, true},
		{0, -2, 0, true},
	}
	for _, tt := range tests {
		got, err := DetectTopology(tt.group, tt.max)
		if (err != nil) != tt.err || got.GroupCount != tt.want {
			t.Errorf("DetectTopology(%d, %d) = %+v, %v; want %d", tt.group, tt.max, got, err, tt.want)
		}
	}
}

func newExecutor(t *testing.T, workers int) *Executor {
	t.Helper()
	e, err := NewExecutor(Topology{GroupCount: workers})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// checker records which tiles ran and that no processor id is used by two
// goroutines at once.
type checker struct {
	ran   []atomic.Int32
	inUse []atomic.Bool
	bad   atomic.Value
}

func newChecker(tiles uint64, maxID int) *checker {
	return &checker{ran: make([]atomic.Int32, tiles), inUse: make([]atomic.Bool, maxID)}
}

func (c *checker) fn(id int, begin, end uint64) error {
	if id < 0 || id >= len(c.inUse) {
		c.bad.Store(fmt.Sprintf("processor id %d out of range", id))
		return nil
	}
	if !c.inUse[id].CompareAndSwap(false, true) {
		c.bad.Store(fmt.Sprintf("processor id %d used concurrently", id))
	}
	for i := begin; i < end; i++ {
		c.ran[i].Add(1)
	}
	c.inUse[id].Store(false)
	return nil
}

func (c *checker) verify(t *testing.T) {
	t.Helper()
	if b := c.bad.Load(); b != nil {
		t.Error(b)
	}
	for i := range c.ran {
		if n := c.ran[i].Load(); n != 1 {
			t.Fatalf("tile %d ran %d times", i, n)
		}
	}
}

func TestDispatchRunsEveryTileOnce(t *testing.T) {
	e := newExecutor(t, 4)
	for _, tc := range []struct{ total, batch uint64 }{{1, 0}, {7, 3}, {1000, 0}, {1000, 1}, {100003, 0}, {5, 100}} {
		c := newChecker(tc.total, e.MaxConcurrency())
		if err := e.Dispatch(tc.total, tc.batch, c.fn); err != nil {
			t.Fatal(err)
		}
		c.verify(t)
	}
	if err := e.Dispatch(0, 0, func(int, uint64, uint64) error { return errors.New("ran") }); err != nil {
		t.Errorf("zero tiles: %v", err)
	}
}

func TestFirstErrorWins(t *testing.T) {
	e := newExecutor(t, 3)
	var started atomic.Int64
	errBoom := errors.New("boom at tile 10")
	err := e.Dispatch(100000, 1, func(id int, begin, end uint64) error {
		started.Add(1)
		if begin == 10 {
			return errBoom
		}
		if begin > 10 && begin%7 == 0 {
			return fmt.Errorf("later error at %d", begin)
		}
		return nil
	})
	if err == nil {
		t.Fatal("no error")
	}
	// Tile 10 is reserved long before any later multiple of 7 by the
	// sequential reservation, but a later error can still be first to
	// finish; what must hold is that one of the tile errors is returned and
	// that the failure stopped the dispatch early.
	if !errors.Is(err, errBoom) && err.Error()[:11] != "later error" {
		t.Errorf("error = %v", err)
	}
	if n := started.Load(); n > 1000 {
		t.Errorf("%d batches started after an early failure; cancellation did not stop the dispatch", n)
	}
}

func TestConcurrentDispatchers(t *testing.T) {
	e := newExecutor(t, 2)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for r := 0; r < 20; r++ {
				total := uint64(1 + (g*37+r*11)%500)
				var sum atomic.Uint64
				err := e.Dispatch(total, 0, func(id int, b, en uint64) error {
					for i := b; i < en; i++ {
						sum.Add(i)
					}
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
				if want := total * (total - 1) / 2; sum.Load() != want {
					errs <- fmt.Errorf("goroutine %d: sum %d, want %d", g, sum.Load(), want)
					return
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestProcessorIDsUniqueUnderContention(t *testing.T) {
	e := newExecutor(t, 2)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	shared := make([]atomic.Bool, e.MaxConcurrency()) // ids in use across all dispatches
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < 20; r++ {
				c := newChecker(300, e.MaxConcurrency())
				c.inUse = shared
				if err := e.Dispatch(300, 2, c.fn); err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
				}
				if b := c.bad.Load(); b != nil {
					mu.Lock()
					failures = append(failures, b.(string))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
}

func TestClosedExecutor(t *testing.T) {
	e, err := NewExecutor(Topology{GroupCount: 1})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	e.Close()
	if err := e.Dispatch(10, 0, func(int, uint64, uint64) error { return nil }); err == nil {
		t.Error("dispatch on a closed executor succeeded")
	}
	if _, err := NewExecutor(Topology{}); err == nil {
		t.Error("executor with no workers created")
	}
}
