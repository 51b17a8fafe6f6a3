package hal

import (
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/golang/glog"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/vm"
)

// Module is the "hal" native module bound to one device. Create it with New
// and add it to a vm.Context before the bytecode modules that import it.
type Module struct {
	device hal.Device

	mu    sync.Mutex
	cache hal.ExecutableCache
	trace io.Writer

	// holds are the buffers of queued submissions (queue.execute), kept
	// until each has finished; nholds is len(holds), read without the
	// lock on the hot paths.
	holdMu sync.Mutex
	holds  []*hold
	nholds atomic.Int32
}

// hold is the buffers one queued submission uses, released once it has
// finished (signalled or failed done).
type hold struct {
	done     *hal.Semaphore
	bufs     []*hal.Buffer
	released atomic.Bool
}

func (h *hold) release() {
	if h.released.CompareAndSwap(false, true) {
		releaseBuffers(h.bufs)
	}
}

// reap releases the buffers of every queued submission that has
// finished. The module calls it before it allocates and after a fence
// wait, so memory a finished submission held is back in the allocator by
// the time the program can observe the submission's end; a goroutine per
// submission releases the rest when they finish.
func (m *Module) reap() {
	if m.nholds.Load() == 0 {
		return
	}
	m.holdMu.Lock()
	kept := m.holds[:0]
	for _, h := range m.holds {
		if err := h.done.Wait(1, 0); status.CodeOf(err) == status.DeadlineExceeded {
			kept = append(kept, h)
			continue
		}
		h.release()
	}
	clear(m.holds[len(kept):])
	m.holds = kept
	m.nholds.Store(int32(len(kept)))
	m.holdMu.Unlock()
}

// SetTrace makes every call into the module print one line to w (nil turns
// tracing off): "[hal] command_buffer.dispatch(ref<hal.command_buffer>, ...)
// -> ()", with the error when the call fails. Call it before the module is
// added to a context.
func (m *Module) SetTrace(w io.Writer) { m.trace = w }

// New returns the hal module for device.
func New(device hal.Device) (*Module, error) {
	if device == nil {
		return nil, status.New(status.InvalidArgument, "hal module: nil device")
	}
	return &Module{device: device}, nil
}

// Name returns "hal".
func (m *Module) Name() string { return "hal" }

// Device returns the device the module is bound to.
func (m *Module) Device() hal.Device { return m.device }

// Functions lists the module's functions (see IMPORTS.md).
func (m *Module) Functions() []vm.NativeFunction {
	f := func(name, cc string, fn func(*vm.NativeCall) error) vm.NativeFunction {
		if m.trace != nil {
			fn = m.traced(name, fn)
		}
		return vm.NativeFunction{Name: name, CallingConvention: cc, Func: fn}
	}
	return []vm.NativeFunction{
		// Devices.
		f("devices.count", "0v_i", m.devicesCount),
		f("devices.get", "0i_r", m.devicesGet),
		f("ex.shared_device", "0v_r", m.sharedDevice),
		f("device.allocator", "0r_r", m.deviceAllocator),
		f("device.query.i64", "0rrr_iI", m.deviceQueryI64),
		f("device.query.i32", "0rrr_ii", m.deviceQueryI32),
		f("device.queue.alloca", "0rIrriiI_r", m.queueAlloca),
		f("device.queue.dealloca", "0rIrrr_v", m.queueDealloca),
		f("device.queue.execute", "0rIrrCrD_v", m.queueExecute),
		f("ex.submit_and_wait", "0rr_v", m.submitAndWait),
		f("ex.workgroup_count_error", "0rIII_v", m.workgroupCountError),
		// Allocators and buffers.
		f("allocator.allocate", "0rIiiI_r", m.allocatorAllocate),
		f("buffer.assert", "0rrrIii_v", m.bufferAssert),
		f("buffer.subspan", "0rII_r", m.bufferSubspan),
		f("buffer.length", "0r_I", m.bufferLength),
		f("buffer.load", "0rIi_i", m.bufferLoad),
		f("buffer.store", "0irIi_v", m.bufferStore),
		// Buffer views.
		f("buffer_view.create", "0rIIiiCID_r", m.bufferViewCreate),
		f("buffer_view.assert", "0rriiCID_v", m.bufferViewAssert),
		f("buffer_view.buffer", "0r_r", m.bufferViewBuffer),
		f("buffer_view.element_type", "0r_i", m.bufferViewElementType),
		f("buffer_view.encoding_type", "0r_i", m.bufferViewEncodingType),
		f("buffer_view.rank", "0r_i", m.bufferViewRank),
		f("buffer_view.dim", "0ri_I", m.bufferViewDim),
		// Executables.
		f("executable.create", "0rIrrr_r", m.executableCreate),
		// Command buffers.
		f("command_buffer.create", "0riiIi_r", m.commandBufferCreate),
		f("command_buffer.begin", "0r_v", m.commandBufferBegin),
		f("command_buffer.end", "0r_v", m.commandBufferEnd),
		f("command_buffer.finalize", "0r_v", m.commandBufferEnd),
		f("command_buffer.execution_barrier", "0riiI_v", m.commandBufferBarrier),
		f("command_buffer.fill_buffer", "0rrIIii_v", m.commandBufferFill),
		f("command_buffer.update_buffer", "0rrIrII_v", m.commandBufferUpdate),
		f("command_buffer.copy_buffer", "0rrIrII_v", m.commandBufferCopy),
		f("command_buffer.push_constants", "0riCiD_v", m.commandBufferPushConstants),
		f("command_buffer.push_descriptor_set", "0riCirIID_v", m.commandBufferPushDescriptorSet),
		f("command_buffer.dispatch", "0rriiii_v", m.commandBufferDispatch),
		f("command_buffer.dispatch.inline", "0rriiiiICiDCrIID_v", m.commandBufferDispatchInline),
		// Fences.
		f("fence.create", "0rI_r", m.fenceCreate),
		f("fence.join", "0CrD_r", m.fenceJoin),
		f("fence.query", "0r_i", m.fenceQuery),
		f("fence.signal", "0r_v", m.fenceSignal),
		f("fence.fail", "0ri_v", m.fenceFail),
		f("fence.await", "0iCrD_i", m.fenceAwait),
	}
}

// traced wraps fn to log each call.
func (m *Module) traced(name string, fn func(*vm.NativeCall) error) func(*vm.NativeCall) error {
	return func(c *vm.NativeCall) error {
		err := fn(c)
		var b strings.Builder
		fmt.Fprintf(&b, "[hal] %s(", name)
		for i, a := range c.Args {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.String())
		}
		b.WriteString(") -> (")
		if err == nil {
			for i, r := range c.Results {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(r.String())
			}
			b.WriteString(")\n")
		} else {
			fmt.Fprintf(&b, ") failed: %v\n", err)
		}
		io.WriteString(m.trace, b.String())
		return err
	}
}

// Argument helpers. Each names the function and argument in its error.
// The hot ones are concrete per ref type: a type assertion to a known
// pointer type is one comparison, where the generic form goes through a
// dictionary on every call.

// refObj returns the object of ref argument i when it is a non-null ref of
// type t.
func refObj(c *vm.NativeCall, i int, t *vm.RefType, fn string) (any, error) {
	if r := c.Args[i].Ref(); r.Type() == t && !r.IsNull() {
		return r.Object(), nil
	}
	return nil, badRef(c, i, t, fn)
}

// badRef is the error for ref argument i that is not a non-null ref of type
// t holding the Go type the module makes for t.
func badRef(c *vm.NativeCall, i int, t *vm.RefType, fn string) error {
	_, err := c.Args[i].RefAs(t)
	if err == nil {
		return status.Errorf(status.Internal, "hal.%s: argument %d: %s ref holds %T", fn, i, t.Name(), c.Args[i].Ref().Object())
	}
	return status.Errorf(status.InvalidArgument, "hal.%s: argument %d: %v", fn, i, err)
}

// asBuffer, asView and asCommandBuffer return the object a ref argument
// holds when it is a ref of that type, or nil. They inline, so the hot
// imports check their arguments without a call; badRef makes the error.
func asBuffer(v vm.Value) *hal.Buffer {
	r := v.Ref()
	if b, ok := r.Object().(*hal.Buffer); ok && r.Type() == BufferType {
		return b
	}
	return nil
}

func asView(v vm.Value) *hal.BufferView {
	r := v.Ref()
	if b, ok := r.Object().(*hal.BufferView); ok && r.Type() == BufferViewType {
		return b
	}
	return nil
}

func asCommandBuffer(v vm.Value) *hal.CommandBuffer {
	r := v.Ref()
	if b, ok := r.Object().(*hal.CommandBuffer); ok && r.Type() == CommandBufferType {
		return b
	}
	return nil
}

// The typed accessors below each cost one ref-type comparison and one
// concrete type assertion when the argument is good.

func commandBufferArg(c *vm.NativeCall, i int, fn string) (*hal.CommandBuffer, error) {
	if cb := asCommandBuffer(c.Args[i]); cb != nil {
		return cb, nil
	}
	return nil, badRef(c, i, CommandBufferType, fn)
}

func vmBufferArg(c *vm.NativeCall, i int, fn string) (*vm.Buffer, error) {
	if r := c.Args[i].Ref(); r.Type() == vm.BufferType {
		if b, ok := r.Object().(*vm.Buffer); ok && b != nil {
			return b, nil
		}
	}
	return nil, badRef(c, i, vm.BufferType, fn)
}

func executableArg(c *vm.NativeCall, i int, fn string) (hal.Executable, error) {
	if r := c.Args[i].Ref(); r.Type() == ExecutableType {
		if e, ok := r.Object().(hal.Executable); ok {
			return e, nil
		}
	}
	return nil, badRef(c, i, ExecutableType, fn)
}

func fenceArg(c *vm.NativeCall, i int, fn string) (*hal.Fence, error) {
	if r := c.Args[i].Ref(); r.Type() == FenceType {
		if f, ok := r.Object().(*hal.Fence); ok && f != nil {
			return f, nil
		}
	}
	return nil, badRef(c, i, FenceType, fn)
}

// optFence is fenceArg allowing a null ref (nil).
func optFence(c *vm.NativeCall, i int, fn string) (*hal.Fence, error) {
	if c.Args[i].Kind() == vm.KindRef && c.Args[i].Ref().IsNull() {
		return nil, nil
	}
	return fenceArg(c, i, fn)
}

// optVMBuffer is vmBufferArg allowing a null ref (nil).
func optVMBuffer(c *vm.NativeCall, i int, fn string) (*vm.Buffer, error) {
	if c.Args[i].Kind() == vm.KindRef && c.Args[i].Ref().IsNull() {
		return nil, nil
	}
	return vmBufferArg(c, i, fn)
}

func stringArg(c *vm.NativeCall, i int, fn string) (string, error) {
	b, err := vmBufferArg(c, i, fn)
	if err != nil {
		return "", err
	}
	return string(b.Bytes()), nil
}

// annotate returns the error of the HAL call behind import fn. It adds
// nothing: the VM already prefixes every import's error with its name
// ("hal.executable.create: INVALID_ARGUMENT; loading ELF: ..."), and
// wrapping here too printed the name and code twice.
func annotate(err error, fn string) error {
	_ = fn
	return err
}

// Devices.

func (m *Module) checkDevice(c *vm.NativeCall, i int, fn string) error {
	d, err := refObj(c, i, DeviceType, fn)
	if err != nil {
		return err
	}
	if d != any(m.device) {
		return status.Errorf(status.InvalidArgument, "hal.%s: argument %d is not this module's device", fn, i)
	}
	return nil
}

func (m *Module) devicesCount(c *vm.NativeCall) error {
	c.Results[0] = vm.I32(1)
	return nil
}

func (m *Module) devicesGet(c *vm.NativeCall) error {
	if i := c.Args[0].I32(); i != 0 {
		return status.Errorf(status.OutOfRange, "hal.devices.get: device index %d out of range [0, 1)", i)
	}
	c.Results[0] = vm.RefValue(DeviceRef(m.device))
	return nil
}

func (m *Module) sharedDevice(c *vm.NativeCall) error {
	c.Results[0] = vm.RefValue(DeviceRef(m.device))
	return nil
}

func (m *Module) deviceAllocator(c *vm.NativeCall) error {
	if err := m.checkDevice(c, 0, "device.allocator"); err != nil {
		return err
	}
	c.Results[0] = vm.RefValue(vm.NewRef(AllocatorType, m.device.Allocator()))
	return nil
}

func (m *Module) deviceQueryI64(c *vm.NativeCall) error {
	ok, v, err := m.query(c, "device.query.i64")
	c.Results[0], c.Results[1] = vm.I32(ok), vm.I64(v)
	return err
}

func (m *Module) deviceQueryI32(c *vm.NativeCall) error {
	const fn = "device.query.i32"
	ok, v, err := m.query(c, fn)
	if err == nil && int64(int32(v)) != v {
		return status.Errorf(status.OutOfRange, "hal.%s: value %d does not fit in 32 bits", fn, v)
	}
	c.Results[0], c.Results[1] = vm.I32(ok), vm.I32(int32(v))
	return err
}

// query answers a device query: ok = 1 and the value, or ok = 0 and 0 for
// an unknown query.
func (m *Module) query(c *vm.NativeCall, fn string) (int32, int64, error) {
	if err := m.checkDevice(c, 0, fn); err != nil {
		return 0, 0, err
	}
	category, err := stringArg(c, 1, fn)
	if err != nil {
		return 0, 0, err
	}
	key, err := stringArg(c, 2, fn)
	if err != nil {
		return 0, 0, err
	}
	v, err := m.device.QueryI64(category, key)
	if err != nil {
		if status.CodeOf(err) == status.NotFound {
			return 0, 0, nil
		}
		return 0, 0, annotate(err, fn)
	}
	return 1, v, nil
}

func (m *Module) queueAlloca(c *vm.NativeCall) error {
	const fn = "device.queue.alloca"
	m.reap()
	if err := m.checkDevice(c, 0, fn); err != nil {
		return err
	}
	wait, err := optFence(c, 2, fn)
	if err != nil {
		return err
	}
	signal, err := optFence(c, 3, fn)
	if err != nil {
		return err
	}
	if err := wait.Wait(hal.InfiniteTimeout); err != nil {
		return annotate(err, fn)
	}
	buf, err := m.allocate(hal.MemoryType(c.Args[4].I32()), hal.BufferUsage(c.Args[5].I32()), c.Args[6].I64(), fn)
	if err != nil {
		signal.Fail(err)
		return err
	}
	if err := signal.Signal(); err != nil {
		return annotate(err, fn)
	}
	c.Results[0] = vm.RefValue(BufferRef(buf))
	return nil
}

func (m *Module) queueDealloca(c *vm.NativeCall) error {
	const fn = "device.queue.dealloca"
	if err := m.checkDevice(c, 0, fn); err != nil {
		return err
	}
	wait, err := optFence(c, 2, fn)
	if err != nil {
		return err
	}
	signal, err := optFence(c, 3, fn)
	if err != nil {
		return err
	}
	buf := asBuffer(c.Args[4])
	if buf == nil {
		return badRef(c, 4, BufferType, fn)
	}
	if err := wait.Wait(hal.InfiniteTimeout); err != nil {
		return annotate(err, fn)
	}
	// The memory goes back now; the buffer's references (the caller's
	// register among them) stay valid to release, and a use fails.
	if err := buf.Decommit(); err != nil {
		signal.Fail(err)
		return annotate(err, fn)
	}
	return annotate(signal.Signal(), fn)
}

func commandBuffers(c *vm.NativeCall, first int, fn string) ([]*hal.CommandBuffer, error) {
	cbs := make([]*hal.CommandBuffer, 0, len(c.Args)-first)
	for i := first; i < len(c.Args); i++ {
		cb, err := commandBufferArg(c, i, fn)
		if err != nil {
			return nil, err
		}
		cbs = append(cbs, cb)
	}
	return cbs, nil
}

func (m *Module) queueExecute(c *vm.NativeCall) error {
	const fn = "device.queue.execute"
	if err := m.checkDevice(c, 0, fn); err != nil {
		return err
	}
	wait, err := optFence(c, 2, fn)
	if err != nil {
		return err
	}
	signal, err := optFence(c, 3, fn)
	if err != nil {
		return err
	}
	cbs, err := commandBuffers(c, 4, fn)
	if err != nil {
		return err
	}
	// The submission may still run after this call returns, and the
	// program may release its references to the buffers meanwhile (at the
	// latest when its function returns): the submission holds its own
	// until it has finished, signalled through a semaphore of its own
	// put first in the signal fence, so that it is reached before any
	// point the program waits on.
	m.reap()
	held := retainBuffers(cbs)
	if len(held) == 0 {
		return annotate(m.device.QueueExecute(wait, signal, cbs), fn)
	}
	h := &hold{done: hal.NewSemaphore(0), bufs: held}
	all := hal.NewFence(append([]hal.SemaphorePoint{{Semaphore: h.done, Value: 1}}, signal.Points()...)...)
	if err := m.device.QueueExecute(wait, all, cbs); err != nil {
		// Nothing was queued that could still use the buffers.
		h.release()
		return annotate(err, fn)
	}
	m.holdMu.Lock()
	m.holds = append(m.holds, h)
	m.nholds.Store(int32(len(m.holds)))
	m.holdMu.Unlock()
	go func() {
		_ = h.done.Wait(1, hal.InfiniteTimeout) // a failed submission is finished too
		h.release()
	}()
	return nil
}

// retainBuffers retains, once each, every buffer the commands of cbs use.
func retainBuffers(cbs []*hal.CommandBuffer) []*hal.Buffer {
	var held []*hal.Buffer
	seen := map[*hal.Buffer]bool{}
	add := func(b *hal.Buffer) {
		if b != nil && !seen[b] {
			seen[b] = true
			b.Retain()
			held = append(held, b)
		}
	}
	for _, cb := range cbs {
		for _, c := range cb.Commands() {
			switch c := c.(type) {
			case *hal.DispatchCommand:
				for _, r := range c.Bindings {
					add(r.Buffer)
				}
			case *hal.FillCommand:
				add(c.Target)
			case *hal.UpdateCommand:
				add(c.Target)
			case *hal.CopyCommand:
				add(c.Source)
				add(c.Target)
			}
		}
	}
	return held
}

func releaseBuffers(bs []*hal.Buffer) {
	for _, b := range bs {
		_ = b.Release()
	}
}

func (m *Module) submitAndWait(c *vm.NativeCall) error {
	const fn = "ex.submit_and_wait"
	if err := m.checkDevice(c, 0, fn); err != nil {
		return err
	}
	if len(c.Args) == 2 {
		cb := asCommandBuffer(c.Args[1])
		if cb == nil {
			return badRef(c, 1, CommandBufferType, fn)
		}
		return annotate(hal.SubmitAndWaitOne(m.device, cb), fn)
	}
	cbs, err := commandBuffers(c, 1, fn)
	if err != nil {
		return err
	}
	return annotate(hal.SubmitAndWait(m.device, cbs...), fn)
}

// Allocators and buffers.

func (m *Module) allocate(memType hal.MemoryType, usage hal.BufferUsage, size int64, fn string) (*hal.Buffer, error) {
	if size < 0 {
		return nil, status.Errorf(status.InvalidArgument, "hal.%s: negative allocation size %d", fn, size)
	}
	buf, err := m.device.Allocator().AllocateBuffer(hal.BufferParams{Type: memType, Usage: usage}, size)
	if err != nil {
		return nil, annotate(err, fn)
	}
	return buf, nil
}

func (m *Module) allocatorAllocate(c *vm.NativeCall) error {
	const fn = "allocator.allocate"
	m.reap()
	alloc, err := refObj(c, 0, AllocatorType, fn)
	if err != nil {
		return err
	}
	if alloc != any(m.device.Allocator()) {
		return status.Errorf(status.InvalidArgument, "hal.%s: allocator is not this module's device allocator", fn)
	}
	buf, err := m.allocate(hal.MemoryType(c.Args[2].I32()), hal.BufferUsage(c.Args[3].I32()), c.Args[4].I64(), fn)
	if err != nil {
		return err
	}
	c.Results[0] = vm.RefValue(BufferRef(buf))
	return nil
}

func (m *Module) bufferAssert(c *vm.NativeCall) error {
	const fn = "buffer.assert"
	buf := asBuffer(c.Args[0])
	if buf == nil {
		return badRef(c, 0, BufferType, fn)
	}
	msg, err := stringArg(c, 1, fn)
	if err != nil {
		return err
	}
	if minLen := c.Args[3].I64(); buf.ByteLength() < minLen {
		return status.Errorf(status.InvalidArgument, "%s: buffer of %d bytes is smaller than the required %d", msg, buf.ByteLength(), minLen)
	}
	if want := hal.MemoryType(c.Args[4].I32()); buf.MemoryType()&want != want {
		return status.Errorf(status.InvalidArgument, "%s: buffer memory type %v lacks %v", msg, buf.MemoryType(), want)
	}
	if want := hal.BufferUsage(c.Args[5].I32()); buf.Usage()&want != want {
		return status.Errorf(status.InvalidArgument, "%s: buffer usage %v lacks %v", msg, buf.Usage(), want)
	}
	return nil
}

func (m *Module) bufferSubspan(c *vm.NativeCall) error {
	const fn = "buffer.subspan"
	buf := asBuffer(c.Args[0])
	if buf == nil {
		return badRef(c, 0, BufferType, fn)
	}
	sub, err := buf.Subspan(c.Args[1].I64(), c.Args[2].I64())
	if err != nil {
		return annotate(err, fn)
	}
	c.Results[0] = vm.RefValue(BufferRef(sub))
	return nil
}

func (m *Module) bufferLength(c *vm.NativeCall) error {
	buf := asBuffer(c.Args[0])
	if buf == nil {
		return badRef(c, 0, BufferType, "buffer.length")
	}
	c.Results[0] = vm.I64(buf.ByteLength())
	return nil
}

func scalarWidth(n int32, fn string) (int, error) {
	switch n {
	case 1, 2, 4:
		return int(n), nil
	}
	return 0, status.Errorf(status.InvalidArgument, "hal.%s: length %d must be 1, 2 or 4", fn, n)
}

func (m *Module) bufferLoad(c *vm.NativeCall) error {
	const fn = "buffer.load"
	buf := asBuffer(c.Args[0])
	if buf == nil {
		return badRef(c, 0, BufferType, fn)
	}
	n, err := scalarWidth(c.Args[2].I32(), fn)
	if err != nil {
		return err
	}
	var b [4]byte
	if err := buf.Read(c.Args[1].I64(), b[:n]); err != nil {
		return annotate(err, fn)
	}
	c.Results[0] = vm.I32(int32(binary.LittleEndian.Uint32(b[:])))
	return nil
}

func (m *Module) bufferStore(c *vm.NativeCall) error {
	const fn = "buffer.store"
	buf := asBuffer(c.Args[1])
	if buf == nil {
		return badRef(c, 1, BufferType, fn)
	}
	n, err := scalarWidth(c.Args[3].I32(), fn)
	if err != nil {
		return err
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(c.Args[0].I32()))
	return annotate(buf.Write(c.Args[2].I64(), b[:n]), fn)
}

// Buffer views.

// appendShape appends the i64 arguments from first on to shape.
func appendShape(shape hal.Shape, c *vm.NativeCall, first int) hal.Shape {
	for i := first; i < len(c.Args); i++ {
		shape = append(shape, c.Args[i].I64())
	}
	return shape
}

func (m *Module) bufferViewCreate(c *vm.NativeCall) error {
	const fn = "buffer_view.create"
	buf := asBuffer(c.Args[0])
	if buf == nil {
		return badRef(c, 0, BufferType, fn)
	}
	offset, length := c.Args[1].I64(), c.Args[2].I64()
	// The view takes a reference of its own to the buffer: a new subspan,
	// or the borrowed argument retained.
	if offset != 0 || (length != hal.WholeBuffer && length != buf.ByteLength()) {
		sub, err := buf.Subspan(offset, length)
		if err != nil {
			return annotate(err, fn)
		}
		buf = sub
	} else {
		if err := buf.Live(); err != nil {
			return annotate(err, fn)
		}
		buf.Retain()
	}
	// NewBufferView copies the shape, so it can live on this stack.
	var scratch [8]int64
	shape := appendShape(scratch[:0], c, 5)
	view, err := hal.NewBufferView(buf, shape, hal.ElementType(uint32(c.Args[3].I32())), hal.Encoding(uint32(c.Args[4].I32())))
	if err != nil {
		_ = buf.Release()
		return annotate(err, fn)
	}
	c.Results[0] = vm.RefValue(BufferViewRef(view))
	return nil
}

func (m *Module) bufferViewAssert(c *vm.NativeCall) error {
	const fn = "buffer_view.assert"
	view := asView(c.Args[0])
	if view == nil {
		return badRef(c, 0, BufferViewType, fn)
	}
	// The message is turned into a string only when the assertion fails.
	msgBuf, err := vmBufferArg(c, 1, fn)
	if err != nil {
		return err
	}
	msg := func() string { return string(msgBuf.Bytes()) }
	want := hal.ElementType(uint32(c.Args[2].I32()))
	if view.ElementType() != want {
		return status.Errorf(status.InvalidArgument, "%s: element type mismatch; expected %s but have %s", msg(), want, view.ElementType())
	}
	if enc := hal.Encoding(uint32(c.Args[3].I32())); view.Encoding() != enc {
		return status.Errorf(status.InvalidArgument, "%s: encoding mismatch; expected %v but have %v", msg(), enc, view.Encoding())
	}
	if dims := c.Args[4:]; view.Rank() != len(dims) {
		return status.Errorf(status.InvalidArgument, "%s: rank mismatch; expected rank %d (%s) but have rank %d (%s)", msg(), len(dims), expectedShapeText(c, 4), view.Rank(), shapeText(view.Shape()))
	} else if !shapeMatches(view, dims) {
		return status.Errorf(status.InvalidArgument, "%s: shape mismatch; expected %s but have %s", msg(), expectedShapeText(c, 4), shapeText(view.Shape()))
	}
	return nil
}

// shapeMatches reports whether view, of rank len(dims), has the dimensions
// dims (i64 values), without building either shape. A negative expected
// dimension is a dynamic one: it matches any extent, so that generated
// code can check rank and static extents in one call before it reads the
// dynamic extents with hal.buffer_view.dim.
func shapeMatches(view *hal.BufferView, dims []vm.Value) bool {
	for i, d := range dims {
		want := d.I64()
		if want < 0 {
			continue
		}
		got, err := view.Dim(i)
		if err != nil || got != want {
			return false
		}
	}
	return true
}

func shapeText(s hal.Shape) string {
	if len(s) == 0 {
		return "rank 0"
	}
	return s.String()
}

// expectedShapeText formats the expected dims of an assert from argument
// i on, writing a dynamic (negative) one as '?', e.g. "?x4".
func expectedShapeText(c *vm.NativeCall, i int) string {
	dims := c.Args[i:]
	if len(dims) == 0 {
		return "rank 0"
	}
	var b strings.Builder
	for j, d := range dims {
		if j > 0 {
			b.WriteByte('x')
		}
		if v := d.I64(); v < 0 {
			b.WriteByte('?')
		} else {
			b.WriteString(strconv.FormatInt(v, 10))
		}
	}
	return b.String()
}

func (m *Module) bufferViewBuffer(c *vm.NativeCall) error {
	view := asView(c.Args[0])
	if view == nil {
		return badRef(c, 0, BufferViewType, "buffer_view.buffer")
	}
	if err := view.Live(); err != nil {
		return annotate(err, "buffer_view.buffer")
	}
	// The result is a reference of the caller's own (see vm.NativeCall).
	b := view.Buffer()
	b.Retain()
	c.Results[0] = vm.RefValue(BufferRef(b))
	return nil
}

func (m *Module) bufferViewElementType(c *vm.NativeCall) error {
	view := asView(c.Args[0])
	if view == nil {
		return badRef(c, 0, BufferViewType, "buffer_view.element_type")
	}
	c.Results[0] = vm.I32(int32(view.ElementType()))
	return nil
}

func (m *Module) bufferViewEncodingType(c *vm.NativeCall) error {
	view := asView(c.Args[0])
	if view == nil {
		return badRef(c, 0, BufferViewType, "buffer_view.encoding_type")
	}
	c.Results[0] = vm.I32(int32(view.Encoding()))
	return nil
}

func (m *Module) bufferViewRank(c *vm.NativeCall) error {
	view := asView(c.Args[0])
	if view == nil {
		return badRef(c, 0, BufferViewType, "buffer_view.rank")
	}
	c.Results[0] = vm.I32(int32(view.Rank()))
	return nil
}

func (m *Module) bufferViewDim(c *vm.NativeCall) error {
	const fn = "buffer_view.dim"
	view := asView(c.Args[0])
	if view == nil {
		return badRef(c, 0, BufferViewType, fn)
	}
	d, err := view.Dim(int(c.Args[1].I32()))
	if err != nil {
		return annotate(err, fn)
	}
	c.Results[0] = vm.I64(d)
	return nil
}

// Executables.

func (m *Module) executableCache() (hal.ExecutableCache, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cache == nil {
		cache, err := m.device.CreateExecutableCache("default")
		if err != nil {
			return nil, err
		}
		m.cache = cache
	}
	return m.cache, nil
}

func (m *Module) executableCreate(c *vm.NativeCall) error {
	const fn = "executable.create"
	if err := m.checkDevice(c, 0, fn); err != nil {
		return err
	}
	format, err := stringArg(c, 2, fn)
	if err != nil {
		return err
	}
	data, err := vmBufferArg(c, 3, fn)
	if err != nil {
		return err
	}
	constBuf, err := optVMBuffer(c, 4, fn)
	if err != nil {
		return err
	}
	var constants []uint32
	if constBuf != nil {
		raw := constBuf.Bytes()
		if len(raw)%4 != 0 {
			return status.Errorf(status.InvalidArgument, "hal.%s: constants buffer of %d bytes is not a whole number of 32-bit values", fn, len(raw))
		}
		for i := 0; i < len(raw); i += 4 {
			constants = append(constants, binary.LittleEndian.Uint32(raw[i:]))
		}
	}
	cache, err := m.executableCache()
	if err != nil {
		return annotate(err, fn)
	}
	if !cache.CanPrepareFormat(format) {
		return status.Errorf(status.NotFound, "hal.%s: device %s cannot run executable format %q (it supports: %s)",
			fn, m.device.ID(), format, strings.Join(m.device.ExecutableFormats(), ", "))
	}
	if data.SHA256() == nil && bool(glog.V(1)) {
		glog.Infof("hal.%s: the %s executable (%d bytes) carries no SHA-256 digest (its module was compiled before digests were written), so its bytes are not checked", fn, format, data.Len())
	}
	exe, err := cache.PrepareExecutable(hal.ExecutableParams{
		Name: data.Name(), Format: format, Data: data.Bytes(), Constants: constants,
		CachingMode: hal.CachingAliasProvidedData,
	})
	if err != nil {
		return annotate(err, fn)
	}
	c.Results[0] = vm.RefValue(vm.NewRef(ExecutableType, exe))
	return nil
}

// Command buffers.

func (m *Module) commandBufferCreate(c *vm.NativeCall) error {
	const fn = "command_buffer.create"
	if err := m.checkDevice(c, 0, fn); err != nil {
		return err
	}
	cb, err := m.device.CreateCommandBuffer(hal.CommandBufferMode(uint32(c.Args[1].I32())), hal.CommandCategory(uint32(c.Args[2].I32())))
	if err != nil {
		return annotate(err, fn)
	}
	if err := cb.Begin(); err != nil {
		return annotate(err, fn)
	}
	c.Results[0] = vm.RefValue(vm.NewRef(CommandBufferType, cb))
	return nil
}

func (m *Module) commandBufferBegin(c *vm.NativeCall) error {
	// Command buffers are created recording; begin is accepted for
	// programs written in the older create/begin/end style.
	_, err := commandBufferArg(c, 0, "command_buffer.begin")
	return err
}

func (m *Module) commandBufferEnd(c *vm.NativeCall) error {
	const fn = "command_buffer.end"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	return annotate(cb.End(), fn)
}

func (m *Module) commandBufferBarrier(c *vm.NativeCall) error {
	const fn = "command_buffer.execution_barrier"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	return annotate(cb.ExecutionBarrier(), fn)
}

func (m *Module) commandBufferFill(c *vm.NativeCall) error {
	const fn = "command_buffer.fill_buffer"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	target := asBuffer(c.Args[1])
	if target == nil {
		return badRef(c, 1, BufferType, fn)
	}
	n, err := scalarWidth(c.Args[5].I32(), fn)
	if err != nil {
		return err
	}
	var p [4]byte
	binary.LittleEndian.PutUint32(p[:], uint32(c.Args[4].I32()))
	return annotate(cb.FillBuffer(target, c.Args[2].I64(), c.Args[3].I64(), p[:n]), fn)
}

func (m *Module) commandBufferUpdate(c *vm.NativeCall) error {
	const fn = "command_buffer.update_buffer"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	src, err := vmBufferArg(c, 1, fn)
	if err != nil {
		return err
	}
	target := asBuffer(c.Args[3])
	if target == nil {
		return badRef(c, 3, BufferType, fn)
	}
	off, length := c.Args[2].I64(), c.Args[5].I64()
	if off < 0 || length < 0 || off > int64(src.Len())-length {
		return status.Errorf(status.OutOfRange, "hal.%s: source range [%d, %d+%d) exceeds the %d-byte source buffer", fn, off, off, length, src.Len())
	}
	return annotate(cb.UpdateBuffer(src.Bytes()[off:off+length], target, c.Args[4].I64()), fn)
}

func (m *Module) commandBufferCopy(c *vm.NativeCall) error {
	const fn = "command_buffer.copy_buffer"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	src := asBuffer(c.Args[1])
	if src == nil {
		return badRef(c, 1, BufferType, fn)
	}
	dst := asBuffer(c.Args[3])
	if dst == nil {
		return badRef(c, 3, BufferType, fn)
	}
	return annotate(cb.CopyBuffer(src, c.Args[2].I64(), dst, c.Args[4].I64(), c.Args[5].I64()), fn)
}

func (m *Module) commandBufferPushConstants(c *vm.NativeCall) error {
	const fn = "command_buffer.push_constants"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	var scratch [16]uint32
	values := scratch[:0]
	for _, a := range c.Args[2:] {
		values = append(values, uint32(a.I32()))
	}
	return annotate(cb.PushConstants(int(c.Args[1].I32()), values), fn)
}

func (m *Module) commandBufferPushDescriptorSet(c *vm.NativeCall) error {
	const fn = "command_buffer.push_descriptor_set"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	const tuple = 4 // ordinal i, buffer r, offset I, length I
	rest := len(c.Args) - 2
	if rest%tuple != 0 {
		return status.Errorf(status.InvalidArgument, "hal.%s: %d binding values do not form (ordinal, buffer, offset, length) tuples", fn, rest)
	}
	var scratch [8]hal.Binding
	bindings := scratch[:0]
	for i := 2; i < len(c.Args); i += tuple {
		buf := asBuffer(c.Args[i+1])
		if buf == nil {
			return badRef(c, i+1, BufferType, fn)
		}
		bindings = append(bindings, hal.Binding{
			Ordinal: int(c.Args[i].I32()), Buffer: buf,
			Offset: c.Args[i+2].I64(), Length: c.Args[i+3].I64(),
		})
	}
	return annotate(cb.PushDescriptorSet(int(c.Args[1].I32()), bindings), fn)
}

func (m *Module) commandBufferDispatch(c *vm.NativeCall) error {
	const fn = "command_buffer.dispatch"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	exe, err := executableArg(c, 1, fn)
	if err != nil {
		return err
	}
	// Counts are unsigned 32-bit, as in IREE's HAL (generated code checks
	// that its index counts fit before truncating them); limits are the
	// device's and are checked when recording and submitting.
	x, y, z := uint32(c.Args[3].I32()), uint32(c.Args[4].I32()), uint32(c.Args[5].I32())
	return annotate(cb.Dispatch(exe, int(c.Args[2].I32()), x, y, z), fn)
}

func (m *Module) commandBufferDispatchInline(c *vm.NativeCall) error {
	const fn = "command_buffer.dispatch.inline"
	cb := asCommandBuffer(c.Args[0])
	if cb == nil {
		return badRef(c, 0, CommandBufferType, fn)
	}
	exe, err := executableArg(c, 1, fn)
	if err != nil {
		return err
	}
	// Counts are unsigned 32-bit, as in IREE's HAL (generated code checks
	// that its index counts fit before truncating them); limits are the
	// device's and are checked when recording and submitting.
	x, y, z := uint32(c.Args[3].I32()), uint32(c.Args[4].I32()), uint32(c.Args[5].I32())
	if len(c.Segments) != 2 {
		return status.Errorf(status.Internal, "hal.%s: expected 2 variadic groups, got %d", fn, len(c.Segments))
	}
	nc, nb := c.Segments[0], c.Segments[1]
	const first = 7 // after cb, exe, ordinal, x, y, z, flags
	if len(c.Args) != first+nc+3*nb {
		return status.Errorf(status.Internal, "hal.%s: %d arguments do not match %d constants and %d bindings", fn, len(c.Args), nc, nb)
	}
	var constScratch [16]uint32
	constants := constScratch[:0]
	for _, a := range c.Args[first : first+nc] {
		constants = append(constants, uint32(a.I32()))
	}
	var bindScratch [8]hal.Binding
	bindings := bindScratch[:0]
	for i := first + nc; i < len(c.Args); i += 3 {
		buf := asBuffer(c.Args[i])
		if buf == nil {
			return badRef(c, i, BufferType, fn)
		}
		bindings = append(bindings, hal.Binding{Ordinal: len(bindings), Buffer: buf, Offset: c.Args[i+1].I64(), Length: c.Args[i+2].I64()})
	}
	return annotate(cb.DispatchWith(exe, int(c.Args[2].I32()), [3]uint32{x, y, z}, constants, bindings), fn)
}

// workgroupCountError fails a dispatch whose workgroup counts (index
// values, which generated code found outside the 32-bit counts the HAL
// takes) would otherwise be truncated: the message names the dispatch (the
// rodata string the compiler wrote) and the three counts.
func (m *Module) workgroupCountError(c *vm.NativeCall) error {
	const fn = "ex.workgroup_count_error"
	what, err := stringArg(c, 0, fn)
	if err != nil {
		return err
	}
	x, y, z := c.Args[1].I64(), c.Args[2].I64(), c.Args[3].I64()
	for _, n := range []int64{x, y, z} {
		if n < 0 {
			return status.Errorf(status.OutOfRange, "%s: workgroup count (%d, %d, %d) is negative", what, x, y, z)
		}
	}
	return status.Errorf(status.OutOfRange, "%s: workgroup count (%d, %d, %d) exceeds 4294967295 (2^32-1), the most the HAL takes in one dimension; it is not truncated", what, x, y, z)
}

// Fences.

func (m *Module) fenceCreate(c *vm.NativeCall) error {
	const fn = "fence.create"
	if err := m.checkDevice(c, 0, fn); err != nil {
		return err
	}
	sem, err := m.device.CreateSemaphore(0)
	if err != nil {
		return annotate(err, fn)
	}
	c.Results[0] = vm.RefValue(vm.NewRef(FenceType, hal.NewFence(hal.SemaphorePoint{Semaphore: sem, Value: 1})))
	return nil
}

func fences(c *vm.NativeCall, first int, fn string) ([]*hal.Fence, error) {
	var out []*hal.Fence
	for i := first; i < len(c.Args); i++ {
		f, err := optFence(c, i, fn)
		if err != nil {
			return nil, err
		}
		if f != nil {
			out = append(out, f)
		}
	}
	return out, nil
}

func (m *Module) fenceJoin(c *vm.NativeCall) error {
	fs, err := fences(c, 0, "fence.join")
	if err != nil {
		return err
	}
	joined := hal.NewFence()
	for _, f := range fs {
		for _, p := range f.Points() {
			joined.Insert(p.Semaphore, p.Value)
		}
	}
	c.Results[0] = vm.RefValue(vm.NewRef(FenceType, joined))
	return nil
}

func (m *Module) fenceQuery(c *vm.NativeCall) error {
	f, err := fenceArg(c, 0, "fence.query")
	if err != nil {
		return err
	}
	err = f.Wait(0)
	m.reap()
	c.Results[0] = vm.I32(int32(status.CodeOf(err)))
	return nil
}

func (m *Module) fenceSignal(c *vm.NativeCall) error {
	const fn = "fence.signal"
	f, err := fenceArg(c, 0, fn)
	if err != nil {
		return err
	}
	return annotate(f.Signal(), fn)
}

func (m *Module) fenceFail(c *vm.NativeCall) error {
	f, err := fenceArg(c, 0, "fence.fail")
	if err != nil {
		return err
	}
	code := status.Code(c.Args[1].I32())
	if code == status.OK {
		code = status.Unknown
	}
	f.Fail(status.Errorf(code, "fence failed by the program"))
	return nil
}

func (m *Module) fenceAwait(c *vm.NativeCall) error {
	const fn = "fence.await"
	fs, err := fences(c, 1, fn)
	if err != nil {
		return err
	}
	timeout := hal.InfiniteTimeout
	if ms := c.Args[0].I32(); ms >= 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for _, f := range fs {
		t := timeout
		if timeout > 0 {
			t = max(time.Until(deadline), 0)
		}
		if err := f.Wait(t); err != nil {
			m.reap()
			if status.CodeOf(err) == status.DeadlineExceeded {
				c.Results[0] = vm.I32(int32(status.DeadlineExceeded))
				return nil
			}
			return annotate(err, fn)
		}
	}
	m.reap()
	c.Results[0] = vm.I32(0)
	return nil
}
