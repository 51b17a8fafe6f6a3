package dropencodings_test

import (
	"strings"
	"testing"

	"github.com/goiree/goiree/compiler/conversion/dropencodings"
	"github.com/goiree/goiree/compiler/conversion/internal/conversiontest"
)

// TestGolden converts testdata/convert.mlir and compares the printed IR
// with testdata/convert.golden (go test -update rewrites it). The values
// are checked by compiler/e2e's TestEncodingsDropped.
func TestGolden(t *testing.T) {
	conversiontest.Golden(t, dropencodings.Convert, func(name string) bool {
		return strings.HasPrefix(name, "iree_encoding.")
	})
}
