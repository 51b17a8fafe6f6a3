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
// (--mlir-print-debuginfo). An op that also carries an explicit loc(...)
// from its source gets both, as loc(fused<"goiree.pos">[position, loc]).
func (s *State) PrintDebug() string {
	saved := map[*ir.Operation]ir.Attribute{}
	for _, op := range s.Module.Op.Body().Ops {
		ir.Walk(op, func(o *ir.Operation) bool {
			saved[o] = o.Loc
			pos := locationOf(o.Pos)
			if l, ok := o.Loc.(ir.LocationAttr); ok {
				pos.Body = posTag + "[" + pos.Body + ", " + l.Body + "]"
			}
			o.Loc = pos
			return true
		})
	}
	defer func() {
		for o, l := range saved {
			o.Loc = l
		}
	}()
	return s.Print()
}

// posTag marks a fused location that holds an op's position and its own
// loc(...).
const posTag = `fused<"goiree.pos">`

func locationOf(p ir.Pos) ir.LocationAttr {
	if !p.IsValid() {
		return ir.LocationAttr{Body: "unknown"}
	}
	return ir.LocationAttr{Body: ir.QuoteString(p.File) + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)}
}

// fileLineCol matches the body of a file:line:col location, and
// withOwnLoc a position fused with the op's own location.
var (
	fileLineCol = regexp.MustCompile(`^"((?:[^"\\]|\\.)*)":([0-9]+):([0-9]+)$`)
	withOwnLoc  = regexp.MustCompile(`^` + regexp.QuoteMeta(posTag) + `\[((?:"(?:[^"\\]|\\.)*":[0-9]+:[0-9]+)|unknown), (.*)\]$`)
)

// RestoreLocations gives every op whose loc(...) is a file:line:col
// location (or unknown) that position and drops the loc, and splits a
// position fused with the op's own loc back into the two: the module then
// is the one PrintDebug printed, positions included.
func RestoreLocations(m *ir.Module) {
	for _, op := range m.Op.Body().Ops {
		ir.Walk(op, func(o *ir.Operation) bool {
			l, ok := o.Loc.(ir.LocationAttr)
			if !ok {
				return true
			}
			body, own := l.Body, ir.Attribute(nil)
			if g := withOwnLoc.FindStringSubmatch(body); g != nil {
				body, own = g[1], ir.LocationAttr{Body: g[2]}
			}
			if pos, ok := parsePos(body); ok {
				o.Pos, o.Loc = pos, own
			}
			return true
		})
	}
}

// parsePos reads a file:line:col location body, or unknown.
func parsePos(body string) (ir.Pos, bool) {
	if body == "unknown" {
		return ir.Pos{}, true
	}
	g := fileLineCol.FindStringSubmatch(body)
	if g == nil {
		return ir.Pos{}, false
	}
	file, err := strconv.Unquote(`"` + g[1] + `"`)
	line, err1 := strconv.Atoi(g[2])
	col, err2 := strconv.Atoi(g[3])
	if err != nil || err1 != nil || err2 != nil {
		return ir.Pos{}, false
	}
	return ir.Pos{File: file, Line: line, Col: col}, true
}
