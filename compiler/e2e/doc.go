// Package e2e holds the compiler's end-to-end tests: real .mlir programs
// in testdata/ are compiled by the front end and the back end (elementwise
// dispatch formation, llvm-cpu code generation linked with kernels that the
// tests build with clang, VM bytecode emission) and the resulting modules
// are run on the local-sync and local-task devices through the VM and the
// hal module.
package e2e
