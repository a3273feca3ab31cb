//===- NvrtcTest.cpp - NVRTC wrapper (no GPU needed) ----------------------===//
#include "cudal1/Compile/Nvrtc.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>

using namespace cudal1;

static std::string cudaPath() {
  if (const char *P = std::getenv("CUDA_PATH"))
    return P;
  return "/usr/local/cuda";
}

TEST(Nvrtc, OptionsHaveArchStdAndIncludes) {
  NvrtcOptions O;
  O.CudaPath = "/opt/cuda";
  O.GpuArch = "sm_80";
  O.IncludeDirs = {"/inc"};
  O.ExtraOptions = {"-lineinfo"};
  std::vector<std::string> V = nvrtcCommandOptions(O);
  ASSERT_GE(V.size(), 4u);
  EXPECT_EQ(V[0], "-arch=sm_80");
  EXPECT_NE(std::find(V.begin(), V.end(), "-std=c++17"), V.end());
  EXPECT_NE(std::find(V.begin(), V.end(), "-I/inc"), V.end());
  EXPECT_NE(std::find(V.begin(), V.end(), "-I/opt/cuda/include"), V.end());
  EXPECT_EQ(V.back(), "-lineinfo");
}

TEST(Nvrtc, MissingLibraryIsAClearError) {
  NvrtcOptions O;
  O.CudaPath = "/nonexistent/cuda";
  std::string Where;
  // The default search path may still find one; only check the message
  // when it does not.
  if (!nvrtcAvailable(O.CudaPath, &Where)) {
    NvrtcResult R = compileWithNvrtc("__global__ void k() {}", "k.cu", {}, O);
    EXPECT_FALSE(R.Ok);
    EXPECT_NE(R.Error.find("k.cu: NVRTC"), std::string::npos) << R.Error;
  }
}

class NvrtcCompile : public ::testing::Test {
protected:
  void SetUp() override {
    if (!nvrtcAvailable(cudaPath()))
      GTEST_SKIP() << "NVRTC not installed";
    O.CudaPath = cudaPath();
  }
  NvrtcOptions O;
};

TEST_F(NvrtcCompile, CompilesToCubinWithLoweredNames) {
  NvrtcResult R = compileWithNvrtc(
      "template <typename T, int N> __global__ void k(T *x) { x[0] = N; }\n"
      "namespace ns { __global__ void plain(float *x) { x[0] = 1; } }\n",
      "t.cu", {"k<float, 4>", "ns::plain"}, O);
  ASSERT_TRUE(R.Ok) << R.Error;
  EXPECT_GT(R.Cubin.size(), 100u);
  EXPECT_EQ(R.Cubin[0], 0x7f); // ELF
  ASSERT_EQ(R.LoweredNames.size(), 2u);
  EXPECT_EQ(R.LoweredNames[0].first, "k<float, 4>");
  EXPECT_EQ(R.LoweredNames[0].second, "_Z1kIfLi4EEvPT_");
  EXPECT_EQ(R.LoweredNames[1].second, "_ZN2ns5plainEPf");
}

TEST_F(NvrtcCompile, FailureNamesTheFileAndHasTheLog) {
  NvrtcResult R = compileWithNvrtc("__global__ void k(float *x) { x[0] = y; }",
                                   "broken.cu", {"k"}, O);
  EXPECT_FALSE(R.Ok);
  EXPECT_NE(R.Error.find("broken.cu"), std::string::npos);
  EXPECT_NE(R.Log.find("identifier \"y\" is undefined"), std::string::npos)
      << R.Log;
}

TEST_F(NvrtcCompile, CudaHeadersResolve) {
  NvrtcResult R = compileWithNvrtc(
      "#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n"
      "__global__ void k(__half *x) { "
      "cooperative_groups::this_thread_block().sync(); "
      "x[0] = __float2half(1.f); }",
      "h.cu", {"k"}, O);
  EXPECT_TRUE(R.Ok) << R.Error;
}

// NVRTC initialises the CUDA driver while it compiles, which would stop the
// verifier's forked GPU children from using the GPU: by default the compile
// runs in a child process. Its result comes back whole: the same CUBIN,
// names and log as a compile in this process, errors included.
TEST_F(NvrtcCompile, ChildProcessCompileMatchesInProcess) {
  const char *Src =
      "template <typename T> __global__ void k(T *x) { x[0] = 2; }\n"
      "__global__ void w(float *x) { int unused; x[0] = 1; }\n";
  NvrtcOptions Here = O;
  Here.InProcess = true;
  NvrtcResult A = compileWithNvrtc(Src, "c.cu", {"k<double>", "w"}, O);
  NvrtcResult B = compileWithNvrtc(Src, "c.cu", {"k<double>", "w"}, Here);
  ASSERT_TRUE(A.Ok) << A.Error;
  ASSERT_TRUE(B.Ok) << B.Error;
  EXPECT_EQ(A.Cubin, B.Cubin);
  EXPECT_EQ(A.LoweredNames, B.LoweredNames);
  EXPECT_EQ(A.Log, B.Log);
  ASSERT_EQ(A.LoweredNames.size(), 2u);

  NvrtcResult E = compileWithNvrtc("__global__ void k() { undeclared(); }",
                                   "bad.cu", {}, O);
  EXPECT_FALSE(E.Ok);
  EXPECT_NE(E.Error.find("bad.cu"), std::string::npos) << E.Error;
  EXPECT_NE(E.Log.find("undeclared"), std::string::npos) << E.Log;
}
