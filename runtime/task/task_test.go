package task

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
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

func TestTilesPerReservation(t *testing.T) {
	tests := []struct {
		workers     int
		total, want uint64
	}{
		{1, 1, 1},     // caller + 1 worker: 2 ranges
		{2, 127, 1},   // fewer tiles than 2 ranges × 64
		{2, 6400, 50}, // 2 ranges of 3200
		{4, 6400, 25}, // caller + 3 workers: 4 ranges of 1600
		{2, 1 << 18, MaxTilesPerReservation},
		{8, 1 << 30, MaxTilesPerReservation},
	}
	for _, tt := range tests {
		e := newExecutor(t, tt.workers)
		if got := e.TilesPerReservation(tt.total); got != tt.want {
			t.Errorf("%d workers: TilesPerReservation(%d) = %d, want %d", tt.workers, tt.total, got, tt.want)
		}
	}
}

// TestParticipants checks who runs the tiles of a dispatch: one chunk runs
// on the caller alone, and a dispatch of many chunks runs on the caller and
// at most WorkerCount-1 workers (at least one).
func TestParticipants(t *testing.T) {
	tests := []struct {
		workers         int
		total, chunk    uint64
		maxParticipants int
	}{
		{2, 1, 0, 1},
		{2, 5, 5, 1},
		{2, 5, 100, 1},
		{1, 1000, 1, 2},
		{2, 1000, 1, 2},
		{4, 1000, 1, 4},
		{4, 2, 1, 2}, // two chunks: the caller and one worker at most
	}
	for _, tt := range tests {
		e := newExecutor(t, tt.workers)
		for r := 0; r < 20; r++ {
			var mu sync.Mutex
			ids := map[int]bool{}
			err := e.Dispatch(tt.total, tt.chunk, func(id int, begin, end uint64) error {
				mu.Lock()
				ids[id] = true
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(ids) > tt.maxParticipants {
				t.Errorf("%d workers, %d tiles in chunks of %d: ran on ids %v, want at most %d participants", tt.workers, tt.total, tt.chunk, ids, tt.maxParticipants)
			}
			if tt.maxParticipants == 1 {
				for id := range ids {
					if id < e.WorkerCount() {
						t.Errorf("one chunk ran on worker %d, want the caller (id ≥ %d)", id, e.WorkerCount())
					}
				}
			}
		}
	}
}

// TestCallerFinishesWithoutLateWorker occupies the only worker with a
// blocked tile and checks that later dispatches still complete: their
// caller takes the range meant for the worker, and Run returns without
// waiting for the worker to arrive. The worker later finds nothing to
// reserve in the finished (and possibly recycled) jobs.
func TestCallerFinishesWithoutLateWorker(t *testing.T) {
	e := newExecutor(t, 1)
	release := make(chan struct{})
	blocked := make(chan struct{})
	firstDone := make(chan error, 1)
	go func() {
		// Two ranges of one tile: the caller's tile waits until the worker
		// has taken the other, so that the worker is the one blocked.
		firstDone <- e.Dispatch(2, 1, func(id int, begin, end uint64) error {
			if id < e.WorkerCount() {
				close(blocked)
				<-release
				return nil
			}
			select {
			case <-blocked:
				return nil
			case <-time.After(10 * time.Second):
				return errors.New("the worker never took its range")
			}
		})
	}()
	select {
	case <-blocked:
	case err := <-firstDone:
		t.Fatalf("first dispatch returned before its worker ran: %v", err)
	}
	// The first caller gives its processor id back once its own tiles are
	// done, before it waits for the worker; a caller without an id would
	// have to wait for the blocked worker.
	for deadline := time.Now().Add(10 * time.Second); e.freeCallers.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first caller never gave its processor id back")
		}
	}
	for _, total := range []uint64{2, 10, 1000} {
		c := newChecker(total, e.MaxConcurrency())
		if err := e.Dispatch(total, 1, c.fn); err != nil {
			t.Fatal(err)
		}
		c.verify(t)
	}
	close(release)
	if err := <-firstDone; err != nil {
		t.Fatal(err)
	}
	// The worker now drains the stale jobs; the executor keeps working.
	c := newChecker(5000, e.MaxConcurrency())
	if err := e.Dispatch(5000, 7, c.fn); err != nil {
		t.Fatal(err)
	}
	c.verify(t)
}

// TestTiler runs a Tiler that is not a TileFunc.
func TestTiler(t *testing.T) {
	e := newExecutor(t, 2)
	for _, total := range []uint64{1, 3, 4096, 100001} {
		c := newChecker(total, e.MaxConcurrency())
		if err := e.Run(total, 0, checkerTiler{c}); err != nil {
			t.Fatal(err)
		}
		c.verify(t)
	}
}

type checkerTiler struct{ c *checker }

func (ct checkerTiler) RunTiles(id int, begin, end uint64) error { return ct.c.fn(id, begin, end) }

func TestErrorStopsLaterChunks(t *testing.T) {
	e := newExecutor(t, 2)
	for _, tc := range []struct{ total, chunk uint64 }{{2, 1}, {100, 1}, {100000, 10}, {3, 0}} {
		errBad := fmt.Errorf("chunk at 0 failed")
		err := e.Dispatch(tc.total, tc.chunk, func(id int, begin, end uint64) error {
			if begin == 0 {
				return errBad
			}
			return nil
		})
		if !errors.Is(err, errBad) {
			t.Errorf("%d tiles in chunks of %d: error %v, want %v", tc.total, tc.chunk, err, errBad)
		}
		// The executor and its pooled jobs are clean for the next dispatch.
		c := newChecker(tc.total, e.MaxConcurrency())
		if err := e.Dispatch(tc.total, tc.chunk, c.fn); err != nil {
			t.Fatalf("dispatch after a failed one: %v", err)
		}
		c.verify(t)
	}
}

func TestSpanReserve(t *testing.T) {
	tests := []struct {
		name              string
		begin, end        uint64
		chunk, limit, div uint64
		want              []uint64 // chunk sizes in order
	}{
		{"fixed", 0, 25, 10, 0, 0, []uint64{10, 10, 5}},
		{"fixed one", 3, 4, 10, 0, 0, []uint64{1}},
		{"guided", 0, 100, 10, 100, 2, []uint64{50, 25, 12, 10, 3}},
		{"guided small chunk", 0, 16, 1, 16, 2, []uint64{8, 4, 2, 1, 1}},
		{"guided offset", 100, 164, 8, 64, 2, []uint64{32, 16, 8, 8}},
		{"guided limit", 0, 160, 10, 20, 2, []uint64{20, 20, 20, 20, 20, 20, 20, 10, 10}},
		{"stolen quarter", 0, 64, 4, 64, 4, []uint64{16, 12, 9, 6, 5, 4, 4, 4, 4}},
		{"empty", 5, 5, 1, 1, 2, nil},
	}
	for _, tt := range tests {
		var s span
		s.next.Store(tt.begin)
		s.end = tt.end
		var got []uint64
		at := tt.begin
		for {
			b, e, ok := s.reserve(tt.chunk, tt.limit, tt.div)
			if !ok {
				break
			}
			if b != at || e <= b || e > tt.end {
				t.Fatalf("%s: reserved [%d, %d), want a chunk starting at %d within %d", tt.name, b, e, at, tt.end)
			}
			got = append(got, e-b)
			at = e
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: chunks %v, want %v", tt.name, got, tt.want)
		}
	}
}

// BenchmarkRun measures the executor's own cost per dispatch with an empty
// tile function: one tile (run on the caller) and dispatches of several
// chunks (the caller and a woken worker).
func BenchmarkRun(b *testing.B) {
	e, err := NewExecutor(Topology{GroupCount: runtime.NumCPU()})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	nop := TileFunc(func(int, uint64, uint64) error { return nil })
	for _, bc := range []struct {
		name         string
		total, chunk uint64
	}{
		{"1-tile", 1, 0},
		{"2-tiles-chunk-1", 2, 1},
		{"64-tiles-chunk-1", 64, 1},
		{"4096-tiles-guided", 4096, 0},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if err := e.Run(bc.total, bc.chunk, nop); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
