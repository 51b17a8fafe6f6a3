// Command gendemo builds the demonstration module (see package demomodule)
// with clang and ld.lld and writes it to a .vmfb file:
//
//	go run ./internal/demomodule/gendemo -o /tmp/demo.vmfb
//	go run ./iree-run-module --device=local-task --module=/tmp/demo.vmfb \
//	    --function=simple_mul --input=1000003xf32=2 --input=1000003xf32=4
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/goiree/goiree/tools/internal/demomodule"
)

func main() {
	out := flag.String("o", "demo.vmfb", "output .vmfb path")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "[ERROR] gendemo:", err)
		os.Exit(1)
	}
}

func run(out string) error {
	clang, lld, err := demomodule.FindTools()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "gendemo")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	elf, err := demomodule.BuildKernel(clang, lld, dir)
	if err != nil {
		return err
	}
	vmfb, err := demomodule.Build(elf)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, vmfb, 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes; kernel %d bytes)\n", out, len(vmfb), len(elf))
	return nil
}
