// coop_matmul_nv: c = a x b for 16 x 16 f16 matrices a and b, accumulated
// in f32 by one subgroup with NVIDIA's cooperative matrices
// (GL_NV_cooperative_matrix: the CooperativeMatrixNV and VulkanMemoryModel
// capabilities).
#version 450
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require

layout(local_size_x = 32, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer A { float16_t a[]; };
layout(set = 0, binding = 1) readonly buffer B { float16_t b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };

void main() {
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> x;
  fcoopmatNV<16, gl_ScopeSubgroup, 16, 16> y;
  fcoopmatNV<32, gl_ScopeSubgroup, 16, 16> acc = fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>(0.0);
  coopMatLoadNV(x, a, 0u, 16u, false);
  coopMatLoadNV(y, b, 0u, 16u, false);
  acc = coopMatMulAddNV(x, y, acc);
  coopMatStoreNV(acc, c, 0u, 16u, false);
}
