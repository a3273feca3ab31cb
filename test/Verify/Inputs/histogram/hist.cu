// A 256-bin histogram of an 8-bit image whose pixels crowd into a few
// values (a dark photograph): every thread adds 1 to its pixel's bin in
// global memory. Checks the counts against a CPU histogram.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define W 4096
#define H 4096
#define BINS 256

__global__ void hist256(const unsigned char *img, unsigned int *hist, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h)
    atomicAdd(&hist[img[y * w + x]], 1);
}

int main() {
  std::vector<unsigned char> img((size_t)W * H);
  srand(11);
  for (size_t i = 0; i < img.size(); ++i)
    img[i] = (unsigned char)(rand() % 8 + (rand() % 16 == 0 ? rand() % 248 : 0));
  unsigned char *dimg;
  unsigned int *dhist;
  cudaMalloc(&dimg, (size_t)W * H);
  cudaMalloc(&dhist, BINS * sizeof(unsigned int));
  cudaMemcpy(dimg, img.data(), (size_t)W * H, cudaMemcpyHostToDevice);
  cudaMemset(dhist, 0, BINS * sizeof(unsigned int));
  dim3 block(32, 8);
  dim3 grid((W + block.x - 1) / block.x, (H + block.y - 1) / block.y);
  hist256<<<grid, block>>>(dimg, dhist, W, H);
  std::vector<unsigned int> got(BINS), want(BINS, 0);
  cudaMemcpy(got.data(), dhist, BINS * sizeof(unsigned int), cudaMemcpyDeviceToHost);
  for (unsigned char p : img)
    ++want[p];
  int bad = 0;
  for (int b = 0; b < BINS; ++b)
    bad += got[b] != want[b];
  printf("%d of %d bins differ\n", bad, BINS);
  printf(bad == 0 ? "PASS\n" : "FAIL\n");
  return bad != 0;
}
