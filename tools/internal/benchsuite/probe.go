package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	"github.com/goiree/goiree/runtime/schemas/spirv"
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
		code := e.gpu.spirv[s.file]
		if len(code) == 0 || len(code)%4 != 0 {
			say("%s: no SPIR-V in the work directory", s.file)
			continue
		}
		words := make([]uint32, len(code)/4)
		for i := range words {
			words[i] = binary.LittleEndian.Uint32(code[4*i:])
		}
		cache, err := dev.CreateExecutableCache("probe")
		if err != nil {
			say("%v", err)
			return
		}
		exe, err := cache.PrepareExecutable(hal.ExecutableParams{Format: spirv.Format, Data: (&spirv.Executable{
			EntryPoints: []spirv.EntryPoint{{Name: "main", ConstantCount: 1, BindingCount: 3}}, Code: words,
		}).Marshal()})
		if err != nil {
			say("%s: %v", s.file, err)
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
		submit := func(rec func(cb *hal.CommandBuffer) error) (time.Duration, error) {
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
