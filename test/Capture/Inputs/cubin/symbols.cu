// Source of symbols.cubin (unittests/Capture: CubinSymbols), made with
//   nvcc -cubin -arch=sm_90 -o symbols.cubin symbols.cu      (CUDA 13.0)
// Kernels: a static one, one in an anonymous namespace, a plain one and a
// template with two instantiations; variables: __constant__, __device__,
// a namespaced initialised __device__ and a static __device__.
__constant__ float coef[4];
__device__ int counter;
namespace ns { __device__ float scale_ = 2.0f; }
static __device__ int hidden;
static __global__ void skern(float *p) { p[0] = coef[0] + hidden; }
namespace { __global__ void anonk(float *p) { p[0] = ns::scale_; } }
__global__ void k(float *p, int n) { atomicAdd(&counter, n); p[1] = coef[1]; }
template <typename T> __global__ void tk(T *p, T v) { p[0] = v; }
void run(float *p) { skern<<<1,1>>>(p); anonk<<<1,1>>>(p); k<<<1,1>>>(p, 3); tk<float><<<1,1>>>(p, 1.f); tk<int><<<1,1>>>((int*)p, 1); }
