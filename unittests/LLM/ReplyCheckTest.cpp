//===- ReplyCheckTest.cpp - a reply's code checked as device code ---------===//
#include "cudal1/LLM/ReplyCheck.h"

#include "gtest/gtest.h"

using namespace cudal1;

namespace {
/// An extracted kernel made by hand: a context with the kernel in it.
ExtractedKernel extracted(const std::string &Before, const std::string &Kernel,
                          const std::string &After, const std::string &Name) {
  ExtractedKernel K;
  K.Kernel = Name;
  K.NameExpr = Name;
  K.Source = Before + Kernel + After;
  K.KernelBegin = Before.size();
  K.KernelEnd = Before.size() + Kernel.size();
  return K;
}

ParseOptions parseOptions() {
  ParseOptions PO;
  PO.CudaPath = CUDAL1_CUDA_PATH;
  PO.GpuArch = "sm_90";
  PO.ResourceDir = CUDAL1_RESOURCE_DIR;
  return PO;
}

const std::string Before = "#define SCALE 2.0f\n"
                           "__device__ float twice(float v) { return v * "
                           "SCALE; }\n"
                           "namespace ns {\n";
const std::string Original =
    "__global__ void scale(float *out, const float *in, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) out[i] = twice(in[i]);\n"
    "}\n";
const std::string After = "} // namespace ns\n";

struct Checker {
  Checker() : K(extracted(Before, Original, After, "ns::scale")),
              C(K, parseOptions()) {}
  ReplyCheckResult check(const std::string &Code) { return C.check(Code); }
  ExtractedKernel K;
  ReplyChecker C;
};
} // namespace

TEST(ReplyCheck, AFasterKernelWithAHelperAndAHeader) {
  Checker C;
  std::string Why;
  ASSERT_TRUE(C.C.ready(Why)) << Why;
  std::string Code =
      "#include <cuda_fp16.h>\n"
      "__device__ __forceinline__ float load(const float *p) { return "
      "__ldg(p); }\n"
      "__global__ void scale(float *__restrict__ o, const float *__restrict__ "
      "in, const int n) {\n"
      "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;\n"
      "       i += gridDim.x * blockDim.x)\n"
      "    o[i] = twice(load(in + i));\n"
      "}\n";
  ReplyCheckResult R = C.check(Code);
  ASSERT_EQ(R.State, ReplyCheckResult::Ok) << R.Problem << "\n" << R.Detail;
  EXPECT_EQ(R.NewIncludes, std::vector<std::string>{"<cuda_fp16.h>"});
  EXPECT_EQ(R.Definition.find("#include"), std::string::npos);
  EXPECT_EQ(R.CandidateSource.rfind("#include <cuda_fp16.h>\n", 0), 0u);
  EXPECT_NE(R.CandidateSource.find("namespace ns {\n\n__device__ "
                                   "__forceinline__ float load"),
            std::string::npos)
      << R.CandidateSource;
}

TEST(ReplyCheck, ASyntaxErrorIsACompileFailureLocatedInTheCode) {
  Checker C;
  ReplyCheckResult R = C.check("__global__ void scale(float *out, const float "
                               "*in, int n) {\n"
                               "  int i = threadIdx.x\n"
                               "  out[i] = in[i];\n"
                               "}\n");
  ASSERT_EQ(R.State, ReplyCheckResult::Compile);
  EXPECT_NE(R.Detail.find("line 2 of your code: expected ';'"),
            std::string::npos)
      << R.Detail;
  EXPECT_NE(R.Problem.find("it does not compile (1 error; the first: line 2 "
                           "of your code: expected ';'"),
            std::string::npos)
      << R.Problem;
}

TEST(ReplyCheck, TheSignatureMustStay) {
  Checker C;
  ReplyCheckResult R = C.check("__global__ void scale(float *out, int *in, "
                               "int n) {}\n");
  ASSERT_EQ(R.State, ReplyCheckResult::Contract) << R.Detail;
  EXPECT_EQ(R.Problem, "the kernel's signature changed: parameter 2 is 'int "
                       "*', the original's is 'const float *'; keep the "
                       "parameter list (names may change, const and "
                       "__restrict__ may be added)");
  R = C.check("__global__ void scale(float *out, const float *in) {}\n");
  EXPECT_NE(R.Problem.find("it has 2 parameters, the original 3"),
            std::string::npos)
      << R.Problem;
  R = C.check("__global__ void scale2(float *o, const float *i, int n) {}\n");
  EXPECT_EQ(R.Problem, "the code does not define the kernel 'ns::scale': keep "
                       "its name");
}

TEST(ReplyCheck, NoHostCode) {
  Checker C;
  ReplyCheckResult R = C.check(
      "__global__ void scale(float *o, const float *in, int n) {}\n"
      "float host_scale(float v) { return v * 2; }\n");
  ASSERT_EQ(R.State, ReplyCheckResult::Contract) << R.Detail;
  EXPECT_EQ(R.Problem, "line 2 of the code defines the host function "
                       "'ns::host_scale': only the kernel and __device__ "
                       "helpers may be given (no host code)");
  R = C.check("int calls = 0;\n"
              "__global__ void scale(float *o, const float *in, int n) {}\n");
  EXPECT_EQ(R.Problem, "line 1 of the code defines the host variable "
                       "'ns::calls': only device code may be given");
  R = C.check("#include <cstdio>\n"
              "__global__ void scale(float *o, const float *in, int n) {}\n");
  EXPECT_NE(R.Problem.find("the code's line 1 includes <cstdio>: only CUDA "
                           "device headers"),
            std::string::npos)
      << R.Problem;
}

TEST(ReplyCheck, NoWorkOutsideTheKernel) {
  Checker C;
  ReplyCheckResult R = C.check(
      "__global__ void worker(float *o, const float *in, int n) {}\n"
      "__global__ void scale(float *o, const float *in, int n) {\n"
      "  worker<<<1, 1>>>(o, in, n);\n"
      "}\n");
  ASSERT_NE(R.State, ReplyCheckResult::Ok);
  EXPECT_NE(R.Problem.find("defines another kernel 'ns::worker'"),
            std::string::npos)
      << R.Problem << R.Detail;
  R = C.check("__global__ void scale(float *o, const float *in, int n) {\n"
              "  cudaStream_t s;\n"
              "  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);\n"
              "}\n");
  EXPECT_NE(R.Problem.find("line 3 of the code calls the device runtime "
                           "(cudaStreamCreateWithFlags)"),
            std::string::npos)
      << R.Problem << R.Detail;
}

TEST(ReplyCheck, InlinePtxInTheSubsetOnly) {
  Checker C;
  ReplyCheckResult R = C.check(
      "__global__ void scale(float *o, const float *in, int n) {\n"
      "  float v;\n"
      "  asm volatile(\"ld.global.nc.f32 %0, [%1];\" : \"=f\"(v) : "
      "\"l\"(in));\n"
      "  o[0] = v;\n"
      "}\n");
  EXPECT_EQ(R.State, ReplyCheckResult::Ok) << R.Problem << R.Detail;
  R = C.check("__global__ void scale(float *o, const float *in, int n) {\n"
              "  asm volatile(\"trap;\");\n"
              "}\n");
  ASSERT_EQ(R.State, ReplyCheckResult::Contract) << R.Detail;
  EXPECT_NE(R.Problem.find("line 2 of the code inline asm uses 'trap'"),
            std::string::npos)
      << R.Problem;
}

TEST(ReplyCheck, TemplateKernelsKeepTheirParameters) {
  ExtractedKernel K = extracted(
      "", "template <typename T, int B>\n"
          "__global__ void sum(T *out, const T *in, int n) { out[0] = in[0]; }\n",
      "", "sum");
  ReplyChecker C(K, parseOptions());
  std::string Why;
  ASSERT_TRUE(C.ready(Why)) << Why;
  ReplyCheckResult R = C.check("template <typename T, int B>\n"
                               "__global__ void sum(T *o, const T *in, int n) "
                               "{ if (n) o[0] = in[0] * B; }\n");
  EXPECT_EQ(R.State, ReplyCheckResult::Ok) << R.Problem << R.Detail;
  R = C.check("template <typename T>\n"
              "__global__ void sum(T *o, const T *in, int n) {}\n");
  EXPECT_NE(R.Problem.find("it has 1 template parameters, the original 2"),
            std::string::npos)
      << R.Problem;
  R = C.check("__global__ void sum(float *o, const float *in, int n) {}\n");
  EXPECT_NE(R.Problem.find("the kernel is a template; keep its template "
                           "parameters"),
            std::string::npos)
      << R.Problem;
}
