// An inline dispatch (flow.dispatch.region) whose tiles call a microkernel
// from an executable plugin with iree_codegen.ukernel.generic, as IREE's
// plugin ukernel samples do, here with strided operands:
//
//   out[i] = k * x[2 * i] + y[i]   for i in [0, n)
//
// split into three tiles; x holds 2n elements and is read with stride 2.

func.func @axpy(%x: tensor<?xf32>, %y: tensor<?xf32>, %k: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %n = tensor.dim %y, %c0 : tensor<?xf32>
  %dest = tensor.empty(%n) : tensor<?xf32>
  %0 = flow.dispatch.region[%c3] -> (tensor<?xf32>{%n}) {
    %id = flow.dispatch.workgroup.id[0] : index
    %count = flow.dispatch.workgroup.count[0] : index
    %tile = affine.apply affine_map<()[s0, s1] -> (s0 ceildiv s1)>()[%n, %count]
    %offset = affine.apply affine_map<()[s0, s1] -> (s0 * s1)>()[%id, %tile]
    %size = affine.min affine_map<(d0)[s0, s1] -> (s1 - d0, s0)>(%offset)[%tile, %n]
    %xoffset = affine.apply affine_map<(d0) -> (d0 * 2)>(%offset)
    %xs = tensor.extract_slice %x[%xoffset] [%size] [2] : tensor<?xf32> to tensor<?xf32>
    %ys = tensor.extract_slice %y[%offset] [%size] [1] : tensor<?xf32> to tensor<?xf32>
    %os = tensor.extract_slice %dest[%offset] [%size] [1] : tensor<?xf32> to tensor<?xf32>
    %r = iree_codegen.ukernel.generic "ukernel_axpy"
      ins(%xs, %ys : tensor<?xf32>, tensor<?xf32>)
      outs(%os : tensor<?xf32>)
      (%size, %k : index, f32)
      fn_def_attrs {hal.import.fields = ["processor_id"]}
      strided_dims([[0], [0], [0]]) -> tensor<?xf32>
    %ins = tensor.insert_slice %r into %dest[%offset] [%size] [1] : tensor<?xf32> into tensor<?xf32>
    flow.return %ins : tensor<?xf32>
  } count(%w: index) -> (index, index, index) {
    flow.return %w, %c1, %c1 : index, index, index
  }
  return %0 : tensor<?xf32>
}
