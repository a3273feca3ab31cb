// Shared by the capture sample applications (utils/gpu-capture-check.sh):
// every CUDA call is checked; a failure prints where and exits with 2.
#ifndef CUDAL1_CAPTURE_APPS_CHECK_H
#define CUDAL1_CAPTURE_APPS_CHECK_H

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,      \
                   cudaGetErrorString(err_));                                  \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

#define CHECK_LAUNCH()                                                         \
  do {                                                                         \
    CHECK(cudaGetLastError());                                                 \
  } while (0)

// |got - want| within a relative tolerance (the GPU contracts a*b+c into
// FMAs; the host reference does not).
inline bool close_to(double got, double want, double rel = 1e-5) {
  return std::fabs(got - want) <= rel * (1.0 + std::fabs(want));
}

inline int finish(const char *app, int bad) {
  if (bad) {
    std::printf("%s: FAIL (%d wrong values)\n", app, bad);
    return 1;
  }
  std::printf("%s: PASS\n", app);
  return 0;
}

#endif
