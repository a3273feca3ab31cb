//===- RunnerNoGpuTest.cpp - the runner where there is no GPU -------------===//
//
// On machines without a CUDA driver (CI), the probe must say so in words and
// the caller must survive; a job must come back rejected as "no-gpu".
//
//===----------------------------------------------------------------------===//
#include "cudal1/Verify/Runner.h"

#include "gtest/gtest.h"

#include <dlfcn.h>

using namespace cudal1;

static bool haveDriver() {
  void *L = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (L)
    dlclose(L);
  return L != nullptr;
}

TEST(RunnerNoGpu, ProbeSaysNoDriver) {
  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is present";
  VerifyOptions O;
  GpuInfo G = probeGpu(O);
  EXPECT_FALSE(G.Ok);
  EXPECT_EQ(G.Error.rfind("no CUDA driver", 0), 0u) << G.Error;
}

TEST(RunnerNoGpu, JobRejectedAsNoGpu) {
  if (haveDriver())
    GTEST_SKIP() << "a CUDA driver is present";
  VerifyJob J;
  J.Candidate.Label = "c.cu";
  VerifyOptions O;
  O.TimeoutSeconds = 20;
  CandidateVerdict V = runVerifyJob(J, O, GpuInfo());
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "no-gpu");
  EXPECT_NE(V.Reason.find("libcuda.so.1"), std::string::npos) << V.Reason;
}
