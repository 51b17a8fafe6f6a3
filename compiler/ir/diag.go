package ir

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error is a diagnostic tied to a source position.
type Error struct {
	Pos Pos
	Msg string
}

// Error formats the diagnostic as `file:line:col: error: msg`.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: error: %s", e.Pos, e.Msg)
}

// Errorf makes a positioned error.
func Errorf(pos Pos, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// OpErrorf makes an error located at op, prefixed with the op name in
// MLIR style ('op' message).
func OpErrorf(op *Operation, format string, args ...any) *Error {
	return &Error{Pos: op.Pos, Msg: fmt.Sprintf("'%s' op %s", op.Name, fmt.Sprintf(format, args...))}
}

// FormatDiagnostic renders err in MLIR style. When err (or an error it
// wraps) is an *Error whose position is in the file named file, the
// source line and a caret line follow the message.
func FormatDiagnostic(err error, file string, src []byte) string {
	var e *Error
	if !errors.As(err, &e) {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	b.WriteString(err.Error())
	b.WriteString("\n")
	if e.Pos.File == file && e.Pos.Line > 0 {
		lines := strings.Split(string(src), "\n")
		if e.Pos.Line <= len(lines) {
			line := strings.TrimRight(lines[e.Pos.Line-1], "\r")
			col := max(e.Pos.Col, 1)
			line, col = echoWindow(line, col)
			b.WriteString(line)
			b.WriteString("\n")
			pad := make([]byte, 0, col)
			for i := 0; i < col-1 && i < len(line); i++ {
				if line[i] == '\t' {
					pad = append(pad, '\t')
				} else if utf8.RuneStart(line[i]) {
					pad = append(pad, ' ')
				}
			}
			for i := len(line); i < col-1; i++ {
				pad = append(pad, ' ')
			}
			b.Write(pad)
			b.WriteString("^\n")
		}
	}
	return b.String()
}

// maxEchoBytes bounds the source line a diagnostic echoes: a program may
// hold megabytes of weights on one line, and the reader needs only the
// text around the column.
const maxEchoBytes = 120

// echoWindow returns the part of line a diagnostic echoes and the caret's
// 1-based byte column in it. A line longer than maxEchoBytes is cut to
// maxEchoBytes bytes around col (on rune boundaries), with "…" marking each
// side that was cut.
func echoWindow(line string, col int) (string, int) {
	if len(line) <= maxEchoBytes {
		return line, col
	}
	at := min(col-1, len(line))
	start := max(0, at-maxEchoBytes/2)
	end := min(len(line), start+maxEchoBytes)
	start = max(0, end-maxEchoBytes)
	for start > 0 && !utf8.RuneStart(line[start]) {
		start++
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end--
	}
	out := line[start:end]
	col -= start
	if start > 0 {
		out = "…" + out
		col += len("…")
	}
	if end < len(line) {
		out += "…"
	}
	return out, col
}
