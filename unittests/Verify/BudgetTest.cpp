//===- BudgetTest.cpp - how long verification may take -------------------===//
#include "cudal1/Verify/Budget.h"

#include "gtest/gtest.h"

using namespace cudal1;

namespace {

TEST(TimingPlan, ShortKernelKeepsRequested) {
  // 100 us: 2 x 55 x 2 x (100 + 200) us = 0.07 s, far below 30 s.
  TimingPlan P = planTiming(100e-6, 50, 5, 30);
  EXPECT_EQ(P.Samples, 50u);
  EXPECT_EQ(P.Warmup, 5u);
  EXPECT_FALSE(P.Reduced);
  EXPECT_TRUE(P.Note.empty());
  EXPECT_LT(P.EstimatedSeconds, 1.0);
}

TEST(TimingPlan, LongKernelFewerSamples) {
  // covariance on the H200: 527 ms per launch. One sample (original and
  // candidate) costs ~1.05 s, two rounds: ~13 samples fit in 30 s.
  TimingPlan P = planTiming(0.527, 50, 5, 30);
  EXPECT_TRUE(P.Reduced);
  EXPECT_EQ(P.Warmup, 1u);
  EXPECT_EQ(P.Samples, 13u);
  EXPECT_LE(P.EstimatedSeconds, 30.0);
  EXPECT_NE(P.Note.find("13 samples instead of 50"), std::string::npos)
      << P.Note;
  EXPECT_NE(P.Note.find("527.0 ms"), std::string::npos) << P.Note;
  EXPECT_NE(P.Note.find("CI"), std::string::npos);
}

TEST(TimingPlan, NeverBelowTheFloor) {
  // 5 s per launch: nothing fits; still MinTimingSamples samples.
  TimingPlan P = planTiming(5.0, 50, 5, 30);
  EXPECT_EQ(P.Samples, MinTimingSamples);
  EXPECT_EQ(P.Warmup, 1u);
  EXPECT_TRUE(P.Reduced);
  EXPECT_GT(P.EstimatedSeconds, 30.0);
  // Asked for fewer than the floor: what was asked.
  P = planTiming(5.0, 6, 5, 30);
  EXPECT_EQ(P.Samples, 6u);
}

TEST(TimingPlan, NoLimitOrUnmeasured) {
  TimingPlan P = planTiming(0.527, 50, 5, 0);
  EXPECT_EQ(P.Samples, 50u);
  EXPECT_FALSE(P.Reduced);
  P = planTiming(0, 50, 5, 30); // not measured (captured launches only)
  EXPECT_EQ(P.Samples, 50u);
  // Just above the limit: a few samples fewer, warm-up kept for kernels
  // under a millisecond.
  P = planTiming(0.5e-3, 50, 5, 0.1);
  EXPECT_TRUE(P.Reduced);
  EXPECT_EQ(P.Warmup, 5u);
  EXPECT_LT(P.Samples, 50u);
  EXPECT_GE(P.Samples, MinTimingSamples);
  EXPECT_LE(P.EstimatedSeconds, 0.1);
}

TEST(RunBudget, Unlimited) {
  RunBudget B;
  std::string Why;
  for (int I = 0; I < 100; ++I) {
    EXPECT_TRUE(B.mayStart(Why));
    B.record(1000);
  }
  EXPECT_FALSE(B.limited());
  EXPECT_TRUE(Why.empty());
}

TEST(RunBudget, SpentDeclines) {
  RunBudget B(300);
  std::string Why;
  EXPECT_TRUE(B.mayStart(Why));
  B.record(14);
  B.record(15);
  B.record(16);
  EXPECT_DOUBLE_EQ(B.spent(), 45);
  EXPECT_DOUBLE_EQ(B.left(), 255);
  EXPECT_TRUE(B.mayStart(Why));
  for (int I = 0; I < 16; ++I)
    B.record(15);
  // 285 s spent, 15 left, a candidate takes ~15 s: still starts.
  EXPECT_TRUE(B.mayStart(Why));
  B.record(10);
  // 295 spent, 5 left < 15 / 2: declined.
  EXPECT_FALSE(B.mayStart(Why));
  EXPECT_NE(Why.find("not verified: the run's verification budget of 300 s "
                     "was spent"),
            std::string::npos)
      << Why;
  EXPECT_NE(Why.find("20 candidate(s)"), std::string::npos) << Why;
  B.record(10);
  EXPECT_FALSE(B.mayStart(Why));
  EXPECT_DOUBLE_EQ(B.left(), 0);
  B.noteDeclined();
  EXPECT_EQ(B.declined(), 1u);
}

TEST(RunBudget, FirstCandidateAlwaysStarts) {
  RunBudget B(1);
  std::string Why;
  EXPECT_TRUE(B.mayStart(Why));
  B.record(100); // one long candidate spends it all
  EXPECT_FALSE(B.mayStart(Why));
}

} // namespace
