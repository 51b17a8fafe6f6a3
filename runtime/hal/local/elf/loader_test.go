package elf_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/goiree/goiree/runtime/hal/local/elf"
	"github.com/goiree/goiree/runtime/hal/local/kerneltest"
)

func TestLoadRelocations(t *testing.T) {
	variants := []struct {
		name string
		link []string
	}{
		{"sysv", []string{"--hash-style=sysv"}},
		{"gnu", []string{"--hash-style=gnu"}},
		{"both", []string{"--hash-style=both"}},
		// The link line IREE's compiler uses (reference §8.1).
		{"iree-link-line", []string{"--build-id=none", "--no-allow-shlib-undefined", "--allow-multiple-definition",
			"--gc-sections", "--discard-all", "--icf=all", "--ignore-data-address-equality",
			"--ignore-function-address-equality", "--hash-style=sysv", "--strip-debug"}},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			so := kerneltest.RelocsLibrary(t, v.link...)
			im, err := elf.Load(so)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			defer im.Close()
			counts := im.RelocationCounts()
			for _, r := range []string{"R_X86_64_RELATIVE", "R_X86_64_64", "R_X86_64_GLOB_DAT", "R_X86_64_JUMP_SLOT"} {
				if counts[r] == 0 {
					t.Errorf("no %s relocation applied (counts %v)", r, counts)
				}
			}
			sym := func(name string) elf.Symbol {
				s, err := im.Lookup(name)
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			u64 := func(addr uintptr) uint64 {
				v, err := im.ReadU64(addr)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			val := sym("exported_value")
			if v, _ := im.ReadU32(val.Addr); v != 42 {
				t.Errorf("exported_value = %d, want 42", v)
			}
			if got := u64(sym("absolute_ptr").Addr); got != uint64(val.Addr) {
				t.Errorf("absolute_ptr = %#x, want address of exported_value %#x", got, val.Addr)
			}
			table := sym("relative_table").Addr
			for i := 0; i < 3; i++ {
				p := uintptr(u64(table + uintptr(i)*8))
				if v, err := im.ReadU32(p); err != nil || v != uint32(i+1) {
					t.Errorf("*relative_table[%d] = %d, %v; want %d", i, v, err, i+1)
				}
			}
			msg, err := im.ReadCString(uintptr(u64(sym("message").Addr)), 100)
			if err != nil || msg != "hello from the loader" {
				t.Errorf("message = %q, %v", msg, err)
			}
			fn := sym("call_through_plt")
			if !im.IsExecutable(fn.Addr) || im.IsExecutable(val.Addr) {
				t.Error("executable segment classification is wrong")
			}
			for _, s := range im.Segments() {
				if s.Writable() && s.Executable() {
					t.Errorf("segment %+v is W+X", s)
				}
			}
			if _, err := im.Lookup("local_a"); err == nil {
				t.Error("hidden symbol local_a is visible")
			}
		})
	}
}

func TestLoadTargetTriples(t *testing.T) {
	for _, triple := range []string{"x86_64-unknown-unknown-eabi-elf", "x86_64-none-elf"} {
		t.Run(triple, func(t *testing.T) {
			flags := append([]string{}, kerneltest.CompileFlags...)
			for i := range flags {
				if i > 0 && flags[i-1] == "-target" {
					flags[i] = triple
				}
			}
			so := kerneltest.BuildWithFlags(t, flags, map[string]string{
				"relocs.c":        kerneltest.Source(t, "relocs.c"),
				"relocs_extern.c": kerneltest.Source(t, "relocs_extern.c"),
			})
			im, err := elf.Load(so)
			if err != nil {
				t.Fatal(err)
			}
			defer im.Close()
			if _, err := im.Lookup("call_through_plt"); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestCloseTwice(t *testing.T) {
	im, err := elf.Load(kerneltest.RelocsLibrary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := im.Close(); err != nil {
		t.Fatal(err)
	}
	if err := im.Close(); err == nil {
		t.Error("second Close succeeded")
	}
	if _, err := im.Read(im.Base(), 1); err == nil {
		t.Error("Read after Close succeeded")
	}
}

// phdr returns the byte offset of program header i.
func phdr(so []byte, i int) int {
	return int(binary.LittleEndian.Uint64(so[32:])) + i*56
}

func findPhdr(so []byte, typ uint32) int {
	n := int(binary.LittleEndian.Uint16(so[56:]))
	for i := 0; i < n; i++ {
		if binary.LittleEndian.Uint32(so[phdr(so, i):]) == typ {
			return i
		}
	}
	return -1
}

// firstRela returns the file offset of the first DT_RELA entry (the
// loader's own view is not exported, so the test walks the dynamic section
// through the file, where lld places it at p_offset).
func firstRela(t *testing.T, so []byte) int {
	dyn := phdr(so, findPhdr(so, 2))
	off := int(binary.LittleEndian.Uint64(so[dyn+8:]))
	vaddr := binary.LittleEndian.Uint64(so[dyn+16:])
	_ = vaddr
	for i := 0; ; i++ {
		tag := binary.LittleEndian.Uint64(so[off+16*i:])
		if tag == 0 {
			t.Fatal("no DT_RELA")
		}
		if tag == 7 {
			return int(vaddrToOffset(so, binary.LittleEndian.Uint64(so[off+16*i+8:])))
		}
	}
}

func vaddrToOffset(so []byte, v uint64) uint64 {
	n := int(binary.LittleEndian.Uint16(so[56:]))
	for i := 0; i < n; i++ {
		p := phdr(so, i)
		if binary.LittleEndian.Uint32(so[p:]) != 1 {
			continue
		}
		off, va, fsz := binary.LittleEndian.Uint64(so[p+8:]), binary.LittleEndian.Uint64(so[p+16:]), binary.LittleEndian.Uint64(so[p+32:])
		if v >= va && v < va+fsz {
			return v - va + off
		}
	}
	return 0
}

func TestLoadRejectsBadInput(t *testing.T) {
	good := kerneltest.RelocsLibrary(t)
	le := binary.LittleEndian
	tests := []struct {
		name   string
		mutate func(b []byte) []byte
		err    string
	}{
		{"empty", func(b []byte) []byte { return nil }, "too small for an ELF header"},
		{"truncated header", func(b []byte) []byte { return b[:40] }, "too small for an ELF header"},
		{"bad magic", func(b []byte) []byte { b[1] = 'X'; return b }, "not an ELF file"},
		{"32-bit", func(b []byte) []byte { b[4] = 1; return b }, "not ELFCLASS64"},
		{"big endian", func(b []byte) []byte { b[5] = 2; return b }, "not little-endian"},
		{"executable type", func(b []byte) []byte { le.PutUint16(b[16:], 2); return b }, "not ET_DYN"},
		{"aarch64", func(b []byte) []byte { le.PutUint16(b[18:], 183); return b }, "ELF machine aarch64 (183) cannot run on this x86_64 host"},
		{"phentsize", func(b []byte) []byte { le.PutUint16(b[54:], 32); return b }, "program header entry size 32"},
		{"phdrs past end", func(b []byte) []byte { le.PutUint64(b[32:], uint64(len(b))-10); return b }, "program headers"},
		{"phoff overflow", func(b []byte) []byte { le.PutUint64(b[32:], ^uint64(0)-8); return b }, "program headers"},
		{"truncated file", func(b []byte) []byte {
			end := 0
			n := int(le.Uint16(b[56:]))
			for i := 0; i < n; i++ {
				if p := phdr(b, i); le.Uint32(b[p:]) == 1 {
					end = max(end, int(le.Uint64(b[p+8:])+le.Uint64(b[p+32:])))
				}
			}
			return b[:end-1]
		}, "exceeds the file"},
		{"filesz > memsz", func(b []byte) []byte {
			p := phdr(b, findPhdr(b, 1))
			le.PutUint64(b[p+40:], le.Uint64(b[p+32:])-1)
			return b
		}, "exceeds its memory size"},
		{"huge memsz", func(b []byte) []byte {
			p := phdr(b, findPhdr(b, 1))
			le.PutUint64(b[p+40:], 1<<40)
			return b
		}, "too large"},
		{"bad alignment", func(b []byte) []byte {
			p := phdr(b, findPhdr(b, 1))
			le.PutUint64(b[p+48:], 3000)
			return b
		}, "not a power of two"},
		{"overlap", func(b []byte) []byte {
			// Make the second PT_LOAD start inside the first.
			n := int(le.Uint16(b[56:]))
			var loads []int
			for i := 0; i < n; i++ {
				if le.Uint32(b[phdr(b, i):]) == 1 {
					loads = append(loads, phdr(b, i))
				}
			}
			first, second := loads[0], loads[1]
			va := le.Uint64(b[first+16:])
			le.PutUint64(b[second+16:], va)
			le.PutUint64(b[second+8:], le.Uint64(b[first+8:]))
			le.PutUint64(b[second+48:], 1)
			return b
		}, "overlap"},
		{"writable and executable", func(b []byte) []byte {
			n := int(le.Uint16(b[56:]))
			for i := 0; i < n; i++ {
				p := phdr(b, i)
				if le.Uint32(b[p:]) == 1 && le.Uint32(b[p+4:])&1 != 0 {
					le.PutUint32(b[p+4:], 7)
				}
			}
			return b
		}, "both writable and executable"},
		{"interpreter", func(b []byte) []byte { le.PutUint32(b[phdr(b, findPhdr(b, 0x6474e551)):], 3); return b }, "PT_INTERP"},
		{"tls", func(b []byte) []byte { le.PutUint32(b[phdr(b, findPhdr(b, 0x6474e551)):], 7); return b }, "PT_TLS"},
		{"unsupported relocation", func(b []byte) []byte {
			r := firstRela(t, b)
			le.PutUint32(b[r+8:], 37) // R_X86_64_IRELATIVE
			return b
		}, "unsupported relocation type R_X86_64_IRELATIVE (37)"},
		{"relocation outside image", func(b []byte) []byte {
			r := firstRela(t, b)
			le.PutUint64(b[r:], 1<<33)
			return b
		}, "target is outside the image"},
		{"relocation symbol out of range", func(b []byte) []byte {
			r := firstRela(t, b)
			le.PutUint32(b[r+8:], 1)
			le.PutUint32(b[r+12:], 1<<30)
			return b
		}, "symbol index 1073741824 out of range"},
		{"no load segments", func(b []byte) []byte {
			n := int(le.Uint16(b[56:]))
			for i := 0; i < n; i++ {
				if p := phdr(b, i); le.Uint32(b[p:]) == 1 {
					le.PutUint32(b[p:], 4)
				}
			}
			return b
		}, "no PT_LOAD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.mutate(append([]byte(nil), good...))
			im, err := elf.Load(b)
			if err == nil {
				im.Close()
				t.Fatalf("Load succeeded, want error containing %q", tt.err)
			}
			if !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error = %v\nwant containing %q", err, tt.err)
			}
		})
	}
}
