package status

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestErrors(t *testing.T) {
	wrapped := Wrap(DataLoss, io.ErrUnexpectedEOF, "reading %s", "x.vmfb")
	outer := fmt.Errorf("loading: %w", Errorf(NotFound, "function %q not found", "main"))
	tests := []struct {
		err  error
		code Code
		text string
	}{
		{nil, OK, ""},
		{New(InvalidArgument, "bad"), InvalidArgument, "INVALID_ARGUMENT; bad"},
		{Errorf(OutOfRange, "index %d", 7), OutOfRange, "OUT_OF_RANGE; index 7"},
		{wrapped, DataLoss, "DATA_LOSS; reading x.vmfb: unexpected EOF"},
		{Wrap(Internal, io.EOF, ""), Internal, "INTERNAL; EOF"},
		{outer, NotFound, `loading: NOT_FOUND; function "main" not found`},
		{io.EOF, Unknown, "EOF"},
		{&Error{Code: Code(99), Message: "m"}, Code(99), "CODE_99; m"},
	}
	for _, tt := range tests {
		if got := CodeOf(tt.err); got != tt.code {
			t.Errorf("CodeOf(%v) = %v, want %v", tt.err, got, tt.code)
		}
		if tt.err != nil && tt.err.Error() != tt.text {
			t.Errorf("Error() = %q, want %q", tt.err.Error(), tt.text)
		}
	}
	if !errors.Is(wrapped, io.ErrUnexpectedEOF) {
		t.Errorf("Wrap lost its cause")
	}
	if Wrap(Internal, nil, "x") != nil {
		t.Errorf("Wrap(nil) is not nil")
	}
}
