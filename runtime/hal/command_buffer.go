package hal

import (
	"fmt"
	"slices"

	"github.com/goiree/goiree/runtime/base/status"
)

// CommandBufferMode are IREE's command buffer mode flags.
type CommandBufferMode uint32

// Command buffer modes.
const (
	CommandBufferModeOneShot              CommandBufferMode = 1 << 0
	CommandBufferModeNested               CommandBufferMode = 1 << 1
	CommandBufferModeAllowInlineExecution CommandBufferMode = 1 << 4
	CommandBufferModeUnvalidated          CommandBufferMode = 1 << 5
)

// CommandCategory says which kinds of commands a buffer may hold.
type CommandCategory uint32

// Command categories.
const (
	CommandCategoryTransfer CommandCategory = 1 << 0
	CommandCategoryDispatch CommandCategory = 1 << 1
	CommandCategoryAny                      = CommandCategoryTransfer | CommandCategoryDispatch
)

// Limits enforced when recording.
const (
	// MaxConstants is the most 32-bit constants one dispatch may take.
	MaxConstants = 64
	// MaxBindings is the most bindings one dispatch may take.
	MaxBindings = 64
	// MaxUpdateSize bounds inline data recorded by UpdateBuffer (64 KiB).
	MaxUpdateSize = 64 << 10
	// MaxWorkgroupCountZ is the largest z workgroup count (16 bits in the
	// CPU ABI).
	MaxWorkgroupCountZ = 1<<16 - 1
	// MaxWorkgroupTotal bounds x*y*z for one dispatch (2^40).
	MaxWorkgroupTotal = uint64(1) << 40
)

// Command is one recorded command; it is one of *FillCommand,
// *UpdateCommand, *CopyCommand, *DispatchCommand or *BarrierCommand.
type Command interface{ command() }

// FillCommand fills [Offset, Offset+Length) of Target with Pattern.
type FillCommand struct {
	Target         *Buffer
	Offset, Length int64
	Pattern        []byte
}

// UpdateCommand writes Data to Target at Offset.
type UpdateCommand struct {
	Target *Buffer
	Offset int64
	Data   []byte
}

// CopyCommand copies Length bytes from Source at SourceOffset to Target at
// TargetOffset.
type CopyCommand struct {
	Source       *Buffer
	SourceOffset int64
	Target       *Buffer
	TargetOffset int64
	Length       int64
}

// BindingRange is a resolved dispatch binding: Length bytes at Offset of
// Buffer (both relative to Buffer).
type BindingRange struct {
	Buffer         *Buffer
	Offset, Length int64
}

// DispatchCommand runs export Ordinal of Executable over Workgroups with the
// given constants and bindings (snapshots taken when recorded).
type DispatchCommand struct {
	Executable Executable
	Ordinal    int
	Workgroups [3]uint32
	Constants  []uint32
	Bindings   []BindingRange
}

// BarrierCommand orders everything before it before everything after it.
type BarrierCommand struct{}

func (*FillCommand) command()     {}
func (*UpdateCommand) command()   {}
func (*CopyCommand) command()     {}
func (*DispatchCommand) command() {}
func (*BarrierCommand) command()  {}

// Binding is one entry of PushDescriptorSet: binding Ordinal of a set is
// Length bytes at Offset of Buffer (Length may be WholeBuffer).
type Binding struct {
	Ordinal        int
	Buffer         *Buffer
	Offset, Length int64
}

type cbState int

const (
	cbInitial cbState = iota
	cbRecording
	cbExecutable
)

// CommandBuffer records commands for later execution by a device. Every
// command is validated when recorded. A command buffer is not safe for
// concurrent recording; once ended it may be executed by several queues.
type CommandBuffer struct {
	mode       CommandBufferMode
	categories CommandCategory
	state      cbState
	commands   []Command
	// inline backs commands for the first few, so that a short command
	// buffer (a dispatch and a barrier) needs no separate allocation.
	inline [3]Command
	// first holds the first dispatch recorded when its constants and
	// bindings fit, so that creating a command buffer and recording a small
	// dispatch is a single allocation.
	first     firstRecord
	usedFirst bool

	// push holds what PushConstants and PushDescriptorSet set, allocated
	// on first use.
	push *pushState
}

// pushState is the constants and descriptor-set bindings pushed so far.
type pushState struct {
	// constants [0, len) have been set (or zero-filled); cstore backs it
	// while it is short.
	constants []uint32
	cstore    [16]uint32
	// bindings is sorted by key (set*MaxBindings + ordinal); bstore backs
	// it while it is short.
	bindings []keyedBinding
	bstore   [4]keyedBinding
}

type keyedBinding struct {
	key int
	r   BindingRange
}

func (cb *CommandBuffer) pushed() *pushState {
	if cb.push == nil {
		p := new(pushState)
		p.constants, p.bindings = p.cstore[:0], p.bstore[:0]
		cb.push = p
	}
	return cb.push
}

// setBinding sets binding key, keeping the list sorted.
func (p *pushState) setBinding(key int, r BindingRange) {
	i, found := slices.BinarySearchFunc(p.bindings, key, func(b keyedBinding, k int) int { return b.key - k })
	if found {
		p.bindings[i].r = r
		return
	}
	p.bindings = slices.Insert(p.bindings, i, keyedBinding{key, r})
}

// NewCommandBuffer returns an empty command buffer in the initial state.
func NewCommandBuffer(mode CommandBufferMode, categories CommandCategory) *CommandBuffer {
	if categories == 0 {
		categories = CommandCategoryAny
	}
	cb := &CommandBuffer{mode: mode, categories: categories}
	cb.commands = cb.inline[:0]
	return cb
}

// Mode returns the mode flags.
func (cb *CommandBuffer) Mode() CommandBufferMode { return cb.mode }

// Categories returns the allowed command categories.
func (cb *CommandBuffer) Categories() CommandCategory { return cb.categories }

// Begin starts recording.
func (cb *CommandBuffer) Begin() error {
	if cb.state != cbInitial {
		return status.Errorf(status.FailedPrecondition, "command buffer begin: already begun")
	}
	cb.state = cbRecording
	return nil
}

// End finishes recording; the buffer can then be executed.
func (cb *CommandBuffer) End() error {
	if cb.state != cbRecording {
		return status.Errorf(status.FailedPrecondition, "command buffer end: not recording")
	}
	cb.state = cbExecutable
	return nil
}

// IsExecutable reports whether End was called.
func (cb *CommandBuffer) IsExecutable() bool { return cb.state == cbExecutable }

// Commands returns the recorded commands in order.
func (cb *CommandBuffer) Commands() []Command { return cb.commands }

func (cb *CommandBuffer) recording(op string, cat CommandCategory) error {
	if cb.state != cbRecording {
		return status.Errorf(status.FailedPrecondition, "%s: command buffer is not recording", op)
	}
	if cb.categories&cat == 0 {
		return status.Errorf(status.FailedPrecondition, "%s: command buffer does not allow this command category", op)
	}
	return nil
}

func checkBuffer(op, what string, b *Buffer, usage BufferUsage) error {
	if b == nil {
		return status.Errorf(status.InvalidArgument, "%s: %s buffer is null", op, what)
	}
	if err := b.live(); err != nil {
		return errContext(err, "%s: %s", op, what)
	}
	if b.Usage()&usage == 0 {
		return status.Errorf(status.FailedPrecondition, "%s: %s buffer usage %v lacks %v", op, what, b.Usage(), usage)
	}
	return nil
}

// ExecutionBarrier records a full barrier.
func (cb *CommandBuffer) ExecutionBarrier() error {
	if err := cb.recording("execution barrier", CommandCategoryAny); err != nil {
		return err
	}
	cb.commands = append(cb.commands, &BarrierCommand{})
	return nil
}

// FillBuffer records a fill of [offset, offset+length) of target with a 1-,
// 2- or 4-byte pattern.
func (cb *CommandBuffer) FillBuffer(target *Buffer, offset, length int64, pattern []byte) error {
	const op = "fill buffer"
	if err := cb.recording(op, CommandCategoryTransfer); err != nil {
		return err
	}
	if err := checkBuffer(op, "target", target, BufferUsageTransferTarget); err != nil {
		return err
	}
	n, err := CheckRange(offset, length, target.ByteLength())
	if err != nil {
		return errContext(err, "%s: target", op)
	}
	if err := checkFillPattern(offset, n, pattern); err != nil {
		return errContext(err, "%s", op)
	}
	cb.commands = append(cb.commands, &FillCommand{Target: target, Offset: offset, Length: n, Pattern: slices.Clone(pattern)})
	return nil
}

// UpdateBuffer records a write of data (copied now) to target at offset.
func (cb *CommandBuffer) UpdateBuffer(data []byte, target *Buffer, offset int64) error {
	const op = "update buffer"
	if err := cb.recording(op, CommandCategoryTransfer); err != nil {
		return err
	}
	if err := checkBuffer(op, "target", target, BufferUsageTransferTarget); err != nil {
		return err
	}
	if len(data) > MaxUpdateSize {
		return status.Errorf(status.OutOfRange, "%s: %d bytes exceeds the %d-byte inline update limit", op, len(data), MaxUpdateSize)
	}
	if _, err := CheckRange(offset, int64(len(data)), target.ByteLength()); err != nil {
		return errContext(err, "%s: target", op)
	}
	cb.commands = append(cb.commands, &UpdateCommand{Target: target, Offset: offset, Data: slices.Clone(data)})
	return nil
}

// CopyBuffer records a copy of length bytes (WholeBuffer: the rest of the
// source) between two buffers. Overlapping ranges of one allocation are
// rejected.
func (cb *CommandBuffer) CopyBuffer(source *Buffer, sourceOffset int64, target *Buffer, targetOffset, length int64) error {
	const op = "copy buffer"
	if err := cb.recording(op, CommandCategoryTransfer); err != nil {
		return err
	}
	if err := checkBuffer(op, "source", source, BufferUsageTransferSource); err != nil {
		return err
	}
	if err := checkBuffer(op, "target", target, BufferUsageTransferTarget); err != nil {
		return err
	}
	n, err := CheckRange(sourceOffset, length, source.ByteLength())
	if err != nil {
		return errContext(err, "%s: source", op)
	}
	if _, err := CheckRange(targetOffset, n, target.ByteLength()); err != nil {
		return errContext(err, "%s: target", op)
	}
	if source.SameAllocation(target) && n > 0 {
		s := source.ByteOffset() + sourceOffset
		t := target.ByteOffset() + targetOffset
		if s < t+n && t < s+n {
			return status.Errorf(status.InvalidArgument, "%s: source range [%d, %d) and target range [%d, %d) overlap in one allocation", op, s, s+n, t, t+n)
		}
	}
	cb.commands = append(cb.commands, &CopyCommand{Source: source, SourceOffset: sourceOffset, Target: target, TargetOffset: targetOffset, Length: n})
	return nil
}

// PushConstants sets constants [offset, offset+len(values)) for following
// dispatches.
func (cb *CommandBuffer) PushConstants(offset int, values []uint32) error {
	const op = "push constants"
	if err := cb.recording(op, CommandCategoryDispatch); err != nil {
		return err
	}
	if offset < 0 || len(values) > MaxConstants || offset > MaxConstants-len(values) {
		return status.Errorf(status.OutOfRange, "%s: range [%d, %d) exceeds the %d-constant limit", op, offset, offset+len(values), MaxConstants)
	}
	p := cb.pushed()
	if need := offset + len(values); len(p.constants) < need {
		p.constants = append(p.constants, make([]uint32, need-len(p.constants))...)
	}
	copy(p.constants[offset:], values)
	return nil
}

// PushDescriptorSet sets bindings of descriptor set `set` for following
// dispatches. Dispatches receive the bound ranges in (set, ordinal) order.
func (cb *CommandBuffer) PushDescriptorSet(set int, bindings []Binding) error {
	const op = "push descriptor set"
	if err := cb.recording(op, CommandCategoryDispatch); err != nil {
		return err
	}
	if set < 0 || set >= 4 {
		return status.Errorf(status.OutOfRange, "%s: set %d out of range [0, 4)", op, set)
	}
	for _, b := range bindings {
		if b.Ordinal < 0 || b.Ordinal >= MaxBindings {
			return status.Errorf(status.OutOfRange, "%s: binding ordinal %d out of range [0, %d)", op, b.Ordinal, MaxBindings)
		}
		r, err := resolveBinding(op, b.Ordinal, b.Buffer, b.Offset, b.Length)
		if err != nil {
			return err
		}
		cb.pushed().setBinding(set*MaxBindings+b.Ordinal, r)
	}
	return nil
}

func resolveBinding(op string, ordinal int, buf *Buffer, offset, length int64) (BindingRange, error) {
	const usage = BufferUsageDispatchStorage | BufferUsageDispatchUniformRead
	if buf == nil || buf.unusable() || buf.Usage()&usage == 0 {
		return BindingRange{}, checkBuffer(op, fmt.Sprintf("binding %d", ordinal), buf, usage)
	}
	n, err := CheckRange(offset, length, buf.ByteLength())
	if err != nil {
		if length >= 0 && offset >= 0 {
			return BindingRange{}, status.Errorf(status.OutOfRange, "%s: binding %d range [%d, %s) exceeds buffer of %d bytes", op, ordinal, offset, rangeEnd(offset, length), buf.ByteLength())
		}
		return BindingRange{}, errContext(err, "%s: binding %d", op, ordinal)
	}
	return BindingRange{Buffer: buf, Offset: offset, Length: n}, nil
}

// Dispatch records a dispatch of export ordinal of exe over (x, y, z)
// workgroups using the constants and bindings pushed so far. When the export
// declares counts, exactly that many constants and bindings are passed.
func (cb *CommandBuffer) Dispatch(exe Executable, ordinal int, x, y, z uint32) error {
	var constants []uint32
	var scratch [recordBindings]BindingRange
	bindings := scratch[:0]
	if p := cb.push; p != nil {
		if len(p.constants) > 0 {
			constants = p.constants
		}
		for _, b := range p.bindings {
			bindings = append(bindings, b.r)
		}
	}
	if len(bindings) == 0 {
		bindings = nil
	}
	if exe != nil && ordinal >= 0 && ordinal < len(exe.Exports()) {
		e := exe.Exports()[ordinal]
		if e.ConstantCount >= 0 && e.ConstantCount < len(constants) {
			constants = constants[:e.ConstantCount]
		}
		if e.BindingCount >= 0 && e.BindingCount < len(bindings) {
			bindings = bindings[:e.BindingCount]
		}
	}
	return cb.dispatch(exe, ordinal, [3]uint32{x, y, z}, constants, bindings)
}

// DispatchWith records a dispatch with explicit constants and bindings (the
// flat form of IREE's current HAL): bindings[i] is binding i.
func (cb *CommandBuffer) DispatchWith(exe Executable, ordinal int, workgroups [3]uint32, constants []uint32, bindings []Binding) error {
	var scratch [recordBindings]BindingRange
	ranges := scratch[:0]
	if len(bindings) > len(scratch) {
		ranges = make([]BindingRange, 0, len(bindings))
	}
	for i, b := range bindings {
		r, err := resolveBinding("dispatch", i, b.Buffer, b.Offset, b.Length)
		if err != nil {
			return err
		}
		ranges = append(ranges, r)
	}
	return cb.dispatch(exe, ordinal, workgroups, constants, ranges)
}

// Capacities of the arrays a dispatchRecord carries inline.
const (
	recordConstants = 16
	recordBindings  = 8
)

// dispatchRecord is a DispatchCommand with room for its constants and
// bindings, so that recording a typical dispatch is one allocation.
type dispatchRecord struct {
	cmd       DispatchCommand
	constants [recordConstants]uint32
	bindings  [recordBindings]BindingRange
}

// dispatch records a validated dispatch. constants and bindings are copied,
// into the record when they fit (the caller's slices may live on its stack).
func (cb *CommandBuffer) dispatch(exe Executable, ordinal int, wg [3]uint32, constants []uint32, bindings []BindingRange) error {
	const op = "dispatch"
	if err := cb.recording(op, CommandCategoryDispatch); err != nil {
		return err
	}
	if err := ValidateDispatch(exe, ordinal, wg, constants, bindings); err != nil {
		return err
	}
	var cmd *DispatchCommand
	var constStore []uint32
	var bindStore []BindingRange
	if !cb.usedFirst && len(constants) <= len(cb.first.constants) && len(bindings) <= len(cb.first.bindings) {
		cb.usedFirst = true
		cmd, constStore, bindStore = &cb.first.cmd, cb.first.constants[:], cb.first.bindings[:]
	} else {
		rec := new(dispatchRecord)
		cmd, constStore, bindStore = &rec.cmd, rec.constants[:], rec.bindings[:]
	}
	*cmd = DispatchCommand{Executable: exe, Ordinal: ordinal, Workgroups: wg}
	switch {
	case constants == nil:
	case len(constants) <= len(constStore):
		cmd.Constants = constStore[:len(constants):len(constants)]
		copy(cmd.Constants, constants)
	default:
		cmd.Constants = slices.Clone(constants)
	}
	switch {
	case bindings == nil:
	case len(bindings) <= len(bindStore):
		cmd.Bindings = bindStore[:len(bindings):len(bindings)]
		copy(cmd.Bindings, bindings)
	default:
		cmd.Bindings = slices.Clone(bindings)
	}
	cb.commands = append(cb.commands, cmd)
	return nil
}

// firstRecord is the smaller dispatch record a CommandBuffer carries for
// its first dispatch (most host programs record one small dispatch).
type firstRecord struct {
	cmd       DispatchCommand
	constants [8]uint32
	bindings  [4]BindingRange
}

// ValidateDispatch checks a dispatch against the executable's export table:
// ordinal in range, workgroup counts within limits, constant and binding
// counts as declared, and every binding range inside its buffer. A zero
// workgroup count is valid (the dispatch does nothing).
func ValidateDispatch(exe Executable, ordinal int, wg [3]uint32, constants []uint32, bindings []BindingRange) error {
	const op = "dispatch"
	if exe == nil {
		return status.Errorf(status.InvalidArgument, "%s: executable is null", op)
	}
	exports := exe.Exports()
	if ordinal < 0 || ordinal >= len(exports) {
		return status.Errorf(status.OutOfRange, "%s: entry point ordinal %d out of range: executable has %d export(s)", op, ordinal, len(exports))
	}
	e := exports[ordinal]
	if err := validateExportDispatch(e, wg, constants, bindings); err == nil {
		return nil
	}
	name := fmt.Sprintf("export %d", ordinal)
	if e.Name != "" {
		name = fmt.Sprintf("export %d (%q)", ordinal, e.Name)
	}
	if wg[2] > MaxWorkgroupCountZ {
		return status.Errorf(status.OutOfRange, "%s %s: workgroup count z %d exceeds %d", op, name, wg[2], MaxWorkgroupCountZ)
	}
	if total := uint64(wg[0]) * uint64(wg[1]) * uint64(wg[2]); total > MaxWorkgroupTotal {
		// uint64 cannot overflow here: 2^32 * 2^32 * 2^16 would, but z is
		// already bounded by 2^16 and x*y < 2^64.
		return status.Errorf(status.OutOfRange, "%s %s: workgroup count (%d, %d, %d) is %d workgroups, over the limit of %d", op, name, wg[0], wg[1], wg[2], total, MaxWorkgroupTotal)
	}
	if len(constants) > MaxConstants {
		return status.Errorf(status.OutOfRange, "%s %s: %d constants exceed the limit of %d", op, name, len(constants), MaxConstants)
	}
	if e.ConstantCount >= 0 && len(constants) != e.ConstantCount {
		return status.Errorf(status.InvalidArgument, "%s %s: expects %d constant(s) but %d were provided", op, name, e.ConstantCount, len(constants))
	}
	if len(bindings) > MaxBindings {
		return status.Errorf(status.OutOfRange, "%s %s: %d bindings exceed the limit of %d", op, name, len(bindings), MaxBindings)
	}
	if e.BindingCount >= 0 && len(bindings) != e.BindingCount {
		return status.Errorf(status.InvalidArgument, "%s %s: expects %d binding(s) but %d were provided", op, name, e.BindingCount, len(bindings))
	}
	for i, b := range bindings {
		if b.Buffer == nil {
			return status.Errorf(status.InvalidArgument, "%s %s: binding %d has no buffer", op, name, i)
		}
		if err := b.Buffer.live(); err != nil {
			return errContext(err, "%s %s: binding %d", op, name, i)
		}
		if b.Offset < 0 || b.Length < 0 || b.Offset > b.Buffer.ByteLength()-b.Length {
			return status.Errorf(status.OutOfRange, "%s %s: binding %d range [%d, %s) exceeds buffer of %d bytes", op, name, i, b.Offset, rangeEnd(b.Offset, b.Length), b.Buffer.ByteLength())
		}
	}
	return nil
}

// validateExportDispatch is the allocation-free fast path of
// ValidateDispatch: it reports whether any check fails, and ValidateDispatch
// then builds the precise message.
func validateExportDispatch(e ExportInfo, wg [3]uint32, constants []uint32, bindings []BindingRange) error {
	if wg[2] > MaxWorkgroupCountZ || uint64(wg[0])*uint64(wg[1])*uint64(wg[2]) > MaxWorkgroupTotal ||
		len(constants) > MaxConstants || len(bindings) > MaxBindings ||
		e.ConstantCount >= 0 && len(constants) != e.ConstantCount ||
		e.BindingCount >= 0 && len(bindings) != e.BindingCount {
		return errInvalidDispatch
	}
	for _, b := range bindings {
		if b.Buffer == nil || b.Buffer.unusable() || b.Offset < 0 || b.Length < 0 || b.Offset > b.Buffer.ByteLength()-b.Length {
			return errInvalidDispatch
		}
	}
	return nil
}

var errInvalidDispatch = status.Errorf(status.InvalidArgument, "invalid dispatch")
