package vulkan

import (
	"fmt"
	"maps"
	"slices"
)

// The cooperative-matrix kernel is written in GLSL with
// GL_NV_cooperative_matrix, the extension the installed glslang knows;
// by default its SPIR-V is then rewritten to SPV_KHR_cooperative_matrix,
// the extension IREE emits and current drivers (NVIDIA's, AMD's and
// Intel's) offer. The two differ in one thing that matters to a driver:
// a KHR matrix type says what it is for (the A or B operand of a
// multiply-add, or an accumulator), so that the driver can load each
// operand straight into the registers the tensor cores read, where an NV
// matrix's layout must serve every use. The rewrite gives each matrix
// value its use from the multiply-adds it reaches, through the
// variables, loads, stores and copies that connect them, splits a type
// that serves two uses (the kernel's f16 16x16 A and B fragments share
// one NV type) into one KHR type per use, and turns the NV instructions
// into their KHR forms: row- or column-major becomes a layout constant,
// placed before the stride.

// SPIR-V opcodes, capabilities and operand values the rewrite reads or
// writes.
const (
	opExtension             = 10
	opCapability            = 17
	opTypeArray             = 28
	opTypeRuntimeArray      = 29
	opTypeStruct            = 30
	opTypePointer           = 32
	opTypeFunction          = 33
	opConstant              = 43
	opConstantComposite     = 44
	opConstantNull          = 46
	opSpecConstantComposite = 51
	opFunction              = 54
	opFunctionParameter     = 55
	opVariable              = 59
	opUndef                 = 1
	opStore                 = 62

	opTypeCoopNV   = 5358
	opLoadCoopNV   = 5359
	opStoreCoopNV  = 5360
	opMulAddCoopNV = 5361
	opLengthCoopNV = 5362

	opTypeCoopKHR   = 4456
	opLoadCoopKHR   = 4457
	opStoreCoopKHR  = 4458
	opMulAddCoopKHR = 4459
	opLengthCoopKHR = 4460

	capCoopNV  = 5357
	capCoopKHR = 6022

	opConstantTrue  = 41
	opConstantFalse = 42

	// The KHR matrix uses and layouts (values of u32 constants).
	useA, useB, useAcc = 0, 1, 2
	rowMajor, colMajor = 0, 1
)

// usesNVCoopMatrix reports whether a SPIR-V module declares the NV
// cooperative matrix capability.
func usesNVCoopMatrix(code []uint32) bool {
	found := false
	_ = eachInstruction(code, func(at int, w []uint32) error {
		if w[0]&0xffff == opCapability && len(w) == 2 && w[1] == capCoopNV {
			found = true
		}
		return nil
	})
	return found
}

// eachInstruction calls fn with each instruction of a module (its word
// offset and words), after the 5-word header.
func eachInstruction(code []uint32, fn func(at int, w []uint32) error) error {
	if len(code) < 5 {
		return fmt.Errorf("SPIR-V module of %d words is shorter than its header", len(code))
	}
	for i := 5; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			return fmt.Errorf("SPIR-V instruction at word %d has bad length %d", i, n)
		}
		if err := fn(i, code[i:i+n]); err != nil {
			return err
		}
		i += n
	}
	return nil
}

// coopKHR rewrites a module using SPV_NV_cooperative_matrix to
// SPV_KHR_cooperative_matrix (see the comment at the top of the file).
func coopKHR(code []uint32) ([]uint32, error) {
	type insn struct {
		at int
		w  []uint32
	}
	var ins []insn
	if err := eachInstruction(code, func(at int, w []uint32) error {
		ins = append(ins, insn{at, w})
		return nil
	}); err != nil {
		return nil, err
	}
	bound := code[3]
	fresh := func() uint32 { bound++; return bound - 1 }

	// The NV matrix types, the pointer types to them, and the values (or
	// variables) of either: the nodes whose use is to be found.
	coopTypes := map[uint32][]uint32{} // type id -> its NV instruction words
	ptrTypes := map[uint32]uint32{}    // pointer type id -> matrix type id
	constants := map[uint32][]uint32{} // constant id -> its instruction words
	typeOf := map[uint32]uint32{}      // node -> its (matrix or pointer) type
	typed := map[int]bool{}            // word offsets of the nodes' instructions
	inFunctions := false
	for _, in := range ins {
		w := in.w
		op := w[0] & 0xffff
		switch {
		case op == opFunction:
			inFunctions = true
		case op == opTypeCoopNV:
			if len(w) != 6 {
				return nil, fmt.Errorf("OpTypeCooperativeMatrixNV at word %d has %d words, want 6", in.at, len(w))
			}
			coopTypes[w[1]] = w
		case op == opTypePointer && len(w) == 4 && coopTypes[w[3]] != nil:
			ptrTypes[w[1]] = w[3]
		case op == opConstant || op == opConstantTrue || op == opConstantFalse:
			constants[w[2]] = w
		case op == opTypeArray || op == opTypeRuntimeArray || op == opTypeStruct || op == opTypeFunction:
			for _, id := range w[2:] {
				if coopTypes[id] != nil || ptrTypes[id] != 0 {
					return nil, fmt.Errorf("a cooperative matrix inside an aggregate or function type (word %d) is not supported by the KHR rewrite", in.at)
				}
			}
		}
		if len(w) >= 3 && (coopTypes[w[1]] != nil || ptrTypes[w[1]] != 0) {
			// In function bodies an instruction whose first operand is
			// one of these types has a result type; at module scope only
			// the constant, undef and variable declarations do.
			switch {
			case op == opFunctionParameter:
				return nil, fmt.Errorf("a cooperative matrix function parameter (word %d) is not supported by the KHR rewrite", in.at)
			case inFunctions || op == opConstantComposite || op == opConstantNull || op == opSpecConstantComposite || op == opUndef || op == opVariable:
				typeOf[w[2]] = w[1]
				typed[in.at] = true
			}
		}
	}
	if len(coopTypes) == 0 {
		return nil, fmt.Errorf("the module has no NV cooperative matrix types to rewrite")
	}

	// Union-find over the nodes: values connected by data flow (a load
	// and its pointer, a store's pointer and value, a copy, a phi, a
	// select, elementwise arithmetic) must have one use.
	parent := map[uint32]uint32{}
	var find func(uint32) uint32
	find = func(x uint32) uint32 {
		p, ok := parent[x]
		if !ok || p == x {
			return x
		}
		r := find(p)
		parent[x] = r
		return r
	}
	union := func(a, b uint32) { parent[find(a)] = find(b) }
	want := map[uint32]map[int]bool{} // component root -> uses asked of it (filled after unions)
	type ask struct {
		id  uint32
		use int
		at  int
	}
	var asks []ask
	for _, in := range ins {
		w := in.w
		op := w[0] & 0xffff
		switch {
		case op == opMulAddCoopNV:
			if len(w) != 6 {
				return nil, fmt.Errorf("OpCooperativeMatrixMulAddNV at word %d has %d words, want 6", in.at, len(w))
			}
			asks = append(asks, ask{w[2], useAcc, in.at}, ask{w[3], useA, in.at}, ask{w[4], useB, in.at}, ask{w[5], useAcc, in.at})
		case op == opStore && len(w) >= 3:
			if typeOf[w[1]] != 0 && typeOf[w[2]] != 0 {
				union(w[1], w[2])
			}
		case op == opLoadCoopNV || op == opLengthCoopNV:
			// The operands are pointers, strides and layouts, or a type.
		case typed[in.at]:
			for _, id := range w[3:] {
				if typeOf[id] != 0 {
					union(w[2], id)
				}
			}
		}
	}
	for _, a := range asks {
		if typeOf[a.id] == 0 {
			return nil, fmt.Errorf("operand %%%d of the multiply-add at word %d is not a cooperative matrix value", a.id, a.at)
		}
		r := find(a.id)
		if want[r] == nil {
			want[r] = map[int]bool{}
		}
		want[r][a.use] = true
	}
	useName := []string{"A", "B", "accumulator"}
	useOf := func(id uint32) (int, error) {
		uses := want[find(id)]
		switch len(uses) {
		case 0:
			return useAcc, nil // stored and loaded only: any use serves
		case 1:
			for u := range uses {
				return u, nil
			}
		}
		var names []string
		for _, u := range []int{useA, useB, useAcc} {
			if uses[u] {
				names = append(names, useName[u])
			}
		}
		return 0, fmt.Errorf("cooperative matrix value %%%d is used as %v of multiply-adds; a KHR matrix has one use", id, names)
	}

	// One KHR type per (NV type, use) and one pointer type per (pointer
	// type, use); the first of each keeps the NV id.
	type key struct {
		id  uint32
		use int
	}
	khrType := map[key]uint32{}
	khrPtr := map[key]uint32{}
	keep := map[uint32]bool{}
	nodeUse := map[uint32]int{}
	for id, t := range typeOf {
		u, err := useOf(id)
		if err != nil {
			return nil, err
		}
		nodeUse[id] = u
		mt := t
		if m, ok := ptrTypes[t]; ok {
			mt = m
			if _, ok := khrPtr[key{t, u}]; !ok {
				khrPtr[key{t, u}] = 0
			}
		}
		if _, ok := khrType[key{mt, u}]; !ok {
			khrType[key{mt, u}] = 0
		}
	}
	// Matrix types nothing uses still need a KHR form.
	for t := range coopTypes {
		used := false
		for k := range khrType {
			used = used || k.id == t
		}
		if !used {
			khrType[key{t, useAcc}] = 0
		}
	}
	assign := func(m map[key]uint32) {
		keys := slices.Collect(maps.Keys(m))
		slices.SortFunc(keys, func(a, b key) int {
			if a.id != b.id {
				return int(a.id) - int(b.id)
			}
			return a.use - b.use
		})
		for _, k := range keys {
			if !keep[k.id] {
				keep[k.id] = true
				m[k] = k.id
			} else {
				m[k] = fresh()
			}
		}
	}
	assign(khrType)
	assign(khrPtr)
	typeFor := func(t uint32, u int) uint32 {
		if _, ok := ptrTypes[t]; ok {
			return khrPtr[key{t, u}]
		}
		return khrType[key{t, u}]
	}

	// The u32 constants for uses and layouts, of the scalar type of the
	// first matrix type's scope constant.
	var intType uint32
	for _, in := range ins {
		if in.w[0]&0xffff == opTypeCoopNV {
			c := constants[in.w[3]]
			if c == nil || c[0]&0xffff != opConstant {
				return nil, fmt.Errorf("the scope of OpTypeCooperativeMatrixNV at word %d is not an integer constant", in.at)
			}
			intType = c[1]
			break
		}
	}
	// One constant per value: the layouts rowMajor and colMajor are the
	// uses useA and useB's values, so three serve both.
	consts := map[int]uint32{useA: fresh(), useB: fresh(), useAcc: fresh()}
	layout := func(id uint32, at int) (uint32, error) {
		c := constants[id]
		switch {
		case c != nil && c[0]&0xffff == opConstantFalse:
			return consts[rowMajor], nil
		case c != nil && c[0]&0xffff == opConstantTrue:
			return consts[colMajor], nil
		}
		return 0, fmt.Errorf("the column-major operand of the cooperative matrix load or store at word %d is not a constant", at)
	}

	out := append([]uint32(nil), code[:5]...)
	emit := func(op uint32, ops ...uint32) {
		out = append(out, uint32(len(ops)+1)<<16|op)
		out = append(out, ops...)
	}
	constsDone := false
	for _, in := range ins {
		w := in.w
		op := w[0] & 0xffff
		switch {
		case op == opCapability && len(w) == 2 && w[1] == capCoopNV:
			emit(opCapability, capCoopKHR)
		case op == opExtension:
			if s, _ := literalString(w[1:]); s == "SPV_NV_cooperative_matrix" {
				emit(opExtension, stringWords("SPV_KHR_cooperative_matrix")...)
			} else {
				out = append(out, w...)
			}
		case op == opTypeCoopNV:
			if !constsDone {
				for _, v := range []int{useA, useB, useAcc} {
					emit(opConstant, intType, consts[v], uint32(v))
				}
				constsDone = true
			}
			for _, u := range []int{useA, useB, useAcc} {
				if id, ok := khrType[key{w[1], u}]; ok {
					emit(opTypeCoopKHR, id, w[2], w[3], w[4], w[5], consts[u])
				}
			}
		case op == opTypePointer && ptrTypes[w[1]] != 0:
			for _, u := range []int{useA, useB, useAcc} {
				if id, ok := khrPtr[key{w[1], u}]; ok {
					emit(opTypePointer, id, w[2], khrType[key{w[3], u}])
				}
			}
		case op == opLoadCoopNV:
			// result type, result, pointer, stride, column major, memory operands
			if len(w) < 6 {
				return nil, fmt.Errorf("OpCooperativeMatrixLoadNV at word %d has %d words", in.at, len(w))
			}
			l, err := layout(w[5], in.at)
			if err != nil {
				return nil, err
			}
			emit(opLoadCoopKHR, append([]uint32{typeFor(w[1], nodeUse[w[2]]), w[2], w[3], l, w[4]}, w[6:]...)...)
		case op == opStoreCoopNV:
			// pointer, object, stride, column major, memory operands
			if len(w) < 5 {
				return nil, fmt.Errorf("OpCooperativeMatrixStoreNV at word %d has %d words", in.at, len(w))
			}
			l, err := layout(w[4], in.at)
			if err != nil {
				return nil, err
			}
			emit(opStoreCoopKHR, append([]uint32{w[1], w[2], l, w[3]}, w[5:]...)...)
		case op == opMulAddCoopNV:
			emit(opMulAddCoopKHR, typeFor(w[1], useAcc), w[2], w[3], w[4], w[5])
		case op == opLengthCoopNV:
			if len(w) != 4 {
				return nil, fmt.Errorf("OpCooperativeMatrixLengthNV at word %d has %d words", in.at, len(w))
			}
			u := useAcc
			if _, ok := khrType[key{w[3], useAcc}]; !ok {
				for _, c := range []int{useA, useB} {
					if _, ok := khrType[key{w[3], c}]; ok {
						u = c
						break
					}
				}
			}
			emit(opLengthCoopKHR, w[1], w[2], khrType[key{w[3], u}])
		case typed[in.at]:
			c := slices.Clone(w)
			c[1] = typeFor(w[1], nodeUse[w[2]])
			out = append(out, c...)
		default:
			out = append(out, w...)
		}
	}
	out[3] = bound
	return out, nil
}
