// Less common declarations: variable and alias templates (with a trailing
// __restrict__), typedef'd anonymous struct, union, static members and
// nested enums, out-of-line members of a class template, a forward-declared
// device function defined after the kernel, a function-pointer table in
// device memory, a using-declaration in the kernel, a default template
// argument, a macro from the command line used in #if, and constants with
// a direct (parenthesised) initialiser, whose source range stops before the
// ')' and the ';'.
// REQUIRES: nvrtc
// RUN: rm -rf %t && %cuda-l1-rewrite --extract=all --verify=compile -o %t %s -- -DEXTRA=3 | FileCheck %s --check-prefix=OUT
// RUN: FileCheck %s --input-file=%t/edge.cu
// RUN: FileCheck %s --input-file=%t/edge.json --check-prefix=JSON
#include <cuda_runtime.h>
#include <cstdint>
namespace util {
template <typename T> constexpr T kOne = T(1);
constexpr int kWidth(8);
constexpr unsigned int kHalf((kWidth - 1) / 2);
template <int X> constexpr int kTwice(X * 2);
template <typename T> using Ptr = T *__restrict__;
typedef struct { float lo, hi; } Range;
union Bits { float f; uint32_t u; };
struct Cfg { static constexpr int N = 4; enum class Kind { A, B }; static __device__ int twice(int x); };
__device__ int Cfg::twice(int x) { return 2 * x; }
template <typename T> struct Box { T v; __device__ T get() const; };
template <typename T> __device__ T Box<T>::get() const { return v + kOne<T>; }
__device__ float fwd(float x);
typedef float (*UnaryFn)(float);
__device__ float neg(float x) { return -x; }
__device__ float ident(float x) { return x; }
__device__ UnaryFn g_table[2] = {neg, ident};
}
template <typename T, int B = util::Cfg::N>
__global__ void edge(util::Ptr<T> out, util::Range r, util::Box<T> box, util::Cfg::Kind k) {
  using util::fwd;
  util::Bits b; b.f = out[0];
#if defined(EXTRA) && EXTRA > 1
  out[1] = T(EXTRA);
#endif
  out[2] = T(util::kHalf + util::kTwice<3>);
  out[0] = box.get() + fwd(r.lo) + util::Cfg::twice(B) + (k == util::Cfg::Kind::A ? b.u : 0) + util::g_table[0](r.hi);
}
__device__ float util::fwd(float x) { return x * 3; }
void launch(float *o) { edge<float><<<1, 1>>>(o, util::Range{0, 1}, util::Box<float>{2}, util::Cfg::Kind::A); }

// OUT: edge -> {{.*}}edge.cu ({{.*}}compiles with NVRTC)

// CHECK: #include <cuda/std/cstdint>
// CHECK: namespace util {
// CHECK: template <typename T> constexpr T kOne = T(1);
// CHECK: constexpr int kWidth(8);
// CHECK: constexpr unsigned int kHalf((kWidth - 1) / 2);
// CHECK: template <int X> constexpr int kTwice(X * 2);
// CHECK: template <typename T> using Ptr = T *__restrict__;
// CHECK: typedef struct { float lo, hi; } Range;
// CHECK: union Bits { float f; uint32_t u; };
// CHECK: struct Cfg {
// CHECK: __device__ int Cfg::twice(int x)
// CHECK: template <typename T> struct Box
// CHECK: template <typename T> __device__ T Box<T>::get() const
// CHECK: __device__ float fwd(float x);
// CHECK: typedef float (*UnaryFn)(float);
// CHECK: __device__ float neg(float x)
// CHECK: __device__ float ident(float x)
// CHECK: __device__ UnaryFn g_table[2] = {neg, ident};
// CHECK: #define EXTRA 3
// CHECK: } // namespace util
// CHECK: __global__ void edge(
// CHECK: __device__ float util::fwd(float x) { return x * 3; }

// JSON: "name_expression": "edge<float, 4>"
// JSON: "what": "macro EXTRA (from the command line)"
