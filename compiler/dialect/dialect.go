// Package dialect assembles the registry of every dialect the compiler
// understands and the module-level verifier that spans dialects.
package dialect

import (
	"github.com/goiree/goiree/compiler/dialect/affine"
	"github.com/goiree/goiree/compiler/dialect/arith"
	"github.com/goiree/goiree/compiler/dialect/builtin"
	"github.com/goiree/goiree/compiler/dialect/cf"
	"github.com/goiree/goiree/compiler/dialect/check"
	"github.com/goiree/goiree/compiler/dialect/codegen"
	"github.com/goiree/goiree/compiler/dialect/encoding"
	"github.com/goiree/goiree/compiler/dialect/flow"
	"github.com/goiree/goiree/compiler/dialect/function"
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/dialect/linalg"
	"github.com/goiree/goiree/compiler/dialect/linalgext"
	"github.com/goiree/goiree/compiler/dialect/math"
	"github.com/goiree/goiree/compiler/dialect/mlprogram"
	"github.com/goiree/goiree/compiler/dialect/scf"
	"github.com/goiree/goiree/compiler/dialect/stablehlo"
	"github.com/goiree/goiree/compiler/dialect/stream"
	"github.com/goiree/goiree/compiler/dialect/tensor"
	"github.com/goiree/goiree/compiler/dialect/tosa"
	"github.com/goiree/goiree/compiler/dialect/transform"
	"github.com/goiree/goiree/compiler/dialect/util"
	"github.com/goiree/goiree/compiler/ir"
)

// NewRegistry returns a registry with all dialects registered.
func NewRegistry() *ir.Registry {
	r := ir.NewRegistry()
	builtin.Register(r)
	function.Register(r)
	arith.Register(r)
	math.Register(r)
	affine.Register(r)
	tensor.Register(r)
	linalg.Register(r)
	linalgext.Register(r)
	flow.Register(r)
	hal.Register(r)
	stream.Register(r)
	codegen.Register(r)
	encoding.Register(r)
	cf.Register(r)
	scf.Register(r)
	util.Register(r)
	check.Register(r)
	tosa.Register(r)
	stablehlo.Register(r)
	mlprogram.Register(r)
	transform.Register(r)
	return r
}

// Verify runs the structural verifier and the cross-dialect checks
// (dispatch entry points resolve and fit their exports).
func Verify(reg *ir.Registry, root *ir.Operation) error {
	if err := ir.Verify(root, reg); err != nil {
		return err
	}
	return hal.VerifyDispatchSites(reg, root)
}

// Parse parses and verifies src.
func Parse(file string, src []byte, reg *ir.Registry) (*ir.Module, error) {
	m, err := ir.Parse(file, src, reg)
	if err != nil {
		return nil, err
	}
	if err := Verify(reg, m.Op); err != nil {
		return nil, err
	}
	return m, nil
}
