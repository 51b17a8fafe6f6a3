// Package target is the registry of code generation targets. Each target
// package (compiler/target/<name>) registers itself from its init function:
// its backend name and aliases, the device its executables run on, its
// default executable target, its flags and how to build its executable
// variants. Nothing else lists the targets: a program links the targets it
// imports (compiler/target/all imports every one), and device selection,
// flag parsing and executable building all ask this registry.
package target

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
)

// Builder serializes an executable variant into the binary of its
// target's format. It has the method set of vmgen.ExecutableBuilder.
type Builder interface {
	Build(variant *ir.Operation) ([]byte, error)
}

// ObjectLoader returns the bytes of an executable object (its embedded
// data, or the file its path resolves to). *objects.Resolver implements it.
type ObjectLoader interface {
	Load(obj *hal.ExecutableObjectAttr) ([]byte, error)
}

// Flag is a command-line option a target owns, such as the path of a tool
// it runs. Values reach the target's builder through Env.Flags.
type Flag struct {
	// Name is the flag without dashes (iree-llvmcpu-clang-path).
	Name string
	// Aliases are other accepted spellings of the flag.
	Aliases []string
	// Value names the value in help text (<path>).
	Value string
	// Help is the one-line description shown by --help.
	Help string
}

// Env is what a target's builder gets from the driver.
type Env struct {
	// Objects loads #hal.executable.object entries (nil: paths are read
	// as written and data objects used as embedded).
	Objects ObjectLoader
	// DumpSourcesTo and DumpBinariesTo, when set, are directories that
	// receive generated sources and built binaries.
	DumpSourcesTo, DumpBinariesTo string
	// Flags holds the values of target flags by Flag.Name (aliases are
	// already folded into the name).
	Flags map[string]string
}

// Target describes one registered target.
type Target struct {
	// Name is the backend name (#hal.executable.target<"NAME", ...>).
	Name string
	// Aliases are other spellings of the backend accepted in programs
	// and flags (the seed's "vulkan" for "vulkan-spirv").
	Aliases []string
	// Device is the target device the executables run on ("local").
	Device string
	// Fallback marks the target whose default executable target receives
	// generated dispatches when a program and its flags name no target.
	Fallback bool
	// Explicit marks a target compiled only where a flag or the program
	// names it: its device named without executable targets
	// (--iree-hal-target-device=local) does not get it (vmvx, the
	// interpreted reference backend next to llvm-cpu).
	Explicit bool
	// DefaultExecutableTarget returns a new copy of the executable target
	// used when a flag names the backend or its device without details.
	DefaultExecutableTarget func() *hal.ExecutableTargetAttr
	// ConfigureExecutableTarget, when set, completes an executable target
	// of this backend that flags chose (the default one, for
	// --iree-hal-target-backends or a device named by
	// --iree-hal-target-device) with what the target's own flags say of
	// the device, as IREE's --iree-vulkan-target records the device's
	// limits in the configuration. flags holds the target flags' values
	// by Flag.Name. An error names the flag and its value.
	ConfigureExecutableTarget func(t *hal.ExecutableTargetAttr, flags map[string]string) error
	// LoopNests marks a target whose builder compiles the loop-nest
	// kernels that dispatches formed from linalg ops carry (the contract
	// in compiler/loopnest); dispatch formation refuses linalg ops for
	// targets without it rather than emit kernels nothing compiles.
	LoopNests bool
	// LoopNestWorkgroups is how many workgroups a loop-nest dispatch for
	// this target may be split into along its first parallel loop (0:
	// loopnest.MaxWorkgroups, enough for a CPU's threads). GPUs want far
	// more, to keep every multiprocessor busy with several workgroups.
	LoopNestWorkgroups int64
	// LoopNestGridLimit, when non-zero, is the largest x count of a
	// loop-nest dispatch's grid: more workgroups are launched as rows of
	// that many (y), and the target's kernels take y * countX + x as
	// their tile.
	LoopNestGridLimit int64
	// LoopNestMinTile, when set, returns the smallest tile of the first
	// parallel loop the target's kernel for the loop nest (its
	// loopnest.Attr dictionary) works well with on the executable target
	// t (whose configuration may describe the device: its workgroup and
	// shared memory limits), such as a tiled matmul's block of rows; the
	// tile is then a multiple of it. 0 or 1: any.
	LoopNestMinTile func(t *hal.ExecutableTargetAttr, kernel *ir.DictAttr) int64
	// LoopNestSplit, when set, returns how many workgroups (the grid's z
	// count, at most 65,535) share each tile of the loop nest (its
	// loopnest.Attr dictionary, with the tile chosen) on the executable
	// target t: the target's kernel for it divides the tile's work among
	// them, such as a tiled matmul's column blocks, whose width depends
	// on the device t describes. 0 or 1: a workgroup per tile.
	LoopNestSplit func(t *hal.ExecutableTargetAttr, kernel *ir.DictAttr) int64
	// LoopNestEpilogues marks a target whose loop-nest kernels apply the
	// contract's epilogue (the elementwise ops after a reduction, run on
	// each output element once its reduction is complete). Dispatch
	// formation folds a reduction's elementwise consumers into its
	// dispatch only when every target of the dispatch sets it; otherwise
	// they stay dispatches of their own.
	LoopNestEpilogues bool
	// LoopNestGroups marks a target whose builder compiles row groups
	// (loopnest.GroupAttr): a chain of row reductions and their consumers
	// run in one dispatch, each row's intermediate values kept in the
	// workgroup (a softmax's max and sum). Dispatch formation groups only
	// when every target of the dispatch sets it.
	LoopNestGroups bool
	// Flags are the target's own options.
	Flags []Flag
	// NewBuilder returns the builder of the target's variants.
	NewBuilder func(Env) Builder
}

var (
	mu      sync.RWMutex
	targets []*Target
)

// Register adds a target. It is meant for init functions, so a malformed or
// duplicate registration is a programming error and panics at start-up.
func Register(t Target) {
	mu.Lock()
	defer mu.Unlock()
	if t.Name == "" || t.Device == "" || t.DefaultExecutableTarget == nil || t.NewBuilder == nil {
		panic(fmt.Sprintf("target.Register: %q needs a name, a device, a default executable target and a builder", t.Name))
	}
	for _, n := range append([]string{t.Name}, t.Aliases...) {
		if lookup(n) != nil {
			panic(fmt.Sprintf("target.Register: backend %q registered twice", n))
		}
	}
	for _, f := range t.Flags {
		for _, n := range append([]string{f.Name}, f.Aliases...) {
			if o, _ := findFlag(n); o != nil {
				panic(fmt.Sprintf("target.Register: flag --%s of %s is already registered by %s", n, t.Name, o.Name))
			}
		}
	}
	c := t
	targets = append(targets, &c)
	sort.Slice(targets, func(i, j int) bool { return targets[i].Name < targets[j].Name })
}

func lookup(name string) *Target {
	for _, t := range targets {
		if t.Name == name {
			return t
		}
		for _, a := range t.Aliases {
			if a == name {
				return t
			}
		}
	}
	return nil
}

// Lookup returns the target with the backend name or alias name.
func Lookup(name string) (*Target, bool) {
	mu.RLock()
	defer mu.RUnlock()
	t := lookup(name)
	return t, t != nil
}

// All returns the registered targets sorted by name.
func All() []*Target {
	mu.RLock()
	defer mu.RUnlock()
	return append([]*Target(nil), targets...)
}

// Backends returns the registered backend names, sorted (aliases are not
// listed).
func Backends() []string {
	var out []string
	for _, t := range All() {
		out = append(out, t.Name)
	}
	return out
}

// Devices returns the devices of the registered targets, sorted, each once.
func Devices() []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range All() {
		if !seen[t.Device] {
			seen[t.Device] = true
			out = append(out, t.Device)
		}
	}
	sort.Strings(out)
	return out
}

// DeviceBackends returns the backends that run on device, sorted: the
// backends a device named without its executable targets gets (those not
// marked Explicit).
func DeviceBackends(device string) []string {
	var out []string
	for _, t := range All() {
		if t.Device == device && !t.Explicit {
			out = append(out, t.Name)
		}
	}
	return out
}

// BackendDevice returns the device the backend (or alias) runs on.
func BackendDevice(backend string) (string, bool) {
	t, ok := Lookup(backend)
	if !ok {
		return "", false
	}
	return t.Device, true
}

// DefaultExecutableTarget returns a new copy of the default executable
// target of a backend (or alias).
func DefaultExecutableTarget(backend string) (*hal.ExecutableTargetAttr, bool) {
	t, ok := Lookup(backend)
	if !ok {
		return nil, false
	}
	return t.DefaultExecutableTarget(), true
}

// ConfigureExecutableTargets applies each backend's
// ConfigureExecutableTarget, with the target flags' values by name, to the
// executable targets of ts that flags chose, in place.
func ConfigureExecutableTargets(ts []*hal.ExecutableTargetAttr, flags map[string]string) error {
	for _, et := range ts {
		if t, ok := Lookup(et.Backend); ok && t.ConfigureExecutableTarget != nil {
			if err := t.ConfigureExecutableTarget(et, flags); err != nil {
				return err
			}
		}
	}
	return nil
}

// Fallback returns the executable target that generated dispatches get when
// nothing names a target, or an error when no linked target offers one.
func Fallback() (*hal.ExecutableTargetAttr, error) {
	for _, t := range All() {
		if t.Fallback {
			return t.DefaultExecutableTarget(), nil
		}
	}
	return nil, fmt.Errorf("no executable targets: the program names none and no linked target is a default (targets linked: %s)", listOrNone(Backends()))
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

func findFlag(name string) (*Target, *Flag) {
	for _, t := range targets {
		for i := range t.Flags {
			f := &t.Flags[i]
			if f.Name == name {
				return t, f
			}
			for _, a := range f.Aliases {
				if a == name {
					return t, f
				}
			}
		}
	}
	return nil, nil
}

// FindFlag returns the target flag spelled name (without dashes) and its
// target, or nil.
func FindFlag(name string) (*Target, *Flag) {
	mu.RLock()
	defer mu.RUnlock()
	return findFlag(name)
}

// Builders returns a builder per backend name and alias of every
// registered target, configured by env.
func Builders(env Env) map[string]Builder {
	out := map[string]Builder{}
	for _, t := range All() {
		b := t.NewBuilder(env)
		out[t.Name] = b
		for _, a := range t.Aliases {
			out[a] = b
		}
	}
	return out
}
