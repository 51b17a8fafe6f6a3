package main

import (
	"fmt"

	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
)

// newRegistry registers the built-in drivers configured from the driver
// flags (--task_topology_group_count) in a registry for this run.
func newRegistry(o *options) (*hal.Registry, error) {
	if o.groupCount < 0 {
		return nil, fmt.Errorf("--task_topology_group_count=%d must not be negative", o.groupCount)
	}
	reg := &hal.Registry{}
	opts := drivers.Options{LocalTask: localtask.Options{GroupCount: o.groupCount}}
	if err := drivers.Register(reg, opts); err != nil {
		return nil, fmt.Errorf("registering HAL drivers: %w", err)
	}
	return reg, nil
}
