// Probe: does nvcc combine a warp's integer atomics at a uniform address
// when the address is built from locals initialised from blockIdx (`int
// gx = blockIdx.x; atomicAdd(d + n * gx + gy, v)`) as it does when it is
// built from blockIdx directly? memory-atomic-contention treats only the
// second as combined. Compile and read the SASS:
//   nvcc -O3 -arch=sm_90 -cubin atomic-uniform-local.cu -o a.cubin
//   cuobjdump -sass a.cubin | grep -E 'Function|REDUX|POPC|ATOMG|RED\.'
__global__ void via_local(const char *data, int *distance) {
  int gx = blockIdx.x, gy = blockIdx.y;
  for (int i = 4 * threadIdx.x; i < 4096; i += 128 * 4) {
    char c = data[i + 4096 * gx] != data[i + 4096 * gy];
    atomicAdd(distance + 224 * gx + gy, c);
  }
}
__global__ void direct(const char *data, int *distance) {
  for (int i = 4 * threadIdx.x; i < 4096; i += 128 * 4) {
    char c = data[i + 4096 * blockIdx.x] != data[i + 4096 * blockIdx.y];
    atomicAdd(distance + 224 * blockIdx.x + blockIdx.y, c);
  }
}
