// Wrong: leaves out the last term of every row's sum.
__global__ void forward_subst(const float *L, const float *B, float *Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float s = B[i * nrhs + c];
    for (int k = 0; k < i - 1; k++)
      s -= L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = s / L[i * n + i];
  }
}
