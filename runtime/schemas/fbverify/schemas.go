package fbverify

import "encoding/binary"

// Sizes of the schemas' structs, in bytes.
const (
	functionDescriptorSize  = 20
	bytecodeLocationDefSize = 8
	blockSizeSize           = 12
)

// BytecodeModuleDef verifies buf, a FlatBuffer whose root is a
// bytecode.BytecodeModuleDef with file identifier "IREE" (without the
// .vmfb size prefix; see SizePrefixed).
func BytecodeModuleDef(buf []byte) error {
	v := &verifier{buf: buf}
	root, err := v.root("BytecodeModuleDef", "IREE")
	if err != nil {
		return err
	}
	return verifyModule(root)
}

// SizePrefixed returns the FlatBuffer inside a size-prefixed buffer (a u32
// little-endian length followed by that many bytes) and the offset just
// past it, or an error when the prefix does not fit.
func SizePrefixed(data []byte) (fb []byte, end uint64, err error) {
	if len(data) < 4 {
		return nil, 0, errAt("size prefix", "file of %d bytes is too short", len(data))
	}
	n := uint64(binary.LittleEndian.Uint32(data))
	if 4+n > uint64(len(data)) {
		return nil, 0, errAt("size prefix", "FlatBuffer size %d exceeds the %d bytes after the prefix", n, len(data)-4)
	}
	return data[4 : 4+n], 4 + n, nil
}

func attrDef(t table) error {
	if err := t.str(0, "key", false); err != nil {
		return err
	}
	return t.str(1, "value", false)
}

func signatureDef(t table) error {
	if err := t.str(0, "calling_convention", false); err != nil {
		return err
	}
	return t.vectorOfTables(1, "attrs", attrDef)
}

func verifyModule(t table) error {
	checks := []func() error{
		func() error { return t.str(0, "name", true) },
		func() error { return t.scalar(1, "version", 4) },
		func() error { return t.vectorOfTables(2, "attrs", attrDef) },
		func() error {
			return t.vectorOfTables(3, "types", func(s table) error { return s.str(0, "full_name", false) })
		},
		func() error {
			return t.vectorOfTables(4, "dependencies", func(s table) error {
				if err := s.str(0, "name", false); err != nil {
					return err
				}
				if err := s.scalar(1, "minimum_version", 4); err != nil {
					return err
				}
				return s.scalar(2, "flags", 4)
			})
		},
		func() error {
			return t.vectorOfTables(5, "imported_functions", func(s table) error {
				if err := s.str(0, "full_name", false); err != nil {
					return err
				}
				if err := s.sub(1, "signature", false, signatureDef); err != nil {
					return err
				}
				return s.scalar(2, "flags", 4)
			})
		},
		func() error {
			return t.vectorOfTables(6, "exported_functions", func(s table) error {
				if err := s.str(0, "local_name", false); err != nil {
					return err
				}
				if err := s.sub(1, "signature", false, signatureDef); err != nil {
					return err
				}
				return s.scalar(2, "internal_ordinal", 4)
			})
		},
		func() error {
			return t.vectorOfTables(7, "internal_functions", func(s table) error {
				if err := s.str(0, "local_name", false); err != nil {
					return err
				}
				return s.sub(1, "signature", false, signatureDef)
			})
		},
		func() error { return t.vectorOfTables(8, "rodata_segments", rodataSegmentDef) },
		func() error {
			return t.vectorOfTables(9, "rwdata_segments", func(s table) error { return s.scalar(0, "byte_size", 4) })
		},
		func() error {
			return t.sub(10, "module_state", false, func(s table) error {
				if err := s.scalar(0, "global_bytes_capacity", 4); err != nil {
					return err
				}
				return s.scalar(1, "global_ref_count", 4)
			})
		},
		func() error { return t.vector(11, "function_descriptors", functionDescriptorSize, false) },
		func() error { return t.scalar(12, "bytecode_version", 4) },
		func() error { return t.vector(13, "bytecode_data", 1, false) },
		func() error { return t.sub(14, "debug_database", false, debugDatabaseDef) },
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

func rodataSegmentDef(t table) error {
	err := t.union(0, 1, "compression_type", func(typ byte, s table) error {
		if typ != 1 { // UncompressedDataDef
			return errAt(s.path, "unknown compression type %d", typ)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := t.vector(2, "embedded_data", 1, false); err != nil {
		return err
	}
	if err := t.scalar(3, "external_data_offset", 8); err != nil {
		return err
	}
	if err := t.scalar(4, "external_data_length", 8); err != nil {
		return err
	}
	return t.str(5, "mime_type", false)
}

func debugDatabaseDef(t table) error {
	err := t.vectorOfTables(0, "location_table", func(s table) error {
		return s.union(0, 1, "location", locationTypeDef)
	})
	if err != nil {
		return err
	}
	return t.vectorOfTables(1, "functions", func(s table) error {
		if err := s.str(0, "local_name", false); err != nil {
			return err
		}
		return s.vector(1, "locations", bytecodeLocationDefSize, false)
	})
}

func locationTypeDef(typ byte, t table) error {
	switch typ {
	case 1: // FileLineColLocDef
		if err := t.str(0, "filename", false); err != nil {
			return err
		}
		if err := t.scalar(1, "line", 4); err != nil {
			return err
		}
		return t.scalar(2, "column", 4)
	case 2: // NameLocDef
		if err := t.str(0, "name", false); err != nil {
			return err
		}
		return t.scalar(1, "child_location", 4)
	case 3: // CallSiteLocDef
		if err := t.scalar(0, "callee", 4); err != nil {
			return err
		}
		return t.scalar(1, "caller", 4)
	case 4: // FusedLocDef
		if err := t.str(0, "metadata", false); err != nil {
			return err
		}
		return t.vector(1, "locations", 4, false)
	}
	return errAt(t.path, "unknown location type %d", typ)
}

// CUDAExecutableDef verifies buf, a FlatBuffer whose root is a
// cuda.CUDAExecutableDef with file identifier "CUDA" (no size prefix).
func CUDAExecutableDef(buf []byte) error {
	v := &verifier{buf: buf}
	t, err := v.root("CUDAExecutableDef", "CUDA")
	if err != nil {
		return err
	}
	checks := []func() error{
		func() error { return t.vectorOfStrings(0, "entry_points") },
		func() error { return t.vector(1, "block_sizes", blockSizeSize, false) },
		func() error { return t.vector(2, "shared_memory_size", 4, false) },
		func() error { return t.str(3, "ptx_image", false) },
		func() error { return t.vector(4, "constant_counts", 4, false) },
		func() error { return t.vector(5, "binding_counts", 4, false) },
		func() error {
			return t.vectorOfTables(6, "ptx_images", func(s table) error {
				if err := s.str(0, "arch", false); err != nil {
					return err
				}
				return s.str(1, "ptx", false)
			})
		},
		func() error { return t.str(7, "name", false) },
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// SpirVExecutableDef verifies buf, a FlatBuffer whose root is a
// spirv.SpirVExecutableDef with file identifier "SPVE" (no size prefix).
func SpirVExecutableDef(buf []byte) error {
	v := &verifier{buf: buf}
	t, err := v.root("SpirVExecutableDef", "SPVE")
	if err != nil {
		return err
	}
	checks := []func() error{
		func() error { return t.vectorOfStrings(0, "entry_points") },
		func() error { return t.vector(1, "subgroup_sizes", 4, false) },
		func() error { return t.vector(2, "code", 4, false) },
		func() error { return t.vector(3, "constant_counts", 4, false) },
		func() error { return t.vector(4, "binding_counts", 4, false) },
	}
	for _, c := range checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}
