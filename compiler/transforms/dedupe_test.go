package transforms

import "testing"

func TestRenameSymbols(t *testing.T) {
	cases := []struct{ name, text, from, want string }{
		{"whole symbol", `hal.executable private @f_linalg_1 {`, "f_linalg_1", "hal.executable private @X {"},
		{"prefix of an inner symbol", `body = @f_linalg_1_body, x = @f_linalg_1::@f_linalg_1`, "f_linalg_1", "body = @X_body, x = @X::@X"},
		{"another executable's number", `@f_linalg_12 @f_linalg_1`, "f_linalg_1", "@f_linalg_12 @X"},
		{"quoted", `@"f_linalg_1 q" @"g"`, "f_linalg_1", `@"X q" @"g"`},
		{"not a symbol", `f_linalg_1 "f_linalg_1"`, "f_linalg_1", `f_linalg_1 "f_linalg_1"`},
		{"inside a symbol", `@g_f_linalg_1`, "f_linalg_1", `@g_f_linalg_1`},
		{"at the end", `@`, "f", `@`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := renameSymbols(c.text, c.from, "X"); got != c.want {
				t.Errorf("renameSymbols(%q, %q) = %q, want %q", c.text, c.from, got, c.want)
			}
		})
	}
}
