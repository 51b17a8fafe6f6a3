package target

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteDump writes one file of a --iree-hal-dump-executable-*-to dump. The
// default writes a regular file; a tool sets it to its own output writer
// (iree-compile's writes a device or FIFO in place and never replaces it),
// which keeps the compiler free of the runtime's tooling packages.
var WriteDump = func(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }

// Dump writes data as dir/name through WriteDump, creating dir first.
func Dump(dir, name string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating dump directory: %w", err)
	}
	if err := WriteDump(filepath.Join(dir, name), data); err != nil {
		return fmt.Errorf("dumping %s: %w", name, err)
	}
	return nil
}
