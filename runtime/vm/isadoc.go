package vm

import (
	"fmt"
	"strings"
)

// ISAMarkdown returns the instruction set reference (the text of ISA.md),
// generated from the opcode table the assembler, verifier, interpreter and
// disassembler share.
func ISAMarkdown() string {
	var b strings.Builder
	b.WriteString(`# goiree VM instruction set

Generated from the opcode table in ` + "`isa.go`" + ` by ` + "`go test -run TestISADoc -update`" + `; do not edit.
Calling convention strings, how host code calls imports and the embedding
API are described in the package documentation (` + "`doc.go`" + `).

## Encoding

A function's bytecode is a sequence of instructions. Each instruction is one
opcode byte followed by its operands in table order, little-endian, with no
padding. Operand encodings:

| operand | encoding |
|---|---|
`)
	for k := oRegI32; k <= oString; k++ {
		parts := strings.SplitN(operandDocs[k], " (", 2)
		fmt.Fprintf(&b, "| %s | %s |\n", parts[0], strings.TrimSuffix(parts[1], ")"))
	}
	b.WriteString(`
Register banks: every function has separate i32, i64, f32, f64 and ref
banks (sizes in its function descriptor, at most 65535 each). The opcode
fixes each register operand's bank, so the loader's range check is also the
type check. Arguments occupy the first registers of each bank in order;
registers are zero (refs null) on entry. Refs to reference-counted objects
(hal.buffer, hal.buffer_view, vm.list) are retained by every instruction that
stores one (into a register, a list element, a ref global or a result) and
released when the place is overwritten or its frame returns, so
` + "`const.ref.zero`" + ` on a function's last holder of a buffer frees its memory there.

Branch targets are byte offsets from the start of the function and must be
instruction boundaries. Register lists (args, results) take their banks from
the callee's calling convention (for ` + "`return`" + `, from the function's
results); segments give the tuple count of each variadic group of the
callee, whose argument list is then flattened. Globals live in per-context
storage: primitive globals at aligned byte offsets inside
` + "`module_state.global_bytes_capacity`" + ` bytes, refs by index below
` + "`global_ref_count`" + `. The last instruction of a function must be a
terminator (` + "`br`, `cond_br`, `return`, `fail`" + `).

Runtime failures (` + "`fail`" + `, integer division by zero, ` + "`buffer.length`" + ` of
a non-buffer, a failing import, stack exhaustion) end the invocation with a
status error naming the function and offset.

## Opcodes

| code | mnemonic | operands | semantics |
|---|---|---|---|
`)
	for _, op := range validOpcodes() {
		info := &opTable[op]
		var ops []string
		for i, k := range info.operands {
			kind := strings.SplitN(operandDocs[k], " (", 2)[0]
			label := operandLabel(op, info, i)
			if label == strings.SplitN(kind, " ", 2)[0] {
				ops = append(ops, kind)
			} else {
				ops = append(ops, label+": "+kind)
			}
		}
		sem := info.doc
		if info.term {
			sem += " (terminator)"
		}
		fmt.Fprintf(&b, "| 0x%02X | `%s` | %s | %s |\n", int(op), info.name, strings.Join(ops, ", "), strings.ReplaceAll(sem, "|", "\\|"))
	}
	return b.String()
}

// operandNames names the operands of opcodes whose semantics refer to them
// by name; the others are named dst (destinations), a, b, … (registers)
// and by kind (imm, target, …) in ISA.md.
var operandNames = map[Opcode][]string{
	OpMovI32: {"dst", "src"}, OpMovI64: {"dst", "src"}, OpMovF32: {"dst", "src"}, OpMovF64: {"dst", "src"}, OpMovRef: {"dst", "src"},
	OpSelectI32: {"dst", "cond", "a", "b"}, OpSelectI64: {"dst", "cond", "a", "b"}, OpSelectF32: {"dst", "cond", "a", "b"},
	OpSelectF64: {"dst", "cond", "a", "b"}, OpSelectRef: {"dst", "cond", "a", "b"},
	OpGlobalStoreI32: {"global", "src"}, OpGlobalStoreI64: {"global", "src"}, OpGlobalStoreF32: {"global", "src"},
	OpGlobalStoreF64: {"global", "src"}, OpGlobalStoreRef: {"global", "src"},
	OpBufferLength: {"dst", "buffer"}, OpBufferAlloc: {"dst", "length"},
	OpBufferClone:  {"dst", "src", "offset", "length"},
	OpBufferCopy:   {"src", "src_offset", "dst", "dst_offset", "length"},
	OpBufferFillI8: {"buffer", "offset", "length", "value"},
	OpBufferDotF32: {"dst", "acc", "a", "a_offset", "a_step", "b", "b_offset", "b_step", "n"},
	OpBufferDotF64: {"dst", "acc", "a", "a_offset", "a_step", "b", "b_offset", "b_step", "n"},
	OpListAlloc:    {"dst", "capacity"}, OpListSize: {"dst", "list"}, OpListResize: {"list", "size"},
	OpCondBr: {"cond", "true_target", "false_target"},
	OpCall:   {"callee", "args", "results"}, OpCallImport: {"import", "args", "results"},
	OpCallImportVariadic: {"import", "segments", "args", "results"},
	OpReturn:             {"results"}, OpFail: {"code", "message"},
	OpImportResolved: {"dst", "import"},
}

func init() {
	for _, op := range []Opcode{OpBufferLoadI8U, OpBufferLoadI8S, OpBufferLoadI16U, OpBufferLoadI16S, OpBufferLoadI32, OpBufferLoadI64, OpBufferLoadF32, OpBufferLoadF64} {
		operandNames[op] = []string{"dst", "buffer", "offset"}
	}
	for _, op := range []Opcode{OpBufferStoreI8, OpBufferStoreI16, OpBufferStoreI32, OpBufferStoreI64, OpBufferStoreF32, OpBufferStoreF64} {
		operandNames[op] = []string{"buffer", "offset", "value"}
	}
	for _, op := range []Opcode{OpListGetI32, OpListGetI64, OpListGetF32, OpListGetF64, OpListGetRef} {
		operandNames[op] = []string{"dst", "list", "index"}
	}
	for _, op := range []Opcode{OpListSetI32, OpListSetI64, OpListSetF32, OpListSetF64, OpListSetRef} {
		operandNames[op] = []string{"list", "index", "value"}
	}
}

// operandLabel returns the name of operand i of op for ISA.md.
func operandLabel(op Opcode, info *opInfo, i int) string {
	if names, ok := operandNames[op]; ok && i < len(names) {
		return names[i]
	}
	if i < info.dsts {
		return "dst"
	}
	if info.operands[i].regKind() != KindNone {
		reg := 0
		for j := info.dsts; j < i; j++ {
			if info.operands[j].regKind() != KindNone {
				reg++
			}
		}
		return string(rune('a' + reg))
	}
	return strings.SplitN(operandDocs[info.operands[i]], " ", 2)[0]
}
