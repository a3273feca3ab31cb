// Two copies of 64 Mi floats: one float per thread, and four (float4) per
// thread. Used to compare CUPTI's kernel times with Nsight Compute's.
__global__ void copy_scalar(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}
__global__ void copy_vec4(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 4)
    reinterpret_cast<float4 *>(out)[i] =
        reinterpret_cast<const float4 *>(in)[i];
}
