package local

import "fmt"

// Signal numbers and si_code values of Linux (x86-64 and arm64 agree), for
// describing a kernel fault.
const (
	sigILL  = 4
	sigBUS  = 7
	sigFPE  = 8
	sigSEGV = 11

	siKernel = 0x80 // si_code of a fault the kernel raised without a finer cause
)

// signalCauses are the si_code descriptions of each fault signal, indexed
// from 1 (siginfo.h).
var signalCauses = map[int][]string{
	sigSEGV: {"address not mapped", "access not permitted", "failed address bound check", "failed protection key check"},
	sigBUS:  {"misaligned address", "nonexistent physical address", "object-specific hardware error"},
	sigFPE: {"integer divide by zero", "integer overflow", "floating-point divide by zero", "floating-point overflow",
		"floating-point underflow", "floating-point inexact result", "invalid floating-point operation", "subscript out of range"},
	sigILL: {"illegal opcode", "illegal operand", "illegal addressing mode", "illegal trap", "privileged opcode",
		"privileged register", "coprocessor error", "internal stack error"},
}

var signalNames = map[int]string{sigSEGV: "SIGSEGV", sigBUS: "SIGBUS", sigFPE: "SIGFPE", sigILL: "SIGILL"}

// describeSignal says which signal stopped a kernel and why, as
// "SIGSEGV (address not mapped, address 0x0)".
func describeSignal(signo, code int, addr uint64) string {
	name, ok := signalNames[signo]
	if !ok {
		name = fmt.Sprintf("signal %d", signo)
	}
	cause := fmt.Sprintf("si_code %d", code)
	switch c := signalCauses[signo]; {
	case code >= 1 && code <= len(c):
		cause = c[code-1]
	case code == siKernel && signo == sigSEGV:
		cause = "general protection fault"
	case code == siKernel:
		cause = "raised by the kernel"
	}
	switch signo {
	case sigSEGV, sigBUS:
		return fmt.Sprintf("%s (%s, address %#x)", name, cause, addr)
	}
	return fmt.Sprintf("%s (%s at pc %#x)", name, cause, addr)
}
