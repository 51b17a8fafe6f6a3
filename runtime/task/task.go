// Package task is the runtime's task system: a pool of worker goroutines
// sized from the CPU topology that executes tiled work such as the
// workgroups of a dispatch.
//
// Executor.Run splits the tiles [0, total) of a dispatch into one
// contiguous range per participant: the calling goroutine and up to
// WorkerCount-1 woken workers (at least one), so that a dispatch occupies
// as many threads as there are workers, the caller included, as a C
// program splitting its loop across one thread per CPU does. A dispatch of
// a single reservation runs on the caller alone and wakes no worker.
//
// Participants reserve chunks of their own range with an atomic counter
// private to that range, and run each chunk with one call of the tile
// function, so a CPU kernel behind a cgo trampoline crosses into C once per
// chunk. Unless the caller fixes the chunk size, chunks are guided: each
// takes half of what is left of the range, but at most 1/8 of the range and
// at least TilesPerReservation tiles, so a range runs in about 8 +
// log2(R/8/TilesPerReservation) crossings (13 for a 16M-element
// simple_mul), instead of one per fixed-size chunk. Few crossings matter
// for cgo: a
// goroutine in C holds its P in a syscall state, and when every P is in
// one, each re-entry into C makes the Go scheduler's monitor retake a P and
// start a spinning thread, context switches that take CPU time from the
// kernels (perf: sysmon, retake, handoffp, startm); the tail of small
// chunks keeps the participants balanced. A participant whose range is
// exhausted takes chunks from the other ranges (a quarter of what is left
// there per participant, within the same bounds), so a worker that wakes late
// or runs slowly holds the dispatch up only by the chunk it is running. The
// caller returns as soon as every tile has run; a worker that arrives after
// that finds nothing to reserve. The first error wins: it is returned and
// no further chunks start.
//
// Each participant runs under a processor id unique among the goroutines
// running tiles of this executor at that moment: workers have ids
// [0, WorkerCount), and callers borrow ids from [WorkerCount,
// MaxConcurrency). A caller that finds no free id leaves its tiles to the
// workers. Per-processor scratch memory indexed by id is therefore never
// shared.
package task

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/goiree/goiree/runtime/base/status"
)

// MaxWorkers bounds the number of worker goroutines.
const MaxWorkers = 64

// DefaultMaxGroupCount caps the automatic group count, as IREE's
// --task_topology_max_group_count does by default.
const DefaultMaxGroupCount = 8

// MaxTilesPerReservation caps the smallest guided chunk that
// TilesPerReservation picks.
const MaxTilesPerReservation = 256

// minChunksPerParticipant is how many of its smallest chunks would cover a
// participant's range: the smallest chunk is that small a part of the
// dispatch, which bounds how unevenly the participants finish.
const minChunksPerParticipant = 64

// spinWait is how long a caller whose tiles are done polls for the other
// participants' last chunks, and how long a worker that finished a job
// polls for the next one, before blocking on a channel (a blocked goroutine
// is woken through the scheduler and often another OS thread).
const spinWait = 20 * time.Microsecond

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

// Tiler runs the tiles of a dispatch.
type Tiler interface {
	// RunTiles runs tiles [begin, end) as processor id.
	RunTiles(id int, begin, end uint64) error
}

// TileFunc runs tiles [begin, end) as processor id.
type TileFunc func(id int, begin, end uint64) error

// RunTiles implements Tiler by calling f.
func (f TileFunc) RunTiles(id int, begin, end uint64) error { return f(id, begin, end) }

// Executor is a pool of worker goroutines. It is safe for concurrent use:
// many goroutines may dispatch at once.
type Executor struct {
	workers int
	// helpers is how many workers a dispatch wakes when its caller takes
	// part: WorkerCount-1, at least 1.
	helpers int
	queue   chan *job
	// freeCallers has bit i set while caller processor id workers+i is free.
	freeCallers atomic.Uint64
	closed      atomic.Bool
	jobs        sync.Pool

	// mu is held for reading while jobs are posted to queue and for writing
	// while Close closes it.
	mu sync.RWMutex
	wg sync.WaitGroup
}

// NewExecutor starts one worker per group of topo.
func NewExecutor(topo Topology) (*Executor, error) {
	n := topo.GroupCount
	if n < 1 || n > MaxWorkers {
		return nil, status.Errorf(status.InvalidArgument, "executor worker count %d is not in [1, %d]", n, MaxWorkers)
	}
	e := &Executor{workers: n, helpers: max(1, n-1), queue: make(chan *job, 4*n+64)}
	if n == 64 {
		e.freeCallers.Store(^uint64(0))
	} else {
		e.freeCallers.Store(1<<n - 1)
	}
	e.jobs.New = func() any { return &job{exec: e, done: make(chan struct{}, 1)} }
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
	if !e.closed.Swap(true) {
		close(e.queue)
	}
	e.mu.Unlock()
	e.wg.Wait()
}

// acquireCaller takes a free caller processor id, or returns -1.
func (e *Executor) acquireCaller() int {
	for {
		m := e.freeCallers.Load()
		if m == 0 {
			return -1
		}
		b := bits.TrailingZeros64(m)
		if e.freeCallers.CompareAndSwap(m, m&^(1<<b)) {
			return e.workers + b
		}
	}
}

func (e *Executor) releaseCaller(id int) {
	e.freeCallers.Or(1 << (id - e.workers))
}

func (e *Executor) work(id int) {
	defer e.wg.Done()
	for {
		j, ok := e.nextJob()
		if !ok {
			return
		}
		j.run(id, int(j.joined.Add(1)-1))
		j.leave()
	}
}

// nextJob returns the next queued job, polling for spinWait before it
// blocks, or false once the queue is closed and drained.
func (e *Executor) nextJob() (*job, bool) {
	select {
	case j, ok := <-e.queue:
		return j, ok
	default:
	}
	start := time.Now()
	for time.Since(start) < spinWait {
		runtime.Gosched()
		select {
		case j, ok := <-e.queue:
			return j, ok
		default:
		}
	}
	j, ok := <-e.queue
	return j, ok
}

// cacheLine is the padding that keeps counters written by different
// participants apart (two 64-byte lines: adjacent-line prefetch).
const cacheLine = 128

// span is one participant's range of tiles: next is the first unreserved
// tile, end the bound.
type span struct {
	next atomic.Uint64
	end  uint64
	_    [cacheLine - 16]byte
}

// job is one multi-participant dispatch. Jobs are pooled: refs counts the
// caller and the posted workers, and the last to leave recycles the job.
type job struct {
	exec  *Executor
	tiler Tiler
	// chunk is the size of every chunk, or with guided the smallest one and
	// limit the largest.
	chunk, limit uint64
	guided       bool
	spans        []span

	_ [cacheLine]byte
	// joined hands out span indices to the workers as they arrive.
	joined    atomic.Int32
	remaining atomic.Uint64
	refs      atomic.Int32
	failed    atomic.Bool
	errMu     sync.Mutex
	err       error
	// done receives one value once remaining reaches zero.
	done chan struct{}
}

// run reserves and runs chunks as processor id, starting with span first
// and then taking from the others in turn, until nothing is left to
// reserve; then it credits the tiles it ran.
func (j *job) run(id, first int) {
	n := len(j.spans)
	var ran uint64
	for k := 0; k < n; k++ {
		s := &j.spans[(first+k)%n]
		for {
			div := uint64(0) // fixed chunks
			if j.guided {
				div = 2 // own range: half of what is left
				if k > 0 {
					div = 2 * uint64(n) // another's range: leave its owner most
				}
			}
			start, end, ok := s.reserve(j.chunk, j.limit, div)
			if !ok {
				break
			}
			if !j.failed.Load() {
				if err := j.tiler.RunTiles(id, start, end); err != nil {
					j.fail(err)
				}
			}
			ran += end - start
		}
	}
	if ran > 0 && j.remaining.Add(-ran) == 0 {
		j.done <- struct{}{}
	}
}

// reserve takes the next chunk of s: chunk tiles when div is 0, else 1/div
// of what is left, bounded to [chunk, limit].
func (s *span) reserve(chunk, limit, div uint64) (begin, end uint64, ok bool) {
	if div == 0 {
		if s.next.Load() >= s.end {
			return 0, 0, false
		}
		begin = s.next.Add(chunk) - chunk
		if begin >= s.end {
			return 0, 0, false
		}
		return begin, min(begin+chunk, s.end), true
	}
	for {
		begin = s.next.Load()
		if begin >= s.end {
			return 0, 0, false
		}
		end = min(begin+max(chunk, min(limit, (s.end-begin)/div)), s.end)
		if s.next.CompareAndSwap(begin, end) {
			return begin, end, true
		}
	}
}

func (j *job) fail(err error) {
	j.errMu.Lock()
	if j.err == nil {
		j.err = err
	}
	j.errMu.Unlock()
	j.failed.Store(true)
}

// wait returns once every tile has run, polling for spinWait first.
func (j *job) wait() {
	if j.remaining.Load() != 0 {
		start := time.Now()
		for j.remaining.Load() != 0 && time.Since(start) < spinWait {
			runtime.Gosched()
		}
	}
	<-j.done
}

// leave drops one reference and recycles the job when it was the last.
func (j *job) leave() {
	if j.refs.Add(-1) != 0 {
		return
	}
	j.tiler, j.err = nil, nil
	j.failed.Store(false)
	j.exec.jobs.Put(j)
}

// TilesPerReservation returns the smallest chunk of the guided chunks Run
// uses for total tiles when no chunk size is given: 1/64 of a participant's
// range, at least 1 and at most MaxTilesPerReservation tiles.
func (e *Executor) TilesPerReservation(total uint64) uint64 {
	parts := uint64(e.helpers + 1)
	return max(1, min(total/(parts*minChunksPerParticipant), MaxTilesPerReservation))
}

// Dispatch runs fn over tiles [0, total) as Run does.
func (e *Executor) Dispatch(total, chunk uint64, fn TileFunc) error {
	return e.Run(total, chunk, fn)
}

// Run runs t over tiles [0, total) in chunks of chunk tiles (0: guided
// chunks, see the package doc) on the calling goroutine and the workers, and
// returns once every started chunk has finished; t is not called after
// that. It returns the first error; after an error no new chunk starts.
// total == 0 does nothing.
func (e *Executor) Run(total, chunk uint64, t Tiler) error {
	if total == 0 {
		return nil
	}
	if total > 1<<62 {
		return status.Errorf(status.OutOfRange, "task dispatch of %d tiles is too large", total)
	}
	if e.closed.Load() {
		return errClosed()
	}
	guided := chunk == 0
	if guided {
		chunk = e.TilesPerReservation(total)
	}
	chunk = min(chunk, total)
	caller := e.acquireCaller()
	if caller >= 0 && chunk == total {
		// One chunk: the caller runs it; waking a worker would only add
		// latency.
		err := t.RunTiles(caller, 0, total)
		e.releaseCaller(caller)
		return err
	}
	chunks := (total + chunk - 1) / chunk
	helpers, parts := e.workers, 0
	if caller >= 0 {
		helpers = int(min(uint64(e.helpers), chunks-1))
		parts = helpers + 1
	} else {
		helpers = int(min(uint64(helpers), chunks))
		parts = helpers
	}
	j := e.jobs.Get().(*job)
	j.tiler, j.chunk, j.guided = t, chunk, guided
	j.limit = max(chunk, total/uint64(parts)/8)
	if cap(j.spans) < parts {
		j.spans = make([]span, parts)
	}
	j.spans = j.spans[:parts]
	for i := range j.spans {
		s := &j.spans[i]
		s.next.Store(total * uint64(i) / uint64(parts))
		s.end = total * uint64(i+1) / uint64(parts)
	}
	j.remaining.Store(total)
	j.refs.Store(int32(helpers + 1))
	if caller >= 0 {
		j.joined.Store(1) // span 0 is the caller's
	} else {
		j.joined.Store(0)
	}

	e.mu.RLock()
	if e.closed.Load() {
		e.mu.RUnlock()
		if caller >= 0 {
			e.releaseCaller(caller)
		}
		j.tiler = nil
		e.jobs.Put(j)
		return errClosed()
	}
	posted := 0
	if caller < 0 {
		e.queue <- j // someone other than the caller must run the tiles
		posted++
	}
post:
	for posted < helpers {
		select {
		case e.queue <- j:
			posted++
		default:
			break post // queue full: the participants already posted suffice
		}
	}
	e.mu.RUnlock()
	if posted < helpers {
		j.refs.Add(int32(posted - helpers))
	}
	if caller >= 0 {
		j.run(caller, 0)
		e.releaseCaller(caller)
	}
	j.wait()
	err := j.err
	j.leave()
	return err
}

func errClosed() error {
	return status.Errorf(status.FailedPrecondition, "task executor is closed")
}
