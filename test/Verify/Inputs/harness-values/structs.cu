// Sizes held in host structures: aggregate and designated initialisers,
// members assigned one by one, a constructor, a structure passed by
// reference and by pointer to the function holding the launch, a function
// returning a structure, and a dim3 member. Not known: a member read from
// argv (a name of its own), one written through the pointer before the
// launch, one modified in a loop.
#include <cstdlib>
#include <cuda_runtime.h>

struct Problem {
  int rows;
  int cols;
  float scale;
};

struct Domain {
  int nx, ny, nz;
};

struct Launch {
  dim3 grid;
  dim3 block;
  int items = 4096; // in-class initialiser
};

class Tiling {
public:
  Tiling(int w, int t) : width(w), tile(t), tiles((w + t - 1) / t) {}
  int width, tile, tiles;
};

// Members assigned in the constructor's body, reading the ones set before.
template <int TPB> class Span {
public:
  Span(int first, int last) : begin(first), end(last) {
    count = end - begin;
    blocks = count / TPB;
    blocks = (count % TPB == 0) ? blocks : blocks + 1;
  }
  int begin, end, count, blocks;
  int threads = TPB;
};

struct Grid3 {
  long nx, ny, nz;
};

Grid3 make_grid(long n) {
  Grid3 g;
  g.nx = n;
  g.ny = n / 2;
  g.nz = 8;
  return g;
}

__global__ void scale_rows(float *m, int rows, int cols, float s) {
  int r = blockIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols)
    m[r * cols + c] *= s;
}

__global__ void fill_domain(float *u, int nx, int ny, int nz) {
  int x = threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < nx && y < ny && z < nz)
    u[(z * ny + y) * nx + x] = 1.0f;
}

__global__ void count_items(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = i;
}

__global__ void tile_sums(float *t, const float *v, int width, int tile) {
  int b = blockIdx.x;
  float s = 0;
  for (int i = 0; i < tile && b * tile + i < width; ++i)
    s += v[b * tile + i];
  t[b] = s;
}

__global__ void plane(float *p, long nx, long ny) {
  long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
  if (i < nx * ny)
    p[i] = 0.0f;
}

__global__ void copy_rows(float *m, int rows, int cols) {
  int r = blockIdx.y, c = threadIdx.x;
  if (r < rows && c < cols)
    m[r * cols + c] = m[c];
}

__global__ void touch(float *u, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    u[i] += 1.0f;
}

__global__ void span_fill(float *v, int begin, int end) {
  int i = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < end)
    v[i] = 1.0f;
}

// Written through the pointer before the launch: not followed.
void run_halved(Problem *p, float *m) {
  p->rows /= 2;
  copy_rows<<<dim3(1, p->rows), p->cols>>>(m, p->rows, p->cols);
}

// The structure by reference: its members at the call.
void run_domain(Domain &d, float *u) {
  fill_domain<<<dim3(1, d.ny, d.nz), d.nx>>>(u, d.nx, d.ny, d.nz);
}

// The structure through a pointer.
void run_problem(const Problem *p, float *m) {
  dim3 block(128);
  dim3 grid((p->cols + 127) / 128, p->rows);
  scale_rows<<<grid, block>>>(m, p->rows, p->cols, p->scale);
}

int main(int argc, char **argv) {
  Problem prob = {512, 1024, 0.5f};
  float *d_m;
  cudaMalloc(&d_m, prob.rows * prob.cols * sizeof(float));
  run_problem(&prob, d_m);

  Domain dom;
  dom.nx = 64;
  dom.ny = 32;
  dom.nz = 16;
  float *d_u;
  cudaMalloc(&d_u, dom.nx * dom.ny * dom.nz * sizeof(float));
  run_domain(dom, d_u);

  Launch cfg = {.grid = dim3(16), .block = dim3(256)};
  int *d_items;
  cudaMalloc(&d_items, cfg.items * sizeof(int));
  count_items<<<cfg.grid, cfg.block>>>(d_items, cfg.items);

  Tiling tl(10000, 100);
  float *d_t, *d_v;
  cudaMalloc(&d_t, tl.tiles * sizeof(float));
  cudaMalloc(&d_v, tl.width * sizeof(float));
  tile_sums<<<tl.tiles, 1>>>(d_t, d_v, tl.width, tl.tile);

  Span<128> sp(10, 1000);
  span_fill<<<sp.blocks, sp.threads>>>(d_v, sp.begin, sp.end);

  const Grid3 g = make_grid(256);
  float *d_p;
  cudaMalloc(&d_p, g.nx * g.ny * sizeof(float));
  plane<<<(g.nx * g.ny + 255) / 256, 256>>>(d_p, g.nx, g.ny);

  Problem q = {std::atoi(argv[1]), 256, 2.0f};
  run_halved(&q, d_m);

  Domain d2 = {8, 8, 8};
  for (int i = 0; i < 3; ++i)
    d2.nx *= 2;
  touch<<<1, d2.nx>>>(d_u, d2.nx);
  return 0;
}
