// Sizes, element type and an error-check macro shared by the programs of
// this folder (harness inference from the AST: test/Verify/harness-ast.test).
#ifndef HARNESS_AST_CONFIG_H
#define HARNESS_AST_CONFIG_H
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define ELEMS_LOG2 16
#define NUM_ELEMS (1 << ELEMS_LOG2)
#define THREADS 256
#define REAL float

#define CHECK(call)                                                            \
  do {                                                                         \
    cudaError_t err_ = (call);                                                 \
    if (err_ != cudaSuccess) {                                                 \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                  \
                   cudaGetErrorString(err_));                                  \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

#endif
