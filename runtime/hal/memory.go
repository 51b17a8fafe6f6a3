package hal

import (
	"strconv"
	"strings"
)

// MemoryType describes where an allocation lives and who can see it.
type MemoryType uint32

// Memory type bits, as IREE names them.
const (
	// MemoryTypeOptimal lets the allocator pick the best memory for the usage.
	MemoryTypeOptimal MemoryType = 1 << 0
	// MemoryTypeHostVisible memory can be mapped by the host.
	MemoryTypeHostVisible MemoryType = 1 << 1
	// MemoryTypeHostCoherent memory needs no flush/invalidate around mapping.
	MemoryTypeHostCoherent MemoryType = 1 << 2
	// MemoryTypeHostCached memory is cached on the host.
	MemoryTypeHostCached MemoryType = 1 << 3
	// MemoryTypeHostLocal memory is local to the host (and host-visible).
	MemoryTypeHostLocal MemoryType = 1<<6 | MemoryTypeHostVisible
	// MemoryTypeDeviceVisible memory can be accessed by the device.
	MemoryTypeDeviceVisible MemoryType = 1 << 4
	// MemoryTypeDeviceLocal memory is local to the device (and device-visible).
	MemoryTypeDeviceLocal MemoryType = 1<<5 | MemoryTypeDeviceVisible
)

var memoryTypeNames = []struct {
	bits MemoryType
	name string
}{
	{MemoryTypeHostLocal, "HOST_LOCAL"}, {MemoryTypeDeviceLocal, "DEVICE_LOCAL"},
	{MemoryTypeOptimal, "OPTIMAL"}, {MemoryTypeHostVisible, "HOST_VISIBLE"},
	{MemoryTypeHostCoherent, "HOST_COHERENT"}, {MemoryTypeHostCached, "HOST_CACHED"},
	{MemoryTypeDeviceVisible, "DEVICE_VISIBLE"},
}

// String lists the set bits, e.g. "HOST_LOCAL|DEVICE_VISIBLE".
func (t MemoryType) String() string { return flagString(uint32(t), memoryTypeNamesU32()) }

func memoryTypeNamesU32() []flagName {
	out := make([]flagName, len(memoryTypeNames))
	for i, n := range memoryTypeNames {
		out[i] = flagName{uint32(n.bits), n.name}
	}
	return out
}

// BufferUsage says what a buffer may be used for; commands check it.
type BufferUsage uint32

// Buffer usage bits, as IREE names them.
const (
	BufferUsageTransferSource          BufferUsage = 1 << 0
	BufferUsageTransferTarget          BufferUsage = 1 << 1
	BufferUsageTransfer                            = BufferUsageTransferSource | BufferUsageTransferTarget
	BufferUsageDispatchIndirectParams  BufferUsage = 1 << 8
	BufferUsageDispatchUniformRead     BufferUsage = 1 << 9
	BufferUsageDispatchStorageRead     BufferUsage = 1 << 10
	BufferUsageDispatchStorageWrite    BufferUsage = 1 << 11
	BufferUsageDispatchStorage                     = BufferUsageDispatchStorageRead | BufferUsageDispatchStorageWrite
	BufferUsageSharingExport           BufferUsage = 1 << 16
	BufferUsageSharingReplicate        BufferUsage = 1 << 17
	BufferUsageSharingConcurrent       BufferUsage = 1 << 18
	BufferUsageSharingImmutable        BufferUsage = 1 << 19
	BufferUsageMappingScoped           BufferUsage = 1 << 24
	BufferUsageMappingPersistent       BufferUsage = 1 << 25
	BufferUsageMappingOptional         BufferUsage = 1 << 26
	BufferUsageMappingAccessRandom     BufferUsage = 1 << 27
	BufferUsageMappingAccessSequential BufferUsage = 1 << 28
	BufferUsageMapping                             = BufferUsageMappingScoped | BufferUsageMappingPersistent
	// BufferUsageDefault is transfer plus dispatch storage, IREE's default.
	BufferUsageDefault = BufferUsageTransfer | BufferUsageDispatchStorage
)

// String lists the set bits, e.g. "TRANSFER|DISPATCH_STORAGE".
func (u BufferUsage) String() string {
	return flagString(uint32(u), []flagName{
		{uint32(BufferUsageTransfer), "TRANSFER"},
		{uint32(BufferUsageTransferSource), "TRANSFER_SOURCE"},
		{uint32(BufferUsageTransferTarget), "TRANSFER_TARGET"},
		{uint32(BufferUsageDispatchIndirectParams), "DISPATCH_INDIRECT_PARAMS"},
		{uint32(BufferUsageDispatchUniformRead), "DISPATCH_UNIFORM_READ"},
		{uint32(BufferUsageDispatchStorage), "DISPATCH_STORAGE"},
		{uint32(BufferUsageDispatchStorageRead), "DISPATCH_STORAGE_READ"},
		{uint32(BufferUsageDispatchStorageWrite), "DISPATCH_STORAGE_WRITE"},
		{uint32(BufferUsageSharingExport), "SHARING_EXPORT"},
		{uint32(BufferUsageSharingReplicate), "SHARING_REPLICATE"},
		{uint32(BufferUsageSharingConcurrent), "SHARING_CONCURRENT"},
		{uint32(BufferUsageSharingImmutable), "SHARING_IMMUTABLE"},
		{uint32(BufferUsageMapping), "MAPPING"},
		{uint32(BufferUsageMappingScoped), "MAPPING_SCOPED"},
		{uint32(BufferUsageMappingPersistent), "MAPPING_PERSISTENT"},
		{uint32(BufferUsageMappingOptional), "MAPPING_OPTIONAL"},
		{uint32(BufferUsageMappingAccessRandom), "MAPPING_ACCESS_RANDOM"},
		{uint32(BufferUsageMappingAccessSequential), "MAPPING_ACCESS_SEQUENTIAL_WRITE"},
	})
}

// MemoryAccess says how mapped memory will be accessed.
type MemoryAccess uint32

// Memory access bits, as IREE names them.
const (
	MemoryAccessRead     MemoryAccess = 1 << 0
	MemoryAccessWrite    MemoryAccess = 1 << 1
	MemoryAccessDiscard  MemoryAccess = 1 << 2
	MemoryAccessMayAlias MemoryAccess = 1 << 3
	MemoryAccessAll                   = MemoryAccessRead | MemoryAccessWrite | MemoryAccessDiscard
	// MemoryAccessDiscardWrite overwrites the whole range without reading it.
	MemoryAccessDiscardWrite = MemoryAccessWrite | MemoryAccessDiscard
)

// String lists the set bits, e.g. "READ|WRITE".
func (a MemoryAccess) String() string {
	return flagString(uint32(a), []flagName{
		{uint32(MemoryAccessRead), "READ"}, {uint32(MemoryAccessWrite), "WRITE"},
		{uint32(MemoryAccessDiscard), "DISCARD"}, {uint32(MemoryAccessMayAlias), "MAY_ALIAS"},
	})
}

// BufferParams are the requested properties of an allocation. A zero Type
// means host-local and device-visible memory; a zero Usage means
// BufferUsageDefault plus mapping.
type BufferParams struct {
	Type   MemoryType
	Usage  BufferUsage
	Access MemoryAccess
}

type flagName struct {
	bits uint32
	name string
}

// flagString prints the names whose bits are all set in v, greedily in
// table order, then any leftover bits in hex.
func flagString(v uint32, names []flagName) string {
	if v == 0 {
		return "NONE"
	}
	var parts []string
	rest := v
	for _, n := range names {
		if n.bits != 0 && rest&n.bits == n.bits {
			parts = append(parts, n.name)
			rest &^= n.bits
		}
	}
	if rest != 0 {
		parts = append(parts, "0x"+strings.ToUpper(strconv.FormatUint(uint64(rest), 16)))
	}
	return strings.Join(parts, "|")
}
