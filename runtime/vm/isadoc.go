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
registers are zero (refs null) on entry.

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
			s := strings.SplitN(operandDocs[k], " (", 2)[0]
			if i < info.dsts {
				s = "dst: " + s
			}
			ops = append(ops, s)
		}
		sem := info.doc
		if info.term {
			sem += " (terminator)"
		}
		fmt.Fprintf(&b, "| 0x%02X | `%s` | %s | %s |\n", int(op), info.name, strings.Join(ops, ", "), strings.ReplaceAll(sem, "|", "\\|"))
	}
	return b.String()
}
