// Package terminal tells whether a file is a terminal, for the tools'
// terminal-only behaviour: the "no module specified" message instead of a
// silent wait on standard input, and iree-compile's progress line.
package terminal
