package hal

import (
	"errors"
	"fmt"

	"github.com/goiree/goiree/runtime/base/status"
)

// ErrorContext prefixes err's message with the formatted context while
// keeping its status code outermost ("CODE; context: message"). Errors
// without a code are wrapped with %w.
func ErrorContext(err error, format string, args ...any) error {
	return errContext(err, format, args...)
}

// errContext prefixes err's message with context while keeping its status
// code outermost, so that messages read "CODE; context: message" rather
// than burying the code in the middle. Errors without a code are wrapped
// with %w.
func errContext(err error, format string, args ...any) error {
	ctx := fmt.Sprintf(format, args...)
	var se *status.Error
	if errors.As(err, &se) && se == err {
		if cause := errors.Unwrap(se); cause != nil {
			if se.Message == "" {
				return status.Wrap(se.Code, cause, "%s", ctx)
			}
			return status.Wrap(se.Code, cause, "%s: %s", ctx, se.Message)
		}
		return status.Errorf(se.Code, "%s: %s", ctx, se.Message)
	}
	return fmt.Errorf("%s: %w", ctx, err)
}
