package kernelabi

import (
	"fmt"
	"sort"
	"strings"
)

// PTXEntry is a kernel entry point of a PTX module.
type PTXEntry struct {
	Name   string
	Params int
}

// ParsePTX lists the .entry kernels of PTX text with their parameter
// counts. Comments are skipped.
func ParsePTX(text string) ([]PTXEntry, error) {
	src := stripPTXComments(text)
	var out []PTXEntry
	for i := 0; ; {
		j := strings.Index(src[i:], ".entry")
		if j < 0 {
			break
		}
		k := i + j + len(".entry")
		i = k
		if k < len(src) && isPTXIdent(src[k]) {
			continue // part of a longer directive
		}
		for k < len(src) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\n' || src[k] == '\r') {
			k++
		}
		start := k
		for k < len(src) && isPTXIdent(src[k]) {
			k++
		}
		name := src[start:k]
		if name == "" {
			return nil, fmt.Errorf("malformed .entry directive: missing kernel name")
		}
		for k < len(src) && (src[k] == ' ' || src[k] == '\t' || src[k] == '\n' || src[k] == '\r') {
			k++
		}
		params := 0
		if k < len(src) && src[k] == '(' {
			end := strings.IndexByte(src[k:], ')')
			if end < 0 {
				return nil, fmt.Errorf(".entry %s: unterminated parameter list", name)
			}
			params = strings.Count(src[k:k+end], ".param")
			k += end
		}
		out = append(out, PTXEntry{Name: name, Params: params})
		i = k
	}
	return out, nil
}

func isPTXIdent(c byte) bool {
	return c == '_' || c == '$' || c == '%' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func stripPTXComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '/' && i+1 < len(s) && s[i+1] == '/' {
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
			continue
		}
		if s[i] == '/' && i+1 < len(s) && s[i+1] == '*' {
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				break
			}
			i += end + 3
			b.WriteByte(' ')
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// KernelInterface is what a dispatch passes a GPU kernel: the export name
// and its layout's binding and constant counts.
type KernelInterface struct {
	Export    string
	Bindings  int
	Constants int
}

// CheckPTX verifies that the PTX has a .entry for each export taking one
// parameter per binding plus one per constant.
func CheckPTX(name, text string, exports []KernelInterface) error {
	entries, err := ParsePTX(text)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	byName := map[string]PTXEntry{}
	var names []string
	for _, e := range entries {
		byName[e.Name] = e
		names = append(names, e.Name)
	}
	sort.Strings(names)
	for _, ex := range exports {
		e, ok := byName[ex.Export]
		if !ok {
			list := strings.Join(names, ", ")
			if list == "" {
				list = "none"
			}
			return fmt.Errorf("%s: no .entry named '%s' for export @%s (entries: %s)", name, ex.Export, ex.Export, list)
		}
		if want := ex.Bindings + ex.Constants; e.Params != want {
			return fmt.Errorf("%s: .entry '%s' takes %d parameters but export @%s passes %d (%d bindings + %d constants)", name, e.Name, e.Params, ex.Export, want, ex.Bindings, ex.Constants)
		}
	}
	return nil
}
