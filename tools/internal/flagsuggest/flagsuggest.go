// Package flagsuggest finds the flag a mistyped name most likely meant, for
// the "did you mean --x?" hint every tool gives on an unknown flag.
package flagsuggest

// Closest returns the candidate nearest to name by edit distance, or ""
// when none is close enough to be a typo of it: at most 2 edits, or one per
// 8 characters of a long name, so that a different flag with a similar
// name (--compile-mode against --compile-to) is no suggestion.
func Closest(name string, candidates []string) string {
	best, bestD := "", max(2, len(name)/8)+1
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
