package hal

import (
	"errors"
	"fmt"
)

// Code classifies an error the way IREE's status codes do.
type Code int

// Status codes, numbered as IREE (and absl) number them.
const (
	CodeOK                 Code = 0
	CodeCancelled          Code = 1
	CodeUnknown            Code = 2
	CodeInvalidArgument    Code = 3
	CodeDeadlineExceeded   Code = 4
	CodeNotFound           Code = 5
	CodeAlreadyExists      Code = 6
	CodePermissionDenied   Code = 7
	CodeResourceExhausted  Code = 8
	CodeFailedPrecondition Code = 9
	CodeAborted            Code = 10
	CodeOutOfRange         Code = 11
	CodeUnimplemented      Code = 12
	CodeInternal           Code = 13
	CodeUnavailable        Code = 14
	CodeDataLoss           Code = 15
)

var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS",
}

// String returns the IREE spelling of the code, e.g. "INVALID_ARGUMENT".
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE_%d", int(c))
}

// Error is an error with a status code. Its message is the formatted text
// only; the code is available through CodeOf or errors.As.
type Error struct {
	Code Code
	err  error
}

// Errorf returns an *Error with the given code whose message is formatted as
// fmt.Errorf formats it (so %w wraps).
func Errorf(code Code, format string, args ...any) error {
	return &Error{Code: code, err: fmt.Errorf(format, args...)}
}

// Error returns the message.
func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the wrapped error, if the message wrapped one.
func (e *Error) Unwrap() error { return errors.Unwrap(e.err) }

// CodeOf returns the code of the outermost *Error in err's chain, CodeOK for
// a nil error and CodeUnknown for an error without a code.
func CodeOf(err error) Code {
	if err == nil {
		return CodeOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeUnknown
}
