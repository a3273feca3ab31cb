// A counted loop whose counter is assigned in the loop's init (declared
// before it) and whose body also changes a pointer the launch reads: the
// launch takes the first run's values, the counter's too.
__global__ void fill(float *q, int k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    q[i] = k;
}

int main() {
  const int n = 1024;
  float *u;
  cudaMalloc(&u, 16 * n * sizeof(float));
  float *q = u;
  int k;
  for (k = 2; k < 8; k++) {
    q = u + k * n;
    fill<<<(n + 255) / 256, 256>>>(q, k, n);
  }
  return 0;
}
