package drivers

import "flag"

// RegisterFlags defines the driver flags IREE's tools accept on fs
// (--task_topology_group_count, --task_topology_max_group_count) and
// returns the Options they fill in once fs is parsed.
func RegisterFlags(fs *flag.FlagSet) *Options {
	o := &Options{}
	fs.IntVar(&o.LocalTask.GroupCount, "task_topology_group_count", 0,
		"local-task: number of worker groups (one worker each); 0 = one per CPU, capped by --task_topology_max_group_count")
	fs.IntVar(&o.LocalTask.MaxGroupCount, "task_topology_max_group_count", 8,
		"local-task: upper bound of the automatic worker group count")
	return o
}
