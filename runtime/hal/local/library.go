package local

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/goiree/goiree/runtime/base/status"
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local/elf"
)

// Limits of the ABI (executable_library.h).
const (
	MaxConstants = 64
	MaxBindings  = 64
	// maxExports bounds the export table read from a library.
	maxExports    = 1 << 16
	maxNameLength = 1024
	// maxImports bounds the import table read from a library.
	maxImports = 1 << 12
)

// Sizes and offsets of the ABI structs (pinned by static asserts in the
// header).
const (
	libraryStructSize = 80
	headerStructSize  = 24
	attrsStructSize   = 64
)

// export is one entry point of a loaded library.
type export struct {
	info hal.ExportInfo
	fn   uintptr
}

// library is a loaded, queried and validated executable library.
type library struct {
	closeOnce sync.Once
	closeErr  error
	image     *elf.Image
	env       *environment
	name      string
	exports   []export
	// imports are the library's import table entries, in table order
	// (a '?' prefix marks an optional import).
	imports []string
	// releaseImports tells the resolver the imports are no longer used.
	releaseImports func()
}

func libErr(code status.Code, format string, args ...any) error {
	return status.Errorf(code, "executable library: "+format, args...)
}

// loadLibrary maps data with the ELF loader, calls the query function,
// validates everything the library returns before it is used and resolves
// its imports through imports (which may be nil when no plugin is loaded).
func loadLibrary(data []byte, constants []uint32, imports ImportResolver) (lib *library, err error) {
	img, err := elf.Load(data)
	if err != nil {
		return nil, err
	}
	env := newEnvironment(constants)
	defer func() {
		if err != nil {
			env.free()
			img.Close()
		}
	}()
	sym, err := img.Lookup(QuerySymbol)
	if err != nil {
		return nil, libErr(status.NotFound, "ELF does not export %s", QuerySymbol)
	}
	if !img.IsExecutable(sym.Addr) {
		return nil, libErr(status.InvalidArgument, "%s at %#x is not in an executable segment", QuerySymbol, sym.Addr)
	}
	ptr, err := callQuery(sym.Addr, LibraryVersion, env)
	if err != nil {
		return nil, err
	}
	if ptr == 0 {
		return nil, libErr(status.FailedPrecondition, "executable does not support this version of the runtime (query for version %#x returned NULL)", LibraryVersion)
	}
	lib = &library{image: img, env: env}
	if err := lib.parse(ptr, len(constants)); err != nil {
		return nil, err
	}
	if err := lib.resolveImports(imports); err != nil {
		return nil, err
	}
	return lib, nil
}

// ImportResolver resolves the imports of CPU executables: the functions a
// library lists in its import table and calls through the environment's
// import thunk as `int fn(void* params, void* context, void* reserved)`
// (executable_library.h). Package plugin's Manager implements it over the
// loaded executable plugins.
type ImportResolver interface {
	// ResolveImports fills fns[i] and contexts[i] (both len(symbols)) with
	// the address of the function implementing symbols[i] and the context
	// to pass it. Symbols are as the library lists them: a '?' prefix marks
	// an optional import, which stays 0 when nothing provides it. A
	// required import that nothing provides is an error naming it. library
	// names the executable for messages. release is called once when the
	// executable no longer uses the functions (the resolver must keep them
	// loaded until then).
	ResolveImports(library string, symbols []string, fns, contexts []uintptr) (release func(), err error)
}

// resolveImports resolves the import table read by parse and stores the
// results, with the import thunk, in the environment.
func (l *library) resolveImports(r ImportResolver) error {
	if len(l.imports) == 0 {
		return nil
	}
	name := l.name
	if name == "" {
		name = "(unnamed)"
	}
	if r == nil {
		return libErr(status.NotFound, "%s imports %s, but no executable plugin is loaded to provide %s (load one with --executable_plugin=<path>)",
			name, quoteList(l.imports), plural(len(l.imports), "it", "them"))
	}
	fns := make([]uintptr, len(l.imports))
	ctxs := make([]uintptr, len(l.imports))
	release, err := r.ResolveImports(name, l.imports, fns, ctxs)
	if err != nil {
		return err
	}
	for i, s := range l.imports {
		if fns[i] == 0 && !strings.HasPrefix(s, "?") {
			if release != nil {
				release()
			}
			return libErr(status.Internal, "%s: the import resolver left required import %q unresolved without an error", name, s)
		}
	}
	if !l.env.setImports(fns, ctxs) {
		if release != nil {
			release()
		}
		return libErr(status.ResourceExhausted, "%s: out of memory for its %d import(s)", name, len(fns))
	}
	l.releaseImports = release
	return nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func (l *library) ptrAt(addr uintptr) (uintptr, error) {
	v, err := l.image.ReadU64(addr)
	return uintptr(v), err
}

func (l *library) parse(ptr uintptr, constantCount int) error {
	img := l.image
	raw, err := img.Read(ptr, libraryStructSize)
	if err != nil {
		return libErr(status.InvalidArgument, "query result: %v", err)
	}
	u64 := func(off int) uintptr { return uintptr(le64(raw[off:])) }
	u32 := func(off int) uint32 { return le32(raw[off:]) }
	headerPtr := u64(0)
	hdr, err := img.Read(headerPtr, headerStructSize)
	if err != nil {
		return libErr(status.InvalidArgument, "library header: %v", err)
	}
	if v := le32(hdr[0:]); v != LibraryVersion {
		return libErr(status.FailedPrecondition, "executable does not support this version of the runtime (library version %#x, runtime %#x)", v, LibraryVersion)
	}
	if f := le32(hdr[4:]); f != 0 {
		return libErr(status.Unimplemented, "library requires unsupported features %#x", f)
	}
	if namePtr := uintptr(le64(hdr[8:])); namePtr != 0 {
		if l.name, err = img.ReadCString(namePtr, maxNameLength); err != nil {
			return libErr(status.InvalidArgument, "library name: %v", err)
		}
	}
	if s := int32(le32(hdr[16:])); s != 0 {
		return libErr(status.FailedPrecondition, "library was built with sanitizer %d; only unsanitized libraries can be loaded", s)
	}
	if n := u32(8); n != 0 {
		if err := l.parseImports(n, u64(16)); err != nil {
			return err
		}
	}
	count := u32(24)
	ptrs, attrs, names := u64(32), u64(40), u64(48)
	if count == 0 || count > maxExports {
		return libErr(status.InvalidArgument, "export count %d is not in [1, %d]", count, maxExports)
	}
	if ptrs == 0 {
		return libErr(status.InvalidArgument, "export table has no entry points")
	}
	if want := u32(72); int(want) != constantCount {
		return libErr(status.InvalidArgument, "executable expects %d constant(s) but %d were provided", want, constantCount)
	}
	l.exports = make([]export, count)
	for i := range l.exports {
		e := &l.exports[i]
		e.info = hal.ExportInfo{ConstantCount: -1, BindingCount: -1}
		if e.fn, err = l.ptrAt(ptrs + uintptr(i)*8); err != nil {
			return libErr(status.InvalidArgument, "export %d entry point: %v", i, err)
		}
		if !img.IsExecutable(e.fn) {
			return libErr(status.InvalidArgument, "export %d entry point %#x is not in an executable segment", i, e.fn)
		}
		if names != 0 {
			np, err := l.ptrAt(names + uintptr(i)*8)
			if err != nil {
				return libErr(status.InvalidArgument, "export %d name: %v", i, err)
			}
			if np != 0 {
				if e.info.Name, err = img.ReadCString(np, maxNameLength); err != nil {
					return libErr(status.InvalidArgument, "export %d name: %v", i, err)
				}
			}
		}
		if attrs != 0 {
			a, err := img.Read(attrs+uintptr(i)*attrsStructSize, attrsStructSize)
			if err != nil {
				return libErr(status.InvalidArgument, "export %d attributes: %v", i, err)
			}
			if flags := le64(a[0:]); flags != 0 {
				return libErr(status.Unimplemented, "export %d has unsupported flags %#x", i, flags)
			}
			e.info.LocalMemoryBytes = int64(le16(a[8:])) * LocalMemoryPageSize
			e.info.ConstantCount = int(a[10])
			e.info.BindingCount = int(a[11])
			if e.info.ConstantCount > MaxConstants || e.info.BindingCount > MaxBindings {
				return libErr(status.InvalidArgument, "export %d declares %d constants and %d bindings, over the limits %d and %d", i, e.info.ConstantCount, e.info.BindingCount, MaxConstants, MaxBindings)
			}
			e.info.WorkgroupSize = [3]uint32{le32(a[12:]), le32(a[16:]), uint32(le16(a[20:]))}
		}
	}
	return nil
}

// parseImports reads the import table: count symbol names at symbols.
func (l *library) parseImports(count uint32, symbols uintptr) error {
	if count > maxImports {
		return libErr(status.InvalidArgument, "import count %d exceeds %d", count, maxImports)
	}
	if symbols == 0 {
		return libErr(status.InvalidArgument, "import table lists %d import(s) but no symbol names", count)
	}
	l.imports = make([]string, count)
	seen := map[string]bool{}
	for i := range l.imports {
		p, err := l.ptrAt(symbols + uintptr(i)*8)
		if err != nil {
			return libErr(status.InvalidArgument, "import %d name: %v", i, err)
		}
		if p == 0 {
			return libErr(status.InvalidArgument, "import %d has no name", i)
		}
		s, err := l.image.ReadCString(p, maxNameLength)
		if err != nil {
			return libErr(status.InvalidArgument, "import %d name: %v", i, err)
		}
		if strings.TrimPrefix(s, "?") == "" {
			return libErr(status.InvalidArgument, "import %d has an empty name", i)
		}
		if seen[s] {
			return libErr(status.InvalidArgument, "import %q is listed twice", s)
		}
		seen[s] = true
		l.imports[i] = s
	}
	return nil
}

// close frees the environment, releases the imports and unmaps the image;
// later calls do nothing and return the first result.
func (l *library) close() error {
	l.closeOnce.Do(func() {
		l.env.free()
		if l.releaseImports != nil {
			l.releaseImports()
		}
		if err := l.image.Close(); err != nil {
			l.closeErr = fmt.Errorf("closing executable library: %w", err)
		}
	})
	return l.closeErr
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 { return uint32(le16(b)) | uint32(le16(b[2:]))<<16 }
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
