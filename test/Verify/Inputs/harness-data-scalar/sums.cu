// Scalars computed from data at run time (as in HeCBench rfs: a rounding
// factor per array, computed on the host from the array's values).
#include <cstdlib>

#define N 4096
#define ARRAYS 8

__global__ void scaled_sum(const float factor, const int length,
                           const float *x, float *r) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < length;
       i += blockDim.x * gridDim.x)
    atomicAdd(r, (factor + x[i]) - factor);
}

__global__ void shift(double offset, int count, double *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    v[i] += offset;
}

__global__ void take(int stride, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i * stride];
}

__global__ void bias(float b, int count, float *v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count)
    v[i] += b;
}

__global__ void gather(int step, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = x[i * step];
}

int main(int argc, char **argv) {
  float *h = (float *)malloc(sizeof(float) * N * ARRAYS);
  float *factor = (float *)malloc(sizeof(float) * ARRAYS);
  for (int i = 0; i < N * ARRAYS; i++)
    h[i] = rand() / (float)RAND_MAX;
  for (int a = 0; a < ARRAYS; a++)
    factor[a] = h[a * N] * 1024.0f;
  float *d_x, *d_r;
  cudaMalloc(&d_x, sizeof(float) * N * ARRAYS);
  cudaMalloc(&d_r, sizeof(float) * ARRAYS);
  for (int a = 0; a < ARRAYS; a++)
    scaled_sum<<<16, 256>>>(factor[a], N, d_x + a * N, d_r + a);
  double *d_v;
  cudaMalloc(&d_v, sizeof(double) * N);
  double offset = atof(argv[1]);
  shift<<<N / 256, 256>>>(offset, N, d_v);
  float *d_y;
  cudaMalloc(&d_y, sizeof(float) * N);
  int stride = atoi(argv[2]);
  take<<<N / 256, 256>>>(stride, d_x, d_y);
  // A data value at the first launch, the program's own at the second:
  // the harness comes from the second, the first is checked as well.
  float *h_bias = (float *)malloc(sizeof(float) * 4);
  h_bias[0] = h[7];
  bias<<<N / 256, 256>>>(h_bias[0], N, d_y);
  bias<<<N / 256, 256>>>(0.5f, N, d_y);
  // An integer element of a heap array stays unknown.
  int *steps = (int *)malloc(sizeof(int) * 4);
  steps[1] = rand() % 3;
  gather<<<N / 256 / 4, 256>>>(steps[1], d_x, d_y);
  return 0;
}
