package local

import (
	"fmt"
	"sync"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local/elf"
	"github.com/goiree/goiree/runtime/vm/status"
)

// Limits of the ABI (executable_library.h).
const (
	MaxConstants = 64
	MaxBindings  = 64
	// maxExports bounds the export table read from a library.
	maxExports    = 1 << 16
	maxNameLength = 1024
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
}

func libErr(code status.Code, format string, args ...any) error {
	return status.Errorf(code, "executable library: "+format, args...)
}

// loadLibrary maps data with the ELF loader, calls the query function and
// validates everything the library returns before it is used.
func loadLibrary(data []byte, constants []uint32) (lib *library, err error) {
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
	ptr := callQuery(sym.Addr, LibraryVersion, env)
	if ptr == 0 {
		return nil, libErr(status.FailedPrecondition, "executable does not support this version of the runtime (query for version %#x returned NULL)", LibraryVersion)
	}
	lib = &library{image: img, env: env}
	if err := lib.parse(ptr, len(constants)); err != nil {
		return nil, err
	}
	return lib, nil
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
		return libErr(status.Unimplemented, "library declares %d imports; imports are not supported", n)
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

// close frees the environment and unmaps the image; later calls do
// nothing and return the first result.
func (l *library) close() error {
	l.closeOnce.Do(func() {
		l.env.free()
		if err := l.image.Close(); err != nil {
			l.closeErr = fmt.Errorf("closing executable library: %w", err)
		}
	})
	return l.closeErr
}

func le16(b []byte) uint16 { return uint16(b[0]) | uint16(b[1])<<8 }
func le32(b []byte) uint32 { return uint32(le16(b)) | uint32(le16(b[2:]))<<16 }
func le64(b []byte) uint64 { return uint64(le32(b)) | uint64(le32(b[4:]))<<32 }
