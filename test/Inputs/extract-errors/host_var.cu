// Device code reading a host variable: clang rejects the file itself.
#include <cuda_runtime.h>

float host_scale = 2.0f;

__global__ void reads_host_variable(float *v) { v[0] *= host_scale; }
