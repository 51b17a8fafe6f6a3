// Included by noshim.c, so that an edit here must recompile it.
#define TILE 32
