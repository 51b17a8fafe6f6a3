package vulkan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// The device a vulkan-spirv executable target is compiled for. As in
// IREE, --iree-vulkan-target=<architecture or product> (ampere, sm_90,
// rdna3, valhall, rtx4090, ...) selects a known device's limits, which
// the executable targets that flags choose record in their configuration
// as iree_codegen.target_info = #iree_gpu.target<...> (IREE's spelling,
// printed in the module, --compile-to= output and iree-dump-module). A
// program may also write that entry into its own targets. Without either
// the target is Portable, the limits every Vulkan device has. The tiled
// matmuls take their workgroup size and shared memory from it; a device
// that does not meet them refuses the executable when it is prepared
// (the runtime checks workgroup sizes and shared memory), so a program
// compiled for a larger device fails there, naming the limit.

// targetFlag is IREE's --iree-vulkan-target.
const targetFlag = "iree-vulkan-target"

// TargetInfoKey is the executable target configuration entry that
// describes the device, as in IREE.
const TargetInfoKey = "iree_codegen.target_info"

// targetAttrName is the attribute TargetInfoKey holds.
const targetAttrName = "iree_gpu.target"

// Device is what generated shaders may assume of the device: the fields
// of IREE's #iree_gpu.target that Vulkan code generation reads or
// reports.
type Device struct {
	// Arch is the architecture ("sm_90", "rdna3", "valhall1"); empty for
	// Portable.
	Arch string
	// Compute and Storage are the element widths the device computes
	// with and keeps in buffers, in IREE's spelling ("fp32|int32",
	// "b32"); Subgroup the subgroup operations ("shuffle|arithmetic" or
	// "none").
	Compute, Storage, Subgroup string
	// SubgroupSizes are the subgroup sizes the device runs.
	SubgroupSizes []int
	// MaxWorkgroupSize and MaxInvocations are maxComputeWorkGroupSize and
	// maxComputeWorkGroupInvocations; MaxWorkgroupCount is
	// maxComputeWorkGroupCount.
	MaxWorkgroupSize  [3]int
	MaxInvocations    int
	MaxWorkgroupCount [3]int
	// MaxSharedBytes is maxComputeSharedMemorySize.
	MaxSharedBytes int
	// MMA are the cooperative matrix operations the device offers, in
	// IREE's names (WMMA_F32_16x16x16_F16: f16 operands, f32 accumulator,
	// 16x16x16); none where the device has no cooperative matrices.
	MMA []string
}

// Portable is the device every Vulkan implementation is: the least limits
// Vulkan allows (128 invocations, 16 KiB of shared memory), which IREE's
// default target, the vp_android_baseline_2022 profile, also has.
var Portable = Device{
	Compute: "fp32|int32", Storage: "b32", Subgroup: "none", SubgroupSizes: []int{64},
	MaxWorkgroupSize: [3]int{128, 128, 64}, MaxInvocations: 128, MaxWorkgroupCount: [3]int{65535, 65535, 65535},
	MaxSharedBytes: 16384,
}

// The known devices' limits are what their Vulkan drivers report
// (vulkan.gpuinfo.org), which for NVIDIA differ from CUDA's: Vulkan
// compute shaders get 48 KiB of shared memory there, not the 99-227 KiB a
// CUDA block may opt into.
var (
	allCompute = "fp64|fp32|fp16|int64|int32|int16|int8"
	allStorage = "b64|b32|b16|b8"
	// coopF16 are the cooperative matrices of f16 operands that NVIDIA
	// (VK_NV_cooperative_matrix, VK_KHR_cooperative_matrix) and RDNA3
	// (VK_KHR_cooperative_matrix) devices offer.
	coopF16 = []string{"WMMA_F32_16x16x16_F16", "WMMA_F16_16x16x16_F16"}
	nvidia  = Device{
		Compute: allCompute, Storage: allStorage, Subgroup: "shuffle|arithmetic", SubgroupSizes: []int{32},
		MaxWorkgroupSize: [3]int{1024, 1024, 64}, MaxInvocations: 1024, MaxWorkgroupCount: [3]int{2147483647, 65535, 65535},
		MaxSharedBytes: 49152,
	}
	rdna = Device{
		Compute: allCompute, Storage: allStorage, Subgroup: "shuffle|arithmetic", SubgroupSizes: []int{64, 32},
		MaxWorkgroupSize: [3]int{1024, 1024, 1024}, MaxInvocations: 1024, MaxWorkgroupCount: [3]int{2147483647, 65535, 65535},
		MaxSharedBytes: 65536,
	}
	valhall = Device{
		Compute: "fp32|fp16|int32|int16|int8", Storage: allStorage, Subgroup: "shuffle|arithmetic", SubgroupSizes: []int{16},
		MaxWorkgroupSize: [3]int{512, 512, 512}, MaxInvocations: 512, MaxWorkgroupCount: [3]int{65535, 65535, 65535},
		MaxSharedBytes: 32768,
	}
	adreno = Device{
		Compute: "fp32|fp16|int32|int16|int8", Storage: "b64|b32|b16", Subgroup: "shuffle|arithmetic", SubgroupSizes: []int{64},
		MaxWorkgroupSize: [3]int{1024, 1024, 1024}, MaxInvocations: 1024, MaxWorkgroupCount: [3]int{65535, 65535, 65535},
		MaxSharedBytes: 32768,
	}
	// llvmpipe is Mesa's lavapipe, the CPU implementation (8 lanes a
	// subgroup with 256-bit vectors).
	llvmpipe = Device{
		Compute: allCompute, Storage: allStorage, Subgroup: "shuffle|arithmetic", SubgroupSizes: []int{8},
		MaxWorkgroupSize: [3]int{1024, 1024, 1024}, MaxInvocations: 1024, MaxWorkgroupCount: [3]int{65535, 65535, 65535},
		MaxSharedBytes: 32768,
	}
)

// FusedFMA reports whether GLSL's fma rounds once on the device, so that
// exact remainders can come from it: NVIDIA's GPUs (sm_* architectures),
// whose only f32 multiply-add is the fused one the driver compiles fma
// to. Elsewhere it need not be (lavapipe's is a multiply and an add).
func (d Device) FusedFMA() bool {
	return strings.HasPrefix(d.Arch, "sm_")
}

// with returns d for architecture arch with cooperative matrices mma.
func (d Device) with(arch string, mma []string) Device {
	d.Arch, d.MMA = arch, mma
	return d
}

// knownTargets maps each accepted --iree-vulkan-target name (lower case)
// to its device; the first name of a row is its architecture.
var knownTargets = []struct {
	names []string
	dev   Device
}{
	{[]string{"pascal", "sm_60", "sm_61", "sm_62"}, nvidia.with("sm_60", nil)},
	{[]string{"volta", "sm_70", "sm_72"}, nvidia.with("sm_70", coopF16)},
	{[]string{"turing", "sm_75"}, nvidia.with("sm_75", coopF16)},
	{[]string{"ampere", "sm_80", "sm_86", "sm_87", "a100"}, nvidia.with("sm_80", coopF16)},
	{[]string{"ada", "sm_89"}, nvidia.with("sm_89", coopF16)},
	{[]string{"hopper", "sm_90", "sm_90a", "h100", "h200"}, nvidia.with("sm_90", coopF16)},
	{[]string{"rdna1", "gfx1010", "gfx1011", "gfx1012"}, rdna.with("rdna1", nil)},
	{[]string{"rdna2", "gfx1030", "gfx1031", "gfx1032"}, rdna.with("rdna2", nil)},
	{[]string{"rdna3", "gfx1100", "gfx1101", "gfx1102", "rx7900xtx", "rx7900xt", "rx7800xt", "rx7700xt"}, rdna.with("rdna3", coopF16)},
	{[]string{"valhall", "valhall1", "mali-g77", "mali-g57"}, valhall.with("valhall1", nil)},
	{[]string{"valhall2", "mali-g78"}, valhall.with("valhall2", nil)},
	{[]string{"valhall3", "mali-g710", "mali-g510", "mali-g310"}, valhall.with("valhall3", nil)},
	{[]string{"valhall4", "mali-g715", "mali-g615"}, valhall.with("valhall4", nil)},
	{[]string{"adreno"}, adreno.with("adreno", nil)},
	{[]string{"llvmpipe", "lavapipe"}, llvmpipe.with("llvmpipe", nil)},
	{[]string{"vp_android_baseline_2022"}, Portable.with("vp_android_baseline_2022", nil)},
}

// productPrefixes map NVIDIA product families to their architecture.
var productPrefixes = []struct{ prefix, arch string }{
	{"rtx40", "ada"}, {"rtx30", "ampere"}, {"rtx20", "turing"},
}

// LookupTarget returns the device --iree-vulkan-target=name selects
// (case-insensitive): an architecture, a product, or adreno-<number>.
func LookupTarget(name string) (Device, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	for _, p := range productPrefixes {
		if strings.HasPrefix(n, p.prefix) {
			n = p.arch
		}
	}
	if rest, ok := strings.CutPrefix(n, "adreno-"); ok {
		digits := strings.TrimSuffix(rest, "l")
		if _, err := strconv.Atoi(digits); err == nil && len(digits) == 3 {
			n = "adreno"
		}
	}
	for _, k := range knownTargets {
		if slices.Contains(k.names, n) {
			return k.dev, nil
		}
	}
	var archs []string
	for _, k := range knownTargets {
		archs = append(archs, k.names[0])
	}
	return Device{}, fmt.Errorf("--%s=%s: unknown Vulkan target (known: %s; products such as a100, h200, rtx4090, rx7900xtx, mali-g715, adreno-740)", targetFlag, name, strings.Join(archs, ", "))
}

// ints prints a list of integers as IREE does: [1, 2].
func ints(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(s, ", ") + "]"
}

// Attr is the #iree_gpu.target attribute that describes d.
func (d Device) Attr() ir.Attribute {
	mma := make([]string, len(d.MMA))
	for i, m := range d.MMA {
		mma[i] = "<" + m + ">"
	}
	body := fmt.Sprintf("arch = %s, features = %s, wgp = <compute = %s, storage = %s, subgroup = %s, mma = [%s], subgroup_size_choices = %s, "+
		"max_workgroup_sizes = %s, max_thread_count_per_workgroup = %d, max_workgroup_memory_bytes = %d, max_workgroup_counts = %s>",
		ir.QuoteString(d.Arch), ir.QuoteString("spirv:v1.3,cap:Shader"), d.Compute, d.Storage, d.Subgroup, strings.Join(mma, ", "),
		ints(d.SubgroupSizes), ints(d.MaxWorkgroupSize[:]), d.MaxInvocations, d.MaxSharedBytes, ints(d.MaxWorkgroupCount[:]))
	return &ir.OpaqueAttr{Name: targetAttrName, Body: body}
}

// configureTarget is vulkan-spirv's target.Target.ConfigureExecutableTarget:
// with --iree-vulkan-target, an executable target that does not describe
// its device yet gets the named device's description.
func configureTarget(t *hal.ExecutableTargetAttr, flags map[string]string) error {
	name := flags[targetFlag]
	if name == "" || t.Config.Get(TargetInfoKey) != nil {
		return nil
	}
	d, err := LookupTarget(name)
	if err != nil {
		return err
	}
	if t.Config == nil {
		t.Config = &ir.DictAttr{}
	}
	t.Config.Entries = append(t.Config.Entries, ir.NamedAttr{Name: TargetInfoKey, Value: d.Attr()})
	return nil
}

// DeviceOf returns the device an executable target describes in its
// configuration (TargetInfoKey), or Portable when it describes none. Only
// the fields code generation reads must be present and well formed; any
// other field of IREE's #iree_gpu.target is accepted as written.
func DeviceOf(t *hal.ExecutableTargetAttr) (Device, error) {
	if t == nil || t.Config.Get(TargetInfoKey) == nil {
		return Portable, nil
	}
	a, ok := t.Config.Get(TargetInfoKey).(*ir.OpaqueAttr)
	if !ok || a.Name != targetAttrName {
		return Device{}, fmt.Errorf("%s must be a #%s<...>, found %s", TargetInfoKey, targetAttrName, ir.AttrString(t.Config.Get(TargetInfoKey)))
	}
	bad := func(format string, args ...any) (Device, error) {
		return Device{}, fmt.Errorf("%s = #%s<...>: %s", TargetInfoKey, targetAttrName, fmt.Sprintf(format, args...))
	}
	top, err := fields(a.Body)
	if err != nil {
		return bad("%v", err)
	}
	d := Device{Subgroup: "none"}
	if s, err := strconv.Unquote(top["arch"]); err == nil {
		d.Arch = s
	}
	wgpText, ok := top["wgp"]
	if !ok || !strings.HasPrefix(wgpText, "<") || !strings.HasSuffix(wgpText, ">") {
		return bad("no wgp = <...> with the device's limits")
	}
	wgp, err := fields(wgpText[1 : len(wgpText)-1])
	if err != nil {
		return bad("wgp: %v", err)
	}
	d.Compute, d.Storage = wgp["compute"], wgp["storage"]
	if s := wgp["subgroup"]; s != "" {
		d.Subgroup = s
	}
	intField := func(key string) (int, error) {
		v, ok := wgp[key]
		if !ok {
			return 0, fmt.Errorf("wgp has no %s", key)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return 0, fmt.Errorf("wgp's %s = %s is not a positive integer", key, v)
		}
		return n, nil
	}
	listField := func(key string, want int) ([]int, error) {
		v, ok := wgp[key]
		if !ok {
			return nil, fmt.Errorf("wgp has no %s", key)
		}
		var out []int
		if !strings.HasPrefix(v, "[") || !strings.HasSuffix(v, "]") {
			return nil, fmt.Errorf("wgp's %s = %s is not a list of integers", key, v)
		}
		for _, e := range strings.Split(v[1:len(v)-1], ",") {
			n, err := strconv.Atoi(strings.TrimSpace(e))
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("wgp's %s = %s is not a list of positive integers", key, v)
			}
			out = append(out, n)
		}
		if want > 0 && len(out) != want {
			return nil, fmt.Errorf("wgp's %s = %s does not have %d elements", key, v, want)
		}
		return out, nil
	}
	if d.MaxInvocations, err = intField("max_thread_count_per_workgroup"); err != nil {
		return bad("%v", err)
	}
	if d.MaxSharedBytes, err = intField("max_workgroup_memory_bytes"); err != nil {
		return bad("%v", err)
	}
	sizes, err := listField("max_workgroup_sizes", 3)
	if err != nil {
		return bad("%v", err)
	}
	copy(d.MaxWorkgroupSize[:], sizes)
	if _, ok := wgp["max_workgroup_counts"]; ok {
		counts, err := listField("max_workgroup_counts", 3)
		if err != nil {
			return bad("%v", err)
		}
		copy(d.MaxWorkgroupCount[:], counts)
	}
	if d.SubgroupSizes, err = listField("subgroup_size_choices", 0); err != nil {
		return bad("%v", err)
	}
	if m := wgp["mma"]; m != "" {
		if !strings.HasPrefix(m, "[") || !strings.HasSuffix(m, "]") {
			return bad("wgp's mma = %s is not a list", m)
		}
		for _, e := range strings.Split(m[1:len(m)-1], ",") {
			if e = strings.TrimSpace(e); e != "" {
				d.MMA = append(d.MMA, strings.TrimSuffix(strings.TrimPrefix(e, "<"), ">"))
			}
		}
	}
	return d, nil
}

// fields splits the body of an attribute written as `key = value, ...`
// at its top-level commas, keeping brackets, angle brackets and strings
// whole.
func fields(body string) (map[string]string, error) {
	out := map[string]string{}
	depth, start := 0, 0
	inString := false
	add := func(part string) error {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return fmt.Errorf("expected key = value, found %q", part)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
		return nil
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '<' || c == '[' || c == '{' || c == '(':
			depth++
		case c == '>' || c == ']' || c == '}' || c == ')':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced %q at offset %d", c, i)
			}
		case c == ',' && depth == 0:
			if err := add(body[start:i]); err != nil {
				return nil, err
			}
			start = i + 1
		}
	}
	if depth != 0 || inString {
		return nil, fmt.Errorf("unbalanced brackets or quotes")
	}
	return out, add(body[start:])
}
