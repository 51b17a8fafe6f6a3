package elf

import (
	"fmt"
	"runtime"
	"sort"
	"sync"
	"unsafe"

	"github.com/goiree/goiree/runtime/base/status"
)

// Segment is one mapped PT_LOAD segment, in image virtual addresses (add
// Image.Base for host addresses).
type Segment struct {
	Vaddr, MemSize, FileOffset, FileSize uint64
	// Flags are the ELF p_flags (PF_R=4, PF_W=2, PF_X=1).
	Flags uint32
}

// Readable, Writable and Executable report the segment's permissions.
func (s Segment) Readable() bool { return s.Flags&pfR != 0 }

// Writable reports whether the segment is writable.
func (s Segment) Writable() bool { return s.Flags&pfW != 0 }

// Executable reports whether the segment is executable.
func (s Segment) Executable() bool { return s.Flags&pfX != 0 }

// Symbol is a defined dynamic symbol.
type Symbol struct {
	Name string
	// Addr is the host address (Image.Base + st_value).
	Addr uintptr
	Size uint64
	// Type is the ELF st_type (0 NOTYPE, 1 OBJECT, 2 FUNC).
	Type uint8
}

// Image is a loaded shared object. Its memory stays mapped until Close (or
// until the Image becomes unreachable, when a cleanup unmaps it).
type Image struct {
	mem      []byte  // the whole mapping, page-aligned
	minVaddr uint64  // image vaddr of mem[0]
	base     uintptr // host address of image vaddr 0
	segments []Segment
	symbols  map[string]Symbol
	relocs   map[string]int

	mu     sync.Mutex
	closed bool
	unmap  *unmapper
}

// unmapper owns the mapping for the GC cleanup; it must not refer to Image.
type unmapper struct {
	mu   sync.Mutex
	mem  []byte
	done bool
}

func (u *unmapper) release() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return nil
	}
	u.done = true
	return unmapMemory(u.mem)
}

func errf(code status.Code, format string, args ...any) error {
	return status.Errorf(code, "loading ELF: "+format, args...)
}

// Load validates data as a shared object for this host, maps it and applies
// its relocations. data is not retained.
func Load(data []byte) (*Image, error) {
	f, err := parse(data)
	if err != nil {
		return nil, err
	}
	mem, err := mapMemory(int(f.span))
	if err != nil {
		return nil, errf(status.ResourceExhausted, "mapping %d bytes: %v", f.span, err)
	}
	im := &Image{
		mem:      mem,
		minVaddr: f.minVaddr,
		base:     uintptr(unsafe.Pointer(unsafe.SliceData(mem))) - uintptr(f.minVaddr),
		segments: f.loads,
		unmap:    &unmapper{mem: mem},
		relocs:   map[string]int{},
	}
	fail := func(err error) (*Image, error) {
		im.unmap.release()
		return nil, err
	}
	for _, s := range f.loads {
		copy(mem[s.Vaddr-f.minVaddr:], data[s.FileOffset:s.FileOffset+s.FileSize])
	}
	if err := im.link(f); err != nil {
		return fail(err)
	}
	if err := im.protect(f); err != nil {
		return fail(err)
	}
	runtime.AddCleanup(im, func(u *unmapper) { u.release() }, im.unmap)
	return im, nil
}

// Close unmaps the image. Code and data of the image must no longer be in
// use. Closing twice is an error.
func (im *Image) Close() error {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.closed {
		return status.Errorf(status.FailedPrecondition, "ELF image closed twice")
	}
	im.closed = true
	if err := im.unmap.release(); err != nil {
		return status.Errorf(status.Internal, "unmapping ELF image: %v", err)
	}
	return nil
}

// Base returns the host address of image virtual address 0.
func (im *Image) Base() uintptr { return im.base }

// Segments returns the PT_LOAD segments in address order.
func (im *Image) Segments() []Segment { return append([]Segment(nil), im.segments...) }

// RelocationCounts returns how many relocations of each type (by name, e.g.
// "R_X86_64_RELATIVE") were applied.
func (im *Image) RelocationCounts() map[string]int {
	out := make(map[string]int, len(im.relocs))
	for k, v := range im.relocs {
		out[k] = v
	}
	return out
}

// Symbols returns the defined global and weak dynamic symbols, sorted by
// name.
func (im *Image) Symbols() []Symbol {
	out := make([]Symbol, 0, len(im.symbols))
	for _, s := range im.symbols {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup returns the defined global or weak dynamic symbol called name.
func (im *Image) Lookup(name string) (Symbol, error) {
	s, ok := im.symbols[name]
	if !ok {
		return Symbol{}, status.Errorf(status.NotFound, "symbol %q not found in the ELF dynamic symbol table", name)
	}
	return s, nil
}

// segmentAt returns the segment containing [addr, addr+n) (host addresses).
func (im *Image) segmentAt(addr uintptr, n uint64) (Segment, bool) {
	if addr < im.base {
		return Segment{}, false
	}
	v := uint64(addr - im.base)
	for _, s := range im.segments {
		if v >= s.Vaddr && n <= s.MemSize && v-s.Vaddr <= s.MemSize-n {
			return s, true
		}
	}
	return Segment{}, false
}

// IsExecutable reports whether addr lies inside an executable segment.
func (im *Image) IsExecutable(addr uintptr) bool {
	s, ok := im.segmentAt(addr, 1)
	return ok && s.Executable()
}

// Read returns a copy of n bytes at host address addr, which must lie inside
// one readable segment.
func (im *Image) Read(addr uintptr, n uint64) ([]byte, error) {
	im.mu.Lock()
	closed := im.closed
	im.mu.Unlock()
	if closed {
		return nil, status.Errorf(status.FailedPrecondition, "read from a closed ELF image")
	}
	s, ok := im.segmentAt(addr, n)
	if !ok || !s.Readable() {
		return nil, status.Errorf(status.OutOfRange, "address %#x (+%d bytes) is outside the image's readable segments", addr, n)
	}
	off := uint64(addr-im.base) - im.minVaddr
	return append([]byte(nil), im.mem[off:off+n]...), nil
}

// ReadCString reads a NUL-terminated string of at most max bytes at addr.
func (im *Image) ReadCString(addr uintptr, max int) (string, error) {
	s, ok := im.segmentAt(addr, 1)
	if !ok || !s.Readable() {
		return "", status.Errorf(status.OutOfRange, "string address %#x is outside the image's readable segments", addr)
	}
	v := uint64(addr - im.base)
	avail := s.Vaddr + s.MemSize - v
	b, err := im.Read(addr, min(avail, uint64(max)+1))
	if err != nil {
		return "", err
	}
	for i, c := range b {
		if c == 0 {
			return string(b[:i]), nil
		}
	}
	return "", status.Errorf(status.OutOfRange, "string at %#x is not NUL-terminated within %d bytes", addr, max)
}

// ReadU64 and ReadU32 read little-endian words at addr.
func (im *Image) ReadU64(addr uintptr) (uint64, error) {
	b, err := im.Read(addr, 8)
	if err != nil {
		return 0, err
	}
	return le.Uint64(b), nil
}

// ReadU32 reads a little-endian 32-bit word at addr.
func (im *Image) ReadU32(addr uintptr) (uint32, error) {
	b, err := im.Read(addr, 4)
	if err != nil {
		return 0, err
	}
	return le.Uint32(b), nil
}

// vmem returns the mapped bytes [v, v+n) for image vaddr v, if the range is
// inside one segment.
func (im *Image) vmem(v, n uint64) ([]byte, bool) {
	for _, s := range im.segments {
		if v >= s.Vaddr && n <= s.MemSize && v-s.Vaddr <= s.MemSize-n {
			off := v - im.minVaddr
			return im.mem[off : off+n], true
		}
	}
	return nil, false
}

func (im *Image) String() string {
	return fmt.Sprintf("ELF image at %#x (%d bytes, %d segments, %d symbols)", im.base+uintptr(im.minVaddr), len(im.mem), len(im.segments), len(im.symbols))
}
