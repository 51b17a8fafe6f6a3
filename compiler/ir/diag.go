package ir

import (
	"errors"
	"fmt"
	"strings"
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
			b.WriteString(line)
			b.WriteString("\n")
			col := e.Pos.Col
			if col < 1 {
				col = 1
			}
			pad := make([]byte, 0, col)
			for i := 0; i < col-1 && i < len(line); i++ {
				if line[i] == '\t' {
					pad = append(pad, '\t')
				} else {
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
