package vulkan

import "fmt"

// Workgroup-scope matrices (--iree-vulkan-cooperative-matrix=nv2) move
// between memory and the tensor cores fastest through
// SPV_NV_tensor_addressing's tensor layouts, which tell the driver the
// two-dimensional shape of what it copies: measured on the H200, the
// f16 matmul's blocks took 1.15 ms with plain strided loads
// (OpCooperativeMatrixLoadKHR) at workgroup scope. The installed glslang
// knows neither extension, so the kernel is written with strided loads
// and stores and its SPIR-V rewritten here: each workgroup-scope load or
// store of a matrix of R x C elements from a pointer p with row stride s
// becomes one through a tensor layout of dimensions R x s sliced to rows
// 0..R and columns 0..C, read from (or written to) p, which addresses the
// same elements. The kernel only takes this path for blocks wholly inside
// the matrices, so no clamping is asked for; the value a load gives to
// elements outside a slice (none here) is a zero matrix.

// SPIR-V opcodes and capabilities of SPV_NV_cooperative_matrix2 and
// SPV_NV_tensor_addressing the rewrite writes.
const (
	opCoopLoadTensorNV      = 5367
	opCoopStoreTensorNV     = 5368
	opTypeTensorLayoutNV    = 5370
	opCreateTensorLayoutNV  = 5372
	opTensorLayoutSetDimNV  = 5373
	opTensorLayoutSliceNV   = 5375
	capCoopTensorAddressing = 5433
	capTensorAddressing     = 5439

	scopeWorkgroup = 2
)

// matrixResults are the opcodes (with a result type and id) that give the
// matrix values kernels store: loads, multiply-adds, copies, phis,
// selects, constants and undefs.
var matrixResults = map[uint32]bool{opUndef: true, opConstantComposite: true, opConstantNull: true, 61: true, 83: true,
	169: true, 245: true, opLoadCoopKHR: true, opMulAddCoopKHR: true}

// tensorLoads rewrites the workgroup-scope KHR cooperative matrix loads
// and stores of a module to tensor-layout ones (see the comment at the top
// of the file); a module without them is returned unchanged.
func tensorLoads(code []uint32) ([]uint32, error) {
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
	consts := map[uint32][]uint32{}  // u32 constant id -> its words
	wgTypes := map[uint32][]uint32{} // workgroup-scope matrix type id -> its words
	valueType := map[uint32]uint32{} // result id -> type, of the values a matrix store may take
	for _, in := range ins {
		w := in.w
		switch w[0] & 0xffff {
		case opConstant:
			if len(w) == 4 {
				consts[w[2]] = w
			}
		case opTypeCoopKHR:
			if c := consts[w[3]]; c != nil && c[3] == scopeWorkgroup {
				wgTypes[w[1]] = w
			}
		}
		if matrixResults[w[0]&0xffff] && len(w) >= 3 {
			valueType[w[2]] = w[1]
		}
	}
	if len(wgTypes) == 0 {
		return code, nil
	}
	bound := code[3]
	fresh := func() uint32 { bound++; return bound - 1 }
	// The u32 type is the scope constants'; the layout type, its
	// constants and a zero matrix per loaded type are declared after the
	// first workgroup-scope matrix type.
	var u32 uint32
	for _, w := range wgTypes {
		u32 = consts[w[3]][1]
		break
	}
	zero, two, layoutType := fresh(), fresh(), fresh()
	zeroOf := map[uint32]uint32{} // matrix type -> zero matrix of it
	for id := range wgTypes {
		zeroOf[id] = fresh()
	}
	out := append([]uint32(nil), code[:5]...)
	emit := func(op uint32, ops ...uint32) {
		out = append(out, uint32(len(ops)+1)<<16|op)
		out = append(out, ops...)
	}
	// slice emits a layout of rows x stride sliced to rows x cols and
	// returns it.
	slice := func(t []uint32, stride uint32) uint32 {
		l0, l1, l2 := fresh(), fresh(), fresh()
		emit(opCreateTensorLayoutNV, layoutType, l0)
		emit(opTensorLayoutSetDimNV, layoutType, l1, l0, t[4], stride)
		emit(opTensorLayoutSliceNV, layoutType, l2, l1, zero, t[4], zero, t[5])
		return l2
	}
	declared := false
	for _, in := range ins {
		w := in.w
		op := w[0] & 0xffff
		switch {
		case op == opTypeCoopKHR && wgTypes[w[1]] != nil:
			if !declared {
				emit(opConstant, u32, zero, 0)
				emit(opConstant, u32, two, 2)
				// Two dimensions, clamp mode Undefined (0).
				emit(opTypeTensorLayoutNV, layoutType, two, zero)
				declared = true
			}
			out = append(out, w...)
			// A zero of the component type (its bit pattern is 0 in f16
			// and f32 alike) and the matrix of it.
			z := fresh()
			emit(opConstant, w[2], z, 0)
			emit(opConstantComposite, w[1], zeroOf[w[1]], z)
		case op == opLoadCoopKHR && wgTypes[w[1]] != nil:
			// result type, result, pointer, layout, stride, memory operands
			if len(w) < 6 {
				return nil, fmt.Errorf("OpCooperativeMatrixLoadKHR at word %d has %d words", in.at, len(w))
			}
			if c := consts[w[4]]; c == nil || c[3] != rowMajor {
				return nil, fmt.Errorf("workgroup-scope matrix load at word %d is not row-major", in.at)
			}
			l := slice(wgTypes[w[1]], w[5])
			emit(opCoopLoadTensorNV, w[1], w[2], w[3], zeroOf[w[1]], l, 0, 0)
		case op == opStoreCoopKHR && wgTypes[valueType[w[2]]] != nil:
			// pointer, object, layout, stride, memory operands
			if len(w) < 5 {
				return nil, fmt.Errorf("OpCooperativeMatrixStoreKHR at word %d has %d words", in.at, len(w))
			}
			if c := consts[w[3]]; c == nil || c[3] != rowMajor {
				return nil, fmt.Errorf("workgroup-scope matrix store at word %d is not row-major", in.at)
			}
			l := slice(wgTypes[valueType[w[2]]], w[4])
			emit(opCoopStoreTensorNV, w[1], w[2], l, 0, 0)
		default:
			out = append(out, w...)
		}
	}
	out, err := declare(out, []uint32{capCoopTensorAddressing, capTensorAddressing}, "SPV_NV_cooperative_matrix2", "SPV_NV_tensor_addressing")
	if err != nil {
		return nil, err
	}
	out[3] = bound
	return out, nil
}

// declare adds capabilities after a module's last OpCapability and
// extensions after its last OpExtension (both come before every other
// instruction).
func declare(code []uint32, caps []uint32, exts ...string) ([]uint32, error) {
	out := append([]uint32(nil), code[:5]...)
	capsDone, extsDone := false, false
	err := eachInstruction(code, func(_ int, w []uint32) error {
		op := w[0] & 0xffff
		if !capsDone && op != opCapability {
			for _, c := range caps {
				out = append(out, 2<<16|opCapability, c)
			}
			capsDone = true
		}
		if !extsDone && op != opCapability && op != opExtension {
			for _, e := range exts {
				s := stringWords(e)
				out = append(out, uint32(len(s)+1)<<16|opExtension)
				out = append(out, s...)
			}
			extsDone = true
		}
		out = append(out, w...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !extsDone {
		return nil, fmt.Errorf("the module has no instructions after its capabilities and extensions")
	}
	return out, nil
}
