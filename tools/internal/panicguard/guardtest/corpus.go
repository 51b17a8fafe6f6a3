package guardtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// CorpusInputs returns the []byte inputs of the Go fuzz corpus files in dir
// (testdata/fuzz/<Target> of a package, "go test fuzz v1" files), by file
// name, so that the tools' tests can run what the fuzzers kept through the
// tools and check that none reaches the guard.
func CorpusInputs(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		text, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		lines := strings.Split(string(text), "\n")
		if len(lines) < 2 || lines[0] != "go test fuzz v1" {
			return nil, fmt.Errorf("%s: not a go test fuzz v1 file", e.Name())
		}
		arg, ok := strings.CutPrefix(lines[1], "[]byte(")
		if !ok || !strings.HasSuffix(arg, ")") {
			return nil, fmt.Errorf("%s: first value is not a []byte", e.Name())
		}
		b, err := strconv.Unquote(strings.TrimSuffix(arg, ")"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out[e.Name()] = []byte(b)
	}
	return out, nil
}
