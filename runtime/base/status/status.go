// Package status defines a small error type carrying a canonical status
// code (the codes IREE and gRPC share: INVALID_ARGUMENT, NOT_FOUND, ...).
// It is a base package: the VM, the HAL and its drivers, the task system
// and the native modules all return these errors, so that tools can report
// a code along with the message.
//
//	err := status.Errorf(status.NotFound, "function %q not found", name)
//	if status.CodeOf(err) == status.NotFound { ... }
//
// Errors made by Wrap keep their cause for errors.Is and errors.As.
package status

import (
	"errors"
	"fmt"
)

// Code is a canonical status code.
type Code int

// Canonical status codes, numbered as IREE (and gRPC) number them.
const (
	OK                 Code = 0
	Cancelled          Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	OutOfRange         Code = 11
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	DataLoss           Code = 15
	Unauthenticated    Code = 16
)

var codeNames = [...]string{
	OK:                 "OK",
	Cancelled:          "CANCELLED",
	Unknown:            "UNKNOWN",
	InvalidArgument:    "INVALID_ARGUMENT",
	DeadlineExceeded:   "DEADLINE_EXCEEDED",
	NotFound:           "NOT_FOUND",
	AlreadyExists:      "ALREADY_EXISTS",
	PermissionDenied:   "PERMISSION_DENIED",
	ResourceExhausted:  "RESOURCE_EXHAUSTED",
	FailedPrecondition: "FAILED_PRECONDITION",
	Aborted:            "ABORTED",
	OutOfRange:         "OUT_OF_RANGE",
	Unimplemented:      "UNIMPLEMENTED",
	Internal:           "INTERNAL",
	Unavailable:        "UNAVAILABLE",
	DataLoss:           "DATA_LOSS",
	Unauthenticated:    "UNAUTHENTICATED",
}

// String returns the code's canonical upper-case name, e.g. "NOT_FOUND".
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("CODE_%d", int(c))
}

// Error is an error with a status code. Its text is "CODE; message".
type Error struct {
	Code    Code
	Message string
	cause   error
}

// Error returns "CODE; message" (and the cause, when there is one).
func (e *Error) Error() string {
	if e.cause != nil {
		if e.Message == "" {
			return e.Code.String() + "; " + e.cause.Error()
		}
		return e.Code.String() + "; " + e.Message + ": " + e.cause.Error()
	}
	return e.Code.String() + "; " + e.Message
}

// Unwrap returns the cause given to Wrap, if any.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error with code c and a fixed message.
func New(c Code, msg string) error { return &Error{Code: c, Message: msg} }

// Errorf returns an error with code c and a formatted message. A %w verb
// is not interpreted as wrapping; use Wrap to keep a cause.
func Errorf(c Code, format string, args ...any) error {
	return &Error{Code: c, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with code c whose text is the message followed by
// the cause's text; errors.Is/As see the cause. Wrap(c, nil, ...) is nil.
func Wrap(c Code, cause error, format string, args ...any) error {
	if cause == nil {
		return nil
	}
	return &Error{Code: c, Message: fmt.Sprintf(format, args...), cause: cause}
}

// CodeOf returns the status code of err: OK for nil, the code of the
// outermost *Error in err's chain, or Unknown for other errors.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var se *Error
	if errors.As(err, &se) {
		return se.Code
	}
	return Unknown
}
