// sscanf values the tool cannot know: a %s conversion beside the number, an
// argument that does not match the format, a string that is not a program
// argument.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void word(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 1.0f;
}

__global__ void nomatch(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 2.0f;
}

__global__ void literal(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 3.0f;
}

int main(int argc, char **argv) {
  int n, m, k;
  char name[16];
  const char *fixed = "64";
  sscanf(argv[1], "%15s %d", name, &n);
  sscanf(argv[2], "%d", &m);
  sscanf(fixed, "%d", &k);
  float *o;
  cudaMalloc(&o, 4096 * sizeof(float));
  word<<<16, 256>>>(o, n);
  nomatch<<<16, 256>>>(o, m);
  literal<<<16, 256>>>(o, k);
  cudaDeviceSynchronize();
  return 0;
}
