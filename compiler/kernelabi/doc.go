// Package kernelabi checks, at compile time, that user kernels brought as
// objects match how the program declares them, which IREE only discovers at
// link or load time (or never):
//
//   - an ELF .o must define every function the variant's shims call through
//     a hal.import.static declaration, for the variant's architecture;
//   - a PTX module must have a .entry per export whose parameter count is
//     the export layout's bindings plus constants;
//   - a SPIR-V module must have a GLCompute OpEntryPoint named as the
//     export, storage buffers at exactly the layout's bindings in set 0, and
//     a push-constant block no larger than 4 bytes per layout constant.
//
// Each error names the object, the symbol and the mismatch.
package kernelabi
