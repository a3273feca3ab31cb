//===- VerifyGpuTest.cpp - GPU tests of lib/Verify ------------------------===//
//
// Each anti-cheating candidate must be rejected with the right reason, an
// honest faster one accepted (DESIGN.md, "Verification and benchmarking").
// Skipped where there is no GPU. utils/gpu-check.sh runs these on the H200;
// with CUDAL1_GPU_OUT set, each verdict is written there as JSON.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Verify/Runner.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

using namespace cudal1;

namespace {
std::string inputsDir() {
  if (const char *E = std::getenv("CUDAL1_VERIFY_INPUTS"))
    return E;
  return CUDAL1_VERIFY_INPUTS;
}
std::string readFile(const std::string &P) {
  std::ifstream In(P);
  std::stringstream SS;
  SS << In.rdbuf();
  return SS.str();
}
VerifyOptions options() {
  VerifyOptions O;
  if (const char *C = std::getenv("CUDA_PATH"))
    O.CudaPath = C;
  O.Samples = 50;
  O.TimeoutSeconds = 180;
  O.Progress = [](const std::string &S) {
    llvm::errs() << "    | " << S << "\n";
  };
  return O;
}
const GpuInfo &gpu() {
  static GpuInfo G = probeGpu(options());
  return G;
}
#define REQUIRE_GPU()                                                          \
  if (!gpu().Ok)                                                               \
  GTEST_SKIP() << gpu().Error

std::vector<ParamInfo> transposeParams() {
  return {makeParam("in", "const float *", "const float", true, true, 8, 4),
          makeParam("out", "float *", "float", true, false, 8, 4),
          makeParam("n", "int", "int", false, false, 4, 4)};
}

VerifyJob transposeJob(const std::string &Candidate) {
  std::string Dir = inputsDir() + "/transpose/";
  VerifyJob J;
  J.Kernel = "transpose";
  J.Params = transposeParams();
  std::string Err;
  EXPECT_TRUE(parseHarnessSpec(readFile(Dir + "harness.yaml"),
                               Dir + "harness.yaml", "transpose", J.Params, {},
                               J.H, Err))
      << Err;
  J.Original = {"original.cu", readFile(Dir + "original.cu"), "original.cu",
                "transpose", "", ""};
  J.Candidate = {Candidate, readFile(Dir + Candidate), Candidate, "transpose",
                 "", ""};
  J.Exact = Exactness::Bitwise;
  return J;
}

void save(const std::string &Name, const CandidateVerdict &V) {
  const char *Out = std::getenv("CUDAL1_GPU_OUT");
  llvm::errs() << "    => " << (V.Accepted ? "ACCEPTED" : "rejected") << " ["
               << V.RejectKind << "] " << V.Reason << "\n";
  if (V.Timing && V.Timing->Ok)
    llvm::errs() << llvm::formatv(
        "    => original {0} us, candidate {1} us, {2:f2}x (95% CI "
        "{3:f2}-{4:f2}), kernels/sample {5}/{6}, windows {7:f1}/{8:f1} us\n",
        V.Timing->OriginalMedianUs, V.Timing->CandidateMedianUs,
        V.Timing->Speedup, V.Timing->CiLow, V.Timing->CiHigh,
        V.Timing->OriginalKernelsPerSample, V.Timing->CandidateKernelsPerSample,
        V.Timing->OriginalWindowUs, V.Timing->CandidateWindowUs);
  if (!Out)
    return;
  std::error_code EC;
  llvm::raw_fd_ostream OS(std::string(Out) + "/" + Name + ".json", EC);
  if (!EC)
    OS << llvm::formatv("{0:2}", toJson(V)) << "\n";
}

CandidateVerdict verify(const std::string &Candidate, VerifyOptions O = options()) {
  VerifyJob J = transposeJob(Candidate);
  CandidateVerdict V = runVerifyJob(J, O, gpu());
  save(Candidate, V);
  return V;
}
} // namespace

// Runs everywhere: the GPU tests' own inputs must be valid.
TEST(VerifyGpuInputs, HarnessParses) {
  VerifyJob J = transposeJob("honest_tiled.cu");
  EXPECT_EQ(J.H.Grid[0], 128u);
  EXPECT_EQ(J.H.Grid[1], 128u);
  EXPECT_EQ(J.H.Block[1], 8u);
  ASSERT_EQ(J.H.Args.size(), 3u);
  EXPECT_EQ(J.H.Args[0].Buffer.Count, 4096u * 4096u);
  EXPECT_EQ(J.H.Args[0].Buffer.Init.size(), 3u);
  EXPECT_FALSE(J.Candidate.Source.empty());
}

TEST(VerifyGpu, ProbeReportsTheGpu) {
  REQUIRE_GPU();
  const GpuInfo &G = gpu();
  llvm::errs() << llvm::formatv("{0:2}", toJson(G)) << "\n";
  EXPECT_FALSE(G.Name.empty());
  EXPECT_EQ(G.Arch.rfind("sm_", 0), 0u);
  EXPECT_GT(G.L2Bytes, 0);
  EXPECT_GT(G.PeakBandwidthGBs, 100.0);
  EXPECT_GT(G.DriverVersion, 0);
}

TEST(VerifyGpu, OriginalAgainstItselfIsNotFaster) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("original.cu");
  EXPECT_TRUE(V.Correct);
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "not-faster");
  ASSERT_TRUE(V.Timing.has_value());
  EXPECT_NEAR(V.Timing->Speedup, 1.0, 0.05);
}

TEST(VerifyGpu, HonestTiledTransposeAccepted) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("honest_tiled.cu");
  EXPECT_TRUE(V.Correct);
  EXPECT_TRUE(V.Accepted) << V.RejectKind << ": " << V.Reason;
  ASSERT_TRUE(V.Timing.has_value());
  EXPECT_GT(V.Timing->Speedup, 1.05);
  EXPECT_EQ(V.InputSets.size(), 3u);
  std::string A = formatAnnotation(gpu(), *V.Timing, "honest_tiled.cu",
                                   V.Exact, V.InputSets.size());
  llvm::errs() << A;
  ParsedAnnotation P;
  EXPECT_TRUE(parseAnnotation(A, P));
}

TEST(VerifyGpu, RejectsWorkOnAnotherStream) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("cheat_side_stream.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "hidden-work") << V.Reason;
}

TEST(VerifyGpu, RejectsPartialOutput) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("cheat_partial.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "unwritten-output") << V.Reason;
}

TEST(VerifyGpu, StateInDeviceVariablesIsResetBetweenRuns) {
  REQUIRE_GPU();
  // cheat_stale.cu computes only while a __device__ counter is below the
  // block count. Every run starts from the module's variables as loaded, so
  // it computes on every run (correct everywhere) and is timed doing the
  // work: it cannot win.
  CandidateVerdict V = verify("cheat_stale.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_TRUE(V.Correct) << V.RejectKind << ": " << V.Reason;
  ASSERT_EQ(V.InputSets.size(), 3u);
  for (const auto &IR : V.InputSets)
    EXPECT_TRUE(IR.Ok);
  ASSERT_TRUE(V.Timing.has_value());
  EXPECT_LT(V.Timing->Speedup, 1.05);
}

TEST(VerifyGpu, TimedRunsStartFromPoisonedOutputs) {
  REQUIRE_GPU();
  // cheat_skip_valid.cu skips every element whose output already holds a
  // number. Before every timed sample the outputs are poisoned again, so it
  // does all the work (and a read more) and is not faster; the outputs of
  // its last timed run are checked like a correctness run.
  CandidateVerdict V = verify("cheat_skip_valid.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_TRUE(V.Correct) << V.RejectKind << ": " << V.Reason;
  ASSERT_TRUE(V.Timing.has_value());
  EXPECT_LT(V.Timing->Speedup, 1.05);
  EXPECT_NE(V.Timing->Note.find("poisoned outputs"), std::string::npos)
      << V.Timing->Note;
}

TEST(VerifyGpu, RejectsModifiedInput) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("cheat_modify_input.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "read-only-modified") << V.Reason;
}

TEST(VerifyGpu, RejectsOutOfBoundsWrite) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("cheat_out_of_bounds.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "out-of-bounds-write") << V.Reason;
}

TEST(VerifyGpu, RejectsLowerPrecision) {
  REQUIRE_GPU();
  VerifyOptions O = options();
  VerifyJob J = transposeJob("cheat_low_precision.cu");
  J.Exact = Exactness::Reassociating; // even within tolerance it fails
  CandidateVerdict V = runVerifyJob(J, O, gpu());
  save("cheat_low_precision.cu", V);
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "mismatch") << V.Reason;
}

TEST(VerifyGpu, RejectsNoWork) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("cheat_no_work.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "unwritten-output") << V.Reason;
}

TEST(VerifyGpu, RejectsHangAndGoesOn) {
  REQUIRE_GPU();
  VerifyOptions O = options();
  O.TimeoutSeconds = 25;
  CandidateVerdict V = verify("cheat_hang.cu", O);
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "timeout") << V.Reason;
  // The GPU is still usable afterwards.
  CandidateVerdict After = verify("cheat_partial.cu");
  EXPECT_EQ(After.RejectKind, "unwritten-output") << After.Reason;
}

TEST(VerifyGpu, ReportsFault) {
  REQUIRE_GPU();
  CandidateVerdict V = verify("cheat_fault.cu");
  EXPECT_FALSE(V.Accepted);
  EXPECT_EQ(V.RejectKind, "fault") << V.Reason;
}

TEST(VerifyGpu, NondeterministicOriginalMeasuredAndSaid) {
  REQUIRE_GPU();
  std::string Dir = inputsDir() + "/sum/";
  VerifyJob J;
  J.Kernel = "atomic_sum";
  J.Params = {makeParam("x", "const float *", "const float", true, true, 8, 4),
              makeParam("sum", "float *", "float", true, false, 8, 4),
              makeParam("n", "int", "int", false, false, 4, 4)};
  std::string Err;
  ASSERT_TRUE(parseHarnessSpec(readFile(Dir + "harness.yaml"),
                               Dir + "harness.yaml", "atomic_sum", J.Params,
                               {}, J.H, Err))
      << Err;
  std::string Src = readFile(Dir + "atomic_sum.cu");
  J.Original = {"atomic_sum.cu", Src, "atomic_sum.cu", "atomic_sum", "", ""};
  J.Candidate = {"atomic_sum.cu (same)", Src, "atomic_sum.cu", "atomic_sum",
                 "", ""};
  J.Exact = Exactness::Bitwise;
  KernelReport KR;
  CandidateVerdict V = runVerifyJob(J, options(), gpu(), &KR);
  save("atomic_sum", V);
  EXPECT_TRUE(V.Correct) << V.RejectKind << ": " << V.Reason;
  EXPECT_FALSE(KR.OriginalDeterministic);
  EXPECT_GT(KR.OriginalSpread, 0.0);
  bool Said = false, Widened = false;
  for (const auto &N : V.Notes) {
    Said |= N.find("not deterministic") != std::string::npos;
    // The same code must pass: the candidate is allowed twice the
    // original's own run-to-run difference on that buffer.
    Widened |= N.find("'sum': the original's own two runs differ") !=
               std::string::npos;
  }
  EXPECT_TRUE(Said);
  EXPECT_TRUE(Widened);
  EXPECT_FALSE(V.Accepted); // same code: not faster
}

namespace {
CandidateVerdict verifySubst(const std::string &Candidate) {
  std::string Dir = inputsDir() + "/subst/";
  VerifyJob J;
  J.Kernel = "forward_subst";
  J.Params = {makeParam("L", "const float *", "const float", true, true, 8, 4),
              makeParam("B", "const float *", "const float", true, true, 8, 4),
              makeParam("Y", "float *", "float", true, false, 8, 4),
              makeParam("n", "int", "int", false, false, 4, 4),
              makeParam("nrhs", "int", "int", false, false, 4, 4)};
  std::string Err;
  EXPECT_TRUE(parseHarnessSpec(readFile(Dir + "harness.yaml"),
                               Dir + "harness.yaml", "forward_subst",
                               J.Params, {}, J.H, Err))
      << Err;
  J.Original = {"original.cu", readFile(Dir + "original.cu"), "original.cu",
                "forward_subst", "", ""};
  J.Candidate = {Candidate, readFile(Dir + Candidate), Candidate,
                 "forward_subst", "", ""};
  J.Exact = Exactness::Reassociating;
  CandidateVerdict V = runVerifyJob(J, options(), gpu());
  save("subst_" + Candidate, V);
  return V;
}
} // namespace

// An ill-conditioned recurrence (forward substitution on a random
// triangular matrix): a reassociated candidate differs from the original by
// more than the tolerance, but by no more than the original itself moves
// when its inputs are perturbed within rounding: correct, with a note. A
// candidate that leaves out a term is still rejected.
TEST(VerifyGpu, IllConditionedReassociationWithinTheOriginalsOwnSensitivity) {
  REQUIRE_GPU();
  CandidateVerdict V = verifySubst("reordered.cu");
  EXPECT_TRUE(V.Correct) << V.RejectKind << ": " << V.Reason;
  // The timed runs' final state is compared with the same allowance.
  EXPECT_NE(V.RejectKind, "timed-state") << V.Reason;
  bool Said = false;
  for (const auto &N : V.Notes)
    Said |= N.find("'Y' on input set") != std::string::npos &&
            N.find("perturbed by about 32 units of rounding") != std::string::npos;
  EXPECT_TRUE(Said);
  CandidateVerdict W = verifySubst("dropped_term.cu");
  EXPECT_FALSE(W.Correct);
  EXPECT_EQ(W.RejectKind, "mismatch") << W.Reason;
}

TEST(VerifyGpu, OutputReadBeforeWrittenIsAHarnessError) {
  REQUIRE_GPU();
  std::string Dir = inputsDir() + "/sum/";
  VerifyJob J;
  J.Kernel = "atomic_sum";
  J.Params = {makeParam("x", "const float *", "const float", true, true, 8, 4),
              makeParam("sum", "float *", "float", true, false, 8, 4),
              makeParam("n", "int", "int", false, false, 4, 4)};
  std::string Err;
  // "sum" without init: poisoned, so the atomics add to NaN.
  ASSERT_TRUE(parseHarnessSpec("grid: 4\nblock: 256\nparams:\n  x: 1024\n"
                               "  sum: 1\n  n: 1024\n",
                               "inline.yaml", "atomic_sum", J.Params, {}, J.H,
                               Err))
      << Err;
  std::string Src = readFile(Dir + "atomic_sum.cu");
  J.Original = {"atomic_sum.cu", Src, "atomic_sum.cu", "atomic_sum", "", ""};
  J.Candidate = J.Original;
  CandidateVerdict V = runVerifyJob(J, options(), gpu());
  save("atomic_sum_poisoned", V);
  EXPECT_EQ(V.RejectKind, "harness");
  EXPECT_NE(V.Reason.find("read before it is written"), std::string::npos)
      << V.Reason;
}

// A __half scalar reaches the kernel as its value: a candidate that has the
// harness's value (1.5) built in matches the original bit for bit, one with
// another value does not.
TEST(VerifyGpu, HalfScalarArrivesAsItsValue) {
  REQUIRE_GPU();
  VerifyJob J;
  J.Kernel = "scale_h";
  J.Exact = Exactness::Bitwise;
  J.Params = {makeParam("in", "const float *", "const float", true, true, 8, 4),
              makeParam("out", "float *", "float", true, false, 8, 4),
              makeParam("a", "__half", "", false, false, 2, 0),
              makeParam("n", "int", "int", false, false, 4, 0)};
  std::string Err;
  ASSERT_TRUE(parseHarnessSpec("grid: 4096\nblock: 256\nparams:\n"
                               "  in: 1048576\n  out: 1048576\n  a: 1.5\n"
                               "  n: 1048576\n",
                               "inline.yaml", "scale_h", J.Params, {}, J.H,
                               Err))
      << Err;
  auto Src = [](const std::string &Factor) {
    return "#include <cuda_fp16.h>\n"
           "__global__ void scale_h(const float *in, float *out, __half a,\n"
           "                        int n) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "  if (i < n) out[i] = in[i] * " + Factor + ";\n"
           "}\n";
  };
  J.Original = {"original", Src("__half2float(a)"), "scale_h.cu", "scale_h",
                "", ""};
  VerifyOptions O = options();
  O.Samples = 30;
  J.Candidate = {"same_value.cu", Src("1.5f"), "same_value.cu", "scale_h", "",
                 ""};
  CandidateVerdict Same = runVerifyJob(J, O, gpu());
  save("half_scalar_same", Same);
  EXPECT_TRUE(Same.Correct) << Same.Reason;
  J.Candidate = {"other_value.cu", Src("2.0f"), "other_value.cu", "scale_h",
                 "", ""};
  CandidateVerdict Other = runVerifyJob(J, O, gpu());
  save("half_scalar_other", Other);
  EXPECT_EQ(Other.RejectKind, "mismatch") << Other.Reason;
}

// Writes the CUPTI medians of two kernels with distinct names, so that
// utils/gpu-check.sh can compare them with Nsight Compute's
// gpu__time_duration of the same run under ncu.
TEST(VerifyGpu, JobsRunOnTheGpuTheyAreGiven) {
  REQUIRE_GPU();
  // Every GPU the process sees can be chosen; one past the last cannot.
  EXPECT_GE(gpu().DeviceCount, 1);
  VerifyOptions O = options();
  O.Device = gpu().DeviceCount - 1;
  GpuInfo Last = probeGpu(O);
  ASSERT_TRUE(Last.Ok) << Last.Error;
  EXPECT_EQ(Last.Device, gpu().DeviceCount - 1);
  O.Device = gpu().DeviceCount;
  GpuInfo None = probeGpu(O);
  EXPECT_FALSE(None.Ok);
  EXPECT_NE(None.Error.find("the CUDA driver sees"), std::string::npos)
      << None.Error;
  // A job on the last GPU: original and candidate both run there.
  O.Device = gpu().DeviceCount - 1;
  O.Samples = 30;
  CandidateVerdict V = runVerifyJob(transposeJob("honest_tiled.cu"), O, Last);
  EXPECT_TRUE(V.Correct) << V.RejectKind << ": " << V.Reason;
}

TEST(VerifyGpu, CuptiTimesForNcuComparison) {
  REQUIRE_GPU();
  VerifyOptions O = options();
  O.Samples = 30;
  O.Warmup = 2;
  VerifyJob J = transposeJob("honest_tiled.cu");
  std::string Err;
  // Same code, distinct kernel names: ncu reports per name.
  auto Rename = [](std::string S, const std::string &To) {
    size_t P = S.find("void transpose(");
    S.replace(P, 15, "void " + To + "(");
    return S;
  };
  J.Original.Source = Rename(J.Original.Source, "transpose_naive");
  J.Original.NameExpr = "transpose_naive";
  J.Candidate.Source = Rename(J.Candidate.Source, "transpose_tiled");
  J.Candidate.NameExpr = "transpose_tiled";
  CandidateVerdict V = runVerifyJob(J, O, gpu());
  save("cupti_for_ncu", V);
  // A second pair: plain copies, scalar and float4.
  VerifyJob C;
  C.Kernel = "copy";
  C.Params = transposeParams();
  ASSERT_TRUE(parseHarnessSpec(
      "sizes: {N: 67108864}\ngrid: cdiv(N, 256)\nblock: 256\nparams:\n"
      "  in: N\n  out: N\n  n: N\n",
      "inline.yaml", "copy", C.Params, {}, C.H, Err))
      << Err;
  std::string CopySrc = readFile(inputsDir() + "/copy/copy.cu");
  C.Original = {"copy_scalar", CopySrc, "copy.cu", "copy_scalar", "", ""};
  C.Candidate = {"copy_vec4", CopySrc, "copy.cu", "copy_vec4", "", ""};
  C.Exact = Exactness::Bitwise;
  CandidateVerdict CV = runVerifyJob(C, O, gpu());
  save("cupti_for_ncu_copy", CV);
  if (const char *Out = std::getenv("CUDAL1_GPU_OUT")) {
    llvm::json::Object M;
    if (V.Timing && V.Timing->Ok) {
      M["transpose_naive"] = V.Timing->OriginalMedianUs;
      M["transpose_tiled"] = V.Timing->CandidateMedianUs;
    }
    if (CV.Timing && CV.Timing->Ok) {
      M["copy_scalar"] = CV.Timing->OriginalMedianUs;
      M["copy_vec4"] = CV.Timing->CandidateMedianUs;
    }
    std::error_code EC;
    llvm::raw_fd_ostream OS(std::string(Out) + "/cupti_medians.json", EC);
    OS << llvm::json::Value(std::move(M)) << "\n";
  }
  if (std::getenv("CUDAL1_UNDER_NCU"))
    return; // ncu owns the profiler: our CUPTI timing is not expected there
  ASSERT_TRUE(V.Timing.has_value());
  EXPECT_TRUE(V.Timing->Ok) << V.Timing->Note;
  ASSERT_TRUE(CV.Timing.has_value());
  EXPECT_TRUE(CV.Timing->Ok) << CV.Timing->Note;
}
