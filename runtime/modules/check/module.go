package check

import (
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/tooling/bufferfmt"
	"github.com/goiree/goiree/runtime/vm"
)

// MaxPrintedElements is how many elements of each buffer view a failure
// message prints, as IREE's check module does; longer rows end in "...".
const MaxPrintedElements = 1024

// Failure is one expectation a program broke.
type Failure struct {
	// Function is the check function that failed, e.g. "expect_eq".
	Function string
	// Location is where the program called it ("test.mlir:12:3"), when
	// the module records source locations; "" otherwise.
	Location string
	// Message says what was expected and what was found; for buffer
	// views it ends with both operands printed as iree-run-module prints
	// results (several lines).
	Message string
}

// String is the message prefixed with the location, when known, and the
// function's full name: "test.mlir:12:3: check.expect_eq: Expected ...".
func (f Failure) String() string {
	s := "check." + f.Function + ": " + f.Message
	if f.Location != "" {
		s = f.Location + ": " + s
	}
	return s
}

// Module is the "check" native module. Its failures accumulate until
// TakeFailures; a tool that runs several test functions takes them after
// each. One Module may serve several contexts, one call at a time.
type Module struct {
	mu       sync.Mutex
	failures []Failure
}

// New returns a check module with no failures recorded.
func New() *Module { return &Module{} }

// Name returns "check".
func (m *Module) Name() string { return "check" }

// Functions lists the module's functions with IREE's calling conventions
// (check.imports.mlir).
func (m *Module) Functions() []vm.NativeFunction {
	return []vm.NativeFunction{
		{Name: "expect_true", CallingConvention: "0i_v", Func: m.expectTrue},
		{Name: "expect_false", CallingConvention: "0i_v", Func: m.expectFalse},
		{Name: "expect_all_true", CallingConvention: "0rr_v", Func: m.expectAllTrue},
		{Name: "expect_eq", CallingConvention: "0rrr_v", Func: m.expectEq},
		{Name: "expect_almost_eq", CallingConvention: "0rrrff_v", Func: m.expectAlmostEq},
	}
}

// Failures returns a copy of the failures recorded so far.
func (m *Module) Failures() []Failure {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]Failure(nil), m.failures...)
}

// TakeFailures returns the failures recorded so far and forgets them.
func (m *Module) TakeFailures() []Failure {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.failures
	m.failures = nil
	return f
}

func (m *Module) fail(c *vm.NativeCall, function, message string) {
	f := Failure{Function: function, Message: message, Location: c.CallerLocation()}
	m.mu.Lock()
	m.failures = append(m.failures, f)
	m.mu.Unlock()
}

func (m *Module) expectTrue(c *vm.NativeCall) error {
	if v := c.Args[0].I32(); v == 0 {
		m.fail(c, "expect_true", fmt.Sprintf("Expected %d to be nonzero.", v))
	}
	return nil
}

func (m *Module) expectFalse(c *vm.NativeCall) error {
	if v := c.Args[0].I32(); v != 0 {
		m.fail(c, "expect_false", fmt.Sprintf("Expected %d to be zero.", v))
	}
	return nil
}

func (m *Module) expectAllTrue(c *vm.NativeCall) error {
	const fn = "expect_all_true"
	dev, err := deviceArg(c)
	if err != nil {
		return err
	}
	v, err := readView(c, 1, "operand", dev)
	if err != nil {
		return err
	}
	idx, err := firstFalse(v)
	if err != nil {
		return err
	}
	if idx < 0 {
		return nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Expected all elements to be nonzero. The first zero is at index %d.", idx)
	writeOperand(&b, "operand", v)
	m.fail(c, fn, b.String())
	return nil
}

func (m *Module) expectEq(c *vm.NativeCall) error {
	const fn = "expect_eq"
	dev, err := deviceArg(c)
	if err != nil {
		return err
	}
	lhs, rhs, err := readPair(c, dev)
	if err != nil {
		return err
	}
	typesEq := lhs.ElementType == rhs.ElementType
	shapesEq := shapeEqual(lhs.Shape, rhs.Shape)
	// As in IREE the contents are compared byte for byte (so -0 differs
	// from 0 and a NaN equals a NaN with the same bits), whatever the
	// types and shapes.
	contentsEq := string(lhs.Data) == string(rhs.Data)
	if typesEq && shapesEq && contentsEq {
		return nil
	}
	var b strings.Builder
	b.WriteString("Expected equality of these values.")
	mismatchNotes(&b, typesEq, shapesEq)
	if !contentsEq {
		b.WriteString(" Contents does not match.")
		if typesEq && shapesEq {
			i := firstDifferentElement(lhs.Data, rhs.Data, lhs.ElementType.ByteSize())
			size := lhs.ElementType.ByteSize()
			fmt.Fprintf(&b, " The first failure occurs at index %d as the lhs value %s differs from the rhs value %s.", i,
				bufferfmt.FormatElement(lhs.Data[i*size:(i+1)*size], lhs.ElementType),
				bufferfmt.FormatElement(rhs.Data[i*size:(i+1)*size], rhs.ElementType))
		}
	}
	writeOperand(&b, "lhs", lhs)
	writeOperand(&b, "rhs", rhs)
	m.fail(c, fn, b.String())
	return nil
}

func (m *Module) expectAlmostEq(c *vm.NativeCall) error {
	const fn = "expect_almost_eq"
	dev, err := deviceArg(c)
	if err != nil {
		return err
	}
	lhs, rhs, err := readPair(c, dev)
	if err != nil {
		return err
	}
	atol, rtol := c.Args[3].F32(), c.Args[4].F32()
	typesEq := lhs.ElementType == rhs.ElementType
	shapesEq := shapeEqual(lhs.Shape, rhs.Shape)
	// The contents can only be compared element by element when the types
	// and shapes agree; otherwise the mismatch is reported on its own.
	d := diff{index: -1}
	if typesEq && shapesEq {
		if d, err = firstNotClose(lhs, rhs, float64(atol), float64(rtol)); err != nil {
			return err
		}
	}
	if typesEq && shapesEq && d.index < 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("Expected near equality of these values.")
	mismatchNotes(&b, typesEq, shapesEq)
	if d.index >= 0 {
		// IREE's wording, with C++ stream formatting: %g for the values
		// and tolerances, %.3e for the difference (rhs - lhs).
		fmt.Fprintf(&b, " Contents does not match to tolerance parameters atol=%s, rtol=%s. The first failure occurs at index %d as the lhs value %s differs from the rhs value %s by %s.",
			bufferfmt.Formatg(float64(atol)), bufferfmt.Formatg(float64(rtol)), d.index,
			bufferfmt.Formatg(d.lhs), bufferfmt.Formatg(d.rhs), formatE3(d.rhs-d.lhs))
	}
	writeOperand(&b, "lhs", lhs)
	writeOperand(&b, "rhs", rhs)
	m.fail(c, fn, b.String())
	return nil
}

// formatE3 formats x as C's "%.3e" does, spelling infinities and NaNs
// "inf", "-inf", "nan" and "-nan" as glibc does.
func formatE3(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return bufferfmt.Formatg(x)
	}
	return fmt.Sprintf("%.3e", x)
}

// mismatchNotes appends IREE's notes on mismatched element types and
// shapes.
func mismatchNotes(b *strings.Builder, typesEq, shapesEq bool) {
	if !typesEq {
		b.WriteString(" Element types do not match.")
	}
	if !shapesEq {
		b.WriteString(" Shapes do not match.")
	}
}

// writeOperand appends "\n  <name>:\n    <view as iree-run-module prints
// it>", the layout of IREE's messages.
func writeOperand(b *strings.Builder, name string, v *bufferfmt.Buffer) {
	fmt.Fprintf(b, "\n  %s:\n    ", name)
	s, err := bufferfmt.Format(v.Shape, v.ElementType, v.Data, MaxPrintedElements)
	if err != nil {
		s = fmt.Sprintf("<%s: %v>", viewType(v), err)
	}
	b.WriteString(s)
}

func viewType(v *bufferfmt.Buffer) string {
	if len(v.Shape) == 0 {
		return v.ElementType.String()
	}
	return v.Shape.String() + "x" + v.ElementType.String()
}

func shapeEqual(a, b hal.Shape) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// firstDifferentElement returns the index of the first element whose
// bytes differ between a and b (of equal length), or -1.
func firstDifferentElement(a, b []byte, size int) int {
	for i := 0; (i+1)*size <= len(a); i++ {
		if string(a[i*size:(i+1)*size]) != string(b[i*size:(i+1)*size]) {
			return i
		}
	}
	return -1
}

// deviceArg returns argument 0: the device the program passes, which must
// be a hal.device ref or null. It is needed only to read views whose
// buffers the host cannot map.
func deviceArg(c *vm.NativeCall) (hal.Device, error) {
	r := c.Args[0].Ref()
	if r.IsNull() {
		return nil, nil
	}
	if r.Type() != halmodule.DeviceType {
		return nil, status.Errorf(status.InvalidArgument, "argument 0 (device) is a %s ref, want hal.device", r.Type().Name())
	}
	dev, ok := r.Object().(hal.Device)
	if !ok {
		return nil, status.Errorf(status.InvalidArgument, "argument 0 (device) holds a %T, not a HAL device", r.Object())
	}
	return dev, nil
}

// readPair reads the lhs and rhs views (arguments 1 and 2).
func readPair(c *vm.NativeCall, dev hal.Device) (lhs, rhs *bufferfmt.Buffer, err error) {
	if lhs, err = readView(c, 1, "lhs", dev); err != nil {
		return nil, nil, err
	}
	if rhs, err = readView(c, 2, "rhs", dev); err != nil {
		return nil, nil, err
	}
	return lhs, rhs, nil
}

// readView copies the contents of buffer view argument i to host memory.
// A buffer the host can map is read directly; any other (device-local
// memory without mapping usage) is first copied on dev's queue into a
// host-visible staging buffer, as IREE's check module does.
func readView(c *vm.NativeCall, i int, name string, dev hal.Device) (*bufferfmt.Buffer, error) {
	r := c.Args[i].Ref()
	if r.IsNull() {
		return nil, status.Errorf(status.InvalidArgument, "argument %d (%s) is null, want a hal.buffer_view", i, name)
	}
	if r.Type() != halmodule.BufferViewType {
		return nil, status.Errorf(status.InvalidArgument, "argument %d (%s) is a %s ref, want hal.buffer_view", i, name, r.Type().Name())
	}
	view, ok := r.Object().(*hal.BufferView)
	if !ok {
		return nil, status.Errorf(status.InvalidArgument, "argument %d (%s) holds a %T, not a buffer view", i, name, r.Object())
	}
	if view.Encoding() != hal.EncodingDenseRowMajor {
		return nil, status.Errorf(status.Unimplemented, "%s %s has encoding %v; only dense row-major views can be checked", name, view, view.Encoding())
	}
	data := make([]byte, view.ByteLength())
	if err := readBuffer(view.Buffer(), data, dev); err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", name, view, err)
	}
	return &bufferfmt.Buffer{Shape: view.Shape(), ElementType: view.ElementType(), Data: data}, nil
}

// readBuffer fills dst from the start of b.
func readBuffer(b *hal.Buffer, dst []byte, dev hal.Device) (err error) {
	if len(dst) == 0 {
		return nil
	}
	if b.MemoryType()&hal.MemoryTypeHostVisible != 0 && b.Usage()&hal.BufferUsageMapping != 0 {
		return b.Read(0, dst)
	}
	if dev == nil {
		return status.Errorf(status.FailedPrecondition, "the buffer (memory type %v, usage %v) cannot be mapped and no device was given to copy it", b.MemoryType(), b.Usage())
	}
	staging, err := dev.Allocator().AllocateBuffer(hal.BufferParams{
		Type:  hal.MemoryTypeHostLocal | hal.MemoryTypeDeviceVisible,
		Usage: hal.BufferUsageTransfer | hal.BufferUsageMapping,
	}, int64(len(dst)))
	if err != nil {
		return fmt.Errorf("allocating a staging buffer: %w", err)
	}
	defer func() {
		if rerr := staging.Release(); rerr != nil && err == nil {
			err = fmt.Errorf("releasing the staging buffer: %w", rerr)
		}
	}()
	cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryTransfer)
	if err != nil {
		return fmt.Errorf("copying to the host: %w", err)
	}
	if err := cb.Begin(); err != nil {
		return fmt.Errorf("copying to the host: %w", err)
	}
	if err := cb.CopyBuffer(b, 0, staging, 0, int64(len(dst))); err != nil {
		return fmt.Errorf("copying to the host: %w", err)
	}
	if err := cb.End(); err != nil {
		return fmt.Errorf("copying to the host: %w", err)
	}
	if err := hal.SubmitAndWait(dev, cb); err != nil {
		return fmt.Errorf("copying to the host: %w", err)
	}
	return staging.Read(0, dst)
}
