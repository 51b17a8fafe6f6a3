package plugin

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"runtime"
	"strings"
)

// Kind is how a plugin file is loaded.
type Kind int

const (
	// System plugins are shared libraries loaded with dlopen.
	System Kind = iota + 1
	// Standalone plugins are freestanding ELFs mapped by the runtime's own
	// ELF loader.
	Standalone
)

// String returns "system" or "standalone".
func (k Kind) String() string {
	switch k {
	case System:
		return "system"
	case Standalone:
		return "standalone"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// EmbeddedPrefix marks a --executable_plugin path that must be loaded as a
// standalone plugin (IREE's spelling).
const EmbeddedPrefix = "embedded:"

// FatELF container (IREE's .sos files): an 8-byte header (magic, version,
// record count) followed by 24-byte records naming the machine, word size
// and byte order of each ELF and its file range.
const (
	fatELFMagic      = 0x1F0E70FA
	fatELFHeaderSize = 8
	fatELFRecordSize = 24
)

// hostMachine is the ELF machine of this host (0 when plugins cannot run
// here).
func hostMachine() elf.Machine {
	switch runtime.GOARCH {
	case "amd64":
		return elf.EM_X86_64
	case "arm64":
		return elf.EM_AARCH64
	}
	return elf.EM_NONE
}

// machineName is the short name of an ELF machine for messages.
func machineName(m elf.Machine) string {
	switch m {
	case elf.EM_X86_64:
		return "x86_64"
	case elf.EM_AARCH64:
		return "aarch64"
	case elf.EM_RISCV:
		return "riscv"
	case elf.EM_386:
		return "x86"
	case elf.EM_ARM:
		return "arm"
	}
	return strings.TrimPrefix(m.String(), "EM_")
}

// selectFatELF returns the ELF inside a FatELF file that runs on this host.
func selectFatELF(data []byte) ([]byte, error) {
	if len(data) < fatELFHeaderSize {
		return nil, fmt.Errorf("truncated FatELF header")
	}
	if v := binary.LittleEndian.Uint16(data[4:]); v != 1 {
		return nil, fmt.Errorf("FatELF version %d is not supported (only 1)", v)
	}
	n := int(data[6])
	if len(data) < fatELFHeaderSize+n*fatELFRecordSize {
		return nil, fmt.Errorf("FatELF record table (%d records) runs past the end of the file", n)
	}
	var have []string
	for i := 0; i < n; i++ {
		r := data[fatELFHeaderSize+i*fatELFRecordSize:]
		m := elf.Machine(binary.LittleEndian.Uint16(r))
		wordSize, byteOrder := r[4], r[5]
		off, size := binary.LittleEndian.Uint64(r[8:]), binary.LittleEndian.Uint64(r[16:])
		have = append(have, machineName(m))
		if m != hostMachine() || wordSize != 2 || byteOrder != 1 {
			continue
		}
		if off > uint64(len(data)) || size > uint64(len(data))-off {
			return nil, fmt.Errorf("FatELF record %d [%d, +%d) lies outside the %d-byte file", i, off, size, len(data))
		}
		return data[off : off+size], nil
	}
	return nil, fmt.Errorf("FatELF file has no ELF for this %s host (it holds: %s)", machineName(hostMachine()), strings.Join(have, ", "))
}

// detect decides how to load a plugin file from its contents and returns
// the ELF bytes to load (the selected member of a FatELF file).
// forceStandalone is set by the "embedded:" prefix.
func detect(data []byte, forceStandalone bool) (Kind, []byte, error) {
	if len(data) >= 4 && binary.LittleEndian.Uint32(data) == fatELFMagic {
		sel, err := selectFatELF(data)
		if err != nil {
			return 0, nil, err
		}
		data, forceStandalone = sel, true
	}
	if !bytes.HasPrefix(data, []byte(elf.ELFMAG)) {
		head := data
		if len(head) > 4 {
			head = head[:4]
		}
		if len(head) == 0 {
			return 0, nil, fmt.Errorf("not an ELF file (the file is empty)")
		}
		return 0, nil, fmt.Errorf("not an ELF file (it starts with % x, not the ELF magic 7f 45 4c 46)", head)
	}
	f, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return 0, nil, fmt.Errorf("not a valid ELF file: %v", err)
	}
	if f.Class != elf.ELFCLASS64 || f.Data != elf.ELFDATA2LSB {
		return 0, nil, fmt.Errorf("ELF is %v %v; plugins must be 64-bit little-endian", f.Class, f.Data)
	}
	if f.Machine != hostMachine() {
		return 0, nil, fmt.Errorf("ELF is for %s and cannot run on this %s host", machineName(f.Machine), machineName(hostMachine()))
	}
	if f.Type != elf.ET_DYN {
		return 0, nil, fmt.Errorf("ELF is %v, not a shared object (link the plugin with -shared)", f.Type)
	}
	var needs []string
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			needs = append(needs, "a program interpreter")
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return 0, nil, fmt.Errorf("reading the ELF's dynamic section: %v", err)
	}
	needs = append(needs, libs...)
	if len(needs) == 0 {
		return Standalone, data, nil
	}
	if forceStandalone {
		return 0, nil, fmt.Errorf("a standalone plugin must need nothing from the system, but this ELF needs %s (link it with ld.lld -nostdlib -static)", strings.Join(needs, ", "))
	}
	return System, data, nil
}
