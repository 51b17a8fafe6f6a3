package ir

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// weightsSrc holds two f32 weights and an i8 table in builtin blobs, one
// referred to through an alias, plus a blob of another dialect and an
// external resource, which are kept as written.
const weightsSrc = `#w = dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>
"t.use"() {a = #w, b = dense_resource<"table 1"> : tensor<3xi8>} : () -> ()
"t.use"() {c = dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>} : () -> ()

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_2_torch.float32: "0x040000000000803F000000C0",
      "table 1": "0x01000000010203",
      unused: "0x0400000000000000"
    },
    other: {
      flag: true,
      blob: "0x08000000AA"
    }
  },
  external_resources: {
    file: {path = "weights.bin"}
  }
#-}
`

func TestDenseResourceBytes(t *testing.T) {
	m, err := Parse("w.mlir", []byte(weightsSrc), NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	ops := m.Op.Body().Ops
	w := ops[0].Attr("a").(*DenseAttr)
	if !w.IsResource() || w.Resource != "torch_tensor_2_torch.float32" || w.ResourceAlign != 4 {
		t.Fatalf("a = %+v", w)
	}
	got, err := w.RawBytes()
	if err != nil {
		t.Fatal(err)
	}
	want := binary.LittleEndian.AppendUint32(nil, math.Float32bits(1))
	want = binary.LittleEndian.AppendUint32(want, math.Float32bits(-2))
	if !bytes.Equal(got, want) {
		t.Errorf("RawBytes = % x, want % x", got, want)
	}
	if b, _ := ops[0].Attr("b").(*DenseAttr).RawBytes(); !bytes.Equal(b, []byte{1, 2, 3}) {
		t.Errorf("table bytes = % x", b)
	}
	// Both uses of the weight name see the same blob, not a copy.
	if c := ops[1].Attr("c").(*DenseAttr); &c.Hex[0] != &w.Hex[0] {
		t.Errorf("the two uses of one resource hold different copies")
	}
	if len(m.Resources) != 5 || m.Resources[3].Dialect != "other" || m.Resources[3].Value != (BoolAttr{Value: true}) {
		t.Errorf("resources = %+v", m.Resources)
	}
}

func TestDenseResourcePrint(t *testing.T) {
	got := parsePrint(t, weightsSrc)
	want := `#w = dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>
"t.use"() {a = #w, b = dense_resource<"table 1"> : tensor<3xi8>} : () -> ()
"t.use"() {c = #w} : () -> ()

{-#
  dialect_resources: {
    builtin: {
      torch_tensor_2_torch.float32: "0x040000000000803F000000C0",
      "table 1": "0x01000000010203"
    },
    other: {
      flag: true,
      blob: "0x08000000AA"
    }
  },
  external_resources: {
    file: {path = "weights.bin"}
  }
#-}
`
	if got != want {
		t.Errorf("printed:\n%s\nwant:\n%s", got, want)
	}
	if again := parsePrint(t, got); again != got {
		t.Errorf("printing is not stable:\n%s", again)
	}
	// Without aliases and in the generic form the blobs still follow.
	m, err := Parse("w.mlir", []byte(weightsSrc), NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	g := PrintModule(m, NewRegistry(), PrintOptions{Generic: true, NoAliases: true})
	if !strings.Contains(g, `{c = dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>}`) || !strings.Contains(g, `torch_tensor_2_torch.float32: "0x04000000`) {
		t.Errorf("generic form:\n%s", g)
	}
}

func TestDenseResourceErrors(t *testing.T) {
	const use = `"t.use"() {a = dense_resource<w> : tensor<2xf32>} : () -> ()` + "\n"
	cases := []struct{ name, src, want string }{
		{"undefined", use, "t.mlir:1:16: error: dense_resource<w> is not defined: the file's {-# dialect_resources: { builtin: { ... } } #-} block has no entry 'w'"},
		{"defined in another dialect", use + `{-# dialect_resources: { other: { w: "0x040000000000803F0000803F" } } #-}`,
			"t.mlir:1:16: error: dense_resource<w> is not defined: the file's {-# dialect_resources: { builtin: { ... } } #-} block has no entry 'w'"},
		{"wrong size", use + `{-# dialect_resources: { builtin: { w: "0x040000000000803F" } } #-}`,
			"t.mlir:1:16: error: dense_resource<w> holds 4 bytes but 'tensor<2xf32>' needs 8 (2 elements of 4 bytes)"},
		{"odd hex", use + `{-# dialect_resources: { builtin: { w: "0x040000000" } } #-}`,
			"t.mlir:2:40: error: resource 'w' is not a valid hex blob: encoding/hex: odd length hex string"},
		{"no alignment", use + `{-# dialect_resources: { builtin: { w: "0x04" } } #-}`,
			"t.mlir:2:40: error: resource 'w' is too short: a blob starts with a 4-byte alignment"},
		{"bad alignment", use + `{-# dialect_resources: { builtin: { w: "0x03000000" } } #-}`,
			"t.mlir:2:40: error: resource 'w' has alignment 3, which is not a power of two"},
		{"builtin string", use + `{-# dialect_resources: { builtin: { w: "weights" } } #-}`,
			`t.mlir:2:40: error: builtin resource 'w' must be a hex blob ("0x" followed by a 4-byte alignment and the data)`},
		{"duplicate", use + "{-# dialect_resources: { builtin: {\n w: \"0x01000000\",\n w: \"0x01000000\" } } #-}",
			"t.mlir:4:2: error: duplicate resource 'w' in dialect 'builtin' (first defined at t.mlir:3:2)"},
		{"unterminated", use + `{-# dialect_resources: { builtin: { w: "0x01000000" } }`,
			"t.mlir:2:56: error: expected '#-}' to end the file metadata block"},
		{"unknown key", use + `{-# resources: {} #-}`,
			"t.mlir:2:5: error: unknown file metadata key 'resources' (expected 'dialect_resources' or 'external_resources')"},
		{"elided", `"t.use"() {a = dense_resource<__elided__> : tensor<2xf32>} : () -> ()`,
			"t.mlir:1:16: error: dense_resource<__elided__> has no data: the blob was elided when this IR was printed (--mlir-elide-resource-strings-if-larger); print it again without elision"},
		{"not shaped", `"t.use"() {a = dense_resource<w> : i32} : () -> ()`,
			"t.mlir:1:36: error: dense_resource must have a shaped type, got 'i32'"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("t.mlir", []byte(c.src), NewRegistry())
			if err == nil || err.Error() != c.want {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
		})
	}
}
