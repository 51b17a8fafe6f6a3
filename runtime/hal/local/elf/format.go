package elf

import "encoding/binary"

// ELF constants used by the loader.
const (
	elfClass64   = 2
	elfData2LSB  = 1
	evCurrent    = 1
	etDyn        = 3
	emX86_64     = 62
	emAArch64    = 183
	ehdrSize     = 64
	phdrSize     = 56
	dynEntSize   = 16
	symEntSize   = 24
	relaEntSize  = 24
	relEntSize   = 16
	ptNull       = 0
	ptLoad       = 1
	ptDynamic    = 2
	ptInterp     = 3
	ptNote       = 4
	ptShlib      = 5
	ptPhdr       = 6
	ptTLS        = 7
	ptGNUEHFrame = 0x6474e550
	ptGNUStack   = 0x6474e551
	ptGNURelro   = 0x6474e552
	pfX          = 1
	pfW          = 2
	pfR          = 4
	shnUndef     = 0
	shnAbs       = 0xfff1
	stbGlobal    = 1
	stbWeak      = 2
)

// Dynamic tags.
const (
	dtNull         = 0
	dtNeeded       = 1
	dtPltRelSz     = 2
	dtHash         = 4
	dtStrTab       = 5
	dtSymTab       = 6
	dtRela         = 7
	dtRelaSz       = 8
	dtRelaEnt      = 9
	dtStrSz        = 10
	dtSymEnt       = 11
	dtInit         = 12
	dtFini         = 13
	dtRel          = 17
	dtRelSz        = 18
	dtRelEnt       = 19
	dtPltRel       = 20
	dtTextRel      = 22
	dtJmpRel       = 23
	dtInitArray    = 25
	dtFiniArray    = 26
	dtInitArraySz  = 27
	dtFiniArraySz  = 28
	dtPreinitArray = 32
	dtPreinitSz    = 33
	dtRelrSz       = 35
	dtRelr         = 36
	dtGNUHash      = 0x6ffffef5
)

// x86-64 relocation types.
const (
	rX86_64None     = 0
	rX86_64_64      = 1
	rX86_64PC32     = 2
	rX86_64GlobDat  = 6
	rX86_64JumpSlot = 7
	rX86_64Relative = 8
	rX86_64_32      = 10
	rX86_64_32S     = 11
	rX86_64PC64     = 24
)

// relocationNames names every x86-64 relocation type, so that an
// unsupported one is reported by name.
var relocationNames = map[uint32]string{
	0: "R_X86_64_NONE", 1: "R_X86_64_64", 2: "R_X86_64_PC32", 3: "R_X86_64_GOT32",
	4: "R_X86_64_PLT32", 5: "R_X86_64_COPY", 6: "R_X86_64_GLOB_DAT", 7: "R_X86_64_JUMP_SLOT",
	8: "R_X86_64_RELATIVE", 9: "R_X86_64_GOTPCREL", 10: "R_X86_64_32", 11: "R_X86_64_32S",
	12: "R_X86_64_16", 13: "R_X86_64_PC16", 14: "R_X86_64_8", 15: "R_X86_64_PC8",
	16: "R_X86_64_DTPMOD64", 17: "R_X86_64_DTPOFF64", 18: "R_X86_64_TPOFF64", 19: "R_X86_64_TLSGD",
	20: "R_X86_64_TLSLD", 21: "R_X86_64_DTPOFF32", 22: "R_X86_64_GOTTPOFF", 23: "R_X86_64_TPOFF32",
	24: "R_X86_64_PC64", 25: "R_X86_64_GOTOFF64", 26: "R_X86_64_GOTPC32", 27: "R_X86_64_GOT64",
	28: "R_X86_64_GOTPCREL64", 29: "R_X86_64_GOTPC64", 30: "R_X86_64_GOTPLT64", 31: "R_X86_64_PLTOFF64",
	32: "R_X86_64_SIZE32", 33: "R_X86_64_SIZE64", 34: "R_X86_64_GOTPC32_TLSDESC", 35: "R_X86_64_TLSDESC_CALL",
	36: "R_X86_64_TLSDESC", 37: "R_X86_64_IRELATIVE", 38: "R_X86_64_RELATIVE64", 41: "R_X86_64_GOTPCRELX",
	42: "R_X86_64_REX_GOTPCRELX",
}

func relocationName(t uint32) string {
	if n, ok := relocationNames[t]; ok {
		return n
	}
	return "unknown"
}

// Limits on what the loader accepts; real CPU executables are far smaller.
const (
	maxFileSize     = 1 << 30
	maxImageSpan    = 1 << 30
	maxProgHeaders  = 256
	maxSymbols      = 1 << 16
	maxSymbolName   = 4096
	maxRelocations  = 1 << 20
	maxDynamicCount = 4096
)

var le = binary.LittleEndian
