// Options parsed by a loop over argv (strcmp, strncmp, strtoll and atoi of
// argv[i] with i counted by the loop): run by the tool with --program-args.
#include <cuda_runtime.h>
#include <cstdlib>
#include <cstring>
__global__ void k(float *out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (i < n) out[i] = 1.0f;
}
int main(int argc, char *argv[]) {
  long long nx = 100;
  int reps = 1;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--grid") == 0) {
      ++i;
      nx = strtoll(argv[i], NULL, 10);
    } else if (!strncmp(argv[i], "--reps", 6)) {
      reps = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--side") == 0) {
      nx = strtoll(argv[++i], NULL, 10); // the index moves once
    }
  }
  float *d;
  cudaMalloc(&d, nx * nx * sizeof(float));
  for (int r = 0; r < reps; ++r)
    k<<<(nx * nx + 255) / 256, 256>>>(d, nx * nx);
  return 0;
}
