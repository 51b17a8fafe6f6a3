package plugin

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/base/status"
)

// fakeProvider resolves the symbols in provides (name without '?') to the
// given addresses, following the plugin ABI's rules: entries already set
// are skipped, and NOT_FOUND is returned when a required symbol is missing.
type fakeProvider struct {
	name     string
	provides map[string]uintptr
	code     status.Code // returned instead when non-zero
	calls    *[]string
}

func (f *fakeProvider) String() string { return f.name }

func (f *fakeProvider) resolveSymbols(symbols []string, fns, ctxs []uintptr) (status.Code, error) {
	*f.calls = append(*f.calls, f.name)
	if f.code != 0 {
		return f.code, nil
	}
	code := status.OK
	for i, s := range symbols {
		if fns[i] != 0 {
			continue
		}
		if a, ok := f.provides[strings.TrimPrefix(s, "?")]; ok {
			fns[i], ctxs[i] = a, a+1
		} else if !strings.HasPrefix(s, "?") {
			code = status.NotFound
		}
	}
	return code, nil
}

func TestResolveOrderAndOptional(t *testing.T) {
	tests := []struct {
		name      string
		providers []*fakeProvider
		symbols   []string
		wantFns   []uintptr
		wantOrder string
		wantErr   string
	}{
		{
			name:      "last registered is searched first and wins",
			providers: []*fakeProvider{{name: "first", provides: map[string]uintptr{"a": 0x10, "b": 0x20}}, {name: "second", provides: map[string]uintptr{"a": 0x30}}},
			symbols:   []string{"a", "b"},
			wantFns:   []uintptr{0x30, 0x20},
			wantOrder: "second,first",
		},
		{
			name:      "optional import may stay unresolved",
			providers: []*fakeProvider{{name: "p", provides: map[string]uintptr{"a": 0x10}}},
			symbols:   []string{"?opt", "a"},
			wantFns:   []uintptr{0, 0x10},
			wantOrder: "p",
		},
		{
			name:      "optional import is resolved when provided",
			providers: []*fakeProvider{{name: "p", provides: map[string]uintptr{"opt": 0x40}}},
			symbols:   []string{"?opt"},
			wantFns:   []uintptr{0x40},
			wantOrder: "p",
		},
		{
			name:      "missing required import names it and the plugins searched, newest first",
			providers: []*fakeProvider{{name: "old (/p/old.so)", provides: map[string]uintptr{"a": 1}}, {name: "new (/p/new.so)", provides: map[string]uintptr{}}},
			symbols:   []string{"a", "zeta"},
			wantOrder: "new (/p/new.so),old (/p/old.so)",
			wantErr:   `executable lib: import "zeta" not found in the loaded executable plugins (searched: new (/p/new.so), old (/p/old.so))`,
		},
		{
			name:      "several missing imports are all named",
			providers: []*fakeProvider{{name: "p", provides: map[string]uintptr{}}},
			symbols:   []string{"?o", "x", "y"},
			wantOrder: "p",
			wantErr:   `executable lib: imports "x", "y" not found in the loaded executable plugins (searched: p)`,
		},
		{
			name:    "no plugins",
			symbols: []string{"x"},
			wantErr: `executable lib: import "x" not found: no executable plugin is loaded (load one with --executable_plugin=<path>)`,
		},
		{
			name:      "a plugin failure other than NOT_FOUND stops the search",
			providers: []*fakeProvider{{name: "fine", provides: map[string]uintptr{"x": 1}}, {name: "broken", code: status.Internal}},
			symbols:   []string{"x"},
			wantOrder: "broken",
			wantErr:   "executable lib: executable plugin broken failed to resolve imports: status INTERNAL",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls []string
			var ps []provider
			for _, p := range tc.providers {
				p.calls = &calls
				ps = append(ps, p)
			}
			fns := make([]uintptr, len(tc.symbols))
			ctxs := make([]uintptr, len(tc.symbols))
			err := resolve(ps, "lib", tc.symbols, fns, ctxs)
			if got := strings.Join(calls, ","); got != tc.wantOrder {
				t.Errorf("search order %q, want %q", got, tc.wantOrder)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range fns {
				if fns[i] != tc.wantFns[i] {
					t.Errorf("fns[%d] = %#x, want %#x", i, fns[i], tc.wantFns[i])
				}
				if want := tc.wantFns[i]; want != 0 && ctxs[i] != want+1 {
					t.Errorf("ctxs[%d] = %#x, want %#x", i, ctxs[i], want+1)
				}
			}
		})
	}
}

// countingProvider records unloads.
type countingProvider struct {
	fakeProvider
	unloads *int
}

func (c *countingProvider) Unload() error { *c.unloads++; return nil }

func TestManagerKeepsPluginsWhileExecutablesLive(t *testing.T) {
	var calls []string
	unloads := 0
	m := NewManager()
	m.providers = append(m.providers, &countingProvider{fakeProvider{name: "p", provides: map[string]uintptr{"f": 8}, calls: &calls}, &unloads})
	fns, ctxs := make([]uintptr, 1), make([]uintptr, 1)
	release, err := m.ResolveImports("lib", []string{"f"}, fns, ctxs)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if unloads != 0 {
		t.Fatal("plugin unloaded while an executable still uses its imports")
	}
	if _, err := m.ResolveImports("lib2", []string{"f"}, fns, ctxs); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("resolution after Close: %v", err)
	}
	release()
	release() // a second call must not unload twice or underflow
	if unloads != 1 {
		t.Fatalf("%d unloads after the last release, want 1", unloads)
	}
}
