// Package plugin loads CPU executable plugins: native libraries that
// provide the functions compiled executables import (dispatch functions
// declared without hal.import.static). It is the runtime side of IREE's
// `--executable_plugin=<path>` flag.
//
// A plugin file is one of two kinds, told apart by its contents:
//
//   - Standalone: a freestanding ELF (no interpreter, needs no shared
//     library) for this host's machine, or a FatELF file holding one. It is
//     mapped by the runtime's own ELF loader (package elf), like the
//     executables themselves, and must declare the STANDALONE feature.
//   - System: any other ELF shared object for this host. It is loaded with
//     dlopen and may use libc, I/O and threads.
//
// A path prefixed with "embedded:" (IREE's spelling) must be a standalone
// plugin. A file that is neither kind is refused with a message naming the
// file and the reason ("not an ELF file").
//
// Both kinds export iree_hal_executable_plugin_query, which returns the
// plugin's load/unload/resolve table (executable_plugin.h, also Header).
// A Manager holds the loaded plugins and implements local.ImportResolver:
// an executable's imports are resolved when the executable is created,
// searching the plugins from the last loaded to the first, as IREE does.
package plugin

import _ "embed"

// Header is the text of executable_plugin.h, the plugin C ABI, for tools
// and tests that build plugins.
//
//go:embed executable_plugin.h
var Header string

// QuerySymbol is the function every plugin exports.
const QuerySymbol = "iree_hal_executable_plugin_query"

// Version is IREE_HAL_EXECUTABLE_PLUGIN_VERSION_LATEST, the newest plugin
// ABI version this runtime loads.
const Version = 1

// Feature bits of a plugin header.
const (
	// FeatureStandalone: the plugin needs nothing from the system.
	FeatureStandalone = 1 << 0
	// FeatureFullStatus: the plugin returns IREE runtime status objects,
	// which this runtime cannot read.
	FeatureFullStatus = 1 << 1
)
