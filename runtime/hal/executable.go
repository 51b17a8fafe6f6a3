package hal

// ExportInfo describes one entry point of an executable.
type ExportInfo struct {
	// Name is the export name (may be empty when the library has no names).
	Name string
	// ConstantCount and BindingCount are the counts the entry point expects;
	// -1 when the executable does not declare them.
	ConstantCount int
	BindingCount  int
	// LocalMemoryBytes is the workgroup-local memory each workgroup needs.
	LocalMemoryBytes int64
	// WorkgroupSize is the declared workgroup size (zeros when unknown).
	WorkgroupSize [3]uint32
}

// Executable is a prepared executable with one or more exports.
type Executable interface {
	// Format is the executable format, e.g. "embedded-elf-x86_64".
	Format() string
	// Exports describes each export, in ordinal order.
	Exports() []ExportInfo
	// Release frees the executable; it must not be dispatched afterwards.
	Release() error
}

// PipelineLayout is the interface an export is dispatched with: its
// constant and binding counts. Layouts are optional in ExecutableParams;
// when given, they are checked against the executable's exports.
type PipelineLayout struct {
	ConstantCount int
	BindingCount  int
}

// ExecutableCachingMode are IREE's executable caching flags.
type ExecutableCachingMode uint32

// Executable caching flags.
const (
	CachingAliasProvidedData      ExecutableCachingMode = 1 << 0
	CachingAllowPersistentCaching ExecutableCachingMode = 1 << 1
	CachingAllowOptimization      ExecutableCachingMode = 1 << 2
	CachingEnableDebugging        ExecutableCachingMode = 1 << 3
	CachingEnableCoverage         ExecutableCachingMode = 1 << 4
	CachingEnableProfiling        ExecutableCachingMode = 1 << 5
	CachingDisableVerification    ExecutableCachingMode = 1 << 6
)

// ExecutableParams is what PrepareExecutable needs.
type ExecutableParams struct {
	// Name names the executable in messages ("@executable::@variant" for
	// one from a module); may be empty.
	Name string
	// Format is the executable format string stored with the executable.
	Format string
	// Data is the executable binary (ELF, PTX, SPIR-V flatbuffer, ...).
	Data []byte
	// Constants are executable-level specialization constants.
	Constants []uint32
	// Layouts, when non-empty, has one entry per export.
	Layouts     []PipelineLayout
	CachingMode ExecutableCachingMode
}

// ExecutableCache prepares executables for one device.
type ExecutableCache interface {
	// CanPrepareFormat reports whether format is supported.
	CanPrepareFormat(format string) bool
	// PrepareExecutable loads an executable.
	PrepareExecutable(params ExecutableParams) (Executable, error)
}
