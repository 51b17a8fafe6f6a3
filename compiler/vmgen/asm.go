package vmgen

import (
	"fmt"
	"strings"

	"github.com/goiree/goiree/runtime/vm"
)

// Text returns the VM assembly of a bytecode module (what
// --output-format=vm-asm prints): the module is loaded through the
// runtime's verifying loader and every function disassembled.
func Text(module []byte) (string, error) {
	m, err := vm.LoadBytecodeModule(module)
	if err != nil {
		return "", fmt.Errorf("loading the emitted module: %w", err)
	}
	var b strings.Builder
	if err := m.Disassemble(&b); err != nil {
		return "", fmt.Errorf("disassembling: %w", err)
	}
	return b.String(), nil
}
