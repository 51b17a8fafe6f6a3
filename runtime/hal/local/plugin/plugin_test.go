package plugin_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/hal/local/plugin"
	"github.com/goiree/goiree/runtime/hal/local/plugin/plugintest"
)

func f32bytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// runImportLibrary loads the importing test library with imports resolved
// by m, dispatches scale_add_tiles over n elements and returns out.
func runImportLibrary(t *testing.T, lib []byte, m *plugin.Manager, a, b []float32, k float32) ([]float32, error) {
	t.Helper()
	exe, err := local.LoadWithImports(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: lib}, m)
	if err != nil {
		return nil, err
	}
	defer exe.Release()
	if got := strings.Join(exe.Imports(), ","); got != "?optional_missing,scale_add" {
		t.Errorf("Imports() = %q", got)
	}
	n := len(a)
	out := make([]byte, 4*n)
	d, err := exe.PrepareDispatch(0, [3]uint32{uint32(n+63) / 64, 1, 1}, []uint32{uint32(n), math.Float32bits(k)}, [][]byte{f32bytes(a), f32bytes(b), out}, 1)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	if err := d.Run(0, nil, 0, d.WorkgroupCount()); err != nil {
		return nil, err
	}
	res := make([]float32, n)
	for i := range res {
		res[i] = math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:]))
	}
	return res, nil
}

// TestPluginsResolveImports loads a standalone and a system plugin, alone
// and together in both orders, resolves the test library's imports
// against them and checks each dispatch against a plain Go loop: the
// plugin registered last provides scale_add (the system plugin adds 1000).
func TestPluginsResolveImports(t *testing.T) {
	standalone := plugintest.BuildStandalone(t, "scale_add_standalone.c")
	system := plugintest.BuildSystem(t, "scale_add_system.c")
	lib := plugintest.ImportLibrary(t)
	const n = 1000
	a, b := make([]float32, n), make([]float32, n)
	for i := range a {
		a[i], b[i] = float32(i)*0.25, float32(n-i)
	}
	const k = 3
	tests := []struct {
		name  string
		specs []string
		kinds []plugin.Kind
		bias  float32
	}{
		{"standalone", []string{standalone}, []plugin.Kind{plugin.Standalone}, 0},
		{"system", []string{system}, []plugin.Kind{plugin.System}, 1000},
		{"system then standalone", []string{system, standalone}, []plugin.Kind{plugin.System, plugin.Standalone}, 0},
		{"standalone then system", []string{standalone, system}, []plugin.Kind{plugin.Standalone, plugin.System}, 1000},
		{"embedded: prefix", []string{plugin.EmbeddedPrefix + standalone}, []plugin.Kind{plugin.Standalone}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := plugin.LoadAll(tc.specs)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := m.Close(); err != nil {
					t.Error(err)
				}
			}()
			for i, p := range m.Plugins() {
				if p.Kind() != tc.kinds[i] {
					t.Errorf("plugin %d (%s) loaded as %v, want %v", i, p, p.Kind(), tc.kinds[i])
				}
			}
			got, err := runImportLibrary(t, lib, m, a, b, k)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if want := a[i]*k + b[i] + tc.bias; got[i] != want {
					t.Fatalf("out[%d] = %v, want %v", i, got[i], want)
				}
			}
		})
	}
}

func TestPluginHeaders(t *testing.T) {
	for _, tc := range []struct {
		build       func(testing.TB, string) string
		src         string
		name, descr string
		kind        plugin.Kind
	}{
		{plugintest.BuildStandalone, "scale_add_standalone.c", "test_standalone", "goiree test plugin (freestanding ELF)", plugin.Standalone},
		{plugintest.BuildSystem, "scale_add_system.c", "test_system", "goiree test plugin (shared library)", plugin.System},
	} {
		path := tc.build(t, tc.src)
		p, err := plugin.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name() != tc.name || p.Description() != tc.descr || p.Kind() != tc.kind || p.Path() != path {
			t.Errorf("%s: name %q description %q kind %v path %q", tc.src, p.Name(), p.Description(), p.Kind(), p.Path())
		}
		if got, want := p.String(), tc.name+" ("+path+")"; got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
		if err := p.Unload(); err != nil {
			t.Error(err)
		}
		if err := p.Unload(); err == nil {
			t.Error("second Unload succeeded")
		}
	}
}

func TestMissingImport(t *testing.T) {
	lib := plugintest.ImportLibrary(t)
	_, err := runImportLibrary(t, lib, plugin.NewManager(), []float32{1}, []float32{2}, 1)
	want := `executable import_library: import "scale_add" not found: no executable plugin is loaded (load one with --executable_plugin=<path>)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
	// Without any resolver the library is refused by the local loader.
	_, err = local.Load(hal.ExecutableParams{Format: local.FormatEmbeddedELFX86_64, Data: lib})
	want = `import_library imports "?optional_missing", "scale_add", but no executable plugin is loaded to provide them`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// fatELF wraps members (machine, ELF bytes) in a FatELF container.
func fatELF(members ...struct {
	machine uint16
	data    []byte
}) []byte {
	const hdr, rec = 8, 24
	out := make([]byte, hdr+rec*len(members))
	binary.LittleEndian.PutUint32(out, 0x1F0E70FA)
	binary.LittleEndian.PutUint16(out[4:], 1)
	out[6] = byte(len(members))
	for i, m := range members {
		r := out[hdr+rec*i:]
		binary.LittleEndian.PutUint16(r, m.machine)
		r[4], r[5] = 2, 1 // 64-bit, little-endian
		for len(out)%16 != 0 {
			out = append(out, 0)
		}
		binary.LittleEndian.PutUint64(out[hdr+rec*i+8:], uint64(len(out)))
		binary.LittleEndian.PutUint64(out[hdr+rec*i+16:], uint64(len(m.data)))
		out = append(out, m.data...)
	}
	return out
}

// TestLoadErrors feeds Load files that are not plugins of either kind:
// each gives one line naming the file and the reason.
func TestLoadErrors(t *testing.T) {
	standalone := plugintest.BuildStandalone(t, "scale_add_standalone.c")
	system := plugintest.BuildSystem(t, "scale_add_system.c")
	elfData, err := os.ReadFile(standalone)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	arm := append([]byte(nil), elfData...)
	binary.LittleEndian.PutUint16(arm[18:], 183) // e_machine = EM_AARCH64
	type member = struct {
		machine uint16
		data    []byte
	}
	tests := []struct {
		spec string
		want string
	}{
		{write("text.so", []byte("#!/bin/sh\necho not a plugin\n")), "not an ELF file (it starts with 23 21 2f 62, not the ELF magic 7f 45 4c 46)"},
		{write("empty.so", nil), "not an ELF file (the file is empty)"},
		{write("truncated.so", elfData[:40]), "not a valid ELF file"},
		{write("arm.so", arm), "ELF is for aarch64 and cannot run on this x86_64 host"},
		{plugin.EmbeddedPrefix + system, "a standalone plugin must need nothing from the system, but this ELF needs libc.so.6"},
		{write("arm_only.sos", fatELF(member{183, arm})), "FatELF file has no ELF for this x86_64 host (it holds: aarch64)"},
		{filepath.Join(dir, "nonexistent.so"), "no such file or directory"},
		{"embedded:", "empty path"},
	}
	for _, tc := range tests {
		_, err := plugin.Load(tc.spec)
		if err == nil {
			t.Errorf("%s: loaded", tc.spec)
			continue
		}
		msg := err.Error()
		path := strings.TrimPrefix(tc.spec, plugin.EmbeddedPrefix)
		if !strings.Contains(msg, tc.want) || (path != "" && !strings.Contains(msg, "executable plugin "+path+": ")) || strings.Contains(msg, "\n") {
			t.Errorf("%s: error %q, want one line naming the file and containing %q", tc.spec, msg, tc.want)
		}
	}
	// A FatELF holding an x86-64 member (IREE's .sos) loads that member.
	fat := write("both.sos", fatELF(member{183, arm}, member{62, elfData}))
	p, err := plugin.Load(fat)
	if err != nil {
		t.Fatalf("FatELF: %v", err)
	}
	if p.Kind() != plugin.Standalone || p.Name() != "test_standalone" {
		t.Errorf("FatELF member loaded as %v %q", p.Kind(), p.Name())
	}
	p.Unload()
}

// TestPluginHeaderChecks loads variants of the standalone test plugin
// whose headers the runtime must refuse, or load another way.
func TestPluginHeaderChecks(t *testing.T) {
	tests := []struct {
		name   string
		define string
		embed  bool
		kind   plugin.Kind
		want   string
	}{
		{"not declared standalone: loaded with dlopen", "-DPLUGIN_FEATURES=0", false, plugin.System, ""},
		{"not declared standalone but required", "-DPLUGIN_FEATURES=0", true, 0,
			`plugin "test_standalone" is a freestanding ELF but does not declare IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE`},
		{"full status", "-DPLUGIN_FEATURES=3", false, 0, "returns IREE runtime status objects (FEATURE_FULL_STATUS)"},
		{"sanitizer", "-DPLUGIN_SANITIZER=1", true, 0, "was built with sanitizer 1"},
		{"newer version", "-DPLUGIN_VERSION=2", true, 0, "was built for plugin ABI version 2; this runtime supports up to 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := plugintest.BuildStandaloneWithFlags(t, "scale_add_standalone.c", tc.define)
			spec := path
			if tc.embed {
				spec = plugin.EmbeddedPrefix + path
			}
			p, err := plugin.Load(spec)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.Kind() != tc.kind {
					t.Errorf("loaded as %v, want %v", p.Kind(), tc.kind)
				}
				p.Unload()
				return
			}
			if err == nil {
				p.Unload()
				t.Fatalf("loaded, want an error containing %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), "system library") {
				t.Errorf("error %q, want it to name %s and contain %q", err, path, tc.want)
			}
		})
	}
}
