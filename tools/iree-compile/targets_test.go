package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// compileBytes compiles in.mlir (in the current directory) with args and
// returns the module bytes.
func compileBytes(t *testing.T, src string, args ...string) []byte {
	t.Helper()
	if err := os.WriteFile("in.mlir", []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	all := append([]string{"in.mlir", "-o", "out.vmfb"}, args...)
	if code := run(all, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("iree-compile %s: exit %d: %s", strings.Join(all, " "), code, stderr.String())
	}
	out, err := os.ReadFile("out.vmfb")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTargetSpellingsSameBytes compiles one program under every spelling
// of one target choice (the legacy backend flag, the target-device flag in
// its forms, and device attributes in the program) and requires the same
// module bytes; a different choice must give different bytes.
func TestTargetSpellingsSameBytes(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "cpu_stream_head.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	csrc, _ := filepath.Abs(filepath.Join("testdata", "functions.c"))
	t.Chdir(t.TempDir())
	buildCPUObjects(t, csrc, ".")

	// The sample without its own device targets; its x86_64 objects keyed
	// by the generic target that any x86_64 CPU target specialises.
	const header = "module @example attributes {hal.device.targets = [#cpu_device]} {"
	prog := string(src)
	if !strings.Contains(prog, header) {
		t.Fatal("testdata/cpu_stream_head.mlir changed: no module header")
	}
	prog = strings.Replace(prog, "      #arm_64_target = [#hal.executable.object<{path = \"functions_arm_64.o\"}>],\n", "", 1)
	prog = strings.Replace(prog, "#x86_64_target = [#hal.executable.object", "#hal.executable.target<\"llvm-cpu\", \"embedded-elf-x86_64\"> = [#hal.executable.object", 1)
	// An elementwise op after the custom dispatch gives a generated dispatch
	// too, compiled for every chosen target.
	withAttr := func(attr string) string {
		h := "module @example {"
		if attr != "" {
			h = "module @example attributes {hal.device.targets = " + attr + "} {"
		}
		return strings.Replace(prog, header, h, 1)
	}
	// A program of generated dispatches only, which every backend compiles.
	const gen = "// generated dispatches only\nmodule @example attributes {hal.device.targets = ATTR} {\n" +
		"func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {\n" +
		"  %0 = arith.mulf %a, %b : tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n}\n"
	genAttr := func(attr string) string {
		if attr == "" {
			return strings.Replace(gen, " attributes {hal.device.targets = ATTR}", "", 1)
		}
		return strings.Replace(gen, "ATTR", attr, 1)
	}
	// Alias definitions go before the first line (a comment in both
	// programs) so that no source location moves: locations are part of
	// the module bytes.
	cpuTarget, _ := target.DefaultExecutableTarget("llvm-cpu")
	spvTarget, _ := target.DefaultExecutableTarget("vulkan-spirv")
	cpu, spv := ir.AttrString(cpuTarget), ir.AttrString(spvTarget)

	groups := []struct {
		name  string
		cases []struct {
			src  string
			args []string
		}
	}{
		{"local", []struct {
			src  string
			args []string
		}{
			{withAttr(""), []string{"--iree-hal-target-backends=llvm-cpu"}},
			{withAttr(""), []string{"--iree-hal-target-device=local"}},
			{withAttr(""), []string{"--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"}},
			{withAttr(""), []string{"--iree-hal-local-target-device-backends=llvm-cpu", "--iree-hal-target-device=\"local\""}},
			{withAttr(""), []string{"--iree-hal-target-device=llvm-cpu"}},
			{withAttr(""), []string{"--iree-hal-target-device=host=local[0]"}},
			{withAttr(""), []string{"--iree-hal-target-device=local", "--iree-hal-target-device=local"}},
			{withAttr(""), []string{"--iree-hal-target-device=#hal.device.target<\"local\", [" + cpu + "]> : !hal.device"}},
			{withAttr("[#hal.device.alias<\"local\"> : !hal.device]"), nil},
			{withAttr("{host = #hal.device.alias<\"local\"[0]> : !hal.device}"), nil},
			{withAttr("[#hal.device.select<[#hal.device.alias<\"local\"> : !hal.device]>]"), nil},
			{"#dflt = " + cpu + " " + withAttr("[#hal.device.select<[#hal.device.target<\"local\", [#dflt]> : !hal.device]>]"), nil},
			{"#dflt = " + cpu + " " + withAttr("[#hal.device.target<\"local\", [#dflt]> : !hal.device]"), nil},
			{"#dflt = " + cpu + " " + withAttr("[#hal.device.target<\"local\", {ordinal = 0 : index}, [#dflt]> : !hal.device]"), nil},
			{withAttr("[#hal.device.target<\"llvm-cpu\", {executable_targets = [" + cpu + "]}>]"), nil},
			// The program's targets win over flags, as in IREE.
			{withAttr("[#hal.device.alias<\"local\"> : !hal.device]"), []string{"--iree-hal-target-device=vulkan"}},
		}},
		{"local+vulkan", []struct {
			src  string
			args []string
		}{
			{genAttr(""), []string{"--iree-hal-target-backends=llvm-cpu,vulkan-spirv"}},
			{genAttr(""), []string{"--iree-hal-target-backends=llvm-cpu", "--iree-hal-target-backends=vulkan-spirv"}},
			{genAttr(""), []string{"--iree-hal-target-device=local,vulkan"}},
			{genAttr(""), []string{"--iree-hal-target-device=local", "--iree-hal-target-device=vulkan"}},
			{genAttr(""), []string{"--iree-hal-target-device=a=local", "--iree-hal-target-device=b=vulkan[0]"}},
			{genAttr(""), []string{"--iree-hal-target-device=llvm-cpu,vulkan-spirv"}},
			{genAttr("[#hal.device.alias<\"local\"> : !hal.device, #hal.device.alias<\"vulkan\"> : !hal.device]"), nil},
			{"#s = " + spv + " " + genAttr("[#hal.device.alias<\"local\"> : !hal.device, #hal.device.target<\"vulkan\", [#s]> : !hal.device]"), nil},
		}},
	}
	var firsts [][]byte
	for _, g := range groups {
		t.Run(g.name, func(t *testing.T) {
			var want []byte
			for i, c := range g.cases {
				got := compileBytes(t, c.src, c.args...)
				if i == 0 {
					want = got
					firsts = append(firsts, got)
					continue
				}
				if !bytes.Equal(got, want) {
					t.Errorf("case %d (%s): %d bytes differ from case 0's %d bytes", i, strings.Join(c.args, " "), len(got), len(want))
				}
			}
		})
	}
	// A different choice gives different bytes.
	if len(firsts) == 2 && bytes.Equal(firsts[1], compileBytes(t, genAttr(""), "--iree-hal-target-device=local")) {
		t.Errorf("local and local+vulkan gave the same module bytes")
	}
}

// TestTargetDeviceSpellingsPerBackend compares the backend and device
// flags for each device alone on a program of generated dispatches.
func TestTargetDeviceSpellingsPerBackend(t *testing.T) {
	t.Chdir(t.TempDir())
	prog := "func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {\n" +
		"  %0 = arith.mulf %a, %b : tensor<?xf32>\n  %1 = arith.addf %0, %b : tensor<?xf32>\n  return %1 : tensor<?xf32>\n}\n"
	seen := map[string]string{}
	for _, c := range []struct{ backend, device string }{
		{"llvm-cpu", "local"}, {"vulkan-spirv", "vulkan"}, {"cuda", "cuda"},
	} {
		a := compileBytes(t, prog, "--iree-hal-target-backends="+c.backend)
		b := compileBytes(t, prog, "--iree-hal-target-device="+c.device)
		if !bytes.Equal(a, b) {
			t.Errorf("--iree-hal-target-backends=%s and --iree-hal-target-device=%s differ", c.backend, c.device)
		}
		if other, dup := seen[string(a)]; dup {
			t.Errorf("%s gives the same bytes as %s", c.backend, other)
		}
		seen[string(a)] = c.backend
	}
}
