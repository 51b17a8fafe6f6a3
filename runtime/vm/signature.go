package vm

import (
	"strings"

	"github.com/goiree/goiree/runtime/base/status"
)

// Signature is a parsed calling convention string (see the package doc):
// "0" then the argument characters, "_", then the result characters.
type Signature struct {
	// CallingConvention is the string the signature was parsed from.
	CallingConvention string
	// Args lists the arguments; a variadic group C…D is one Arg with a
	// non-nil Tuple.
	Args []SignatureArg
	// Results lists the result kinds (variadic results are not supported).
	Results []ValueKind
}

// SignatureArg is one argument of a Signature: a scalar or ref of Kind, or,
// when Tuple is non-nil, a variadic group of zero or more tuples of those
// kinds.
type SignatureArg struct {
	Kind  ValueKind
	Tuple []ValueKind
}

// IsVariadic reports whether the argument is a variadic group.
func (a SignatureArg) IsVariadic() bool { return a.Tuple != nil }

// kindOfChar maps a calling convention character to a kind.
func kindOfChar(c byte) (ValueKind, bool) {
	switch c {
	case 'i':
		return KindI32, true
	case 'I':
		return KindI64, true
	case 'f':
		return KindF32, true
	case 'F':
		return KindF64, true
	case 'r':
		return KindRef, true
	}
	return KindNone, false
}

// charOfKind is the inverse of kindOfChar.
func charOfKind(k ValueKind) byte {
	switch k {
	case KindI32:
		return 'i'
	case KindI64:
		return 'I'
	case KindF32:
		return 'f'
	case KindF64:
		return 'F'
	case KindRef:
		return 'r'
	}
	return '?'
}

// maxSignatureLength bounds calling convention strings accepted by the
// loader.
const maxSignatureLength = 1024

// ParseSignature parses a calling convention string such as "0rr_r",
// "0iiCiiD_i" or "0v_v". It returns an INVALID_ARGUMENT error describing
// the first problem.
func ParseSignature(cc string) (Signature, error) {
	bad := func(format string, args ...any) (Signature, error) {
		return Signature{}, status.Errorf(status.InvalidArgument, "calling convention %q: "+format, append([]any{cc}, args...)...)
	}
	if len(cc) > maxSignatureLength {
		return Signature{}, status.Errorf(status.InvalidArgument, "calling convention of %d bytes exceeds the limit of %d", len(cc), maxSignatureLength)
	}
	if len(cc) == 0 || cc[0] != '0' {
		return bad("must start with version 0")
	}
	us := strings.IndexByte(cc, '_')
	if us < 0 {
		return bad("missing '_' between arguments and results")
	}
	argStr, resStr := cc[1:us], cc[us+1:]
	sig := Signature{CallingConvention: cc}
	if argStr != "v" {
		for i := 0; i < len(argStr); i++ {
			c := argStr[i]
			if c == 'C' {
				end := strings.IndexByte(argStr[i+1:], 'D')
				if end < 0 {
					return bad("variadic group at %d has no closing 'D'", i+1)
				}
				group := argStr[i+1 : i+1+end]
				if len(group) == 0 {
					return bad("empty variadic group at %d", i+1)
				}
				tuple := make([]ValueKind, len(group))
				for j := 0; j < len(group); j++ {
					k, ok := kindOfChar(group[j])
					if !ok {
						return bad("bad character %q in variadic group", group[j])
					}
					tuple[j] = k
				}
				sig.Args = append(sig.Args, SignatureArg{Tuple: tuple})
				i += end + 1
				continue
			}
			k, ok := kindOfChar(c)
			if !ok {
				return bad("bad argument character %q", c)
			}
			sig.Args = append(sig.Args, SignatureArg{Kind: k})
		}
	}
	if resStr != "v" {
		for i := 0; i < len(resStr); i++ {
			k, ok := kindOfChar(resStr[i])
			if !ok {
				return bad("bad result character %q", resStr[i])
			}
			sig.Results = append(sig.Results, k)
		}
	}
	return sig, nil
}

// IsVariadic reports whether any argument is a variadic group.
func (s Signature) IsVariadic() bool {
	for _, a := range s.Args {
		if a.Tuple != nil {
			return true
		}
	}
	return false
}

// ArgKinds returns the argument kinds of a non-variadic signature, or of a
// variadic one with the given tuple counts per variadic group, flattened in
// call order. It returns nil when segments does not match the signature.
func (s Signature) ArgKinds(segments []int) []ValueKind {
	var kinds []ValueKind
	seg := 0
	for _, a := range s.Args {
		if a.Tuple == nil {
			kinds = append(kinds, a.Kind)
			continue
		}
		if seg >= len(segments) || segments[seg] < 0 {
			return nil
		}
		for n := 0; n < segments[seg]; n++ {
			kinds = append(kinds, a.Tuple...)
		}
		seg++
	}
	if seg != len(segments) {
		return nil
	}
	return kinds
}

// MakeCallingConvention builds a calling convention string for a
// non-variadic function with the given argument and result kinds, e.g.
// ([ref ref], [ref]) -> "0rr_r"; empty lists are written "v".
func MakeCallingConvention(args, results []ValueKind) string {
	var b strings.Builder
	b.WriteByte('0')
	if len(args) == 0 {
		b.WriteByte('v')
	}
	for _, k := range args {
		b.WriteByte(charOfKind(k))
	}
	b.WriteByte('_')
	if len(results) == 0 {
		b.WriteByte('v')
	}
	for _, k := range results {
		b.WriteByte(charOfKind(k))
	}
	return b.String()
}
