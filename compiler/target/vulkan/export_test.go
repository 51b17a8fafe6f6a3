package vulkan

// CheckKHR exposes checkKHR to the external tests.
var CheckKHR = checkKHR

// UsesNVCoopMatrix exposes usesNVCoopMatrix to the external tests.
var UsesNVCoopMatrix = usesNVCoopMatrix
