// A helper whose loop stores through one pointer and loads through another
// (memory-restrict-loop-header.cu).
__device__ void copy_scaled(const float *in, float *out, int n, float f) {
  for (int j = 0; j < n; j++)
    out[j] = in[j] * f;
}
