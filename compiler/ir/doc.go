// Package ir is the compiler's generic MLIR-style intermediate representation.
//
// A program is a tree of Operations. Each operation has a dotted name
// ("dialect.op"), SSA operands and results, an ordered attribute dictionary,
// nested Regions made of Blocks, successor blocks and an optional location.
// Types and Attributes are immutable values compared by their printed form.
//
// The package also holds the textual front end: a lexer, a Parser for the
// generic operation form plus hooks (a Registry) through which dialect
// packages add custom assembly, attribute and type syntax and verifiers; an
// AsmPrinter that prints the canonical form; and a Verify function for the
// structural rules every program must satisfy (SSA dominance basics,
// operand and result types, symbol references).
//
// The package knows no dialect by itself; see package
// github.com/goiree/goiree/compiler/dialect for the registered set.
package ir
