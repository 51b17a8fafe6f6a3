package hal

import (
	"fmt"
	"strings"
	"testing"
)

// metadataExecutable is an Executable that only carries an export table;
// command buffer validation reads nothing else.
type metadataExecutable struct{ exports []ExportInfo }

func (e *metadataExecutable) Format() string        { return "test-metadata" }
func (e *metadataExecutable) Exports() []ExportInfo { return e.exports }
func (e *metadataExecutable) Release() error        { return nil }

func TestCommandBufferValidation(t *testing.T) {
	exe := &metadataExecutable{exports: []ExportInfo{
		{Name: "mul", ConstantCount: 1, BindingCount: 3},
		{Name: "any", ConstantCount: -1, BindingCount: -1},
	}}
	big := newTestBuffer(t, 4096)
	small := newTestBuffer(t, 1024)
	transferOnly, err := NewHostAllocator(0).AllocateBuffer(BufferParams{Usage: BufferUsageTransfer}, 64)
	if err != nil {
		t.Fatal(err)
	}
	bind3 := func(b2 *Buffer, len2 int64) []Binding {
		return []Binding{{0, big, 0, 4096}, {1, big, 0, 4096}, {2, b2, 0, len2}}
	}
	tests := []struct {
		name   string
		record func(cb *CommandBuffer) error
		err    string
	}{
		{"ok dispatch", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 0, [3]uint32{4, 1, 1}, []uint32{7}, bind3(big, WholeBuffer))
		}, ""},
		{"binding exceeds buffer", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, []uint32{7}, bind3(small, 4096))
		}, "dispatch: binding 2 range [0, 4096) exceeds buffer of 1024 bytes"},
		{"push binding exceeds buffer", func(cb *CommandBuffer) error {
			return cb.PushDescriptorSet(0, bind3(small, 4096))
		}, "push descriptor set: binding 2 range [0, 4096) exceeds buffer of 1024 bytes"},
		{"binding offset overflow", func(cb *CommandBuffer) error {
			return cb.PushDescriptorSet(0, []Binding{{0, small, 8, 1<<63 - 1}})
		}, "binding 0 range [8, overflow) exceeds buffer of 1024 bytes"},
		{"constant count", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, []uint32{1, 2}, bind3(big, 16))
		}, `dispatch export 0 ("mul"): expects 1 constant(s) but 2 were provided`},
		{"binding count", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 0, [3]uint32{1, 1, 1}, []uint32{1}, bind3(big, 16)[:2])
		}, `dispatch export 0 ("mul"): expects 3 binding(s) but 2 were provided`},
		{"ordinal out of range", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 2, [3]uint32{1, 1, 1}, nil, nil)
		}, "dispatch: entry point ordinal 2 out of range: executable has 2 export(s)"},
		{"negative ordinal", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, -1, [3]uint32{1, 1, 1}, nil, nil)
		}, "entry point ordinal -1 out of range"},
		{"huge z", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 1, [3]uint32{1, 1, 70000}, nil, nil)
		}, `dispatch export 1 ("any"): workgroup count z 70000 exceeds 65535`},
		{"huge total", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 1, [3]uint32{1 << 31, 1 << 31, 1}, nil, nil)
		}, "workgroup count (2147483648, 2147483648, 1) is 4611686018427387904 workgroups, over the limit of 1099511627776"},
		{"zero workgroups allowed", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 1, [3]uint32{0, 1, 1}, nil, nil)
		}, ""},
		{"null executable", func(cb *CommandBuffer) error {
			return cb.DispatchWith(nil, 0, [3]uint32{1, 1, 1}, nil, nil)
		}, "dispatch: executable is null"},
		{"null binding buffer", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 1, [3]uint32{1, 1, 1}, nil, []Binding{{0, nil, 0, 0}})
		}, "dispatch: binding 0 buffer is null"},
		{"binding usage", func(cb *CommandBuffer) error {
			return cb.DispatchWith(exe, 1, [3]uint32{1, 1, 1}, nil, []Binding{{0, transferOnly, 0, 4}})
		}, "binding 0 buffer usage TRANSFER lacks DISPATCH_UNIFORM_READ|DISPATCH_STORAGE"},
		{"too many constants", func(cb *CommandBuffer) error {
			return cb.PushConstants(60, make([]uint32, 5))
		}, "push constants: range [60, 65) exceeds the 64-constant limit"},
		{"push then dispatch", func(cb *CommandBuffer) error {
			if err := cb.PushConstants(0, []uint32{3}); err != nil {
				return err
			}
			if err := cb.PushDescriptorSet(0, bind3(small, 512)); err != nil {
				return err
			}
			return cb.Dispatch(exe, 0, 1, 1, 1)
		}, ""},
		{"fill out of range", func(cb *CommandBuffer) error {
			return cb.FillBuffer(small, 1020, 8, []byte{0, 0, 0, 0})
		}, "fill buffer: target: range [1020, 1028) exceeds buffer of 1024 bytes"},
		{"update out of range", func(cb *CommandBuffer) error {
			return cb.UpdateBuffer(make([]byte, 8), small, 1020)
		}, "update buffer: target: range [1020, 1028) exceeds buffer of 1024 bytes"},
		{"copy out of range", func(cb *CommandBuffer) error {
			return cb.CopyBuffer(big, 0, small, 512, 1024)
		}, "copy buffer: target: range [512, 1536) exceeds buffer of 1024 bytes"},
		{"copy overlap", func(cb *CommandBuffer) error {
			return cb.CopyBuffer(big, 0, big, 100, 200)
		}, "copy buffer: source range [0, 200) and target range [100, 300) overlap in one allocation"},
		{"copy source usage", func(cb *CommandBuffer) error {
			b, _ := NewHostAllocator(0).AllocateBuffer(BufferParams{Usage: BufferUsageTransferTarget}, 8)
			return cb.CopyBuffer(b, 0, small, 0, 8)
		}, "copy buffer: source buffer usage TRANSFER_TARGET lacks TRANSFER_SOURCE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cb := NewCommandBuffer(CommandBufferModeOneShot, CommandCategoryAny)
			if err := cb.Begin(); err != nil {
				t.Fatal(err)
			}
			err := tt.record(cb)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error = %v\nwant containing %q", err, tt.err)
			}
			if len(cb.Commands()) != 0 {
				t.Errorf("rejected command was recorded")
			}
		})
	}
}

func TestCommandBufferStates(t *testing.T) {
	b := newTestBuffer(t, 16)
	cb := NewCommandBuffer(0, CommandCategoryTransfer)
	if err := cb.FillBuffer(b, 0, 16, []byte{1}); err == nil || !strings.Contains(err.Error(), "not recording") {
		t.Errorf("fill before begin: %v", err)
	}
	if err := cb.End(); err == nil {
		t.Error("end before begin succeeded")
	}
	cb.Begin()
	if err := cb.Begin(); err == nil {
		t.Error("second begin succeeded")
	}
	if err := cb.PushConstants(0, []uint32{1}); err == nil || !strings.Contains(err.Error(), "category") {
		t.Errorf("dispatch command in transfer-only buffer: %v", err)
	}
	if err := cb.FillBuffer(b, 0, 16, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := cb.ExecutionBarrier(); err != nil {
		t.Fatal(err)
	}
	if err := cb.End(); err != nil {
		t.Fatal(err)
	}
	if !cb.IsExecutable() || len(cb.Commands()) != 2 {
		t.Errorf("executable=%v commands=%d", cb.IsExecutable(), len(cb.Commands()))
	}
	if err := cb.ExecutionBarrier(); err == nil {
		t.Error("record after end succeeded")
	}
}

func TestDispatchSnapshotsState(t *testing.T) {
	exe := &metadataExecutable{exports: []ExportInfo{{Name: "k", ConstantCount: 1, BindingCount: 1}}}
	b := newTestBuffer(t, 64)
	cb := NewCommandBuffer(0, 0)
	cb.Begin()
	cb.PushConstants(0, []uint32{1})
	cb.PushDescriptorSet(0, []Binding{{0, b, 0, 32}})
	if err := cb.Dispatch(exe, 0, 1, 1, 1); err != nil {
		t.Fatal(err)
	}
	cb.PushConstants(0, []uint32{2})
	cb.PushDescriptorSet(0, []Binding{{0, b, 32, 32}})
	if err := cb.Dispatch(exe, 0, 2, 1, 1); err != nil {
		t.Fatal(err)
	}
	d0 := cb.Commands()[0].(*DispatchCommand)
	d1 := cb.Commands()[1].(*DispatchCommand)
	if d0.Constants[0] != 1 || d0.Bindings[0].Offset != 0 || d1.Constants[0] != 2 || d1.Bindings[0].Offset != 32 {
		t.Errorf("dispatch snapshots: %+v %+v", d0, d1)
	}
}

// TestPushedStateOrder checks what Dispatch takes from pushed state:
// constants zero-filled up to the highest one set, bindings in (set,
// ordinal) order with later pushes replacing earlier ones, both cut to the
// export's declared counts; and that more than fit inline still work.
func TestPushedStateOrder(t *testing.T) {
	b := newTestBuffer(t, 4096)
	for _, tt := range []struct {
		name            string
		constants, bind int // declared counts (-1: any)
		push            func(cb *CommandBuffer) error
		wantConstants   []uint32
		wantOffsets     []int64
	}{
		{"order and replace", -1, -1, func(cb *CommandBuffer) error {
			if err := cb.PushConstants(2, []uint32{7}); err != nil {
				return err
			}
			if err := cb.PushConstants(0, []uint32{5}); err != nil {
				return err
			}
			if err := cb.PushDescriptorSet(1, []Binding{{0, b, 40, 4}}); err != nil {
				return err
			}
			if err := cb.PushDescriptorSet(0, []Binding{{2, b, 20, 4}, {0, b, 0, 4}}); err != nil {
				return err
			}
			return cb.PushDescriptorSet(0, []Binding{{2, b, 24, 4}})
		}, []uint32{5, 0, 7}, []int64{0, 24, 40}},
		{"cut to declared counts", 1, 2, func(cb *CommandBuffer) error {
			if err := cb.PushConstants(0, []uint32{1, 2, 3}); err != nil {
				return err
			}
			return cb.PushDescriptorSet(0, []Binding{{0, b, 0, 4}, {1, b, 8, 4}, {2, b, 16, 4}})
		}, []uint32{1}, []int64{0, 8}},
		{"many", -1, -1, func(cb *CommandBuffer) error {
			var bs []Binding
			var cs []uint32
			for i := 11; i >= 0; i-- {
				bs = append(bs, Binding{i, b, int64(8 * i), 8})
			}
			for i := 0; i < 20; i++ {
				cs = append(cs, uint32(i))
			}
			if err := cb.PushConstants(0, cs); err != nil {
				return err
			}
			return cb.PushDescriptorSet(0, bs)
		}, []uint32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}, []int64{0, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			exe := &metadataExecutable{exports: []ExportInfo{{Name: "k", ConstantCount: tt.constants, BindingCount: tt.bind}}}
			cb := NewCommandBuffer(0, 0)
			cb.Begin()
			if err := tt.push(cb); err != nil {
				t.Fatal(err)
			}
			if err := cb.Dispatch(exe, 0, 1, 1, 1); err != nil {
				t.Fatal(err)
			}
			d := cb.Commands()[0].(*DispatchCommand)
			if fmt.Sprint(d.Constants) != fmt.Sprint(tt.wantConstants) {
				t.Errorf("constants = %v, want %v", d.Constants, tt.wantConstants)
			}
			var offsets []int64
			for _, r := range d.Bindings {
				offsets = append(offsets, r.Offset)
			}
			if fmt.Sprint(offsets) != fmt.Sprint(tt.wantOffsets) {
				t.Errorf("binding offsets = %v, want %v", offsets, tt.wantOffsets)
			}
		})
	}
}
