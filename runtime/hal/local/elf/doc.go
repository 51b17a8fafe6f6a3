// Package elf loads freestanding ELF shared objects into memory without
// dlopen or temporary files: it validates the file, maps its PT_LOAD
// segments into anonymous memory, applies the dynamic relocations, resolves
// symbols through the dynamic symbol table and finally protects each page
// with its segment's permissions.
//
// It is written for the CPU executables the compiler links with
// `ld.lld -shared -nostdlib -static --no-undefined -z now` and accepts only
// what such objects contain: x86-64 (on an x86-64 host), little-endian,
// ELFCLASS64, ET_DYN, no interpreter, no TLS, no DT_NEEDED dependencies, no
// initializers, and relocations of the types listed in relocationNames.
//
// Loading never executes code from the object; calling into it is the job
// of package local. Every offset, size, address and count read from the
// file is bounds-checked with overflow-safe arithmetic, so hostile input
// produces an error rather than a crash.
package elf
