package vulkan

// CheckKHR exposes checkKHR to the external tests.
var CheckKHR = checkKHR

// UsesNVCoopMatrix exposes usesNVCoopMatrix to the external tests.
var UsesNVCoopMatrix = usesNVCoopMatrix

// CoopTypes exposes coopTypes to the external tests.
var CoopTypes = coopTypes
