//===- NvrtcCheck.cpp - compile a .cu file's device code with NVRTC -------===//
//
// cuda-l1-nvrtc-check <file.cu> [arch]: compiles the file with NVRTC
// (host-only code must be under #ifndef __CUDACC_RTC__), prints the log,
// exits 0 when it compiled. Used by test/Structural to check that every
// rewritten file compiles with NVRTC as well as with nvcc.
//
//===----------------------------------------------------------------------===//
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cuda-l1-nvrtc-check <file.cu> [sm_XX]\n");
    return 2;
  }
  std::ifstream In(argv[1]);
  if (!In) {
    std::fprintf(stderr, "cuda-l1-nvrtc-check: error: %s: cannot read\n",
                 argv[1]);
    return 2;
  }
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Src = SS.str();
  std::string Arch = std::string("--gpu-architecture=") +
                     (argc > 2 ? argv[2] : "sm_90");
  nvrtcProgram Prog;
  if (nvrtcCreateProgram(&Prog, Src.c_str(), argv[1], 0, nullptr, nullptr) !=
      NVRTC_SUCCESS) {
    std::fprintf(stderr, "cuda-l1-nvrtc-check: error: cannot create program\n");
    return 2;
  }
  std::vector<const char *> Opts = {Arch.c_str(), "--std=c++17"};
  nvrtcResult R = nvrtcCompileProgram(Prog, (int)Opts.size(), Opts.data());
  size_t LogSize = 0;
  nvrtcGetProgramLogSize(Prog, &LogSize);
  std::string Log(LogSize, '\0');
  if (LogSize)
    nvrtcGetProgramLog(Prog, &Log[0]);
  if (LogSize > 1)
    std::fprintf(stderr, "%s\n", Log.c_str());
  nvrtcDestroyProgram(&Prog);
  if (R != NVRTC_SUCCESS) {
    std::fprintf(stderr, "cuda-l1-nvrtc-check: error: %s: %s\n", argv[1],
                 nvrtcGetErrorString(R));
    return 1;
  }
  return 0;
}
