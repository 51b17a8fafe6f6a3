package main

// configureDrivers applies driver flags (--task_topology_group_count) to
// the registered drivers before a device is created.
func configureDrivers(o *options) error {
	return nil
}
