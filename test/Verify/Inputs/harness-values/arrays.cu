// Sizes from constant arrays: indexed by a constant, by a loop counter
// (first run), two-dimensional, a global table, an array passed to the
// function holding the launch, and elements assigned one by one.
#include <cuda_runtime.h>

static const int kSizes[4] = {1024, 2048, 4096, 8192};

__global__ void square(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] * v[i];
}

__global__ void add_planes(float *a, const float *b, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h)
    a[y * w + x] += b[y * w + x];
}

__global__ void offset(int *v, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] += by;
}

__global__ void stamp(int *v, int n) {
  int i = blockIdx.x * blockDim.x + blockIdx.y * 4096 + threadIdx.x;
  if (i < n)
    v[i] = 1;
}

// The caller's array, read through the parameter.
void run_planes(const int size[2], float *a, const float *b) {
  int w = size[0], h = size[1];
  add_planes<<<dim3((w + 31) / 32, h), 32>>>(a, b, w, h);
}

int main() {
  int shape[4] = {2, 3, 48, 64};
  const int W = shape[3], H = shape[2];
  float *d_a, *d_b;
  cudaMalloc(&d_a, W * H * sizeof(float));
  cudaMalloc(&d_b, W * H * sizeof(float));
  add_planes<<<dim3((W + 31) / 32, H), 32>>>(d_a, d_b, W, H);
  int half[2] = {W / 2, H / 2};
  run_planes(half, d_a, d_b);

  float *d_v;
  cudaMalloc(&d_v, kSizes[3] * sizeof(float));
  for (int i = 0; i < 4; ++i)
    square<<<(kSizes[i] + 255) / 256, 256>>>(d_v, kSizes[i]);

  const int dims[2][2] = {{100, 7}, {200, 9}};
  int *d_i;
  cudaMalloc(&d_i, dims[1][0] * sizeof(int));
  offset<<<1, dims[1][0]>>>(d_i, dims[1][0], dims[0][1]);

  size_t global_size[2], local_size[2];
  local_size[0] = 64;
  local_size[1] = 1;
  global_size[0] = 4096;
  global_size[1] = 8;
  global_size[0] = global_size[0] / 2;
  dim3 g(global_size[0] / local_size[0], global_size[1] / local_size[1]);
  dim3 b(local_size[0], local_size[1]);
  int *d_s;
  cudaMalloc(&d_s, 8 * 4096 * sizeof(int));
  stamp<<<g, b>>>(d_s, 8 * 4096);
  return 0;
}
