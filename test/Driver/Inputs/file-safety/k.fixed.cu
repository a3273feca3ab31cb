// A kernel with an exact fix (a float compared with a double literal).
__global__ void scale(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] >= 0.100000001f ? in[i] : 0.0f;
}
