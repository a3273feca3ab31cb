#include "params.h"
#include <cuda_runtime.h>

int main() {
  Params params;
  params.scale = 0.25f;
  params.octaves = 3;
  params.gain = 0.5f;
  float *out;
  cudaMalloc(&out, 64 * 1024 * sizeof(float));
  Renderer r;
  r.render(out, params, 64);
  r.render_changed(out, params, 64);
  Grid g;
  g.name = "plane";
  g.xdim = 256;
  g.ydim = 128;
  g.host_copy = nullptr;
  clear_grid(out, g);
  cudaFree(out);
  return 0;
}
