package plugin

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal/local/elf"
)

// Sizes and offsets of the plugin ABI structs (executable_plugin.h pins
// them with static asserts).
const (
	tableSize       = 32 // iree_hal_executable_plugin_v0_t
	headerSize      = 96 // iree_hal_executable_plugin_header_t
	maxStringLength = 4096
	statusCodeMask  = 0x1F
)

// Plugin is one loaded executable plugin. Its methods are safe for
// concurrent use.
type Plugin struct {
	path        string
	kind        Kind
	name        string
	description string
	features    uint32

	handle uintptr    // system: the dlopen handle
	image  *elf.Image // standalone: the mapped ELF

	unload, resolve, self uintptr

	mu       sync.Mutex
	unloaded bool
}

// Path returns the file the plugin was loaded from.
func (p *Plugin) Path() string { return p.path }

// Kind returns how the plugin was loaded.
func (p *Plugin) Kind() Kind { return p.kind }

// Name returns the name from the plugin's header.
func (p *Plugin) Name() string { return p.name }

// Description returns the description from the plugin's header.
func (p *Plugin) Description() string { return p.description }

// String names the plugin for messages: "name (path)".
func (p *Plugin) String() string {
	if p.name == "" {
		return p.path
	}
	return p.name + " (" + p.path + ")"
}

func pluginErr(path string, code status.Code, format string, args ...any) error {
	return status.Errorf(code, "executable plugin %s: %s", path, fmt.Sprintf(format, args...))
}

// Load loads the plugin named by spec: a path, optionally prefixed with
// "embedded:" to require a standalone plugin (so does IREE's ".sos"
// extension). The kind is otherwise decided by the file's contents (see the
// package documentation). The plugin's load function has run when Load
// returns; call Unload when no executable uses its functions any more.
func Load(spec string) (*Plugin, error) {
	path, force := strings.CutPrefix(spec, EmbeddedPrefix)
	if path == "" {
		return nil, status.Errorf(status.InvalidArgument, "executable plugin: empty path in %q", spec)
	}
	force = force || strings.HasSuffix(path, ".sos")
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, pluginErr(path, status.NotFound, "%v", unwrapPathError(err))
	}
	kind, elfData, err := detect(data, force)
	if err != nil {
		return nil, pluginErr(path, status.InvalidArgument, "%v", err)
	}
	if kind == System {
		return loadSystem(path)
	}
	p, err := loadStandalone(path, elfData)
	var alt *notStandalone
	if err == nil || !errors.As(err, &alt) {
		return p, err
	}
	if force {
		return nil, alt.err
	}
	// A self-contained ELF that our loader refuses, or that does not
	// declare itself standalone, may still be an ordinary shared library.
	sp, serr := loadSystem(path)
	if serr != nil {
		return nil, pluginErr(path, status.InvalidArgument, "cannot be loaded as a standalone plugin (%v) nor as a system library (%v)", stripPrefix(alt.err, path), stripPrefix(serr, path))
	}
	return sp, nil
}

// notStandalone marks a load error that says the file is not a standalone
// plugin (our ELF loader refuses it, or its header does not declare the
// feature), after which dlopen may still load it.
type notStandalone struct{ err error }

func (e *notStandalone) Error() string { return e.err.Error() }
func (e *notStandalone) Unwrap() error { return e.err }

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// stripPrefix drops the "executable plugin <path>: " prefix of err's
// message, for nesting one load error in another.
func stripPrefix(err error, path string) string {
	msg := err.Error()
	if i := strings.Index(msg, "executable plugin "+path+": "); i >= 0 {
		return msg[i+len("executable plugin "+path+": "):]
	}
	return msg
}

// loadStandalone maps a freestanding plugin ELF with the runtime's loader.
// Every pointer the plugin returns is checked against the image before it
// is followed.
func loadStandalone(path string, data []byte) (p *Plugin, err error) {
	img, err := elf.Load(data)
	if err != nil {
		return nil, &notStandalone{pluginErr(path, status.InvalidArgument, "%v", err)}
	}
	defer func() {
		if err != nil {
			img.Close()
		}
	}()
	sym, err := img.Lookup(QuerySymbol)
	if err != nil {
		return nil, pluginErr(path, status.NotFound, "ELF does not export %s", QuerySymbol)
	}
	if !img.IsExecutable(sym.Addr) {
		return nil, pluginErr(path, status.InvalidArgument, "%s at %#x is not in an executable segment", QuerySymbol, sym.Addr)
	}
	ptr := callQuery(sym.Addr, Version)
	if ptr == 0 {
		return nil, pluginErr(path, status.FailedPrecondition, "plugin does not support plugin ABI version %d (its query returned NULL)", Version)
	}
	raw, err := img.Read(ptr, tableSize)
	if err != nil {
		return nil, pluginErr(path, status.InvalidArgument, "plugin table: %v", err)
	}
	t := table{
		header: uintptr(binary.LittleEndian.Uint64(raw[0:])), load: uintptr(binary.LittleEndian.Uint64(raw[8:])),
		unload: uintptr(binary.LittleEndian.Uint64(raw[16:])), resolve: uintptr(binary.LittleEndian.Uint64(raw[24:])),
	}
	hdr, err := img.Read(t.header, headerSize)
	if err != nil {
		return nil, pluginErr(path, status.InvalidArgument, "plugin header: %v", err)
	}
	t.version = binary.LittleEndian.Uint32(hdr[0:])
	t.features = binary.LittleEndian.Uint32(hdr[24:])
	t.sanitizer = int32(binary.LittleEndian.Uint32(hdr[28:]))
	p = &Plugin{path: path, kind: Standalone, image: img, features: t.features}
	for _, s := range []struct {
		at  int
		dst *string
	}{{8, &p.name}, {16, &p.description}} {
		if a := uintptr(binary.LittleEndian.Uint64(hdr[s.at:])); a != 0 {
			if *s.dst, err = img.ReadCString(a, maxStringLength); err != nil {
				return nil, pluginErr(path, status.InvalidArgument, "plugin header string: %v", err)
			}
		}
	}
	for _, f := range []struct {
		name     string
		addr     uintptr
		optional bool
	}{{"load", t.load, true}, {"unload", t.unload, true}, {"resolve", t.resolve, false}} {
		if f.addr == 0 && f.optional {
			continue
		}
		if !img.IsExecutable(f.addr) {
			return nil, pluginErr(path, status.InvalidArgument, "plugin %s function %#x is not in an executable segment", f.name, f.addr)
		}
	}
	if t.features&FeatureStandalone == 0 {
		return nil, &notStandalone{pluginErr(path, status.FailedPrecondition, "plugin %q is a freestanding ELF but does not declare IREE_HAL_EXECUTABLE_PLUGIN_FEATURE_STANDALONE", p.name)}
	}
	if err := p.start(t); err != nil {
		return nil, err
	}
	return p, nil
}

// loadSystem loads a shared library with dlopen.
func loadSystem(path string) (p *Plugin, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, pluginErr(path, status.InvalidArgument, "%v", err)
	}
	h, err := dlopen(abs)
	if err != nil {
		return nil, pluginErr(path, status.InvalidArgument, "dlopen: %v", err)
	}
	defer func() {
		if err != nil {
			dlclose(h)
		}
	}()
	q := dlsym(h, QuerySymbol)
	if q == 0 {
		return nil, pluginErr(path, status.NotFound, "shared library does not export %s (declare it with visibility(\"default\"))", QuerySymbol)
	}
	ptr := callQuery(q, Version)
	if ptr == 0 {
		return nil, pluginErr(path, status.FailedPrecondition, "plugin does not support plugin ABI version %d (its query returned NULL)", Version)
	}
	t := readTable(ptr)
	if t.header == 0 {
		return nil, pluginErr(path, status.InvalidArgument, "plugin table has no header")
	}
	if t.resolve == 0 {
		return nil, pluginErr(path, status.InvalidArgument, "plugin table has no resolve function")
	}
	p = &Plugin{path: path, kind: System, handle: h, features: t.features,
		name: cString(t.name), description: cString(t.description)}
	if err := p.start(t); err != nil {
		return nil, err
	}
	return p, nil
}

// start checks the header's version, features and sanitizer and calls the
// plugin's load function.
func (p *Plugin) start(t table) error {
	if t.version > Version {
		return pluginErr(p.path, status.FailedPrecondition, "plugin %q was built for plugin ABI version %d; this runtime supports up to %d", p.name, t.version, Version)
	}
	if t.features&FeatureFullStatus != 0 {
		return pluginErr(p.path, status.FailedPrecondition, "plugin %q returns IREE runtime status objects (FEATURE_FULL_STATUS), which this runtime cannot read", p.name)
	}
	if t.sanitizer != 0 {
		return pluginErr(p.path, status.FailedPrecondition, "plugin %q was built with sanitizer %d; this runtime is not, so only unsanitized plugins can be loaded", p.name, t.sanitizer)
	}
	if t.load != 0 {
		st, self := callLoad(t.load)
		if code := st & statusCodeMask; code != 0 {
			return pluginErr(p.path, status.Code(code), "plugin %q failed to load: status %v", p.name, status.Code(code))
		}
		p.self = self
	}
	p.unload, p.resolve = t.unload, t.resolve
	return nil
}

// Resolve asks the plugin to fill the unresolved entries of fns and ctxs
// for symbols. It returns the plugin's status code (NOT_FOUND when it lacks
// a required symbol) and its resolution bits.
func (p *Plugin) Resolve(symbols []string, fns, ctxs []uintptr) (status.Code, uint32, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.unloaded {
		return 0, 0, status.Errorf(status.FailedPrecondition, "executable plugin %s was unloaded", p)
	}
	st, res := callResolve(p.resolve, p.self, symbols, fns, ctxs)
	return status.Code(st & statusCodeMask), res, nil
}

// resolveSymbols implements provider.
func (p *Plugin) resolveSymbols(symbols []string, fns, ctxs []uintptr) (status.Code, error) {
	code, _, err := p.Resolve(symbols, fns, ctxs)
	return code, err
}

// Unload calls the plugin's unload function and unloads its code. No
// function it resolved may run afterwards. Unloading twice is an error.
func (p *Plugin) Unload() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.unloaded {
		return status.Errorf(status.FailedPrecondition, "executable plugin %s unloaded twice", p)
	}
	p.unloaded = true
	callUnload(p.unload, p.self)
	if p.kind == System {
		if !dlclose(p.handle) {
			return status.Errorf(status.Internal, "executable plugin %s: dlclose failed", p)
		}
		return nil
	}
	if err := p.image.Close(); err != nil {
		return fmt.Errorf("executable plugin %s: %w", p, err)
	}
	return nil
}
