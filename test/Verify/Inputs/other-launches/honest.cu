// The same results without the wasted loop, for every n.
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = fabsf(in[i]) / 2.0f;
}
