// A kernel for the harness-spec regression inputs of fuzz/FuzzHarnessSpec.
__global__ void k(float *o2ut) { o2ut[threadIdx.x] = 1.0f; }
