package fbverify

import (
	"encoding/binary"
	"strings"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// fullBuilder builds a buffer in which every field of every table reachable
// from a schema's root is present: strings, two-element vectors, sub-tables
// and unions (each union in turn takes each member type). It records where
// each offset field and union type byte ends up, counted from the end of
// the buffer, so that tests can corrupt each one.
type fullBuilder struct {
	s       *schemaDef
	b       *flatbuffers.Builder
	offsets []mark // offset fields (u32)
	types   []mark // union type bytes
	next    map[int]int
}

// mark is a field's path and its position counted from the buffer's end.
type mark struct {
	path  string
	fromE flatbuffers.UOffsetT
	union int // for types: the union index
}

func (fb *fullBuilder) str(s string) flatbuffers.UOffsetT { return fb.b.CreateString(s) }

// table builds one instance of table ti and returns its offset.
func (fb *fullBuilder) table(ti int, path string, depth int) flatbuffers.UOffsetT {
	if depth > 16 {
		panic("schema nests too deeply for the test builder")
	}
	t := &fb.s.tables[ti]
	refs := make([]flatbuffers.UOffsetT, len(t.fields))
	unionTypes := make([]byte, len(t.fields))
	b := fb.b
	for i, f := range t.fields {
		p := path + "." + f.name
		switch f.kind {
		case kindString:
			refs[i] = fb.str(f.name)
		case kindTable:
			refs[i] = fb.table(f.ref, p, depth+1)
		case kindUnion:
			u := fb.s.unions[f.ref]
			k := fb.next[f.ref] % len(u.members)
			fb.next[f.ref]++
			unionTypes[i] = byte(k + 1)
			refs[i] = fb.table(u.members[k], p, depth+1)
		case kindInlineVector:
			b.StartVector(int(f.size), 2, int(minSize(f.size)))
			for j := 0; j < 2*int(f.size); j++ {
				b.PrependByte(byte(j))
			}
			refs[i] = b.EndVector(2)
		case kindStringVector:
			e0, e1 := fb.str(f.name+"0"), fb.str(f.name+"1")
			b.StartVector(4, 2, 4)
			b.PrependUOffsetT(e1)
			b.PrependUOffsetT(e0)
			refs[i] = b.EndVector(2)
		case kindTableVector:
			e0 := fb.table(f.ref, p+"[0]", depth+1)
			e1 := fb.table(f.ref, p+"[1]", depth+1)
			b.StartVector(4, 2, 4)
			b.PrependUOffsetT(e1)
			b.PrependUOffsetT(e0)
			refs[i] = b.EndVector(2)
		}
	}
	slots := 0
	for _, f := range t.fields {
		if f.slot+1 > slots {
			slots = f.slot + 1
		}
	}
	b.StartObject(slots)
	for i, f := range t.fields {
		p := path + "." + f.name
		switch f.kind {
		case kindInline:
			b.Prep(int(minSize(f.size)), int(f.size))
			for j := 0; j < int(f.size); j++ {
				b.PlaceByte(byte(j + 1))
			}
			b.Slot(f.slot)
		case kindUnion:
			b.PrependByteSlot(f.slot-1, unionTypes[i], 0)
			fb.types = append(fb.types, mark{path: p, fromE: b.Offset(), union: f.ref})
			b.PrependUOffsetTSlot(f.slot, refs[i], 0)
			fb.offsets = append(fb.offsets, mark{path: p, fromE: b.Offset()})
		default:
			b.PrependUOffsetTSlot(f.slot, refs[i], 0)
			fb.offsets = append(fb.offsets, mark{path: p, fromE: b.Offset()})
		}
	}
	return b.EndObject()
}

// minSize is the alignment used for an inline value of size bytes.
func minSize(size uint64) uint64 {
	for _, a := range []uint64{8, 4, 2} {
		if size%a == 0 {
			return a
		}
	}
	return 1
}

// TestEveryFieldIsChecked builds, for each schema, a buffer with every
// field present (every union member used), checks that it verifies, then
// corrupts each offset field and each union type in turn and checks that
// the verifier names that field.
func TestEveryFieldIsChecked(t *testing.T) {
	for _, s := range []*schemaDef{bytecodeModuleDefSchema, cudaExecutableDefSchema, spirVExecutableDefSchema} {
		// Build once per union member so that every member is covered.
		rounds := 1
		for _, u := range s.unions {
			if len(u.members) > rounds {
				rounds = len(u.members)
			}
		}
		fb := &fullBuilder{s: s, b: flatbuffers.NewBuilder(1024), next: map[int]int{}}
		for r := 0; r < rounds; r++ {
			fb.b.Reset()
			fb.offsets, fb.types = nil, nil
			name := s.tables[s.root].name
			root := fb.table(s.root, name, 0)
			fb.b.FinishWithFileIdentifier(root, []byte(s.ident))
			buf := append([]byte(nil), fb.b.FinishedBytes()...)
			if err := verifyRoot(s, buf); err != nil {
				t.Fatalf("%s round %d: complete buffer rejected: %v", name, r, err)
			}
			n := uint64(len(buf))
			for _, m := range fb.offsets {
				pos := n - uint64(m.fromE)
				d := append([]byte(nil), buf...)
				binary.LittleEndian.PutUint32(d[pos:], 0x7ffffff0)
				err := verifyRoot(s, d)
				if err == nil || !strings.HasPrefix(err.Error(), m.path+": offset") {
					t.Errorf("%s with its offset corrupted: got %v", m.path, err)
				}
			}
			for _, m := range fb.types {
				pos := n - uint64(m.fromE)
				d := append([]byte(nil), buf...)
				d[pos] = byte(len(s.unions[m.union].members) + 1)
				err := verifyRoot(s, d)
				if err == nil || !strings.Contains(err.Error(), "unknown") || !strings.HasPrefix(err.Error(), m.path) {
					t.Errorf("%s with an unknown type: got %v", m.path, err)
				}
				d[pos] = 0
				err = verifyRoot(s, d)
				if want := m.path + ": value present but"; err == nil || !strings.HasPrefix(err.Error(), want) {
					t.Errorf("%s with type NONE and a value: got %v, want %q", m.path, err, want)
				}
			}
		}
		if len(fb.offsets) == 0 && len(s.tables[s.root].fields) > 0 {
			t.Errorf("%s: no offset fields built", s.tables[s.root].name)
		}
	}
}

// TestUnionMembersCovered checks the builder really used each member of
// each union (so TestEveryFieldIsChecked reached every member table).
func TestUnionMembersCovered(t *testing.T) {
	s := bytecodeModuleDefSchema
	seen := map[string]bool{}
	fb := &fullBuilder{s: s, b: flatbuffers.NewBuilder(1024), next: map[int]int{}}
	for r := 0; r < 4; r++ {
		fb.b.Reset()
		fb.table(s.root, "m", 0)
		for ui, n := range fb.next {
			for k := 0; k < n && k < len(s.unions[ui].members); k++ {
				seen[s.tables[s.unions[ui].members[k]].name] = true
			}
		}
	}
	for _, u := range s.unions {
		for _, m := range u.members {
			if !seen[s.tables[m].name] {
				t.Errorf("union %s member %s never built", u.name, s.tables[m].name)
			}
		}
	}
}
