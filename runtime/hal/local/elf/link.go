package elf

import (
	"math"

	"github.com/goiree/goiree/runtime/base/status"
)

// dynamicInfo holds the dynamic-section values the loader uses.
type dynamicInfo struct {
	rela, relaSize, relaEnt uint64
	rel, relSize, relEnt    uint64
	jmpRel, pltRelSize      uint64
	pltRel                  uint64
	symTab, symEnt          uint64
	strTab, strSize         uint64
	hash, gnuHash           uint64
	hasSymTab, hasStrTab    bool
	hasHash, hasGNUHash     bool
}

type rawSymbol struct {
	name    string
	info    uint8
	shndx   uint16
	value   uint64
	size    uint64
	defined bool
}

func (im *Image) link(f *file) error {
	if f.dynamic.MemSize == 0 {
		im.symbols = map[string]Symbol{}
		return nil // nothing to relocate and no symbols
	}
	d, err := im.readDynamic(f.dynamic)
	if err != nil {
		return err
	}
	syms, err := im.readSymbols(d)
	if err != nil {
		return err
	}
	im.symbols = map[string]Symbol{}
	for _, s := range syms {
		bind := s.info >> 4
		if !s.defined || s.name == "" || (bind != stbGlobal && bind != stbWeak) {
			continue
		}
		addr := im.base + uintptr(s.value)
		if s.shndx == shnAbs {
			addr = uintptr(s.value)
		}
		im.symbols[s.name] = Symbol{Name: s.name, Addr: addr, Size: s.size, Type: s.info & 0xF}
	}
	if d.relaSize > 0 {
		if err := im.relocate("DT_RELA", d.rela, d.relaSize, d.relaEnt, true, syms); err != nil {
			return err
		}
	}
	if d.relSize > 0 {
		if err := im.relocate("DT_REL", d.rel, d.relSize, d.relEnt, false, syms); err != nil {
			return err
		}
	}
	if d.pltRelSize > 0 {
		switch d.pltRel {
		case dtRela:
			err = im.relocate("DT_JMPREL", d.jmpRel, d.pltRelSize, relaEntSize, true, syms)
		case dtRel:
			err = im.relocate("DT_JMPREL", d.jmpRel, d.pltRelSize, relEntSize, false, syms)
		default:
			err = errf(status.InvalidArgument, "DT_PLTREL %d is neither DT_RELA nor DT_REL", d.pltRel)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (im *Image) readDynamic(seg Segment) (*dynamicInfo, error) {
	mem, ok := im.vmem(seg.Vaddr, seg.MemSize)
	if !ok {
		return nil, errf(status.InvalidArgument, "PT_DYNAMIC is outside the mapped image")
	}
	d := &dynamicInfo{relaEnt: relaEntSize, relEnt: relEntSize, symEnt: symEntSize}
	n := len(mem) / dynEntSize
	if n > maxDynamicCount {
		return nil, errf(status.InvalidArgument, "PT_DYNAMIC has %d entries, over the limit of %d", n, maxDynamicCount)
	}
	terminated := false
	for i := 0; i < n && !terminated; i++ {
		tag := le.Uint64(mem[i*dynEntSize:])
		val := le.Uint64(mem[i*dynEntSize+8:])
		switch tag {
		case dtNull:
			terminated = true
		case dtNeeded:
			return nil, errf(status.InvalidArgument, "object depends on a shared library (DT_NEEDED); CPU executables must be linked -static -nostdlib")
		case dtRela:
			d.rela = val
		case dtRelaSz:
			d.relaSize = val
		case dtRelaEnt:
			d.relaEnt = val
		case dtRel:
			d.rel = val
		case dtRelSz:
			d.relSize = val
		case dtRelEnt:
			d.relEnt = val
		case dtJmpRel:
			d.jmpRel = val
		case dtPltRelSz:
			d.pltRelSize = val
		case dtPltRel:
			d.pltRel = val
		case dtSymTab:
			d.symTab, d.hasSymTab = val, true
		case dtSymEnt:
			d.symEnt = val
		case dtStrTab:
			d.strTab, d.hasStrTab = val, true
		case dtStrSz:
			d.strSize = val
		case dtHash:
			d.hash, d.hasHash = val, true
		case dtGNUHash:
			d.gnuHash, d.hasGNUHash = val, true
		case dtInit, dtFini, dtInitArray, dtFiniArray, dtPreinitArray:
			return nil, errf(status.InvalidArgument, "object has initializers or finalizers (dynamic tag %d), which CPU executables may not", tag)
		case dtInitArraySz, dtFiniArraySz, dtPreinitSz:
			if val != 0 {
				return nil, errf(status.InvalidArgument, "object has initializers or finalizers (dynamic tag %d), which CPU executables may not", tag)
			}
		case dtRelr, dtRelrSz:
			if val != 0 {
				return nil, errf(status.Unimplemented, "DT_RELR packed relocations are not supported; link without -z pack-relative-relocs")
			}
		}
	}
	if !terminated {
		return nil, errf(status.InvalidArgument, "PT_DYNAMIC is not terminated by DT_NULL")
	}
	if d.relaEnt != relaEntSize || d.relEnt != relEntSize || d.symEnt != symEntSize {
		return nil, errf(status.InvalidArgument, "unexpected dynamic entry sizes (RELAENT %d, RELENT %d, SYMENT %d)", d.relaEnt, d.relEnt, d.symEnt)
	}
	return d, nil
}

// symbolCount derives the dynamic symbol count from DT_HASH or DT_GNU_HASH.
func (im *Image) symbolCount(d *dynamicInfo) (uint64, error) {
	if d.hasHash {
		hdr, ok := im.vmem(d.hash, 8)
		if !ok {
			return 0, errf(status.InvalidArgument, "DT_HASH %#x is outside the image", d.hash)
		}
		return uint64(le.Uint32(hdr[4:])), nil // nchain == number of symbols
	}
	if !d.hasGNUHash {
		return 0, errf(status.InvalidArgument, "object has a symbol table but neither DT_HASH nor DT_GNU_HASH")
	}
	hdr, ok := im.vmem(d.gnuHash, 16)
	if !ok {
		return 0, errf(status.InvalidArgument, "DT_GNU_HASH %#x is outside the image", d.gnuHash)
	}
	nbuckets := uint64(le.Uint32(hdr[0:]))
	symOffset := uint64(le.Uint32(hdr[4:]))
	bloomSize := uint64(le.Uint32(hdr[8:]))
	if nbuckets > maxSymbols || bloomSize > maxSymbols {
		return 0, errf(status.InvalidArgument, "DT_GNU_HASH table is too large")
	}
	bucketsAt := d.gnuHash + 16 + bloomSize*8
	buckets, ok := im.vmem(bucketsAt, nbuckets*4)
	if !ok {
		return 0, errf(status.InvalidArgument, "DT_GNU_HASH buckets are outside the image")
	}
	maxIdx := uint64(0)
	for i := uint64(0); i < nbuckets; i++ {
		maxIdx = max(maxIdx, uint64(le.Uint32(buckets[i*4:])))
	}
	if maxIdx < symOffset {
		return symOffset, nil
	}
	chainAt := bucketsAt + nbuckets*4
	for idx := maxIdx; ; idx++ {
		if idx-symOffset > maxSymbols {
			return 0, errf(status.InvalidArgument, "DT_GNU_HASH chain does not terminate")
		}
		w, ok := im.vmem(chainAt+(idx-symOffset)*4, 4)
		if !ok {
			return 0, errf(status.InvalidArgument, "DT_GNU_HASH chain is outside the image")
		}
		if le.Uint32(w)&1 != 0 {
			return idx + 1, nil
		}
	}
}

func (im *Image) readSymbols(d *dynamicInfo) ([]rawSymbol, error) {
	if !d.hasSymTab {
		return nil, nil
	}
	if !d.hasStrTab {
		return nil, errf(status.InvalidArgument, "DT_SYMTAB without DT_STRTAB")
	}
	n, err := im.symbolCount(d)
	if err != nil {
		return nil, err
	}
	if n > maxSymbols {
		return nil, errf(status.InvalidArgument, "%d dynamic symbols exceed the limit of %d", n, maxSymbols)
	}
	tab, ok := im.vmem(d.symTab, n*symEntSize)
	if !ok {
		return nil, errf(status.InvalidArgument, "symbol table [%#x, +%d) is outside the image", d.symTab, n*symEntSize)
	}
	strs, ok := im.vmem(d.strTab, d.strSize)
	if !ok {
		return nil, errf(status.InvalidArgument, "string table [%#x, +%d) is outside the image", d.strTab, d.strSize)
	}
	syms := make([]rawSymbol, n)
	for i := range syms {
		e := tab[i*symEntSize:]
		nameOff := uint64(le.Uint32(e[0:]))
		name, err := cString(strs, nameOff)
		if err != nil {
			return nil, errf(status.InvalidArgument, "symbol %d: %v", i, err)
		}
		s := rawSymbol{name: name, info: e[4], shndx: le.Uint16(e[6:]), value: le.Uint64(e[8:]), size: le.Uint64(e[16:])}
		s.defined = s.shndx != shnUndef
		if s.defined && s.shndx != shnAbs && s.value > maxImageSpan {
			return nil, errf(status.InvalidArgument, "symbol %q value %#x is outside the image", name, s.value)
		}
		syms[i] = s
	}
	return syms, nil
}

func cString(strs []byte, off uint64) (string, error) {
	if off >= uint64(len(strs)) {
		if off == 0 {
			return "", nil
		}
		return "", errf(status.InvalidArgument, "name offset %d outside the string table of %d bytes", off, len(strs))
	}
	for i := off; i < uint64(len(strs)) && i-off <= maxSymbolName; i++ {
		if strs[i] == 0 {
			return string(strs[off:i]), nil
		}
	}
	return "", errf(status.InvalidArgument, "name at offset %d is not NUL-terminated", off)
}

func (im *Image) relocate(table string, at, size, ent uint64, hasAddend bool, syms []rawSymbol) error {
	if size%ent != 0 {
		return errf(status.InvalidArgument, "%s size %d is not a multiple of its entry size %d", table, size, ent)
	}
	n := size / ent
	if n > maxRelocations {
		return errf(status.InvalidArgument, "%s has %d relocations, over the limit of %d", table, n, maxRelocations)
	}
	mem, ok := im.vmem(at, size)
	if !ok {
		return errf(status.InvalidArgument, "%s [%#x, +%d) is outside the image", table, at, size)
	}
	for i := uint64(0); i < n; i++ {
		e := mem[i*ent:]
		off := le.Uint64(e[0:])
		info := le.Uint64(e[8:])
		typ, symIdx := uint32(info), info>>32
		var addend int64
		if hasAddend {
			addend = int64(le.Uint64(e[16:]))
		}
		if err := im.apply(off, typ, symIdx, addend, hasAddend, syms); err != nil {
			return errf(status.InvalidArgument, "%s relocation %d at %#x: %v", table, i, off, err)
		}
		im.relocs[relocationName(typ)]++
	}
	return nil
}

type relocError string

func (e relocError) Error() string { return string(e) }

func (im *Image) apply(off uint64, typ uint32, symIdx uint64, addend int64, hasAddend bool, syms []rawSymbol) error {
	width := uint64(8)
	switch typ {
	case rX86_64None:
		return nil
	case rX86_64_64, rX86_64GlobDat, rX86_64JumpSlot, rX86_64Relative, rX86_64PC64:
	case rX86_64PC32, rX86_64_32, rX86_64_32S:
		width = 4
	default:
		return relocError("unsupported relocation type " + relocationName(typ) + " (" + itoa(uint64(typ)) + ")")
	}
	loc, ok := im.vmem(off, width)
	if !ok {
		return relocError("target is outside the image's segments")
	}
	if !hasAddend {
		if width == 8 {
			addend = int64(le.Uint64(loc))
		} else {
			addend = int64(int32(le.Uint32(loc)))
		}
	}
	var S uint64
	if typ != rX86_64Relative && symIdx != 0 {
		if symIdx >= uint64(len(syms)) {
			return relocError("symbol index " + itoa(symIdx) + " out of range")
		}
		s := syms[symIdx]
		switch {
		case !s.defined && s.info>>4 == stbWeak:
			S = 0
		case !s.defined:
			return relocError("undefined symbol \"" + s.name + "\"; CPU executables cannot import symbols")
		case s.shndx == shnAbs:
			S = s.value
		default:
			S = uint64(im.base) + s.value
		}
	}
	B := uint64(im.base)
	P := B + off
	switch typ {
	case rX86_64_64:
		le.PutUint64(loc, S+uint64(addend))
	case rX86_64GlobDat, rX86_64JumpSlot:
		le.PutUint64(loc, S)
	case rX86_64Relative:
		le.PutUint64(loc, B+uint64(addend))
	case rX86_64PC64:
		le.PutUint64(loc, S+uint64(addend)-P)
	case rX86_64PC32:
		v := int64(S + uint64(addend) - P)
		if v < math.MinInt32 || v > math.MaxInt32 {
			return relocError("R_X86_64_PC32 value does not fit in 32 bits")
		}
		le.PutUint32(loc, uint32(int32(v)))
	case rX86_64_32:
		v := S + uint64(addend)
		if v > math.MaxUint32 {
			return relocError("R_X86_64_32 value does not fit in 32 bits")
		}
		le.PutUint32(loc, uint32(v))
	case rX86_64_32S:
		v := int64(S + uint64(addend))
		if v < math.MinInt32 || v > math.MaxInt32 {
			return relocError("R_X86_64_32S value does not fit in 32 bits")
		}
		le.PutUint32(loc, uint32(int32(v)))
	}
	return nil
}

func itoa(v uint64) string {
	if v == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}
