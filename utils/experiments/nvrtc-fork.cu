// nvrtc-fork: does compiling with NVRTC in a process stop its forked
// children from initialising CUDA?  The verifier forks one child per GPU job;
// the fix driver compiles touched kernels with NVRTC in the parent between
// rounds.  Prints cuInit's result in a fresh child before and after each
// NVRTC step.
//   nvcc -o /tmp/nvrtc-fork utils/experiments/nvrtc-fork.cu -lnvrtc -lcuda
#include <cstdio>
#include <cuda.h>
#include <nvrtc.h>
#include <sys/wait.h>
#include <unistd.h>

static void child(const char *Tag) {
  fflush(stdout);
  pid_t P = fork();
  if (P == 0) {
    CUresult R = cuInit(0);
    printf("%-28s child cuInit = %d\n", Tag, (int)R);
    fflush(stdout);
    _exit(0);
  }
  waitpid(P, nullptr, 0);
}

int main() {
  child("start");
  nvrtcProgram Prog;
  nvrtcCreateProgram(&Prog, "__global__ void k(float *a) { a[0] = 1; }", "k.cu", 0,
                     nullptr, nullptr);
  child("after nvrtcCreateProgram");
  const char *Opts[] = {"--gpu-architecture=sm_90"};
  nvrtcResult R = nvrtcCompileProgram(Prog, 1, Opts);
  printf("compile: %d\n", (int)R);
  child("after nvrtcCompileProgram");
  size_t N = 0;
  nvrtcGetCUBINSize(Prog, &N);
  child("after nvrtcGetCUBINSize");
  const char *Opts2[] = {"--gpu-architecture=compute_90"};
  nvrtcProgram Prog2;
  nvrtcCreateProgram(&Prog2, "__global__ void k(float *a) { a[0] = 1; }", "k.cu", 0,
                     nullptr, nullptr);
  nvrtcCompileProgram(Prog2, 1, Opts2);
  child("after a PTX compile");
  return 0;
}
