package vulkan

import (
	"fmt"
	"strings"
)

// ReplaceInF32Helper replaces old by new in the source of f32 helper
// name, so that a test can stand in for a less precise device builtin;
// the returned function restores the helper.
func ReplaceInF32Helper(name, old, new string) (restore func(), err error) {
	f, ok := f32Funcs[name]
	if !ok || !strings.Contains(f.src, old) {
		return nil, fmt.Errorf("f32 helper %s has no %q", name, old)
	}
	saved := f
	f.src = strings.Replace(f.src, old, new, 1)
	f32Funcs[name] = f
	return func() { f32Funcs[name] = saved }, nil
}
