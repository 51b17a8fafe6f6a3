package vm

import (
	_ "embed"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ISA.md and golden files")

//go:embed ISA.md
var isaDoc string

func TestISADoc(t *testing.T) {
	want := ISAMarkdown()
	if *update {
		if err := os.WriteFile("ISA.md", []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if isaDoc != want {
		t.Errorf("ISA.md is stale; run go test -run TestISADoc -update")
	}
}

func TestOpcodeTable(t *testing.T) {
	seen := map[string]Opcode{}
	ops := validOpcodes()
	if len(ops) < 150 {
		t.Errorf("only %d opcodes", len(ops))
	}
	for _, op := range ops {
		info, _ := lookupOp(op)
		if prev, dup := seen[info.name]; dup {
			t.Errorf("opcodes %d and %d share the name %s", prev, op, info.name)
		}
		seen[info.name] = op
		if info.dsts > len(info.operands) {
			t.Errorf("%s: more destinations than operands", info.name)
		}
		for i := 0; i < info.dsts; i++ {
			if info.operands[i].regKind() == KindNone {
				t.Errorf("%s: destination %d is not a register", info.name, i)
			}
		}
	}
	// Opcode numbers are part of the format: pin a few.
	pinned := map[Opcode]byte{OpConstI32: 0x01, OpMovI32: 0x08, OpBr: 0x10, OpAddI32: 0x20, OpAddI64: 0x38, OpAddF32: 0x50, OpAddF64: 0x60, OpTruncI32I8: 0x70, OpCmpEqI32: 0x90, OpSelectI32: 0xB8, OpGlobalLoadI32: 0xC0, OpBufferLength: 0xD0}
	for op, want := range pinned {
		if byte(op) != want {
			t.Errorf("%s is 0x%02X, want 0x%02X", op, byte(op), want)
		}
	}
}
