// The option loop stores through a pointer to the structure: the member the
// launch reads is not the one the loop's own stores name.
#include <cstdlib>
#include <cstring>

struct Grid {
  int n;
  int reps;
};

__global__ void touch(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] += 1.0f;
}

int main(int argc, char **argv) {
  Grid g;
  g.n = 16;
  g.reps = 1;
  Grid *p = &g;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--n") && i + 1 < argc) p->n = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) g.reps = atoi(argv[++i]);
  }
  float *a;
  cudaMalloc(&a, g.n * sizeof(float));
  for (int r = 0; r < g.reps; r++)
    touch<<<(g.n + 63) / 64, 64>>>(a, g.n);
  cudaDeviceSynchronize();
  return 0;
}
