// Forward substitution L Y = B, one thread per right-hand side. On a random
// L (diagonal uniform in [-1, 1]) the recurrence amplifies every rounding:
// the solution grows by orders of magnitude and its last rows depend on the
// inputs' last bits.
__global__ void forward_subst(const float *L, const float *B, float *Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float s = B[i * nrhs + c];
    for (int k = 0; k < i; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s / L[i * n + i];
  }
}
