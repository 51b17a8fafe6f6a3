package vulkan

// LocalSize is localSize, for the external tests.
var LocalSize = localSize
