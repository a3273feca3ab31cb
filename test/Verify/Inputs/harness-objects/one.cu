// One file: a setter called under a condition on the program's arguments.
#include <cstdlib>

__global__ void scale(float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= 2.0f;
}

struct Grid {
  Grid() { set_cells(1024); }
  void set_cells(int c) { cells = c; }
  int cells;
};

int main(int argc, char **argv) {
  Grid g;
  if (argc > 1)
    g.set_cells(atoi(argv[1]));
  float *x;
  cudaMalloc(&x, g.cells * sizeof(float));
  scale<<<(g.cells + 127) / 128, 128>>>(x, g.cells);
  cudaFree(x);
  return 0;
}
