package vulkan

// A shader may ask the device to keep the denormals of a float width
// (SPV_KHR_float_controls' DenormPreserve execution mode, which the
// compiler's generated shaders declare for 32-bit floats so that bf16
// arithmetic and the f32 math helpers keep subnormal results). Vulkan
// allows the mode only where the device's shaderDenormPreserveFloat16,
// 32 or 64 is true (VUID-RuntimeSpirv-shaderDenormPreserveFloat32-06297);
// NVIDIA's driver and lavapipe report false for 32-bit floats. Preparing
// a module therefore drops the mode for the widths the device does not
// offer, which leaves those floats to the device's default handling of
// denormals: what a driver that ignored the mode would do, without the
// invalid use. The capability stays declared; only its use is limited.

// spvModeDenormPreserve is SPIR-V's DenormPreserve execution mode.
const spvModeDenormPreserve = 4459

// denormBit is the bit of gvk_device.denorm_preserve for a float width,
// or 0 for a width Vulkan has no property for.
func denormBit(width uint32) uint32 {
	switch width {
	case 16:
		return 1
	case 32:
		return 2
	case 64:
		return 4
	}
	return 0
}

// withoutDenormPreserve returns code without the DenormPreserve execution
// modes of the widths the device does not preserve (preserved holds
// gvk_device.denorm_preserve's bits); code itself when it has none.
// Malformed modules are returned unchanged, for scanModule to report.
func withoutDenormPreserve(code []uint32, preserved uint32) []uint32 {
	drop := func(w []uint32) bool {
		return w[0]&0xffff == spvOpExecutionMode && len(w) == 4 && w[2] == spvModeDenormPreserve && preserved&denormBit(w[3]) == 0
	}
	if len(code) < spvHeaderWords {
		return code
	}
	var out []uint32
	for i := spvHeaderWords; i < len(code); {
		n := int(code[i] >> 16)
		if n == 0 || i+n > len(code) {
			return code
		}
		if w := code[i : i+n]; drop(w) {
			if out == nil {
				out = append(make([]uint32, 0, len(code)), code[:i]...)
			}
		} else if out != nil {
			out = append(out, w...)
		}
		i += n
	}
	if out == nil {
		return code
	}
	return out
}
