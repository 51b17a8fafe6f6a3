package elf

import (
	"os"
	"runtime"
	"sort"

	"github.com/goiree/goiree/runtime/base/status"
)

// file is the validated program-header view of an ELF shared object.
type file struct {
	loads    []Segment
	dynamic  Segment // zero MemSize when absent
	relro    Segment // zero MemSize when absent
	minVaddr uint64  // page-aligned start of the image
	span     uint64  // page-aligned size of the image
	pageSize uint64
}

// hostMachine is the e_machine this process can run.
func hostMachine() (uint16, string) {
	switch runtime.GOARCH {
	case "amd64":
		return emX86_64, "x86_64"
	case "arm64":
		return emAArch64, "aarch64"
	}
	return 0, runtime.GOARCH
}

func machineName(m uint16) string {
	switch m {
	case emX86_64:
		return "x86_64"
	case emAArch64:
		return "aarch64"
	case 3:
		return "i386"
	case 40:
		return "arm"
	case 243:
		return "riscv"
	}
	return "unknown"
}

// addOK returns a+b and whether it did not overflow.
func addOK(a, b uint64) (uint64, bool) {
	s := a + b
	return s, s >= a
}

func parse(data []byte) (*file, error) {
	if len(data) > maxFileSize {
		return nil, errf(status.InvalidArgument, "file of %d bytes exceeds the %d-byte limit", len(data), maxFileSize)
	}
	if len(data) < ehdrSize {
		return nil, errf(status.InvalidArgument, "file of %d bytes is too small for an ELF header", len(data))
	}
	if string(data[:4]) != "\x7fELF" {
		return nil, errf(status.InvalidArgument, "bad magic %q: not an ELF file", data[:4])
	}
	if data[4] != elfClass64 {
		return nil, errf(status.InvalidArgument, "ELF class %d is not ELFCLASS64", data[4])
	}
	if data[5] != elfData2LSB {
		return nil, errf(status.InvalidArgument, "ELF data encoding %d is not little-endian", data[5])
	}
	if data[6] != evCurrent || le.Uint32(data[20:]) != evCurrent {
		return nil, errf(status.InvalidArgument, "unsupported ELF version")
	}
	if t := le.Uint16(data[16:]); t != etDyn {
		return nil, errf(status.InvalidArgument, "ELF type %d is not ET_DYN (a shared object linked with -shared)", t)
	}
	m := le.Uint16(data[18:])
	host, hostName := hostMachine()
	if m != host {
		return nil, errf(status.Unimplemented, "ELF machine %s (%d) cannot run on this %s host", machineName(m), m, hostName)
	}
	phoff := le.Uint64(data[32:])
	phentsize := le.Uint16(data[54:])
	phnum := uint64(le.Uint16(data[56:]))
	if le.Uint16(data[52:]) != ehdrSize {
		return nil, errf(status.InvalidArgument, "ELF header size %d is not %d", le.Uint16(data[52:]), ehdrSize)
	}
	if phentsize != phdrSize {
		return nil, errf(status.InvalidArgument, "program header entry size %d is not %d", phentsize, phdrSize)
	}
	if phnum == 0 || phnum > maxProgHeaders {
		return nil, errf(status.InvalidArgument, "program header count %d is not in [1, %d]", phnum, maxProgHeaders)
	}
	end, ok := addOK(phoff, phnum*phdrSize)
	if !ok || end > uint64(len(data)) {
		return nil, errf(status.InvalidArgument, "program headers [%d, +%d) exceed the file of %d bytes", phoff, phnum*phdrSize, len(data))
	}
	f := &file{pageSize: uint64(os.Getpagesize())}
	for i := uint64(0); i < phnum; i++ {
		p := data[phoff+i*phdrSize:]
		typ := le.Uint32(p[0:])
		seg := Segment{
			Flags:      le.Uint32(p[4:]),
			FileOffset: le.Uint64(p[8:]),
			Vaddr:      le.Uint64(p[16:]),
			FileSize:   le.Uint64(p[32:]),
			MemSize:    le.Uint64(p[40:]),
		}
		align := le.Uint64(p[48:])
		switch typ {
		case ptLoad:
			if err := checkLoad(i, seg, align, len(data), f.pageSize); err != nil {
				return nil, err
			}
			if seg.MemSize > 0 {
				f.loads = append(f.loads, seg)
			}
		case ptDynamic:
			if f.dynamic.MemSize != 0 {
				return nil, errf(status.InvalidArgument, "more than one PT_DYNAMIC")
			}
			if seg.MemSize == 0 || seg.MemSize%dynEntSize != 0 {
				return nil, errf(status.InvalidArgument, "PT_DYNAMIC size %d is not a positive multiple of %d", seg.MemSize, dynEntSize)
			}
			f.dynamic = seg
		case ptGNURelro:
			f.relro = seg
		case ptInterp:
			return nil, errf(status.InvalidArgument, "object has an interpreter (PT_INTERP): link it with -shared -static -nostdlib")
		case ptTLS:
			return nil, errf(status.InvalidArgument, "object uses thread-local storage (PT_TLS), which CPU executables may not")
		case ptNull, ptNote, ptPhdr, ptGNUEHFrame, ptGNUStack, ptShlib:
		default:
			// Other OS- or processor-specific headers carry no mapping.
		}
	}
	if len(f.loads) == 0 {
		return nil, errf(status.InvalidArgument, "object has no PT_LOAD segments")
	}
	sort.Slice(f.loads, func(i, j int) bool { return f.loads[i].Vaddr < f.loads[j].Vaddr })
	for i := 1; i < len(f.loads); i++ {
		a, b := f.loads[i-1], f.loads[i]
		if a.Vaddr+a.MemSize > b.Vaddr {
			return nil, errf(status.InvalidArgument, "PT_LOAD segments [%#x, %#x) and [%#x, %#x) overlap", a.Vaddr, a.Vaddr+a.MemSize, b.Vaddr, b.Vaddr+b.MemSize)
		}
	}
	first, last := f.loads[0], f.loads[len(f.loads)-1]
	f.minVaddr = first.Vaddr &^ (f.pageSize - 1)
	top := (last.Vaddr + last.MemSize + f.pageSize - 1) &^ (f.pageSize - 1) // no overflow: checkLoad bounded it
	f.span = top - f.minVaddr
	if f.span > maxImageSpan {
		return nil, errf(status.ResourceExhausted, "image spans %d bytes, over the %d-byte limit", f.span, maxImageSpan)
	}
	for _, s := range f.loads {
		if s.Flags&pfW != 0 && s.Flags&pfX != 0 {
			return nil, errf(status.InvalidArgument, "segment at %#x is both writable and executable", s.Vaddr)
		}
	}
	if f.dynamic.MemSize != 0 && !f.inLoad(f.dynamic.Vaddr, f.dynamic.MemSize) {
		return nil, errf(status.InvalidArgument, "PT_DYNAMIC [%#x, +%d) is not inside a PT_LOAD segment", f.dynamic.Vaddr, f.dynamic.MemSize)
	}
	return f, nil
}

func checkLoad(i uint64, s Segment, align uint64, fileLen int, pageSize uint64) error {
	if s.FileSize > s.MemSize {
		return errf(status.InvalidArgument, "PT_LOAD %d file size %d exceeds its memory size %d", i, s.FileSize, s.MemSize)
	}
	end, ok := addOK(s.FileOffset, s.FileSize)
	if !ok || end > uint64(fileLen) {
		return errf(status.InvalidArgument, "PT_LOAD %d file range [%d, +%d) exceeds the file of %d bytes", i, s.FileOffset, s.FileSize, fileLen)
	}
	if _, ok := addOK(s.Vaddr, s.MemSize+pageSize); !ok || s.MemSize > maxImageSpan || s.Vaddr > maxImageSpan {
		return errf(status.InvalidArgument, "PT_LOAD %d address range [%#x, +%d) is too large", i, s.Vaddr, s.MemSize)
	}
	if align > 1 {
		if align&(align-1) != 0 {
			return errf(status.InvalidArgument, "PT_LOAD %d alignment %d is not a power of two", i, align)
		}
		if s.Vaddr%align != s.FileOffset%align {
			return errf(status.InvalidArgument, "PT_LOAD %d address %#x and file offset %#x disagree modulo alignment %d", i, s.Vaddr, s.FileOffset, align)
		}
	}
	if s.Flags&^(pfR|pfW|pfX) != 0 {
		return errf(status.InvalidArgument, "PT_LOAD %d has unknown flags %#x", i, s.Flags)
	}
	return nil
}

// inLoad reports whether [v, v+n) is inside one PT_LOAD segment's memory.
func (f *file) inLoad(v, n uint64) bool {
	for _, s := range f.loads {
		if v >= s.Vaddr && n <= s.MemSize && v-s.Vaddr <= s.MemSize-n {
			return true
		}
	}
	return false
}
