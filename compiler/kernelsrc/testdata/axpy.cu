// y[i] = alpha * x[i] + y[i] for i < n, compiled to PTX by the compiler
// (clang, no CUDA SDK). Bindings first, then the push constants.
extern "C" __global__ void axpy(const float* __restrict__ x,
                                float* __restrict__ y, float alpha, int n) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}
