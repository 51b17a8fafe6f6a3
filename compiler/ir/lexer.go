package ir

import (
	"fmt"
	"sort"
	"strings"
)

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokValueID // %name, %0, %name#1
	tokSymbol  // @name or @"name"
	tokCaret   // ^bb0
	tokHash    // #name
	tokBang    // !name
	tokInt
	tokFloat
	tokString
	tokPunct
	tokError
)

type token struct {
	kind tokKind
	text string // raw text; for strings the decoded value; for ids the name without sigil
	off  int    // byte offset of the token start
	end  int    // byte offset after the token
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of file"
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	case tokValueID:
		return "'%" + t.text + "'"
	case tokSymbol:
		return "'@" + t.text + "'"
	case tokCaret:
		return "'^" + t.text + "'"
	case tokHash:
		return "'#" + t.text + "'"
	case tokBang:
		return "'!" + t.text + "'"
	case tokError:
		return t.text
	}
	return "'" + t.text + "'"
}

type lexer struct {
	src        string
	file       string
	lineStarts []int
}

func newLexer(file, src string) *lexer {
	l := &lexer{src: src, file: file, lineStarts: []int{0}}
	for i := 0; i < len(src); i++ {
		if src[i] == '\n' {
			l.lineStarts = append(l.lineStarts, i+1)
		}
	}
	return l
}

func (l *lexer) pos(off int) Pos {
	line := sort.Search(len(l.lineStarts), func(i int) bool { return l.lineStarts[i] > off }) - 1
	if line < 0 {
		line = 0
	}
	return Pos{File: l.file, Line: line + 1, Col: off - l.lineStarts[line] + 1}
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
func isIDChar(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c == '.' }

// skipSpace skips whitespace and comments starting at off.
func (l *lexer) skipSpace(off int) int {
	for off < len(l.src) {
		c := l.src[off]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			off++
		case c == '/' && off+1 < len(l.src) && l.src[off+1] == '/':
			for off < len(l.src) && l.src[off] != '\n' {
				off++
			}
		default:
			return off
		}
	}
	return off
}

// lex returns the token starting at or after off.
func (l *lexer) lex(off int) token {
	off = l.skipSpace(off)
	s := l.src
	if off >= len(s) {
		return token{kind: tokEOF, off: len(s), end: len(s)}
	}
	start := off
	c := s[off]
	mk := func(k tokKind, text string, end int) token { return token{kind: k, text: text, off: start, end: end} }
	switch {
	case isLetter(c) || c == '_':
		e := off + 1
		for e < len(s) && isIDChar(s[e]) {
			e++
		}
		return mk(tokIdent, s[off:e], e)
	case isDigit(c):
		return l.lexNumber(off)
	case c == '"':
		str, e, err := l.lexString(off)
		if err != "" {
			return mk(tokError, err, e)
		}
		return mk(tokString, str, e)
	case c == '%' || c == '^' || c == '#' || c == '!' || c == '@':
		kinds := map[byte]tokKind{'%': tokValueID, '^': tokCaret, '#': tokHash, '!': tokBang, '@': tokSymbol}
		e := off + 1
		if c == '@' && e < len(s) && s[e] == '"' {
			str, e2, err := l.lexString(e)
			if err != "" {
				return mk(tokError, err, e2)
			}
			return mk(tokSymbol, str, e2)
		}
		for e < len(s) && (isIDChar(s[e]) || s[e] == '-' && c == '%') {
			e++
		}
		if e == off+1 {
			if c == '!' || c == '#' {
				return mk(tokError, fmt.Sprintf("invalid character '%c' not followed by an identifier", c), e)
			}
			return mk(tokError, fmt.Sprintf("expected identifier after '%c'", c), e)
		}
		if c == '%' && e < len(s) && s[e] == '#' && e+1 < len(s) && isDigit(s[e+1]) {
			e++
			for e < len(s) && isDigit(s[e]) {
				e++
			}
		}
		return mk(kinds[c], s[off+1:e], e)
	}
	if strings.HasPrefix(s[off:], "->") || strings.HasPrefix(s[off:], "::") || strings.HasPrefix(s[off:], "...") {
		n := 2
		if s[off] == '.' {
			n = 3
		}
		return mk(tokPunct, s[off:off+n], off+n)
	}
	switch c {
	case '(', ')', '[', ']', '{', '}', '<', '>', ',', ':', '=', '?', '*', '+', '-', '|', '.':
		return mk(tokPunct, string(c), off+1)
	}
	return mk(tokError, fmt.Sprintf("unexpected character '%s'", printableChar(c)), off+1)
}

func printableChar(c byte) string {
	if c < 0x20 || c >= 0x7f {
		return fmt.Sprintf("\\x%02x", c)
	}
	return string(c)
}

func (l *lexer) lexNumber(off int) token {
	s := l.src
	start := off
	if strings.HasPrefix(s[off:], "0x") && off+2 < len(s) && isHex(s[off+2]) {
		e := off + 2
		for e < len(s) && isHex(s[e]) {
			e++
		}
		return token{kind: tokInt, text: s[start:e], off: start, end: e}
	}
	e := off
	for e < len(s) && isDigit(s[e]) {
		e++
	}
	if e < len(s) && s[e] == '.' {
		e++
		for e < len(s) && isDigit(s[e]) {
			e++
		}
		if e < len(s) && (s[e] == 'e' || s[e] == 'E') {
			f := e + 1
			if f < len(s) && (s[f] == '+' || s[f] == '-') {
				f++
			}
			if f < len(s) && isDigit(s[f]) {
				for f < len(s) && isDigit(s[f]) {
					f++
				}
				e = f
			}
		}
		return token{kind: tokFloat, text: s[start:e], off: start, end: e}
	}
	return token{kind: tokInt, text: s[start:e], off: start, end: e}
}

func (l *lexer) lexString(off int) (string, int, string) {
	s := l.src
	var b strings.Builder
	e := off + 1
	for {
		if e >= len(s) || s[e] == '\n' {
			return "", e, "expected '\"' in string literal"
		}
		c := s[e]
		if c == '"' {
			return b.String(), e + 1, ""
		}
		if c == '\\' {
			if e+1 >= len(s) {
				return "", e, "unknown escape in string literal"
			}
			d := s[e+1]
			switch d {
			case '"', '\\':
				b.WriteByte(d)
				e += 2
			case 'n':
				b.WriteByte('\n')
				e += 2
			case 't':
				b.WriteByte('\t')
				e += 2
			default:
				if e+2 < len(s) && isHex(d) && isHex(s[e+2]) {
					b.WriteByte(hexVal(d)<<4 | hexVal(s[e+2]))
					e += 3
				} else {
					return "", e, "unknown escape in string literal"
				}
			}
			continue
		}
		b.WriteByte(c)
		e++
	}
}

func hexVal(c byte) byte {
	switch {
	case isDigit(c):
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
