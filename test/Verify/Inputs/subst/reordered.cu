// The same substitution with each row's sum taken in the other order
// (reassociated, as a split of the sum across threads would).
__global__ void forward_subst(const float *L, const float *B, float *Y, int n, int nrhs) {
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= nrhs)
    return;
  for (int i = 0; i < n; i++) {
    float t = 0.0f;
    for (int k = i - 1; k >= 0; k--)
      t += L[i * n + k] * Y[k * nrhs + c];
    Y[i * nrhs + c] = (B[i * nrhs + c] - t) / L[i * n + i];
  }
}
