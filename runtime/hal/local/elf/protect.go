package elf

import (
	"github.com/goiree/goiree/runtime/base/status"
)

// protect sets each page's protection to the union of the permissions of
// the segments touching it, with PT_GNU_RELRO pages made read-only after
// relocation. Pages in gaps between segments get no access.
func (im *Image) protect(f *file) error {
	ps := f.pageSize
	npages := f.span / ps
	perms := make([]uint32, npages)
	for _, s := range f.loads {
		first := (s.Vaddr - f.minVaddr) / ps
		last := (s.Vaddr + s.MemSize - 1 - f.minVaddr) / ps
		for p := first; p <= last; p++ {
			perms[p] |= s.Flags
		}
	}
	if f.relro.MemSize > 0 {
		start := f.relro.Vaddr &^ (ps - 1)
		end, ok := addOK(f.relro.Vaddr, f.relro.MemSize)
		if !ok || start < f.minVaddr || end > f.minVaddr+f.span {
			return errf(status.InvalidArgument, "PT_GNU_RELRO [%#x, +%d) is outside the image", f.relro.Vaddr, f.relro.MemSize)
		}
		end &^= ps - 1
		for v := start; v < end; v += ps {
			perms[(v-f.minVaddr)/ps] &^= pfW
		}
	}
	for p := uint64(0); p < npages; {
		q := p + 1
		for q < npages && perms[q] == perms[p] {
			q++
		}
		if perms[p]&pfW != 0 && perms[p]&pfX != 0 {
			return errf(status.InvalidArgument, "page at %#x is shared by writable and executable segments", f.minVaddr+p*ps)
		}
		if err := protectMemory(im.mem[p*ps:q*ps], perms[p]); err != nil {
			return errf(status.Internal, "mprotect of pages [%#x, %#x): %v", f.minVaddr+p*ps, f.minVaddr+q*ps, err)
		}
		p = q
	}
	return nil
}
