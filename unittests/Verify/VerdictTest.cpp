//===- VerdictTest.cpp - annotation, acceptance, JSON, table --------------===//
#include "cudal1/Verify/Verdict.h"

#include "gtest/gtest.h"

using namespace cudal1;

namespace {
GpuInfo h200() {
  GpuInfo G;
  G.Ok = true;
  G.Name = "NVIDIA H200";
  G.Arch = "sm_90";
  G.CcMajor = 9;
  return G;
}
TimingResult timing(double O, double C, double Lo, double Hi) {
  TimingResult T;
  T.Ok = true;
  T.Samples = 50;
  T.OriginalMedianUs = O;
  T.CandidateMedianUs = C;
  T.Speedup = O / C;
  T.CiLow = Lo;
  T.CiHigh = Hi;
  return T;
}
} // namespace

TEST(Annotation, ExactlyAsInDesign) {
  TimingResult T = timing(812.4, 188.5, 4.22, 4.40);
  T.Speedup = 4.31;
  std::string A = formatAnnotation(h200(), T,
                                   "coalescing-smem-staging, memory-restrict",
                                   Exactness::Bitwise, 3);
  EXPECT_EQ(A, "// cuda-l1: 4.31x faster on NVIDIA H200 (sm_90): 812.4 us -> "
               "188.5 us, median of 50 (95% CI 4.22x-4.40x)\n"
               "// cuda-l1: applied coalescing-smem-staging, memory-restrict; "
               "verified bitwise on 3 input sets\n");
}

TEST(Annotation, RoundTrips) {
  TimingResult T = timing(100.0, 40.0, 2.4, 2.6);
  std::string A =
      formatAnnotation(h200(), T, "algebraic-powf-square", Exactness::Ulp, 4);
  ParsedAnnotation P;
  ASSERT_TRUE(parseAnnotation(A, P)) << A;
  EXPECT_DOUBLE_EQ(P.Speedup, 2.5);
  EXPECT_EQ(P.Gpu, "NVIDIA H200");
  EXPECT_EQ(P.Arch, "sm_90");
  EXPECT_DOUBLE_EQ(P.OriginalUs, 100.0);
  EXPECT_DOUBLE_EQ(P.CandidateUs, 40.0);
  EXPECT_EQ(P.Samples, 50u);
  EXPECT_DOUBLE_EQ(P.CiLow, 2.4);
  EXPECT_EQ(P.Applied, "algebraic-powf-square");
  EXPECT_EQ(P.Exactness, "within ulp tolerance");
  EXPECT_EQ(P.InputSets, 4u);
  EXPECT_FALSE(parseAnnotation("// cuda-l1: something else", P));
}

TEST(Acceptance, Rules) {
  CandidateVerdict V;
  V.Correct = true;
  V.Timing = timing(100, 50, 1.9, 2.1);
  decideAcceptance(V, 1.05);
  EXPECT_TRUE(V.Accepted);

  CandidateVerdict Slow;
  Slow.Correct = true;
  Slow.Timing = timing(100, 97, 1.01, 1.05); // 1.03x < 1.05
  decideAcceptance(Slow, 1.05);
  EXPECT_FALSE(Slow.Accepted);
  EXPECT_EQ(Slow.RejectKind, "not-faster");

  CandidateVerdict Noisy;
  Noisy.Correct = true;
  Noisy.Timing = timing(100, 80, 0.95, 1.6); // CI crosses 1
  decideAcceptance(Noisy, 1.05);
  EXPECT_FALSE(Noisy.Accepted);

  CandidateVerdict Wrong;
  Wrong.Correct = false;
  Wrong.RejectKind = "mismatch";
  Wrong.Timing = timing(100, 10, 9, 11);
  decideAcceptance(Wrong, 1.05);
  EXPECT_FALSE(Wrong.Accepted);
  EXPECT_EQ(Wrong.RejectKind, "mismatch");

  CandidateVerdict Fast;
  Fast.Correct = true;
  Fast.Timing = timing(1000, 5, 150, 250);
  Fast.Timing->FloorUs = 20;
  Fast.Timing->MinBytes = 64 << 20;
  decideAcceptance(Fast, 1.05);
  EXPECT_FALSE(Fast.Accepted);
  EXPECT_EQ(Fast.RejectKind, "too-fast");

  CandidateVerdict Big;
  Big.Correct = true;
  Big.Timing = timing(1000, 50, 18, 22);
  decideAcceptance(Big, 1.05);
  EXPECT_TRUE(Big.Accepted);
  ASSERT_FALSE(Big.Notes.empty());
  EXPECT_NE(Big.Notes[0].find("more than 10x"), std::string::npos);
}

TEST(Json, VerdictRoundTrip) {
  CandidateVerdict V;
  V.Name = "fast.cu";
  V.Exact = Exactness::Bitwise;
  V.Compiled = true;
  V.Correct = true;
  InputSetResult S;
  S.Index = 1;
  S.Ok = false;
  BufferDiff D;
  D.Buffer = "out";
  D.Elements = 10;
  D.Mismatches = 2;
  D.Unwritten = 2;
  D.MaxAbsRef = 3.5;
  S.Diffs.push_back(D);
  S.Problems.push_back("out-of-bounds write");
  V.InputSets.push_back(S);
  V.Timing = timing(10, 5, 1.9, 2.1);
  V.Timing->OriginalUs = {10, 11};
  V.RejectKind = "unwritten-output";
  CandidateVerdict B;
  ASSERT_TRUE(fromJson(toJson(V), B));
  EXPECT_EQ(B.Name, "fast.cu");
  EXPECT_EQ(B.Exact, Exactness::Bitwise);
  ASSERT_EQ(B.InputSets.size(), 1u);
  EXPECT_EQ(B.InputSets[0].Diffs[0].Unwritten, 2u);
  EXPECT_DOUBLE_EQ(B.InputSets[0].Diffs[0].MaxAbsRef, 3.5);
  EXPECT_EQ(B.InputSets[0].Problems[0], "out-of-bounds write");
  ASSERT_TRUE(B.Timing.has_value());
  EXPECT_DOUBLE_EQ(B.Timing->CiLow, 1.9);
  EXPECT_EQ(B.Timing->OriginalUs.size(), 2u);
  EXPECT_EQ(B.RejectKind, "unwritten-output");

  GpuInfo G = h200(), G2;
  G.L2Bytes = 62914560;
  ASSERT_TRUE(fromJson(toJson(G), G2));
  EXPECT_EQ(G2.Name, "NVIDIA H200");
  EXPECT_EQ(G2.L2Bytes, 62914560);
}

TEST(Summary, TableHasEveryCandidate) {
  VerifyReport R;
  R.Gpu = h200();
  KernelReport K;
  K.Kernel = "transpose";
  CandidateVerdict A;
  A.Name = "tiled.cu";
  A.Accepted = true;
  A.Reason = "2.00x faster";
  A.Timing = timing(100, 50, 1.9, 2.1);
  CandidateVerdict B;
  B.Name = "partial.cu";
  B.RejectKind = "unwritten-output";
  B.Reason = "out: 10 of 100 elements differ";
  K.Candidates = {A, B};
  R.Kernels.push_back(K);
  std::string S;
  llvm::raw_string_ostream OS(S);
  printSummaryTable(R, OS);
  EXPECT_NE(S.find("tiled.cu"), std::string::npos);
  EXPECT_NE(S.find("ACCEPTED"), std::string::npos);
  EXPECT_NE(S.find("100.0 us"), std::string::npos);
  EXPECT_NE(S.find("[unwritten-output]"), std::string::npos);
  EXPECT_NE(S.find("2.00x"), std::string::npos);
}

TEST(Format, Time) {
  EXPECT_EQ(formatTime(812.44), "812.4 us");
  EXPECT_EQ(formatTime(1250), "1.25 ms");
  EXPECT_EQ(formatTime(0.037), "37.0 ns");
  EXPECT_EQ(archFromCc(9, 0), "sm_90");
}
