// Kernels taking square roots and logarithms of the values they load
// (test/Verify/harness-domain.test).
#include <cuda_runtime.h>

// A Bhattacharyya-style coefficient: sqrtf of a product of two loads.
__global__ void affinity(const float *p, const float *q, float *out, int n,
                         int k) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n)
    return;
  float s = 0.f;
  for (int i = 0; i < k; ++i)
    s += sqrtf(p[r * k + i] * q[i]);
  out[r] = s;
}

// A log of a local the load initialises once, scaled by a positive factor.
__global__ void log_scale(const double *x, double *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  const double v = x[i] * 2.0;
  if (i < n)
    y[i] = log(v + 1.0);
}

// A difference may be negative whatever the inputs: left as it is.
__global__ void gap(const float *a, const float *b, float *d, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = sqrtf(a[i] - b[i]);
}

int main() {
  const int n = 4096, k = 64;
  float *p, *q, *out, *a, *b, *d;
  double *x, *y;
  cudaMalloc(&p, n * k * sizeof(float));
  cudaMalloc(&q, k * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMalloc(&d, n * sizeof(float));
  affinity<<<n / 128, 128>>>(p, q, out, n, k);
  log_scale<<<n / 128, 128>>>(x, y, n);
  gap<<<n / 128, 128>>>(a, b, d, n);
  cudaDeviceSynchronize();
  return 0;
}
