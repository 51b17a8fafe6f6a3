// Package drivers registers the HAL drivers built into the runtime:
// local-sync and local-task.
package drivers

import (
	"github.com/goiree/goiree/runtime/hal"
	"github.com/goiree/goiree/runtime/hal/drivers/cuda"
	localsync "github.com/goiree/goiree/runtime/hal/drivers/local_sync"
	localtask "github.com/goiree/goiree/runtime/hal/drivers/local_task"
	"github.com/goiree/goiree/runtime/hal/drivers/vulkan"
	"github.com/goiree/goiree/runtime/hal/local"
)

// Options configure the drivers.
type Options struct {
	// LocalTask configures local-task (--task_topology_group_count, ...).
	LocalTask localtask.Options
	// Imports resolves CPU executables' imports on local-sync and
	// local-task (--executable_plugin); it overrides LocalTask.Imports.
	Imports local.ImportResolver
}

// Register adds every built-in driver to r.
func Register(r *hal.Registry, opts Options) error {
	if opts.Imports != nil {
		opts.LocalTask.Imports = opts.Imports
	}
	if err := r.Register(localsync.NewDriverWithOptions(localsync.Options{Imports: opts.Imports})); err != nil {
		return err
	}
	if err := r.Register(cuda.NewDriver()); err != nil {
		return err
	}
	if err := r.Register(vulkan.NewDriver()); err != nil {
		return err
	}
	return r.Register(localtask.NewDriver(opts.LocalTask))
}

// RegisterDefault adds every built-in driver, with default options, to
// hal.DefaultRegistry.
func RegisterDefault() error { return Register(hal.DefaultRegistry, Options{}) }
