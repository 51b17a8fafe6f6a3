package loopnest

import (
	"github.com/goiree/goiree/compiler/dialect/hal"
	"github.com/goiree/goiree/compiler/ir"
	"github.com/goiree/goiree/compiler/target"
)

// The grid a loop-nest variant is launched with (an addition to the
// contract in contract.go, which numbers the tiles by workgroup_id.x):
// each target chooses its own tile (gridFor). A target with a
// LoopNestGridLimit numbers its tiles y * countX + x, since a grid of more
// tiles than the limit is split into rows, and skips tiles past the end.
// A target with a LoopNestSplit gets that many z layers per tile and
// divides the tile's work among them itself, each output element
// computed by exactly one workgroup (its tiled matmuls give each layer
// every z-th block of columns).

// grid is how one variant of a loop-nest dispatch is launched: the tile of
// the kernel's first parallel loop each workgroup owns, the largest x
// count of the grid (0: unlimited) and how many workgroups share a tile.
type grid = hal.Grid

// gridFor chooses the grid of k's variant for target t: the first parallel
// loop split into at most the target's LoopNestWorkgroups tiles, each a
// multiple of the target's minimum tile where it has one and the loop is
// not shorter (but no longer than a static loop), and each tile shared by
// as many workgroups as the target's LoopNestSplit asks. A dynamic loop
// gets the smallest tile, since its range is unknown until the dispatch.
func gridFor(k *Kernel, t *hal.ExecutableTargetAttr) grid {
	g := grid{Tile: 1, Z: 1}
	tg, ok := target.Lookup(t.Backend)
	if ok {
		g.Limit = tg.LoopNestGridLimit
	}
	p := k.OuterParallel()
	if p < 0 {
		return g
	}
	budget := int64(MaxWorkgroups)
	if ok && tg.LoopNestWorkgroups > 0 {
		budget = tg.LoopNestWorkgroups
	}
	n := k.Ranges[p]
	if n != ir.Dynamic && n > 0 {
		g.Tile = (n + budget - 1) / budget
	}
	if ok && tg.LoopNestMinTile != nil {
		// A loop shorter than the minimum keeps its one-iteration tiles:
		// the target has a layout for those that spreads them out.
		if m := tg.LoopNestMinTile(t, k.Dict()); m > 1 && (n == ir.Dynamic || n >= m) {
			g.Tile = (g.Tile + m - 1) / m * m
			if n != ir.Dynamic && g.Tile > n {
				g.Tile = n
			}
		}
	}
	// The target divides the tile it is given.
	if ok && tg.LoopNestSplit != nil {
		kt := *k
		kt.Tile = g.Tile
		if z := tg.LoopNestSplit(t, kt.Dict()); z > 1 {
			g.Z = min(z, maxSplit)
		}
	}
	return g
}

// maxSplit is the largest z count of a grid on any target.
const maxSplit = 65535

// grids chooses the grid of every variant, and the smallest of their
// tiles: the one the kernel is validated with and the executable's
// default.
func grids(k *Kernel, targets []*hal.ExecutableTargetAttr) (map[*hal.ExecutableTargetAttr]grid, int64) {
	// A target's LoopNestMinTile decodes the kernel, which needs a tile.
	k.Tile = 1
	out := map[*hal.ExecutableTargetAttr]grid{}
	var least int64
	for _, t := range targets {
		g := gridFor(k, t)
		out[t] = g
		if least == 0 || g.Tile < least {
			least = g.Tile
		}
	}
	if least == 0 {
		least = 1
	}
	return out, least
}
