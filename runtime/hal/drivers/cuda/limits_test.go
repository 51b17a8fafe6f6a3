package cuda

import (
	"strconv"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	cudafb "github.com/goiree/goiree/runtime/schemas/cuda"
)

// TestCheckLimits: the decision checkFunction makes from a loaded
// function's attributes, at and past each limit, and its messages.
func TestCheckLimits(t *testing.T) {
	regs64 := funcLimits{maxThreads: 1024, registers: 64}
	for _, tc := range []struct {
		name   string
		block  [3]uint32
		shared uint32
		l      funcLimits
		limit  int
		want   string // "" for no error
	}{
		{"fits", [3]uint32{256, 1, 1}, 0, regs64, 49152, ""},
		{"every thread", [3]uint32{32, 32, 1}, 0, regs64, 49152, ""},
		{"registers", [3]uint32{1024, 1, 1}, 0, funcLimits{maxThreads: 640, registers: 96}, 49152,
			"entry point k: block size 1024x1x1 (1024 threads) is over the 640 threads a block of it can have on sm_90 (it uses 96 registers per thread)"},
		{"maxntid", [3]uint32{16, 16, 2}, 0, funcLimits{maxThreads: 256, registers: 8}, 49152,
			"entry point k: block size 16x16x2 (512 threads) is over the 256 threads a block of it can have"},
		{"shared at the limit", [3]uint32{128, 1, 1}, 200000, funcLimits{maxThreads: 1024, staticShared: 32448}, 232448, ""},
		{"dynamic shared", [3]uint32{128, 1, 1}, 200001, funcLimits{maxThreads: 1024, staticShared: 32448}, 232448,
			"entry point k: 232449 bytes of shared memory (32448 static, 200001 dynamic) are over the 232448 bytes a block can have on sm_90"},
		{"static shared", [3]uint32{128, 1, 1}, 0, funcLimits{maxThreads: 1024, staticShared: 49153}, 49152,
			"49153 bytes of shared memory (49153 static, 0 dynamic) are over the 49152 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkLimits("k", tc.block, tc.shared, tc.l, tc.limit, "sm_90")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want == "":
			case err == nil || !strings.Contains(err.Error(), tc.want) || status.CodeOf(err) != status.OutOfRange:
				t.Fatalf("got %v, want OUT_OF_RANGE containing %q", err, tc.want)
			}
		})
	}
}

// limitsPTX has a kernel whose .maxntid caps its blocks at 128 threads and
// one with 40,000 bytes of static shared memory.
const limitsPTX = `.version 7.0
.target sm_80
.address_size 64

.visible .entry narrow()
.maxntid 128, 1, 1
{
	ret;
}

.visible .entry shared40k(
	.param .u32 shared40k_param_0
)
{
	.reg .b32 	%r<3>;
	.shared .align 4 .b8 shared40k_buf[40000];
	ld.param.u32 	%r1, [shared40k_param_0];
	mov.u32 	%r2, shared40k_buf;
	st.shared.u32 	[%r2], %r1;
	bar.sync 	0;
	ld.shared.u32 	%r1, [%r2+4];
	st.shared.u32 	[%r2+8], %r1;
	ret;
}
`

// TestFunctionLimitsOnDevice loads kernels whose own limits the executable
// exceeds: a block over the function's .maxntid, and dynamic shared
// memory that with the function's static shared memory is over the
// device's limit; each is refused with OUT_OF_RANGE when the executable is created, naming
// the entry point, and the same kernels within their limits load.
func TestFunctionLimitsOnDevice(t *testing.T) {
	d := testDevice(t)
	cache, err := d.CreateExecutableCache("test")
	if err != nil {
		t.Fatal(err)
	}
	limit, err := deviceAttribute(d.dev, attrMaxSharedPerBlockOptin)
	if err != nil || limit == 0 {
		limit, err = deviceAttribute(d.dev, attrMaxSharedPerBlock)
	}
	if err != nil {
		t.Fatal(err)
	}
	load := func(ep cudafb.EntryPoint) error {
		exe, err := cache.PrepareExecutable(hal.ExecutableParams{Format: Format, Data: (&cudafb.Executable{
			Name: "limits", Images: []cudafb.Image{{Arch: "sm_80", PTX: limitsPTX}}, EntryPoints: []cudafb.EntryPoint{ep},
		}).Marshal()})
		if err == nil {
			exe.Release()
		}
		return err
	}
	for _, tc := range []struct {
		name string
		ep   cudafb.EntryPoint
		want string
	}{
		{"narrow at its limit", cudafb.EntryPoint{Name: "narrow", BlockSize: [3]uint32{128, 1, 1}}, ""},
		{"narrow over it", cudafb.EntryPoint{Name: "narrow", BlockSize: [3]uint32{256, 1, 1}},
			"entry point narrow: block size 256x1x1 (256 threads) is over the 128 threads a block of it can have on " + d.sm},
		{"shared within the device", cudafb.EntryPoint{Name: "shared40k", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, SharedMemorySize: uint32(limit - 41000)}, ""},
		{"shared over the device", cudafb.EntryPoint{Name: "shared40k", BlockSize: [3]uint32{64, 1, 1}, ConstantCount: 1, SharedMemorySize: uint32(limit - 40000 + 1)},
			// The static size is the JIT's (at least the 40,000 declared).
			" dynamic) are over the " + strconv.Itoa(limit) + " bytes a block can have on " + d.sm},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := load(tc.ep)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.want == "":
			case err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "entry point "+tc.ep.Name+":") ||
				!strings.Contains(err.Error(), "cuda executable @limits") || status.CodeOf(err) != status.OutOfRange:
				t.Fatalf("got %v, want an error naming the executable and containing %q", err, tc.want)
			default:
				t.Logf("%s: %v", tc.name, err)
			}
		})
	}
}
