package kernelabi

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// SPIR-V opcodes, decorations and enums used by the reader.
const (
	spvMagic = 0x07230203

	opName             = 5
	opEntryPoint       = 15
	opTypeInt          = 21
	opTypeFloat        = 22
	opTypeVector       = 23
	opTypeMatrix       = 24
	opTypeArray        = 28
	opTypeRuntimeArray = 29
	opTypeStruct       = 30
	opTypePointer      = 32
	opConstant         = 43
	opVariable         = 59
	opDecorate         = 71
	opMemberDecorate   = 72

	decBlock         = 2
	decBufferBlock   = 3
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35

	scUniform      = 2
	scPushConstant = 9
	scStorageBuf   = 12

	execGLCompute = 5
)

// SPIRVModule is the part of a SPIR-V module the ABI checks need.
type SPIRVModule struct {
	EntryPoints []SPIRVEntryPoint
	// Buffers are the storage-buffer variables with their (set, binding).
	Buffers []SPIRVBinding
	// PushConstantBytes is the size of the push-constant block (0 if none).
	PushConstantBytes int64
}

// SPIRVEntryPoint is one OpEntryPoint.
type SPIRVEntryPoint struct {
	Model uint32
	Name  string
}

// SPIRVBinding is a descriptor binding of a storage buffer variable.
type SPIRVBinding struct {
	Set, Binding uint32
}

type spvType struct {
	op      uint32
	width   uint32   // int/float
	elem    uint32   // vector/array/pointer element
	count   uint32   // vector count, matrix columns
	lenID   uint32   // array length constant id
	members []uint32 // struct
	sc      uint32   // pointer storage class
}

// ParseSPIRV reads a SPIR-V binary.
func ParseSPIRV(data []byte) (*SPIRVModule, error) {
	if len(data)%4 != 0 {
		return nil, fmt.Errorf("SPIR-V size %d is not a multiple of 4", len(data))
	}
	if len(data) < 20 {
		return nil, fmt.Errorf("SPIR-V module too short (%d bytes)", len(data))
	}
	var order binary.ByteOrder = binary.LittleEndian
	if binary.LittleEndian.Uint32(data) != spvMagic {
		if binary.BigEndian.Uint32(data) != spvMagic {
			return nil, fmt.Errorf("not a SPIR-V module (bad magic 0x%08x)", binary.LittleEndian.Uint32(data))
		}
		order = binary.BigEndian
	}
	words := make([]uint32, len(data)/4)
	for i := range words {
		words[i] = order.Uint32(data[4*i:])
	}
	m := &SPIRVModule{}
	types := map[uint32]*spvType{}
	consts := map[uint32]uint32{}
	sets := map[uint32]uint32{}
	bindings := map[uint32]uint32{}
	hasSet := map[uint32]bool{}
	hasBinding := map[uint32]bool{}
	bufferBlock := map[uint32]bool{}
	offsets := map[[2]uint32]uint32{}
	type variable struct{ id, ptrType, sc uint32 }
	var vars []variable
	for i := 5; i < len(words); {
		wc := words[i] >> 16
		op := words[i] & 0xffff
		if wc == 0 || i+int(wc) > len(words) {
			return nil, fmt.Errorf("malformed SPIR-V instruction at word %d (opcode %d, word count %d)", i, op, wc)
		}
		ops := words[i+1 : i+int(wc)]
		need := func(n int) error {
			if len(ops) < n {
				return fmt.Errorf("SPIR-V opcode %d at word %d has %d operands, needs %d", op, i, len(ops), n)
			}
			return nil
		}
		switch op {
		case opEntryPoint:
			if err := need(3); err != nil {
				return nil, err
			}
			m.EntryPoints = append(m.EntryPoints, SPIRVEntryPoint{Model: ops[0], Name: spvString(ops[2:])})
		case opTypeInt, opTypeFloat:
			if err := need(2); err != nil {
				return nil, err
			}
			types[ops[0]] = &spvType{op: op, width: ops[1]}
		case opTypeVector, opTypeMatrix:
			if err := need(3); err != nil {
				return nil, err
			}
			types[ops[0]] = &spvType{op: op, elem: ops[1], count: ops[2]}
		case opTypeArray:
			if err := need(3); err != nil {
				return nil, err
			}
			types[ops[0]] = &spvType{op: op, elem: ops[1], lenID: ops[2]}
		case opTypeRuntimeArray:
			if err := need(2); err != nil {
				return nil, err
			}
			types[ops[0]] = &spvType{op: op, elem: ops[1]}
		case opTypeStruct:
			if err := need(1); err != nil {
				return nil, err
			}
			types[ops[0]] = &spvType{op: op, members: append([]uint32(nil), ops[1:]...)}
		case opTypePointer:
			if err := need(3); err != nil {
				return nil, err
			}
			types[ops[0]] = &spvType{op: op, sc: ops[1], elem: ops[2]}
		case opConstant:
			if err := need(3); err != nil {
				return nil, err
			}
			consts[ops[1]] = ops[2]
		case opVariable:
			if err := need(3); err != nil {
				return nil, err
			}
			vars = append(vars, variable{id: ops[1], ptrType: ops[0], sc: ops[2]})
		case opDecorate:
			if err := need(2); err != nil {
				return nil, err
			}
			switch ops[1] {
			case decDescriptorSet:
				if err := need(3); err != nil {
					return nil, err
				}
				sets[ops[0]], hasSet[ops[0]] = ops[2], true
			case decBinding:
				if err := need(3); err != nil {
					return nil, err
				}
				bindings[ops[0]], hasBinding[ops[0]] = ops[2], true
			case decBufferBlock:
				bufferBlock[ops[0]] = true
			}
		case opMemberDecorate:
			if err := need(3); err != nil {
				return nil, err
			}
			if ops[2] == decOffset {
				if err := need(4); err != nil {
					return nil, err
				}
				offsets[[2]uint32{ops[0], ops[1]}] = ops[3]
			}
		}
		i += int(wc)
	}
	var sizeOf func(id uint32, depth int) (int64, error)
	sizeOf = func(id uint32, depth int) (int64, error) {
		if depth > 32 {
			return 0, fmt.Errorf("SPIR-V type nesting too deep")
		}
		t, ok := types[id]
		if !ok {
			return 0, fmt.Errorf("SPIR-V type %%%d is not defined", id)
		}
		switch t.op {
		case opTypeInt, opTypeFloat:
			return int64(t.width / 8), nil
		case opTypeVector, opTypeMatrix:
			e, err := sizeOf(t.elem, depth+1)
			return e * int64(t.count), err
		case opTypeArray:
			e, err := sizeOf(t.elem, depth+1)
			n, ok := consts[t.lenID]
			if !ok {
				return 0, fmt.Errorf("SPIR-V array length %%%d is not a constant", t.lenID)
			}
			return e * int64(n), err
		case opTypeRuntimeArray:
			return 0, nil
		case opTypeStruct:
			var size int64
			for mi, mt := range t.members {
				ms, err := sizeOf(mt, depth+1)
				if err != nil {
					return 0, err
				}
				off := int64(offsets[[2]uint32{id, uint32(mi)}])
				if off+ms > size {
					size = off + ms
				}
			}
			return size, nil
		}
		return 0, fmt.Errorf("SPIR-V type %%%d (opcode %d) has no size", id, t.op)
	}
	for _, v := range vars {
		pt, ok := types[v.ptrType]
		if !ok || pt.op != opTypePointer {
			return nil, fmt.Errorf("SPIR-V variable %%%d has a non-pointer type", v.id)
		}
		switch {
		case v.sc == scStorageBuf || (v.sc == scUniform && bufferBlock[pt.elem]):
			if !hasSet[v.id] || !hasBinding[v.id] {
				return nil, fmt.Errorf("SPIR-V storage buffer %%%d lacks a DescriptorSet or Binding decoration", v.id)
			}
			m.Buffers = append(m.Buffers, SPIRVBinding{Set: sets[v.id], Binding: bindings[v.id]})
		case v.sc == scPushConstant:
			s, err := sizeOf(pt.elem, 0)
			if err != nil {
				return nil, err
			}
			m.PushConstantBytes += s
		}
	}
	sort.Slice(m.Buffers, func(i, j int) bool {
		if m.Buffers[i].Set != m.Buffers[j].Set {
			return m.Buffers[i].Set < m.Buffers[j].Set
		}
		return m.Buffers[i].Binding < m.Buffers[j].Binding
	})
	return m, nil
}

func spvString(ws []uint32) string {
	var b strings.Builder
	for _, w := range ws {
		for k := 0; k < 4; k++ {
			c := byte(w >> (8 * k))
			if c == 0 {
				return b.String()
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

// CheckSPIRV verifies a SPIR-V object against one export: a GLCompute entry
// point named as the export, storage buffers exactly at set 0 bindings
// 0..Bindings-1, and a push-constant block of at most 4*Constants bytes.
func CheckSPIRV(name string, data []byte, ex KernelInterface) error {
	m, err := ParseSPIRV(data)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	found := false
	var eps []string
	for _, e := range m.EntryPoints {
		if e.Model == execGLCompute {
			eps = append(eps, e.Name)
			if e.Name == ex.Export {
				found = true
			}
		}
	}
	if !found {
		list := strings.Join(eps, ", ")
		if list == "" {
			list = "none"
		}
		return fmt.Errorf("%s: no GLCompute OpEntryPoint named '%s' for export @%s (GLCompute entry points: %s)", name, ex.Export, ex.Export, list)
	}
	have := map[SPIRVBinding]bool{}
	for _, b := range m.Buffers {
		if b.Set != 0 {
			return fmt.Errorf("%s: storage buffer at set %d binding %d; export @%s's layout uses set 0 only", name, b.Set, b.Binding, ex.Export)
		}
		if int(b.Binding) >= ex.Bindings {
			return fmt.Errorf("%s: storage buffer at set 0 binding %d is not declared by export @%s's layout (%d bindings)", name, b.Binding, ex.Export, ex.Bindings)
		}
		have[b] = true
	}
	for i := 0; i < ex.Bindings; i++ {
		if !have[SPIRVBinding{Set: 0, Binding: uint32(i)}] {
			return fmt.Errorf("%s: no storage buffer at set 0 binding %d, which export @%s's layout declares (%d bindings)", name, i, ex.Export, ex.Bindings)
		}
	}
	if limit := int64(4 * ex.Constants); m.PushConstantBytes > limit {
		return fmt.Errorf("%s: push-constant block is %d bytes but export @%s's layout declares %d constants (%d bytes)", name, m.PushConstantBytes, ex.Export, ex.Constants, limit)
	}
	return nil
}
