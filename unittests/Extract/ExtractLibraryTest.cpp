//===- ExtractLibraryTest.cpp - the library API on a real parse -----------===//
//
// What the verifier and the LLM stage do: parse, extract a kernel, replace
// its definition, compile both with NVRTC.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Compile/Nvrtc.h"
#include "cudal1/Config.h"
#include "cudal1/Extract/Extract.h"
#include "cudal1/Frontend/Frontend.h"

#include "clang/Frontend/CompilerInstance.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cstdlib>

using namespace cudal1;
using namespace llvm;

namespace {

const char *Source = R"cu(
#include <cuda_runtime.h>
#define SCALE(x) ((x) * 2.0f)
namespace app {
__device__ float twice(float x) { return SCALE(x); }
template <typename T>
__global__ void kern(T *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = T(twice(float(v[i])));
}
__global__ void unrelated(int *p) { p[0] = 1; }
} // namespace app
void launch(float *f, double *d, int n) {
  app::kern<<<1, 32>>>(f, n);
  app::kern<<<1, 32>>>(d, n);
}
)cu";

class Collect : public TUHandler {
public:
  bool WithPP = true;
  std::vector<ExtractedKernel> Kernels;
  void handleTranslationUnit(clang::ASTContext &Ctx,
                             clang::CompilerInstance &CI, StringRef) override {
    Kernels = WithPP ? extractKernels(Ctx, CI.getPreprocessor(), "app::kern")
                     : extractKernels(Ctx, "kern");
  }
};

class ExtractLibrary : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(sys::fs::createUniqueDirectory("cudal1-extract", Dir));
    File = Dir;
    sys::path::append(File, "lib.cu");
    std::error_code EC;
    raw_fd_ostream OS(File, EC);
    ASSERT_FALSE(EC);
    OS << Source;
  }
  void TearDown() override { sys::fs::remove_directories(Dir); }

  std::vector<ExtractedKernel> run(bool WithPP) {
    FrontendConfig C;
    C.Parse.CudaPath = findCudaPath("");
    C.Parse.GpuArch = "sm_90";
    C.Parse.ResourceDir = CUDAL1_CLANG_RESOURCE_DIR;
    std::string Err;
    auto FE = Frontend::create(C, Err);
    EXPECT_TRUE(Err.empty()) << Err;
    Collect H;
    H.WithPP = WithPP;
    FrontendStatus St = FE->run({std::string(File)}, H);
    EXPECT_EQ(St.Parsed, 1u);
    return H.Kernels;
  }

  SmallString<128> Dir, File;
};

TEST_F(ExtractLibrary, KernelWithContext) {
  auto Ks = run(true);
  ASSERT_EQ(Ks.size(), 1u);
  const ExtractedKernel &K = Ks[0];
  EXPECT_EQ(K.Kernel, "app::kern");
  EXPECT_TRUE(K.Problems.empty());
  ASSERT_EQ(K.NameExprs.size(), 2u);
  EXPECT_EQ(K.NameExprs[0], "app::kern<float>");
  EXPECT_EQ(K.NameExprs[1], "app::kern<double>");
  EXPECT_EQ(K.NameExpr, "app::kern<float>");
  ASSERT_EQ(K.Params.size(), 2u);
  EXPECT_EQ(K.Params[0].Type, "float *");
  EXPECT_EQ(*K.Params[0].SizeBytes, 8u);
  EXPECT_NE(K.Source.find("#define SCALE(x) ((x) * 2.0f)"), std::string::npos);
  EXPECT_NE(K.Source.find("__device__ float twice(float x)"),
            std::string::npos);
  EXPECT_EQ(K.Source.find("unrelated"), std::string::npos);
  EXPECT_EQ(K.Source.find("launch"), std::string::npos);
  EXPECT_EQ(K.Source.find("cuda_runtime"), std::string::npos);
  // The kernel range is the template definition.
  std::string Def = K.Source.substr(K.KernelBegin, K.KernelEnd - K.KernelBegin);
  EXPECT_EQ(Def.rfind("template <typename T>\n__global__ void kern(", 0), 0u)
      << Def;
  EXPECT_EQ(Def.back(), '}');
}

TEST_F(ExtractLibrary, ReplaceKernelAndCompileBoth) {
  auto Ks = run(true);
  ASSERT_EQ(Ks.size(), 1u);
  const ExtractedKernel &K = Ks[0];
  std::string Variant = replaceKernel(
      K, "template <typename T>\n__global__ void kern(T *v, int n) {\n"
         "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
         "       i += gridDim.x * blockDim.x)\n"
         "    v[i] = T(twice(float(v[i])));\n}");
  EXPECT_NE(Variant.find("i += gridDim.x * blockDim.x"), std::string::npos);
  EXPECT_NE(Variant.find("__device__ float twice"), std::string::npos);
  if (!nvrtcAvailable(findCudaPath("")))
    GTEST_SKIP() << "NVRTC not installed";
  NvrtcOptions O;
  O.CudaPath = findCudaPath("");
  NvrtcResult A = compileWithNvrtc(K.Source, "orig.cu", K.NameExprs, O);
  NvrtcResult B = compileWithNvrtc(Variant, "variant.cu", K.NameExprs, O);
  ASSERT_TRUE(A.Ok) << A.Error;
  ASSERT_TRUE(B.Ok) << B.Error;
  ASSERT_EQ(A.LoweredNames.size(), 2u);
  EXPECT_EQ(A.LoweredNames, B.LoweredNames);
  EXPECT_EQ(A.LoweredNames[0].second, "_ZN3app4kernIfEEvPT_i");
}

TEST_F(ExtractLibrary, WithoutPreprocessorMacrosComeFromExpansions) {
  auto Ks = run(false);
  ASSERT_EQ(Ks.size(), 1u);
  EXPECT_NE(Ks[0].Source.find("#define SCALE(x) ((x) * 2.0f)"),
            std::string::npos)
      << Ks[0].Source;
  ASSERT_FALSE(Ks[0].Notes.empty());
  EXPECT_NE(Ks[0].Notes.back().find("no preprocessor"), std::string::npos);
  if (!nvrtcAvailable(findCudaPath("")))
    GTEST_SKIP() << "NVRTC not installed";
  NvrtcOptions O;
  O.CudaPath = findCudaPath("");
  NvrtcResult R = compileWithNvrtc(Ks[0].Source, "nopp.cu", Ks[0].NameExprs, O);
  EXPECT_TRUE(R.Ok) << R.Error;
}

// The whole corpus through the library without a preprocessor: macros come
// from expansion records; every kernel must still compile.
TEST(ExtractLibraryCorpus, WithoutPreprocessorEveryKernelCompiles) {
  const char *Inputs = std::getenv("CUDAL1_TEST_INPUTS");
  if (!Inputs)
    GTEST_SKIP() << "CUDAL1_TEST_INPUTS not set";
  if (!nvrtcAvailable(findCudaPath("")))
    GTEST_SKIP() << "NVRTC not installed";
  SmallString<256> Dir(Inputs);
  sys::path::append(Dir, "corpus");
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; !EC && It != End;
       It.increment(EC))
    if (StringRef(It->path()).ends_with(".cu"))
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  ASSERT_GE(Files.size(), 10u);
  FrontendConfig C;
  C.Parse.CudaPath = findCudaPath("");
  C.Parse.GpuArch = "sm_90";
  C.Parse.ResourceDir = CUDAL1_CLANG_RESOURCE_DIR;
  std::string Err;
  auto FE = Frontend::create(C, Err);
  class All : public TUHandler {
  public:
    std::vector<ExtractedKernel> Ks;
    void handleTranslationUnit(clang::ASTContext &Ctx,
                               clang::CompilerInstance &, StringRef) override {
      for (auto &K : extractKernels(Ctx, "all"))
        Ks.push_back(std::move(K));
    }
  } H;
  FrontendStatus St = FE->run(Files, H);
  EXPECT_EQ(St.Failed, 0u);
  EXPECT_GE(H.Ks.size(), 39u);
  NvrtcOptions O;
  O.CudaPath = findCudaPath("");
  for (const ExtractedKernel &K : H.Ks) {
    EXPECT_TRUE(K.Problems.empty()) << K.Kernel;
    NvrtcResult R =
        compileWithNvrtc(K.Source, K.Kernel + ".cu", K.NameExprs, O);
    EXPECT_TRUE(R.Ok) << K.Kernel << ": " << R.Error;
  }
}

} // namespace
