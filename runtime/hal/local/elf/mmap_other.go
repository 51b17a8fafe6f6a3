//go:build !linux

package elf

import "errors"

var errNoMmap = errors.New("mapping executable memory is not supported on this operating system")

func mapMemory(n int) ([]byte, error) { return nil, errNoMmap }

func unmapMemory(b []byte) error { return errNoMmap }

func protectMemory(b []byte, flags uint32) error { return errNoMmap }
