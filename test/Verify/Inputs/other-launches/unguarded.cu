// A wrong candidate: without the bounds test it is right only when the
// grid covers exactly n elements (4096), and writes past 'out' for 1000.
__global__ void scale(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = fabsf(in[i]) / 2.0f;
}
