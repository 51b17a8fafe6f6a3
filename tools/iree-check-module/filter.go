package main

import (
	"fmt"
	"strings"
)

// filter is a --gtest_filter: a test runs when its "module.function" name
// matches one of the positive patterns and none of the negative ones.
type filter struct {
	positive, negative []string
}

// parseFilter parses gtest's filter syntax: ':'-separated patterns, where
// '*' matches any string and '?' any one character, then optionally '-'
// and the patterns to leave out ("-a*" alone runs all but a*).
func parseFilter(s string) (filter, error) {
	pos, neg, _ := strings.Cut(s, "-")
	var f filter
	for _, p := range strings.Split(pos, ":") {
		if p != "" {
			f.positive = append(f.positive, p)
		}
	}
	for _, p := range strings.Split(neg, ":") {
		if p != "" {
			f.negative = append(f.negative, p)
		}
	}
	if len(f.positive) == 0 {
		if pos != "" {
			return filter{}, fmt.Errorf("--gtest_filter=%q has no pattern before '-'", s)
		}
		f.positive = []string{"*"}
	}
	return f, nil
}

func (f filter) match(name string) bool {
	for _, p := range f.negative {
		if globMatch(p, name) {
			return false
		}
	}
	for _, p := range f.positive {
		if globMatch(p, name) {
			return true
		}
	}
	return false
}

// globMatch reports whether name matches pattern, where '*' matches any
// string (dots included, unlike path.Match) and '?' any one byte.
func globMatch(pattern, name string) bool {
	// Backtracking over the last '*' seen: linear in practice.
	p, n, starP, starN := 0, 0, -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == name[n]):
			p++
			n++
		case p < len(pattern) && pattern[p] == '*':
			starP, starN = p, n
			p++
		case starP >= 0:
			starN++
			p, n = starP+1, starN
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
