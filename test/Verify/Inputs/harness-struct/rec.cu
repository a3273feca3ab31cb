// Structures passed by value: a CUDA vector type from make_float3, one whose
// members are assigned, a nested aggregate, an empty functor, lambdas that
// copy a number and a pointer.
#include <cuda_runtime.h>

struct Box {
  int nx, ny;
  float h;
};
struct Plane {
  float3 p;
  float3 n;
};
struct Scale {
  __device__ float operator()(float v) const { return 2.0f * v; }
};
struct WithPtr {
  float *data;
  int n;
};

__global__ void shift(float3 *pts, float3 w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    pts[i].x += w.x;
    pts[i].y += w.y;
    pts[i].z += w.z;
  }
}

__global__ void grid(float *u, Box b) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < b.nx * b.ny)
    u[i] *= b.h;
}

__global__ void plane(float *d, const float3 *pts, Plane pl, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    d[i] = (pts[i].x - pl.p.x) * pl.n.x + (pts[i].y - pl.p.y) * pl.n.y +
           (pts[i].z - pl.p.z) * pl.n.z;
}

template <class F> __global__ void apply(float *x, F f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = f(x[i]);
}

template <class F> __global__ void map(float *x, F f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = f(x[i]) + 1.0f;
}

template <class F> __global__ void gather(float *x, F f, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = f(x[i]) - 1.0f;
}

__global__ void owner(WithPtr w) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < w.n)
    w.data[i] = 0.0f;
}

int main() {
  const int n = 1000;
  float3 *pts;
  float *u, *d;
  cudaMalloc(&pts, n * sizeof(float3));
  cudaMalloc(&u, 64 * 32 * sizeof(float));
  cudaMalloc(&d, n * sizeof(float));
  cudaMemset(pts, 0, n * sizeof(float3));
  cudaMemset(u, 0, 64 * 32 * sizeof(float));
  float3 w = make_float3(0.5f, -1.0f, 2.0f);
  shift<<<(n + 127) / 128, 128>>>(pts, w, n);
  Box b;
  b.nx = 64;
  b.ny = 32;
  b.h = 1.0f / 64;
  grid<<<b.nx * b.ny / 256, 256>>>(u, b);
  Plane pl = {{0.0f, 0.0f, 1.0f}, {0.0f, 0.0f, 1.0f}};
  plane<<<(n + 255) / 256, 256>>>(d, pts, pl, n);
  apply<<<(n + 255) / 256, 256>>>(d, Scale(), n);
  WithPtr o = {d, n};
  owner<<<(n + 255) / 256, 256>>>(o);
  float a = 0.25f;
  int off = 3;
  auto axpb = [=] __device__(float v) { return a * v + off; };
  map<<<(n + 255) / 256, 256>>>(d, axpb, n);
  const float *first = pts ? &pts[0].x : nullptr;
  auto withptr = [=] __device__(float v) { return v + first[0]; };
  gather<<<(n + 255) / 256, 256>>>(d, withptr, n);
  cudaDeviceSynchronize();
  return 0;
}
