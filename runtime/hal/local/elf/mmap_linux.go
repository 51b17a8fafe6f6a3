//go:build linux

package elf

import "syscall"

func mapMemory(n int) ([]byte, error) {
	return syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
}

func unmapMemory(b []byte) error { return syscall.Munmap(b) }

func protectMemory(b []byte, flags uint32) error {
	prot := syscall.PROT_NONE
	if flags&pfR != 0 {
		prot |= syscall.PROT_READ
	}
	if flags&pfW != 0 {
		prot |= syscall.PROT_WRITE
	}
	if flags&pfX != 0 {
		prot |= syscall.PROT_EXEC
	}
	return syscall.Mprotect(b, prot)
}
