package pipeline

import (
	"regexp"
	"strconv"

	"github.com/goiree/goiree/compiler/ir"
)

// Source positions are part of the module bytes (vmgen records each op's
// file:line:col as debug information), so IR that is printed after a phase
// and resumed from must carry them: PrintDebug writes every op's position
// as MLIR's trailing loc("file":line:col) (loc(unknown) for ops that passes
// created without one), and RestoreLocations turns those back into
// positions, as MLIR takes an op's location from its loc(...).

// PrintDebug prints the module with every op's source location
// (--mlir-print-debuginfo). An op that already carries an explicit loc(...)
// keeps it.
func (s *State) PrintDebug() string {
	var set []*ir.Operation
	for _, op := range s.Module.Op.Body().Ops {
		ir.Walk(op, func(o *ir.Operation) bool {
			if o.Loc == nil {
				o.Loc = locationOf(o.Pos)
				set = append(set, o)
			}
			return true
		})
	}
	defer func() {
		for _, o := range set {
			o.Loc = nil
		}
	}()
	return s.Print()
}

func locationOf(p ir.Pos) ir.LocationAttr {
	if !p.IsValid() {
		return ir.LocationAttr{Body: "unknown"}
	}
	return ir.LocationAttr{Body: ir.QuoteString(p.File) + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)}
}

// fileLineCol matches the body of a file:line:col location.
var fileLineCol = regexp.MustCompile(`^"((?:[^"\\]|\\.)*)":([0-9]+):([0-9]+)$`)

// RestoreLocations gives every op whose loc(...) is a file:line:col
// location (or unknown) that position, and drops the loc: the module then
// is the one PrintDebug printed, positions included.
func RestoreLocations(m *ir.Module) {
	for _, op := range m.Op.Body().Ops {
		ir.Walk(op, func(o *ir.Operation) bool {
			l, ok := o.Loc.(ir.LocationAttr)
			if !ok {
				return true
			}
			if l.Body == "unknown" {
				o.Pos, o.Loc = ir.Pos{}, nil
				return true
			}
			g := fileLineCol.FindStringSubmatch(l.Body)
			if g == nil {
				return true
			}
			file, err := strconv.Unquote(`"` + g[1] + `"`)
			line, err1 := strconv.Atoi(g[2])
			col, err2 := strconv.Atoi(g[3])
			if err != nil || err1 != nil || err2 != nil {
				return true
			}
			o.Pos, o.Loc = ir.Pos{File: file, Line: line, Col: col}, nil
			return true
		})
	}
}
