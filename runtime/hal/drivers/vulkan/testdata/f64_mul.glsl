// f64_mul: c[i] = float(double(a[i]) * double(b[i]) / 3.0) for i < dim,
// computed in doubles (the Float64 capability, so the device feature
// shaderFloat64).
#version 450

layout(local_size_x = 64, local_size_y = 1, local_size_z = 1) in;

layout(set = 0, binding = 0) readonly buffer A { float a[]; };
layout(set = 0, binding = 1) readonly buffer B { float b[]; };
layout(set = 0, binding = 2) writeonly buffer C { float c[]; };

layout(push_constant) uniform Constants { uint dim; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < dim) c[i] = float(double(a[i]) * double(b[i]) / 3.0lf);
}
