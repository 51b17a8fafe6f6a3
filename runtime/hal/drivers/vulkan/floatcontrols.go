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

// denormMode is a DenormPreserve execution mode of a module: the word
// offset of its OpExecutionMode (4 words) and its float width.
type denormMode struct {
	at    int
	width uint32
}

// withoutDenormPreserve returns code without the DenormPreserve execution
// modes (modes, as scanModule found them) of the widths the device does
// not preserve (preserved holds gvk_device.denorm_preserve's bits); code
// itself when it drops none.
func withoutDenormPreserve(code []uint32, modes []denormMode, preserved uint32) []uint32 {
	var out []uint32
	from := 0
	for _, m := range modes {
		if preserved&denormBit(m.width) != 0 {
			continue
		}
		if out == nil {
			out = make([]uint32, 0, len(code))
		}
		out = append(out, code[from:m.at]...)
		from = m.at + 4
	}
	if out == nil {
		return code
	}
	return append(out, code[from:]...)
}
