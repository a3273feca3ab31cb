// Device helpers with double math on float data. 'gate' is called by one
// kernel only ('activate'): its fixes are verified through that kernel.
// 'soft' is called by two kernels: its fix is not verified (each caller
// would need its own run) and stays out.
#include <cmath>
#include <cstdio>
#include <cstdlib>

__device__ float gate(float v, float bias) {
  const double scale = 1.702;
  float z = scale * (v + bias);
  return v / (1.0 + exp(-z)) + sqrt(v * v + 1.0);
}

__device__ float soft(float v) { return log(1.0 + exp(v)); }

__global__ void activate(const float *in, float *out, float bias, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = gate(in[i], bias) + 0.5f * gate(-in[i], bias);
}

__global__ void soften(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = soft(in[i]);
}

__global__ void soften_twice(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = soft(soft(in[i]));
}

static double gate_ref(double v, double bias) {
  return v / (1.0 + exp(-1.702 * (v + bias))) + sqrt(v * v + 1.0);
}

int main() {
  const int n = 1 << 22;
  size_t bytes = n * sizeof(float);
  float *h = (float *)malloc(bytes), *a = (float *)malloc(bytes);
  float *b = (float *)malloc(bytes), *c = (float *)malloc(bytes);
  srand(11);
  for (int i = 0; i < n; i++)
    h[i] = 8.0f * rand() / RAND_MAX - 4.0f;
  float *din, *da, *db, *dc;
  cudaMalloc(&din, bytes);
  cudaMalloc(&da, bytes);
  cudaMalloc(&db, bytes);
  cudaMalloc(&dc, bytes);
  cudaMemcpy(din, h, bytes, cudaMemcpyHostToDevice);
  int threads = 256, blocks = (n + threads - 1) / threads;
  float bias = 0.25f;
  for (int rep = 0; rep < 3; rep++) {
    activate<<<blocks, threads>>>(din, da, bias, n);
    soften<<<blocks, threads>>>(din, db, n);
    soften_twice<<<blocks, threads>>>(din, dc, n);
  }
  if (cudaDeviceSynchronize() != cudaSuccess) {
    printf("FAIL (CUDA error)\n");
    return 1;
  }
  cudaMemcpy(a, da, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(b, db, bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost);
  long bad = 0;
  for (int i = 0; i < n; i++) {
    double v = h[i];
    double ra = gate_ref(v, bias) + 0.5 * gate_ref(-v, bias);
    double rb = log(1.0 + exp(v));
    double rc = log(1.0 + exp(rb));
    bad += fabs(a[i] - ra) > 1e-5 + 1e-5 * fabs(ra);
    bad += fabs(b[i] - rb) > 1e-5 + 1e-5 * fabs(rb);
    bad += fabs(c[i] - rc) > 1e-5 + 1e-5 * fabs(rc);
  }
  printf("%s (%ld values outside 1e-5)\n", bad ? "FAIL" : "PASS", bad);
  cudaFree(din);
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  free(h);
  free(a);
  free(b);
  free(c);
  return bad != 0;
}
