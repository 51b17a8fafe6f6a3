package plugin

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal/local"
)

// provider is what the manager needs of a plugin: resolution and a name
// for messages. Plugins implement it; tests use fakes.
type provider interface {
	resolveSymbols(symbols []string, fns, ctxs []uintptr) (status.Code, error)
	String() string
}

// unloader is implemented by providers that hold native code.
type unloader interface{ Unload() error }

// Manager holds the loaded plugins and resolves executables' imports
// against them. It implements local.ImportResolver. Plugins stay loaded
// until Close has been called and every executable that resolved imports
// through the manager has been released.
type Manager struct {
	mu        sync.Mutex
	providers []provider
	system    bool // a system plugin is loaded (flush stdio after calls)
	refs      int  // executables holding resolved imports
	closed    bool
	unloaded  bool
}

var _ local.ImportResolver = (*Manager)(nil)

// NewManager returns an empty manager.
func NewManager() *Manager { return &Manager{} }

// LoadAll returns a manager holding the plugins named by specs (see Load),
// loaded in order. On error the plugins loaded so far are unloaded.
func LoadAll(specs []string) (*Manager, error) {
	m := NewManager()
	for _, s := range specs {
		p, err := Load(s)
		if err != nil {
			m.Close()
			return nil, err
		}
		m.Add(p)
	}
	return m, nil
}

// Add registers a loaded plugin; the manager unloads it on Close. Plugins
// added later are searched first.
func (m *Manager) Add(p *Plugin) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.providers = append(m.providers, p)
	if p.Kind() == System {
		m.system = true
	}
}

// Plugins returns the loaded plugins in registration order.
func (m *Manager) Plugins() []*Plugin {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Plugin
	for _, p := range m.providers {
		if pl, ok := p.(*Plugin); ok {
			out = append(out, pl)
		}
	}
	return out
}

// Len returns the number of loaded plugins.
func (m *Manager) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.providers)
}

// ResolveImports implements local.ImportResolver. The plugins are asked in
// reverse registration order (the last loaded first); each fills what it
// provides and leaves entries another plugin filled alone. A required
// import left unresolved is an error naming it and the plugins searched;
// an optional one ('?' prefix) stays 0.
func (m *Manager) ResolveImports(library string, symbols []string, fns, ctxs []uintptr) (func(), error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, status.Errorf(status.FailedPrecondition, "executable %s: the executable plugin manager is closed", library)
	}
	providers := append([]provider(nil), m.providers...)
	m.refs++
	m.mu.Unlock()
	release := func() { m.release() }
	if err := resolve(providers, library, symbols, fns, ctxs); err != nil {
		release()
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(release) }, nil
}

// resolve runs the resolution over providers (searched last to first).
func resolve(providers []provider, library string, symbols []string, fns, ctxs []uintptr) error {
	if len(fns) != len(symbols) || len(ctxs) != len(symbols) {
		return status.Errorf(status.InvalidArgument, "executable %s: %d import symbols but %d function and %d context slots", library, len(symbols), len(fns), len(ctxs))
	}
	for i := len(providers) - 1; i >= 0; i-- {
		code, err := providers[i].resolveSymbols(symbols, fns, ctxs)
		if err != nil {
			return err
		}
		// NOT_FOUND only means this plugin lacks a required symbol that
		// another may provide; anything else is a failure of the plugin.
		if code != status.OK && code != status.NotFound {
			return status.Errorf(code, "executable %s: executable plugin %s failed to resolve imports: status %v", library, providers[i], code)
		}
	}
	var missing []string
	for i, s := range symbols {
		if fns[i] == 0 && !strings.HasPrefix(s, "?") {
			missing = append(missing, strconv.Quote(s))
		}
	}
	if len(missing) == 0 {
		return nil
	}
	what := "import " + missing[0]
	if len(missing) > 1 {
		what = "imports " + strings.Join(missing, ", ")
	}
	if len(providers) == 0 {
		return status.Errorf(status.NotFound, "executable %s: %s not found: no executable plugin is loaded (load one with --executable_plugin=<path>)", library, what)
	}
	searched := make([]string, len(providers))
	for i := range providers {
		searched[i] = providers[len(providers)-1-i].String()
	}
	return status.Errorf(status.NotFound, "executable %s: %s not found in the loaded executable plugins (searched: %s)", library, what, strings.Join(searched, ", "))
}

func (m *Manager) release() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refs--
	if m.closed && m.refs == 0 {
		m.unloadLocked()
	}
}

// unloadLocked unloads the plugins in reverse registration order, once.
func (m *Manager) unloadLocked() error {
	if m.unloaded {
		return nil
	}
	m.unloaded = true
	var errs []error
	for i := len(m.providers) - 1; i >= 0; i-- {
		if u, ok := m.providers[i].(unloader); ok {
			if err := u.Unload(); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// Close flushes plugin output and unloads the plugins once no executable
// uses their functions: now, or when the last such executable is
// released. Later resolutions fail.
func (m *Manager) Close() error {
	if m == nil {
		return nil
	}
	m.Flush()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	m.closed = true
	if m.refs == 0 {
		if err := m.unloadLocked(); err != nil {
			return fmt.Errorf("unloading executable plugins: %w", err)
		}
	}
	return nil
}

// Flush writes out what system plugins have printed through the C
// library's buffered stdio, so that it appears before the tool's own
// output that follows (IREE's tools and plugins share one stdout buffer;
// here the tool writes with Go). It does nothing without system plugins.
func (m *Manager) Flush() {
	if m == nil {
		return
	}
	m.mu.Lock()
	system := m.system
	m.mu.Unlock()
	if system {
		flushStdio()
	}
}
