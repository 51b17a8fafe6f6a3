package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/cuda"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	halmodule "github.com/goiree/goiree/runtime/modules/hal"
	"github.com/goiree/goiree/runtime/schemas/spirv"
	"github.com/goiree/goiree/runtime/tooling/functionio"
	"github.com/goiree/goiree/runtime/vm"
)

// vulkanProbe logs what bounds the Vulkan row (--vulkan_probe): for each
// queue family choice (and with dedicated allocations), for default
// (host-visible) and device-only
// memory, the wall and device (timestamp) bandwidth of simple_mul.glsl and
// its probe variants over --gpu_n f32, of a buffer copy and of a fill, one
// command per submission, medians of 10. It measures through the HAL,
// without the VM, so that only the device path differs between lines.
func vulkanProbe(e *env, o *options, log io.Writer) {
	for _, q := range []struct {
		opts vulkan.DeviceOptions
		name string
	}{
		{vulkan.DeviceOptions{Queue: vulkan.QueueCompute}, "compute"},
		{vulkan.DeviceOptions{Queue: vulkan.QueueUniversal}, "universal"},
		{vulkan.DeviceOptions{Queue: vulkan.QueueCompute, Dedicated: true}, "compute+dedicated"},
	} {
		dev, err := vulkan.NewDeviceWith(0, q.opts)
		if err != nil {
			fmt.Fprintf(log, "vulkan/probe %s queue: %v\n", q.name, err)
			continue
		}
		probeDevice(e, o, dev, q.name, log)
		dev.Close()
	}
}

// probeShader is one shader of the probe and how it is dispatched.
type probeShader struct {
	label, file string
	groups      func(n int) uint32
}

func probeDevice(e *env, o *options, dev *vulkan.Device, queue string, log io.Writer) {
	say := func(format string, args ...any) {
		fmt.Fprintf(log, "vulkan/probe %s: %s\n", queue, fmt.Sprintf(format, args...))
	}
	timed := dev.SetTiming(true) == nil
	say("%s (device timing %v)", dev.QueueFamily(), timed)
	n := o.gpuN
	size := 4 * int64(n)
	shaders := []probeShader{
		{"simple_mul (vec4, 4096/group)", spirvFile, func(n int) uint32 { return uint32((n + 4095) / 4096) }},
		{"scalar (1/invocation, 256/group)", "gpu/probe_scalar.spv", func(n int) uint32 { return uint32((n + 255) / 256) }},
		{"stride vec4, 528 groups", "gpu/probe_stride.spv", func(int) uint32 { return 528 }},
		{"stride vec4, 4224 groups", "gpu/probe_stride.spv", func(int) uint32 { return 4224 }},
	}
	exes := map[string]hal.Executable{}
	for _, s := range shaders {
		if exes[s.file] != nil {
			continue
		}
		exe, err := prepareProbe(e, dev, s.file)
		if err != nil {
			say("%v", err)
			continue
		}
		defer exe.Release()
		exes[s.file] = exe
	}
	for _, mem := range []struct {
		typ  hal.MemoryType
		name string
	}{{0, "default memory"}, {hal.MemoryTypeDeviceLocal, "device-only memory"}} {
		var bufs []*hal.Buffer
		ok := true
		for i := 0; i < 3 && ok; i++ {
			b, err := dev.Allocator().AllocateBuffer(hal.BufferParams{Type: mem.typ}, size)
			if err != nil {
				say("%s: %v", mem.name, err)
				ok = false
				break
			}
			bufs = append(bufs, b)
		}
		submit := func(rec func(cb *hal.CommandBuffer) error) (time.Duration, error) { return submitOne(dev, rec) }
		measure := func(label string, bytes int64, rec func(cb *hal.CommandBuffer) error) {
			var walls, devs []time.Duration
			for i := 0; i < 12; i++ {
				w, err := submit(rec)
				if err != nil {
					say("%s, %s: %v", mem.name, label, err)
					return
				}
				if i >= 2 {
					walls = append(walls, w)
					devs = append(devs, dev.LastDeviceTime())
				}
			}
			mw, md := median(walls), median(devs)
			say("%s (%v), %s: wall %.0f GB/s (%s), device %.0f GB/s (%s)", mem.name, bufs[0].MemoryType(), label, gbps(bytes, mw), fmtDur(mw), gbps(bytes, md), fmtDur(md))
		}
		if ok {
			two, four := make([]byte, 4), make([]byte, 4)
			binary.LittleEndian.PutUint32(two, math.Float32bits(2))
			binary.LittleEndian.PutUint32(four, math.Float32bits(4))
			if _, err := submit(func(cb *hal.CommandBuffer) error {
				if err := cb.FillBuffer(bufs[0], 0, size, two); err != nil {
					return err
				}
				return cb.FillBuffer(bufs[1], 0, size, four)
			}); err != nil {
				say("%s: filling the inputs: %v", mem.name, err)
				ok = false
			}
		}
		if ok {
			binds := []hal.Binding{{Ordinal: 0, Buffer: bufs[0], Length: size}, {Ordinal: 1, Buffer: bufs[1], Length: size}, {Ordinal: 2, Buffer: bufs[2], Length: size}}
			for _, s := range shaders {
				exe := exes[s.file]
				if exe == nil {
					continue
				}
				wg := [3]uint32{s.groups(n), 1, 1}
				measure(s.label, 12*int64(n), func(cb *hal.CommandBuffer) error {
					return cb.DispatchWith(exe, 0, wg, []uint32{uint32(n)}, binds)
				})
			}
			measure("copy of 4n bytes (vkCmdCopyBuffer)", 8*int64(n), func(cb *hal.CommandBuffer) error {
				return cb.CopyBuffer(bufs[0], 0, bufs[2], 0, size)
			})
			measure("fill of 4n bytes (vkCmdFillBuffer)", 4*int64(n), func(cb *hal.CommandBuffer) error {
				return cb.FillBuffer(bufs[2], 0, size, []byte{0, 0, 0, 0})
			})
		}
		for _, b := range bufs {
			b.Release()
		}
	}
}

// prepareProbe prepares one of the probe's SPIR-V files on dev as an
// executable with entry point main, one constant and three bindings.
func prepareProbe(e *env, dev hal.Device, file string) (hal.Executable, error) {
	code := e.gpu.spirv[file]
	if len(code) == 0 || len(code)%4 != 0 {
		return nil, fmt.Errorf("%s: no SPIR-V in the work directory", file)
	}
	words := make([]uint32, len(code)/4)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(code[4*i:])
	}
	cache, err := dev.CreateExecutableCache("probe")
	if err != nil {
		return nil, err
	}
	exe, err := cache.PrepareExecutable(hal.ExecutableParams{Format: spirv.Format, Data: (&spirv.Executable{
		EntryPoints: []spirv.EntryPoint{{Name: "main", ConstantCount: 1, BindingCount: 3}}, Code: words,
	}).Marshal()})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return exe, nil
}

// submitOne records rec into a one-shot command buffer of dev, submits it
// and waits, returning the wall time.
func submitOne(dev hal.Device, rec func(cb *hal.CommandBuffer) error) (time.Duration, error) {
	t0 := time.Now()
	cb, err := dev.CreateCommandBuffer(hal.CommandBufferModeOneShot, hal.CommandCategoryAny)
	if err != nil {
		return 0, err
	}
	if err := cb.Begin(); err != nil {
		return 0, err
	}
	if err := rec(cb); err != nil {
		return 0, err
	}
	if err := cb.End(); err != nil {
		return 0, err
	}
	err = hal.SubmitAndWait(dev, cb)
	return time.Since(t0), err
}

// f32Pattern is the 4-byte fill pattern of v.
func f32Pattern(v float32) []byte {
	p := make([]byte, 4)
	binary.LittleEndian.PutUint32(p, math.Float32bits(v))
	return p
}

// crossCase is one configuration of vulkanCross: a dispatch of exe over
// three bindings (or, with fill, a fill of the third), on dev.
type crossCase struct {
	key, label string
	dev        *vulkan.Device
	exe        hal.Executable
	ordinal    int
	wg         [3]uint32
	consts     []uint32
	binds      [3]hal.BindingRange
	fill       bool
	devs       []time.Duration
}

func (k *crossCase) record(cb *hal.CommandBuffer) error {
	if k.fill {
		b := k.binds[2]
		return cb.FillBuffer(b.Buffer, b.Offset, b.Length, []byte{0, 0, 0, 0})
	}
	binds := make([]hal.Binding, 3)
	for i, b := range k.binds {
		binds[i] = hal.Binding{Ordinal: i, Buffer: b.Buffer, Offset: b.Offset, Length: b.Length}
	}
	return cb.DispatchWith(k.exe, k.ordinal, k.wg, k.consts, binds)
}

// vulkanCross (with --vulkan_probe, or when the Vulkan row misses) crosses
// the row's path with the probe's on the row's own device while the row's
// executable and buffers live, so that one run names what makes the row's
// shader slow: it logs the commands of one row call and the Vulkan memory
// behind its bindings, then times (device timestamps, one command per
// submission, all configurations in turn for 12 rounds, medians of the
// last 10) the row's dispatch replayed on its own buffers, the probe's
// pipeline on them, the row's executable on fresh GPU-filled, fresh
// host-written and device-only buffers, with each row buffer alone among
// fresh ones, and the probe on a second device; then the whole row again
// (VM → hal module → vulkan) with its buffers as they were, with its
// inputs rewritten by the GPU, with fresh buffers rewritten by the host,
// and with its inputs re-allocated.
func vulkanCross(e *env, o *options, dev *vulkan.Device, c *caller, qt *queueTimer, row callTimes, log io.Writer) {
	t0 := time.Now()
	say := func(format string, args ...any) {
		fmt.Fprintf(log, "vulkan/cross: +%4.0f ms %s\n", float64(time.Since(t0))/1e6, fmt.Sprintf(format, args...))
	}
	if err := dev.SetTiming(true); err != nil {
		say("skipped: %v", err)
		return
	}
	say("at %s: the row: device %s per call (median); its %d warm-up calls: %s", t0.UTC().Format("15:04:05.000"), fmtDur(row.device), len(row.warmup), series(row.warmup))
	gpuClocks(say)
	n := o.gpuN
	size := 4 * int64(n)
	bytes := 12 * int64(n)
	held := make([]vm.Value, 1)
	qt.capture = true
	err := c.ctx.InvokeInto(c.fn, c.args, held)
	qt.capture = false
	if err != nil {
		say("calling simple_mul: %v", err)
		return
	}
	heldView, err := halmodule.BufferViewOf(held[0])
	if err != nil {
		say("%v", err)
		return
	}
	heldOut := heldView.Buffer()
	releaseHeld := func() {
		if heldOut != nil {
			held[0] = vm.Value{}
			heldOut.Release()
			heldOut = nil
		}
	}
	defer releaseHeld()
	say("one row call: device %s; its submission:", fmtDur(dev.LastDeviceTime()))
	var disp *hal.DispatchCommand
	for i, cmd := range qt.last {
		switch cmd := cmd.(type) {
		case *hal.DispatchCommand:
			say("  %d: dispatch of export %d (%d exports), workgroups %v, constants %v, %d bindings", i, cmd.Ordinal, len(cmd.Executable.Exports()), cmd.Workgroups, cmd.Constants, len(cmd.Bindings))
			for j, b := range cmd.Bindings {
				info, err := vulkan.BufferInfo(b.Buffer)
				if err != nil {
					info = err.Error()
				}
				say("     binding %d: offset %d length %d of a %d-byte buffer: %s", j, b.Offset, b.Length, b.Buffer.ByteLength(), info)
			}
			if disp == nil {
				disp = cmd
			}
		case *hal.BarrierCommand:
			say("  %d: barrier", i)
		case *hal.FillCommand:
			say("  %d: fill of %d bytes at %d", i, cmd.Length, cmd.Offset)
		case *hal.CopyCommand:
			say("  %d: copy of %d bytes", i, cmd.Length)
		case *hal.UpdateCommand:
			say("  %d: update of %d bytes", i, len(cmd.Data))
		default:
			say("  %d: %T", i, cmd)
		}
	}
	if disp == nil || len(disp.Bindings) != 3 {
		say("the row's submission has no dispatch of three bindings: nothing to cross")
		return
	}
	for i, a := range c.args {
		if v, err := halmodule.BufferViewOf(a); err == nil {
			if info, err := vulkan.BufferInfo(v.Buffer()); err == nil {
				say("argument %d: %s", i, info)
			}
		}
	}
	probe, err := prepareProbe(e, dev, spirvFile)
	if err != nil {
		say("%v", err)
		return
	}
	defer probe.Release()

	// Fresh buffers: GPU-filled (default memory), host-written (default
	// memory, through the mapping as functionio writes inputs), device-only.
	var owned []*hal.Buffer
	defer func() {
		for _, b := range owned {
			b.Release()
		}
	}()
	alloc := func(d *vulkan.Device, typ hal.MemoryType, v float32, host bool) (hal.BindingRange, error) {
		b, err := d.Allocator().AllocateBuffer(hal.BufferParams{Type: typ}, size)
		if err != nil {
			return hal.BindingRange{}, err
		}
		owned = append(owned, b)
		if host {
			data := make([]byte, size)
			hal.FillBytes(data, f32Pattern(v))
			err = b.Write(0, data)
		} else {
			_, err = submitOne(d, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(b, 0, size, f32Pattern(v)) })
		}
		return hal.BindingRange{Buffer: b, Length: size}, err
	}
	type spec struct {
		d    *vulkan.Device
		typ  hal.MemoryType
		v    float32
		host bool
	}
	dev2, err := vulkan.NewDevice(0)
	if err != nil {
		say("a second device: %v", err)
		dev2 = nil
	} else {
		defer dev2.Close()
		if err := dev2.SetTiming(true); err != nil {
			say("a second device: %v", err)
			dev2.Close()
			dev2 = nil
		}
	}
	specs := map[string]spec{
		"F0": {dev, 0, 2, false}, "F1": {dev, 0, 4, false}, "F2": {dev, 0, 0, false},
		"H0": {dev, 0, 2, true}, "H1": {dev, 0, 4, true},
		"D0": {dev, hal.MemoryTypeDeviceLocal, 2, false}, "D1": {dev, hal.MemoryTypeDeviceLocal, 4, false}, "D2": {dev, hal.MemoryTypeDeviceLocal, 0, false},
	}
	// Four more fresh buffers, read as lhs one at a time: whether fresh
	// allocations are slow at random.
	extra := []string{"P1", "P2", "P3", "P4"}
	for _, k := range extra {
		specs[k] = spec{dev, 0, 2, false}
	}
	if dev2 != nil {
		specs["S0"], specs["S1"], specs["S2"] = spec{dev2, 0, 2, false}, spec{dev2, 0, 4, false}, spec{dev2, 0, 0, false}
	}
	bufs := map[string]hal.BindingRange{"R0": disp.Bindings[0], "R1": disp.Bindings[1], "R2": disp.Bindings[2]}
	for _, k := range []string{"F0", "F1", "F2", "H0", "H1", "D0", "D1", "D2", "P1", "P2", "P3", "P4", "S0", "S1", "S2"} {
		s, ok := specs[k]
		if !ok {
			continue
		}
		b, err := alloc(s.d, s.typ, s.v, s.host)
		if err != nil {
			say("allocating buffer %s: %v", k, err)
			return
		}
		bufs[k] = b
	}
	for _, k := range []string{"F0", "H0", "D0"} {
		if info, err := vulkan.BufferInfo(bufs[k].Buffer); err == nil {
			say("fresh buffer %s: %s", k, info)
		}
	}
	var probe2 hal.Executable
	if dev2 != nil {
		if probe2, err = prepareProbe(e, dev2, spirvFile); err != nil {
			say("second device: %v", err)
		} else {
			defer probe2.Release()
		}
	}
	rowCase := func(key, label string, b0, b1, b2 string) *crossCase {
		return &crossCase{key: key, label: label, dev: dev, exe: disp.Executable, ordinal: disp.Ordinal, wg: disp.Workgroups,
			consts: append([]uint32(nil), disp.Constants...), binds: [3]hal.BindingRange{bufs[b0], bufs[b1], bufs[b2]}}
	}
	probeCase := func(key, label string, d *vulkan.Device, exe hal.Executable, b0, b1, b2 string) *crossCase {
		return &crossCase{key: key, label: label, dev: d, exe: exe, wg: [3]uint32{uint32((n + 4095) / 4096), 1, 1},
			consts: []uint32{uint32(n)}, binds: [3]hal.BindingRange{bufs[b0], bufs[b1], bufs[b2]}}
	}
	cases := []*crossCase{
		rowCase("A", "row dispatch replayed on the row's buffers", "R0", "R1", "R2"),
		probeCase("B", "probe pipeline on the row's buffers", dev, probe, "R0", "R1", "R2"),
		rowCase("C", "row executable on fresh GPU-filled buffers", "F0", "F1", "F2"),
		probeCase("D", "probe pipeline on fresh GPU-filled buffers", dev, probe, "F0", "F1", "F2"),
		rowCase("E", "row executable, the row's lhs, fresh rhs and out", "R0", "F1", "F2"),
		rowCase("F", "row executable, the row's rhs, fresh lhs and out", "F0", "R1", "F2"),
		rowCase("G", "row executable, the row's out, fresh lhs and rhs", "F0", "F1", "R2"),
		rowCase("H", "row executable, fresh host-written lhs and rhs, fresh out", "H0", "H1", "F2"),
		rowCase("I", "row executable on device-only buffers", "D0", "D1", "D2"),
		rowCase("J", "row executable, the row's lhs and rhs, device-only out", "R0", "R1", "D2"),
		{key: "K", label: "fill of the row's out (4n bytes)", dev: dev, fill: true, binds: [3]hal.BindingRange{2: bufs["R2"]}},
		{key: "L", label: "fill of a fresh out (4n bytes)", dev: dev, fill: true, binds: [3]hal.BindingRange{2: bufs["F2"]}},
	}
	for _, k := range extra {
		cases = append(cases, rowCase(k, "row executable, lhs the fresh buffer "+k+", fresh rhs and out", k, "F1", "F2"))
	}
	if probe2 != nil {
		cases = append(cases, probeCase("M", "probe pipeline on fresh buffers of a second device", dev2, probe2, "S0", "S1", "S2"))
	}
	const rounds, skip = 12, 2
	for round := 0; round < rounds; round++ {
		for _, k := range cases {
			if _, err := submitOne(k.dev, k.record); err != nil {
				say("[%s] %s: %v", k.key, k.label, err)
				return
			}
			if round >= skip {
				k.devs = append(k.devs, k.dev.LastDeviceTime())
			}
		}
	}
	med := map[string]time.Duration{}
	for _, k := range cases {
		m := median(k.devs)
		med[k.key] = m
		moved := bytes
		if k.fill {
			moved = size
		}
		say("[%s] %s: device %s (%.0f GB/s), range %s–%s", k.key, k.label, fmtDur(m), gbps(moved, m), fmtDur(slices.Min(k.devs)), fmtDur(slices.Max(k.devs)))
	}

	// The whole row again, through the VM: as it was, after the GPU
	// rewrote its inputs, and with its inputs re-allocated.
	rowAgain := func(label string) time.Duration {
		var devs []time.Duration
		for i := 0; i < 22; i++ {
			if err := c.call(); err != nil {
				say("row (%s): %v", label, err)
				return 0
			}
			if i >= 2 {
				devs = append(devs, dev.LastDeviceTime())
			}
		}
		m := median(devs)
		say("row through the VM, %s: device %s (%.0f GB/s), range %s–%s", label, fmtDur(m), gbps(bytes, m), fmtDur(slices.Min(devs)), fmtDur(slices.Max(devs)))
		return m
	}
	releaseHeld()
	again := rowAgain("its buffers as they were")
	_, err = submitOne(dev, func(cb *hal.CommandBuffer) error {
		r0, r1 := bufs["R0"], bufs["R1"]
		if err := cb.FillBuffer(r0.Buffer, r0.Offset, r0.Length, f32Pattern(2)); err != nil {
			return err
		}
		return cb.FillBuffer(r1.Buffer, r1.Offset, r1.Length, f32Pattern(4))
	})
	if err != nil {
		say("rewriting the row's inputs on the GPU: %v", err)
		return
	}
	gpuRewritten := rowAgain("its inputs rewritten by the GPU (same values)")
	// Fresh GPU-filled buffers rewritten by the host, under the row's
	// executable (case C before).
	var hostRewritten time.Duration
	{
		data := make([]byte, size)
		hal.FillBytes(data, f32Pattern(2))
		err := bufs["F0"].Buffer.Write(0, data)
		if err == nil {
			hal.FillBytes(data, f32Pattern(4))
			err = bufs["F1"].Buffer.Write(0, data)
		}
		if err != nil {
			say("rewriting fresh buffers from the host: %v", err)
		} else {
			k := rowCase("C'", "row executable on the fresh buffers of C after the host rewrote lhs and rhs", "F0", "F1", "F2")
			for i := 0; i < rounds; i++ {
				if _, err := submitOne(dev, k.record); err != nil {
					say("[C'] %v", err)
					break
				}
				if i >= skip {
					k.devs = append(k.devs, dev.LastDeviceTime())
				}
			}
			if len(k.devs) > 0 {
				hostRewritten = median(k.devs)
				say("[C'] %s: device %s (%.0f GB/s)", k.label, fmtDur(hostRewritten), gbps(bytes, hostRewritten))
			}
		}
	}
	// Re-allocated inputs (the old ones released, the cache trimmed).
	var realloc time.Duration
	if err := vm.ReleaseValues(c.args); err != nil {
		say("[C'] releasing the inputs: %v", err)
	}
	dev.Allocator().Trim()
	in, err := functionio.ParseInputs([]string{fmt.Sprintf("%dxf32=2", n), fmt.Sprintf("%dxf32=4", n)})
	if err == nil {
		c.args, err = functionio.Values(in, c.fn.Signature(), c.dev.Allocator())
	}
	if err != nil {
		say("re-allocating the row's inputs: %v", err)
	} else {
		realloc = rowAgain("its inputs re-allocated and written by the host")
	}

	// The whole row on two more devices made now: one like the row's
	// (mapped host-visible memory) and one staging host-visible buffers
	// through device-only memory (vulkan.HostStaged).
	other := map[vulkan.HostAccess]time.Duration{}
	for _, h := range []vulkan.HostAccess{vulkan.HostMapped, vulkan.HostStaged} {
		d, err := vulkan.NewDeviceWith(0, vulkan.DeviceOptions{Host: h})
		if err != nil {
			say("a %v device: %v", h, err)
			continue
		}
		c2, err := newCallerOn(&queueTimer{Device: d}, e.gpu.vulkan, "simple_mul", n)
		if err != nil {
			say("a %v device: %v", h, err)
			continue
		}
		if err := c2.check(); err != nil {
			say("a %v device: %v", h, err)
			c2.close()
			continue
		}
		var t callTimes
		if err = d.SetTiming(true); err == nil {
			_, _, t, err = timedCalls(c2, 20, d.LastDeviceTime)
		}
		if err != nil {
			say("a %v device: %v", h, err)
			c2.close()
			continue
		}
		other[h] = t.device
		info := ""
		if v, err := halmodule.BufferViewOf(c2.args[0]); err == nil {
			info, _ = vulkan.BufferInfo(v.Buffer())
		}
		say("row through the VM on a new %v device: device %s (%.0f GB/s), wall %s; its argument 0: %s; warm-up: %s", d.HostAccess(), fmtDur(t.device), gbps(bytes, t.device), fmtDur(t.wall), info, series(t.warmup))
		c2.close()
	}

	mixed := interleave(e, o, dev, c, bufs["F0"].Buffer, bufs["F1"].Buffer, bufs["F2"].Buffer, probe, say)

	// The verdict: which crossing is slow, against the probe pipeline on
	// fresh buffers of the same device (D).
	ref := med["D"]
	slow := func(d time.Duration) bool { return d > ref+ref/8 }
	var why []string
	switch {
	case ref <= 0:
		why = append(why, "no reference timing")
	case slow(row.device) && !slow(med["A"]) && !slow(again):
		why = append(why, "time: the row was slow while it was measured, but its own dispatch on its own buffers is fast moments later")
	case !slow(med["A"]) && !slow(again):
		why = append(why, "the row's dispatch is fast in this process: nothing to name")
	case slow(med["A"]) && slow(med["B"]) && !slow(med["C"]):
		why = append(why, "the row's buffers (the probe's pipeline is slow on them, the row's executable fast on fresh ones)")
		for _, k := range []struct{ key, name string }{{"E", "lhs"}, {"F", "rhs"}, {"G", "out"}} {
			if slow(med[k.key]) {
				why = append(why, "slow alone: the row's "+k.name)
			}
		}
	case slow(med["A"]) && slow(med["C"]) && !slow(med["B"]):
		why = append(why, "the row's executable (slow on fresh buffers, the probe's pipeline fast on the row's buffers)")
	case slow(med["A"]) && slow(med["C"]) && slow(med["B"]) && slow(ref):
		why = append(why, "the device: everything is slow on it")
	default:
		why = append(why, "no single crossing is slow alone (see the lines above)")
	}
	if slow(med["H"]) {
		why = append(why, "fresh host-written inputs are slow")
	}
	if hostRewritten > 0 && slow(hostRewritten) {
		why = append(why, "fresh buffers turn slow once the host rewrites them")
	}
	if slow(again) && gpuRewritten > 0 && !slow(gpuRewritten) {
		why = append(why, "the row turns fast once the GPU rewrites its inputs")
	}
	if slow(again) && realloc > 0 && !slow(realloc) {
		why = append(why, "the row turns fast with re-allocated inputs")
	}
	for _, k := range extra {
		if slow(med[k]) {
			why = append(why, "the fresh buffer "+k+" is slow")
		}
	}
	for h, d := range other {
		if slow(again) && d > 0 && !slow(d) {
			why = append(why, fmt.Sprintf("the row on a new %v device is fast", h))
		}
	}
	if dev2 != nil && med["M"] > 0 && slow(med["M"]) != slow(ref) {
		why = append(why, "a second device differs from the row's")
	}
	if len(mixed) > 0 {
		why = append(why, "interleaved: "+strings.Join(mixed, ", "))
	}
	say("verdict: %s", strings.Join(why, "; "))
}

// interleave times, in turn within each round, the row's call (VM → hal
// module → vulkan, compute family), the probe pipeline on fresh buffers of
// the row's device (compute family) and of a new device on the universal
// family, and the CUDA row's call, for three busy phases of 1.5 s with
// 1.5 s of idle GPU between them. Whether they are slow in the same rounds
// says whether the slow state belongs to the GPU or to one path. Each
// phase prints one character per 4 rounds and stream: '.' fast, 'S' slow
// (over 1.25 times the stream's fastest).
//
// It returns "<stream> k/n slow" for each stream, for the verdict.
func interleave(e *env, o *options, dev *vulkan.Device, c *caller, f0, f1, f2 *hal.Buffer, probe hal.Executable, say func(string, ...any)) []string {
	n := o.gpuN
	size := 4 * int64(n)
	type stream struct {
		name string
		run  func() (time.Duration, error)
		devs [][]time.Duration // per phase
	}
	var streams []*stream
	probeOn := func(d *vulkan.Device, exe hal.Executable, b0, b1, b2 *hal.Buffer) func() (time.Duration, error) {
		binds := []hal.Binding{{Ordinal: 0, Buffer: b0, Length: size}, {Ordinal: 1, Buffer: b1, Length: size}, {Ordinal: 2, Buffer: b2, Length: size}}
		wg := [3]uint32{uint32((n + 4095) / 4096), 1, 1}
		return func() (time.Duration, error) {
			_, err := submitOne(d, func(cb *hal.CommandBuffer) error { return cb.DispatchWith(exe, 0, wg, []uint32{uint32(n)}, binds) })
			return d.LastDeviceTime(), err
		}
	}
	streams = append(streams,
		&stream{name: "vulkan row (compute family)", run: func() (time.Duration, error) { err := c.call(); return dev.LastDeviceTime(), err }},
		&stream{name: "vulkan probe (compute family)", run: probeOn(dev, probe, f0, f1, f2)})
	if uni, err := vulkan.NewDeviceWith(0, vulkan.DeviceOptions{Queue: vulkan.QueueUniversal}); err != nil {
		say("interleave: universal device: %v", err)
	} else {
		defer uni.Close()
		exe, err := prepareProbe(e, uni, spirvFile)
		var ub []*hal.Buffer
		for i := 0; err == nil && i < 3; i++ {
			var b *hal.Buffer
			if b, err = uni.Allocator().AllocateBuffer(hal.BufferParams{}, size); err == nil {
				ub = append(ub, b)
				defer b.Release()
				_, err = submitOne(uni, func(cb *hal.CommandBuffer) error { return cb.FillBuffer(b, 0, size, f32Pattern(float32(i+1))) })
			}
		}
		if err == nil {
			err = uni.SetTiming(true)
		}
		if err != nil {
			say("interleave: universal device: %v", err)
		} else {
			defer exe.Release()
			streams = append(streams, &stream{name: "vulkan probe (universal family)", run: probeOn(uni, exe, ub[0], ub[1], ub[2])})
		}
	}
	if e.gpu.cudaWhy == "" && cuda.Available() == nil {
		cdev, err := cuda.NewDevice(0)
		var cc *caller
		if err == nil {
			cc, err = newCallerOn(&queueTimer{Device: cdev}, e.gpu.cuda, "simple_mul", n)
		}
		if err == nil {
			defer cc.close()
			if err = cc.check(); err == nil {
				err = cdev.SetTiming(true)
			}
		}
		if err != nil {
			say("interleave: cuda: %v", err)
		} else {
			streams = append(streams, &stream{name: "cuda row", run: func() (time.Duration, error) { err := cc.call(); return cdev.LastDeviceTime(), err }})
		}
	}
	const phases = 3
	for p := 0; p < phases; p++ {
		if p > 0 {
			time.Sleep(1500 * time.Millisecond)
		}
		say("interleave phase %d at %s", p+1, time.Now().UTC().Format("15:04:05.000"))
		for _, st := range streams {
			st.devs = append(st.devs, nil)
		}
		for t := time.Now(); time.Since(t) < 1500*time.Millisecond; {
			for _, st := range streams {
				d, err := st.run()
				if err != nil {
					say("interleave: %s: %v", st.name, err)
					return nil
				}
				st.devs[p] = append(st.devs[p], d)
			}
		}
	}
	var summary []string
	for _, st := range streams {
		total, slowTotal := 0, 0
		fastest := time.Duration(math.MaxInt64)
		for _, ds := range st.devs {
			fastest = min(fastest, slices.Min(ds))
		}
		for p, ds := range st.devs {
			var line strings.Builder
			slow := 0
			for i := 0; i < len(ds); i += 4 {
				k := 0
				for _, d := range ds[i:min(i+4, len(ds))] {
					if d > fastest+fastest/4 {
						k++
					}
				}
				if 2*k >= min(4, len(ds)-i) {
					line.WriteByte('S')
				} else {
					line.WriteByte('.')
				}
			}
			for _, d := range ds {
				if d > fastest+fastest/4 {
					slow++
				}
			}
			say("interleave %-32s phase %d: %d calls, %d slow, median %s, fastest %s: %s", st.name, p+1, len(ds), slow, fmtDur(median(ds)), fmtDur(fastest), line.String())
			total += len(ds)
			slowTotal += slow
		}
		summary = append(summary, fmt.Sprintf("%s %d/%d slow", st.name, slowTotal, total))
	}
	return summary
}

// series prints device times in milliseconds, runs of equal values (to
// 0.01 ms) shortened to "value×count".
func series(ds []time.Duration) string {
	var b strings.Builder
	for i := 0; i < len(ds); {
		v := fmt.Sprintf("%.2f", float64(ds[i])/1e6)
		j := i + 1
		for j < len(ds) && fmt.Sprintf("%.2f", float64(ds[j])/1e6) == v {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v)
		if j-i > 1 {
			fmt.Fprintf(&b, "×%d", j-i)
		}
		i = j
	}
	return b.String() + " ms"
}

// gpuClocks logs nvidia-smi's view of the GPU's clocks and throttling, where
// nvidia-smi exists.
func gpuClocks(say func(string, ...any)) {
	smi, err := exec.LookPath("nvidia-smi")
	if err != nil {
		return
	}
	out, err := exec.Command(smi, "--query-gpu=pstate,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active", "--format=csv,noheader").CombinedOutput()
	if err != nil {
		say("nvidia-smi: %v", err)
		return
	}
	say("clocks (pstate, SM, memory, power, temperature, throttle reasons): %s", strings.TrimSpace(string(out)))
}
