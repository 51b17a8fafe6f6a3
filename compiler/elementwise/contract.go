package elementwise

// The generated-kernel contract between this package, which writes the
// entry functions of the dispatches it forms, and every target that
// compiles them (llvm-cpu to C, cuda to PTX, vulkan-spirv to GLSL). It
// lives here, with the producer, so that no target imports another.

// Attr names the attribute that marks a compiler-generated elementwise
// entry function. Its value is a dictionary
// {body = @scalar_fn, tile_size = N : index}: the entry processes tile
// workgroup_id.x of N elements, reading element i of every input binding,
// calling @scalar_fn on those scalars and storing its results to the
// output bindings that follow the inputs. Constant 0 is the element count
// (an i32); the inputs and then the results are bindings 0, 1, ... of set
// 0, and the workgroup count is ceildiv(count, N).
const Attr = "goiree.elementwise"

// DefaultTileSize is the number of elements a generated elementwise
// workgroup processes when the entry's dictionary names no tile_size.
const DefaultTileSize = 1024
