// Values set by a call before the launch: through a pointer, a reference
// and a structure filled by an init function; and the negative cases: a
// callee that assigns only sometimes, a callee the tool cannot see, and a
// variable assigned different constants on paths the tool cannot decide.
#include <cstdlib>
#include <cuda_runtime.h>

struct Config {
  int n;
  int threads;
};

void set_size(int *n) { *n = 1 << 12; }
void set_threads(int &t, int scale) { t = 64 * scale; }
void init_config(Config *c) {
  c->n = 2048;
  c->threads = 128;
}
// Reads what it stored, through the reference.
void setup(Config &c) {
  c.threads = 256;
  c.n = c.threads * 16;
}
void maybe_size(int *n, int flag) {
  if (flag > 3)
    *n = 512;
}
void external_size(int *n); // defined nowhere in the files given

__global__ void ramp(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = i;
}

__global__ void negate(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = -v[i];
}

__global__ void scale3(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 3.0f;
}

__global__ void halve(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 0.5f;
}

__global__ void twice(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= 2.0f;
}

__global__ void clear(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = 0.0f;
}

int main(int argc, char **argv) {
  int n = 0, threads = 32;
  set_size(&n);
  set_threads(threads, 4);
  float *d_v;
  cudaMalloc(&d_v, n * sizeof(float));
  ramp<<<(n + threads - 1) / threads, threads>>>(d_v, n);

  Config cfg;
  init_config(&cfg);
  float *d_w;
  cudaMalloc(&d_w, cfg.n * sizeof(float));
  negate<<<cfg.n / cfg.threads, cfg.threads>>>(d_w, cfg.n);

  Config big;
  setup(big);
  float *d_big;
  cudaMalloc(&d_big, big.n * sizeof(float));
  scale3<<<big.n / big.threads, big.threads>>>(d_big, big.n);

  int m = 100;
  maybe_size(&m, argc);
  halve<<<1, 128>>>(d_w, m);

  int k = 100;
  external_size(&k);
  twice<<<1, 128>>>(d_w, k);

  int len = 256;
  if (argc > 2)
    len = 1024;
  else
    len = 2048;
  clear<<<1, 256>>>(d_w, len);
  return 0;
}
