// Package task is the runtime's task system: a pool of worker goroutines
// sized from the CPU topology that executes tiled work such as the
// workgroups of a dispatch.
//
// Executor.Dispatch splits a range of tiles among the workers and the
// calling goroutine. Each participant reserves tiles atomically in batches
// (TilesPerReservation) and runs each batch with a single call of the tile
// function, so a CPU kernel behind a cgo trampoline crosses into C once per
// batch. The first error wins: it is returned and no further batches start.
//
// Each participant runs under a processor id unique among the goroutines
// running tiles of this executor at that moment: workers have ids
// [0, WorkerCount), and callers borrow ids from [WorkerCount,
// MaxConcurrency). A caller that finds no free id leaves its tiles to the
// workers. Per-processor scratch memory indexed by id is therefore never
// shared.
package task

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/goiree/goiree/runtime/vm/status"
)

// MaxWorkers bounds the number of worker goroutines.
const MaxWorkers = 64

// DefaultMaxGroupCount caps the automatic group count, as IREE's
// --task_topology_max_group_count does by default.
const DefaultMaxGroupCount = 8

// Topology describes the worker groups of an executor; each group gets one
// worker goroutine.
type Topology struct {
	GroupCount int
}

// DetectTopology returns a topology of groupCount groups, or, when
// groupCount is 0, one group per CPU this process may run on (the
// scheduler-affinity count reported by runtime.NumCPU) capped at
// maxGroupCount (DefaultMaxGroupCount when 0).
func DetectTopology(groupCount, maxGroupCount int) (Topology, error) {
	if groupCount < 0 || groupCount > MaxWorkers {
		return Topology{}, status.Errorf(status.InvalidArgument, "task topology group count %d is not in [0, %d]", groupCount, MaxWorkers)
	}
	if maxGroupCount < 0 {
		return Topology{}, status.Errorf(status.InvalidArgument, "task topology max group count %d is negative", maxGroupCount)
	}
	if groupCount > 0 {
		return Topology{GroupCount: groupCount}, nil
	}
	if maxGroupCount == 0 {
		maxGroupCount = DefaultMaxGroupCount
	}
	return Topology{GroupCount: max(1, min(runtime.NumCPU(), maxGroupCount, MaxWorkers))}, nil
}

// TileFunc runs tiles [begin, end) as processor id.
type TileFunc func(id int, begin, end uint64) error

// Executor is a pool of worker goroutines. It is safe for concurrent use:
// many goroutines may Dispatch at once.
type Executor struct {
	workers int
	queue   chan *job
	callers chan int // free caller processor ids

	mu     sync.RWMutex
	closed bool
	wg     sync.WaitGroup
}

// NewExecutor starts one worker per group of topo.
func NewExecutor(topo Topology) (*Executor, error) {
	n := topo.GroupCount
	if n < 1 || n > MaxWorkers {
		return nil, status.Errorf(status.InvalidArgument, "executor worker count %d is not in [1, %d]", n, MaxWorkers)
	}
	e := &Executor{workers: n, queue: make(chan *job, 4*n+64), callers: make(chan int, n)}
	for i := 0; i < n; i++ {
		e.callers <- n + i
	}
	e.wg.Add(n)
	for i := 0; i < n; i++ {
		go e.work(i)
	}
	return e, nil
}

// WorkerCount returns the number of worker goroutines.
func (e *Executor) WorkerCount() int { return e.workers }

// MaxConcurrency returns the bound (exclusive) of processor ids passed to
// tile functions.
func (e *Executor) MaxConcurrency() int { return 2 * e.workers }

// Close stops the workers after the queued work is done. Dispatching after
// Close is an error.
func (e *Executor) Close() {
	e.mu.Lock()
	if !e.closed {
		e.closed = true
		close(e.queue)
	}
	e.mu.Unlock()
	e.wg.Wait()
}

func (e *Executor) work(id int) {
	defer e.wg.Done()
	for j := range e.queue {
		j.run(id)
	}
}

type job struct {
	fn        TileFunc
	total     uint64
	batch     uint64
	next      atomic.Uint64
	remaining atomic.Uint64
	failed    atomic.Bool
	errOnce   sync.Once
	err       error
	done      chan struct{}
}

func (j *job) run(id int) {
	for {
		start := j.next.Add(j.batch) - j.batch
		if start >= j.total {
			return
		}
		end := min(start+j.batch, j.total)
		if !j.failed.Load() {
			if err := j.fn(id, start, end); err != nil {
				j.errOnce.Do(func() { j.err = err })
				j.failed.Store(true)
			}
		}
		if j.remaining.Add(-(end - start)) == 0 {
			close(j.done)
		}
	}
}

// TilesPerReservation returns the batch size Dispatch uses for total tiles
// when none is given: about eight batches per participant, at least 1 and at
// most 4096 tiles.
func (e *Executor) TilesPerReservation(total uint64) uint64 {
	parts := uint64(e.workers + 1)
	return max(1, min(total/(parts*8), 4096))
}

// Dispatch runs fn over tiles [0, total) in batches of batch tiles (0 picks
// TilesPerReservation) on the workers and the calling goroutine, and returns
// once every started batch has finished. It returns the first error; after
// an error no new batch starts. total == 0 does nothing.
func (e *Executor) Dispatch(total, batch uint64, fn TileFunc) error {
	if total == 0 {
		return nil
	}
	if total > 1<<62 {
		return status.Errorf(status.OutOfRange, "task dispatch of %d tiles is too large", total)
	}
	if batch == 0 {
		batch = e.TilesPerReservation(total)
	}
	batch = min(batch, total)
	callerID := -1
	select {
	case callerID = <-e.callers:
	default:
	}
	if callerID >= 0 && batch == total {
		// One batch: the caller runs it; waking a worker would only add
		// latency.
		e.mu.RLock()
		closed := e.closed
		e.mu.RUnlock()
		var err error
		if closed {
			err = status.Errorf(status.FailedPrecondition, "task executor is closed")
		} else {
			err = fn(callerID, 0, total)
		}
		e.callers <- callerID
		return err
	}
	j := &job{fn: fn, total: total, batch: batch, done: make(chan struct{})}
	j.remaining.Store(total)
	batches := (total + batch - 1) / batch
	helpers := int(min(uint64(e.workers), batches))
	if callerID >= 0 {
		helpers = int(min(uint64(e.workers), batches-1))
	}
	e.mu.RLock()
	if e.closed {
		e.mu.RUnlock()
		if callerID >= 0 {
			e.callers <- callerID
		}
		return status.Errorf(status.FailedPrecondition, "task executor is closed")
	}
	posted := 0
	for i := 0; i < helpers; i++ {
		if callerID < 0 && posted == 0 {
			e.queue <- j // someone other than the caller must run the tiles
			posted++
			continue
		}
		select {
		case e.queue <- j:
			posted++
		default:
			i = helpers // queue full: the participants already posted suffice
		}
	}
	e.mu.RUnlock()
	if callerID >= 0 {
		j.run(callerID)
		e.callers <- callerID
	}
	<-j.done
	return j.err
}
