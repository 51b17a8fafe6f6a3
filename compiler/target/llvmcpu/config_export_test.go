package llvmcpu

import "strconv"

// MatmulHelper is matmulHelper, for the external tests.
var MatmulHelper = matmulHelper

// MatmulTiles describes matmulTiles as "<condition> <MR>x<NR>".
func MatmulTiles() []string {
	var out []string
	for _, t := range matmulTiles {
		out = append(out, t.cond+" "+strconv.Itoa(t.mr)+"x"+strconv.Itoa(t.nr))
	}
	return out
}
