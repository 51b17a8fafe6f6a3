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
	for op := Opcode(1); op < opCount; op++ {
		info, ok := lookupOp(op)
		if !ok {
			t.Errorf("opcode %d has no table entry", op)
			continue
		}
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
	for op := int(opCount); op < 256; op++ {
		if _, ok := lookupOp(Opcode(op)); ok {
			t.Errorf("opcode %d past opCount has an entry", op)
		}
	}
}
