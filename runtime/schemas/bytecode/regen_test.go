package bytecode

import (
	"embed"
	"testing"

	"github.com/goiree/goiree/runtime/schemas/internal/regen"
)

//go:embed *.go *.fbs
var checkedIn embed.FS

func TestGeneratedCodeIsCurrent(t *testing.T) {
	regen.Check(t, checkedIn, "bytecode_module_def.fbs", "bytecode")
}
