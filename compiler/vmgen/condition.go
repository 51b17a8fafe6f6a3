package vmgen

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/runtime/vm"
)

// condition lowers a variant's hal.executable.condition region to host
// code on the dispatch's device and returns an i32 register that is
// non-zero when the variant may be used.
func (fe *fnEmitter) condition(cond *ir.Operation) (vm.Reg, error) {
	if len(cond.Regions) != 1 || len(cond.Regions[0].Blocks) != 1 {
		return vm.Reg{}, ir.OpErrorf(cond, "target condition regions must have one block")
	}
	blk := cond.Regions[0].Blocks[0]
	if len(blk.Args) != 1 {
		return vm.Reg{}, ir.OpErrorf(cond, "target condition region must take a !hal.device")
	}
	fe.scalars[blk.Args[0]] = fe.dev
	for _, o := range blk.Ops {
		if o.Name == "hal.return" {
			if len(o.Operands) != 1 {
				return vm.Reg{}, ir.OpErrorf(o, "target condition region must return a single i1 result")
			}
			return fe.scalar(o, o.Operands[0])
		}
		if err := fe.regionOp(o, "a target condition region"); err != nil {
			return vm.Reg{}, err
		}
	}
	return vm.Reg{}, ir.OpErrorf(cond, "target condition region has no terminator")
}

// regionOp lowers one op of a host region evaluated at a dispatch (a
// workgroup count or target condition region): device queries and scalar
// arith/affine math.
func (fe *fnEmitter) regionOp(o *ir.Operation, where string) error {
	if o.Name == "hal.device.query" {
		return fe.deviceQuery(o)
	}
	handled, err := fe.scalarOp(o)
	if err != nil {
		return err
	}
	if !handled {
		return ir.OpErrorf(o, "'%s' is not supported in %s", o.Name, where)
	}
	return nil
}

// deviceQuery lowers `%ok, %v = hal.device.query<%dev> key(c :: k) : i1, T
// [= default]` to hal.device.query.i64; %v is the default (or 0) when the
// device does not know the key.
func (fe *fnEmitter) deviceQuery(op *ir.Operation) error {
	f := fe.f
	if len(op.Operands) != 1 || len(op.Results) != 2 {
		return ir.OpErrorf(op, "expects one device operand and two results")
	}
	dev, err := fe.scalar(op, op.Operands[0])
	if err != nil {
		return err
	}
	category, _ := op.Attr("category").(ir.StringAttr)
	key, _ := op.Attr("key").(ir.StringAttr)
	ok, val := f.NewI32(), f.NewI64()
	f.CallImport(fe.e.imp("hal.device.query.i64"), []vm.Reg{dev, fe.strRef(category.Value), fe.strRef(key.Value)}, []vm.Reg{ok, val})
	if d := op.Attr("default_value"); d != nil {
		var dv int64
		switch a := d.(type) {
		case ir.IntegerAttr:
			dv = a.Value
		case ir.BoolAttr:
			if a.Value {
				dv = 1
			}
		default:
			return ir.OpErrorf(op, "default value %s must be an integer or boolean", ir.AttrString(d))
		}
		sel := f.NewI64()
		f.Emit(vm.OpSelectI64, sel, ok, val, fe.i64(dv))
		val = sel
	}
	res := val
	switch t := op.Results[1].Type.(type) {
	case ir.IndexType:
	case ir.IntegerType:
		switch t.Width {
		case 1:
			res = f.NewI32()
			f.Emit(vm.OpCmpNzI64, res, val)
		case 32:
			res = f.NewI32()
			f.Emit(vm.OpTruncI64I32, res, val)
		case 64:
		default:
			return ir.OpErrorf(op, "query value type '%s' is not supported (i1, i32, i64 or index)", ir.TypeString(t))
		}
	default:
		return ir.OpErrorf(op, "query value type '%s' is not supported (i1, i32, i64 or index)", ir.TypeString(t))
	}
	fe.scalars[op.Results[0]] = ok
	fe.scalars[op.Results[1]] = res
	return nil
}

// variantCondition returns the condition of a candidate's variant, or nil.
func variantCondition(c candidate) *ir.Operation { return hal.Condition(c.variant) }
