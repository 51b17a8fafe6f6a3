// Package exeinfo recognises the executables embedded in a module's rodata
// segments and describes them: format, size and entry points, with the
// code generation configuration (pipeline, workgroup and subgroup sizes,
// tile sizes) the compiler recorded for each, where the payload has one. It knows the
// three payloads the toolkit produces: embedded ELF shared objects (CPU),
// CUDA FlatBuffers (PTX) and SPIR-V FlatBuffers.
//
// ELF entry points come from the library's export table, which only the
// library's query function can produce: Describe never runs code, so for
// ELF it lists the dynamic symbols; DescribeLoaded additionally loads the
// library in-process (as the runtime would) when this host can run it.
package exeinfo

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/local"
	"github.com/goiree/goiree/runtime/schemas/cuda"
	"github.com/goiree/goiree/runtime/schemas/kernelconfig"
	"github.com/goiree/goiree/runtime/schemas/spirv"
)

// Executable formats recognised by content.
const (
	FormatCUDA  = "cuda-nvptx-fb"
	FormatSPIRV = "vulkan-spirv-fb"
)

// EntryPoint is one export of an executable.
type EntryPoint struct {
	Name string
	// Detail is format-specific: block size and shared memory for CUDA,
	// subgroup size for SPIR-V, constant/binding counts for ELF.
	Detail string
	// Configs are the code generation configurations the compiler
	// recorded for the entry point, in IREE's spelling
	// (#iree_codegen.translation_info and lowering_config): one for
	// SPIR-V and for ELF (from its kernelconfig.ELFSection; Describe, which
	// lists no ELF entry points, gives them as notes), one per PTX image
	// for CUDA, prefixed by its arch ("sm_80: ..."); none when the payload
	// records none.
	Configs []string
}

// Info describes one executable.
type Info struct {
	// Format is the executable format, e.g. "embedded-elf-x86_64".
	Format string
	// Size is the payload size in bytes.
	Size int
	// EntryPoints lists the exports when known.
	EntryPoints []EntryPoint
	// Notes holds further facts (code size, dynamic symbols, ...).
	Notes []string
	// elfConfigs are the configurations an ELF library records
	// (readELFConfigs), which DescribeLoaded moves from Notes to the
	// entry points they name.
	elfConfigs []elfConfig
}

// elfConfig is one line of an ELF library's configuration section.
type elfConfig struct {
	name, config string
}

// IsExecutable reports whether data looks like an executable payload Describe
// understands (it may still fail to parse).
func IsExecutable(data []byte) bool {
	return bytes.HasPrefix(data, []byte(elf.ELFMAG)) || flatbufferID(data) == "CUDA" || flatbufferID(data) == "SPVE"
}

// flatbufferID returns the file identifier of a FlatBuffer (bytes 4..8),
// looking past a u32 size prefix as well.
func flatbufferID(data []byte) string {
	if len(data) >= 8 {
		switch id := string(data[4:8]); id {
		case "CUDA", "SPVE":
			return id
		}
	}
	if len(data) >= 12 {
		switch id := string(data[8:12]); id {
		case "CUDA", "SPVE":
			return id
		}
	}
	return ""
}

// unprefixed returns the FlatBuffer without a size prefix, if it has one.
func unprefixed(data []byte) []byte {
	if len(data) >= 12 && flatbufferID(data[4:]) != "" && uint64(binary.LittleEndian.Uint32(data)) == uint64(len(data)-4) {
		return data[4:]
	}
	return data
}

// Describe identifies and describes the payload without running any of it.
func Describe(data []byte) (*Info, error) {
	switch {
	case bytes.HasPrefix(data, []byte(elf.ELFMAG)):
		return describeELF(data)
	case flatbufferID(data) == "CUDA":
		return describeCUDA(unprefixed(data))
	case flatbufferID(data) == "SPVE":
		return describeSPIRV(unprefixed(data))
	}
	return nil, fmt.Errorf("not a recognised executable (no ELF magic, no CUDA or SPVE FlatBuffer identifier)")
}

// DescribeLoaded is Describe plus, for ELF libraries this host can run, the
// export table read by loading the library (which runs its query
// function).
func DescribeLoaded(data []byte) (*Info, error) {
	info, err := Describe(data)
	if err != nil || !local.CanLoad(info.Format) {
		return info, err
	}
	exe, err := local.Load(hal.ExecutableParams{Format: info.Format, Data: data})
	if err != nil {
		info.Notes = append(info.Notes, fmt.Sprintf("could not load the library to read its exports: %v", err))
		return info, nil
	}
	defer exe.Release()
	configs := map[string]string{}
	for _, c := range info.elfConfigs {
		configs[c.name] = c.config
	}
	named := map[string]bool{}
	for i, e := range exe.Exports() {
		name := e.Name
		if name == "" {
			name = fmt.Sprintf("<export %d>", i)
		}
		detail := fmt.Sprintf("constants=%d bindings=%d", e.ConstantCount, e.BindingCount)
		if e.WorkgroupSize != [3]uint32{} {
			detail += fmt.Sprintf(" workgroup_size=%dx%dx%d", e.WorkgroupSize[0], e.WorkgroupSize[1], e.WorkgroupSize[2])
		}
		if e.LocalMemoryBytes > 0 {
			detail += fmt.Sprintf(" local_memory=%dB", e.LocalMemoryBytes)
		}
		ep := EntryPoint{Name: name, Detail: detail}
		if c, ok := configs[e.Name]; ok {
			ep.Configs, named[e.Name] = []string{c}, true
		}
		info.EntryPoints = append(info.EntryPoints, ep)
	}
	// The configurations now shown under their entries leave the notes.
	notes := info.Notes[:0]
	for _, n := range info.Notes {
		if name, ok := configNoteName(n); !ok || !named[name] {
			notes = append(notes, n)
		}
	}
	info.Notes = notes
	return info, nil
}

var elfArch = map[elf.Machine]string{
	elf.EM_X86_64:  "x86_64",
	elf.EM_AARCH64: "arm_64",
	elf.EM_386:     "x86_32",
	elf.EM_ARM:     "arm_32",
	elf.EM_RISCV:   "riscv_64",
}

func describeELF(data []byte) (info *Info, err error) {
	f, err := elf.NewFile(bytes.NewReader(data))
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		// debug/elf reports a header table past the end as a bare EOF.
		return nil, fmt.Errorf("parsing ELF: a header table lies past the end of the %d-byte image (truncated or corrupt)", len(data))
	}
	if err != nil {
		return nil, fmt.Errorf("parsing ELF: %w", err)
	}
	defer f.Close()
	arch, ok := elfArch[f.Machine]
	if !ok {
		arch = f.Machine.String()
	}
	info = &Info{Format: "embedded-elf-" + arch, Size: len(data)}
	if f.Type != elf.ET_DYN {
		info.Notes = append(info.Notes, fmt.Sprintf("ELF type %v (a loadable library is ET_DYN)", f.Type))
	}
	syms, err := f.DynamicSymbols()
	if err == nil {
		var names []string
		for _, s := range syms {
			if s.Name != "" && s.Section != elf.SHN_UNDEF && elf.ST_BIND(s.Info) != elf.STB_LOCAL {
				names = append(names, s.Name)
			}
		}
		slices.Sort(names)
		if len(names) > 0 {
			info.Notes = append(info.Notes, fmt.Sprintf("dynamic symbols: %v", names))
		}
	}
	var text uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_X != 0 {
			text += p.Memsz
		}
	}
	info.Notes = append(info.Notes, fmt.Sprintf("executable segment bytes: %d", text))
	if sec := f.Section(kernelconfig.ELFSection); sec != nil {
		configs, err := readELFConfigs(sec)
		if err != nil {
			info.Notes = append(info.Notes, fmt.Sprintf("unreadable %s section: %v", kernelconfig.ELFSection, err))
		}
		info.elfConfigs = configs
		for _, c := range configs {
			info.Notes = append(info.Notes, configNotePrefix+c.name+": "+c.config)
		}
	}
	return info, nil
}

// configNotePrefix starts the note of an ELF entry's configuration.
const configNotePrefix = "config of "

// configNoteName returns the entry name of a configuration note.
func configNoteName(note string) (string, bool) {
	rest, ok := strings.CutPrefix(note, configNotePrefix)
	if !ok {
		return "", false
	}
	name, _, ok := strings.Cut(rest, ": ")
	return name, ok
}

// maxConfigSection bounds the configuration section read from an ELF
// library: far more than any compiled library records.
const maxConfigSection = 1 << 20

// readELFConfigs reads an ELF library's configuration section
// (kernelconfig.ELFSection): lines of "<export name> <configuration>",
// printable ASCII, each configuration IREE's translation_info first. The
// lines before a malformed one are returned with the error.
func readELFConfigs(sec *elf.Section) ([]elfConfig, error) {
	if sec.Type == elf.SHT_NOBITS || sec.Size > maxConfigSection {
		return nil, fmt.Errorf("%d bytes of type %v (want PROGBITS of at most %d bytes)", sec.Size, sec.Type, maxConfigSection)
	}
	data, err := sec.Data()
	if err != nil {
		return nil, err
	}
	var out []elfConfig
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		for _, c := range []byte(line) {
			if c < 0x20 || c > 0x7e {
				return out, fmt.Errorf("line %d has byte 0x%02x (want printable ASCII)", i+1, c)
			}
		}
		name, config, ok := strings.Cut(line, " ")
		if !ok || name == "" || !strings.HasPrefix(config, "#iree_codegen.translation_info<") {
			return out, fmt.Errorf("line %d is not \"<export name> #iree_codegen.translation_info<...>...\": %.80q", i+1, line)
		}
		out = append(out, elfConfig{name, config})
	}
	return out, nil
}

func describeCUDA(fb []byte) (*Info, error) {
	exe, err := cuda.Unmarshal(fb)
	if err != nil {
		return nil, fmt.Errorf("invalid CUDA executable: %w", err)
	}
	info := &Info{Format: FormatCUDA, Size: len(fb)}
	for i, e := range exe.EntryPoints {
		ep := EntryPoint{Name: e.Name, Detail: fmt.Sprintf(
			"block=%dx%dx%d shared_memory=%dB constants=%d bindings=%d",
			e.BlockSize[0], e.BlockSize[1], e.BlockSize[2], e.SharedMemorySize, e.ConstantCount, e.BindingCount)}
		for _, im := range exe.Images {
			if len(im.Configs) > i { // Unmarshal checked: none or one per entry point
				ep.Configs = append(ep.Configs, im.Arch+": "+im.Configs[i].String())
			}
		}
		info.EntryPoints = append(info.EntryPoints, ep)
	}
	for _, im := range exe.Images {
		arch := im.Arch
		if arch == "" {
			arch = "unknown arch"
		}
		info.Notes = append(info.Notes, fmt.Sprintf("PTX (%s): %d bytes", arch, len(im.PTX)))
	}
	return info, nil
}

func describeSPIRV(fb []byte) (*Info, error) {
	exe, err := spirv.Unmarshal(fb)
	if err != nil {
		return nil, fmt.Errorf("invalid SPIR-V executable: %w", err)
	}
	info := &Info{Format: FormatSPIRV, Size: len(fb)}
	sizes := spirvLocalSizes(exe.Code)
	for _, e := range exe.EntryPoints {
		detail := fmt.Sprintf("constants=%d bindings=%d", e.ConstantCount, e.BindingCount)
		if ws, ok := sizes[e.Name]; ok {
			detail += fmt.Sprintf(" workgroup_size=%dx%dx%d", ws[0], ws[1], ws[2])
		}
		if e.SubgroupSize != 0 {
			detail += fmt.Sprintf(" subgroup_size=%d", e.SubgroupSize)
		}
		ep := EntryPoint{Name: e.Name, Detail: detail}
		if !e.Config.IsZero() {
			ep.Configs = []string{e.Config.String()}
		}
		info.EntryPoints = append(info.EntryPoints, ep)
	}
	info.Notes = append(info.Notes, fmt.Sprintf("SPIR-V: %d words", len(exe.Code)))
	return info, nil
}

// spirvLocalSizes returns the workgroup size of each entry point of a
// SPIR-V module, by name: the LocalSize execution mode, where the size is
// recorded (a module that sets it through LocalSizeId or a specialization
// constant lists no size). Malformed instructions end the scan.
func spirvLocalSizes(code []uint32) map[string][3]uint32 {
	const opEntryPoint, opExecutionMode, localSize = 15, 16, 17
	names := map[uint32]string{}
	sizes := map[uint32][3]uint32{}
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			break
		}
		switch op := code[i] & 0xffff; {
		case op == opEntryPoint && n >= 4:
			var b []byte
		name:
			for _, w := range code[i+3 : i+n] {
				for k := 0; k < 4; k++ {
					c := byte(w >> (8 * k))
					if c == 0 {
						break name
					}
					b = append(b, c)
				}
			}
			names[code[i+2]] = string(b)
		case op == opExecutionMode && n == 6 && code[i+2] == localSize:
			sizes[code[i+1]] = [3]uint32{code[i+3], code[i+4], code[i+5]}
		}
		i += n
	}
	out := map[string][3]uint32{}
	for id, ws := range sizes {
		if name, ok := names[id]; ok {
			out[name] = ws
		}
	}
	return out
}
