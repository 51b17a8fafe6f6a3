package cuda

import (
	"embed"
	"testing"

	"github.com/goiree/goiree/runtime/schemas/internal/regen"
)

//go:embed *.go *.fbs
var checkedIn embed.FS

func TestGeneratedCodeIsCurrent(t *testing.T) {
	regen.Check(t, checkedIn, "cuda_executable_def.fbs", "cuda")
}
