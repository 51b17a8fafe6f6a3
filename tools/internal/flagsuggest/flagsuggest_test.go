package flagsuggest

import "testing"

func TestClosest(t *testing.T) {
	flags := []string{"function", "input", "compile-to", "compile-from", "iree-hal-target-backends", "iree-hal-target-device"}
	for _, c := range []struct{ name, want string }{
		{"fuction", "function"},
		{"functoin", "function"},
		{"inptu", "input"},
		{"compile-mode", ""},
		{"iree-hal-target-backend", "iree-hal-target-backends"},
		{"iree-hal-targt-devce", "iree-hal-target-device"},
		{"zzz", ""},
		{"", ""},
	} {
		if got := Closest(c.name, flags); got != c.want {
			t.Errorf("Closest(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"flag", "flag", 0}, {"ab", "ba", 2},
	} {
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
