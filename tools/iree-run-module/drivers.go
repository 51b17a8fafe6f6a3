package main

import (
	"fmt"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	"github.com/goiree/goiree/runtime/hal/local"
)

// newRegistry registers the built-in drivers configured from the driver
// flags (--task_topology_group_count) in a registry for this run; the local
// devices resolve executables' imports with imports (--executable_plugin).
func newRegistry(o *options, imports local.ImportResolver) (*hal.Registry, error) {
	if o.groupCount < 0 {
		return nil, fmt.Errorf("--task_topology_group_count=%d must not be negative", o.groupCount)
	}
	reg := &hal.Registry{}
	opts := drivers.Options{LocalTask: localtask.Options{GroupCount: o.groupCount}, Imports: imports}
	if err := drivers.Register(reg, opts); err != nil {
		return nil, fmt.Errorf("registering HAL drivers: %w", err)
	}
	return reg, nil
}
