//===- StatsTest.cpp - median, percentile, bootstrap ----------------------===//
#include "cudal1/Verify/Stats.h"

#include "gtest/gtest.h"

using namespace cudal1;

TEST(Stats, MedianPercentile) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 2, 3}), 2.5);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 0), 1);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 100), 5);
  EXPECT_DOUBLE_EQ(percentile({1, 2, 3, 4, 5}, 25), 2);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(Stats, BootstrapRatioCoversTruth) {
  SplitMix64 R(3);
  std::vector<double> A, B;
  for (int I = 0; I < 50; ++I) {
    A.push_back(100 + 4 * (R.uniform01() - 0.5));
    B.push_back(50 + 2 * (R.uniform01() - 0.5));
  }
  RatioCI CI = bootstrapRatioCI(A, B);
  EXPECT_NEAR(CI.Ratio, 2.0, 0.05);
  EXPECT_LE(CI.Low, CI.Ratio);
  EXPECT_GE(CI.High, CI.Ratio);
  EXPECT_LT(CI.Low, 2.0 + 0.05);
  EXPECT_GT(CI.High, 2.0 - 0.05);
  EXPECT_LT(CI.High - CI.Low, 0.2);
  // Deterministic.
  RatioCI CI2 = bootstrapRatioCI(A, B);
  EXPECT_EQ(CI.Low, CI2.Low);
  EXPECT_EQ(CI.High, CI2.High);
}

TEST(Stats, BootstrapNoDifferenceStraddlesOne) {
  SplitMix64 R(11);
  std::vector<double> A, B;
  for (int I = 0; I < 40; ++I) {
    A.push_back(10 + R.uniform01());
    B.push_back(10 + R.uniform01());
  }
  RatioCI CI = bootstrapRatioCI(A, B);
  EXPECT_LT(CI.Low, 1.0);
  EXPECT_GT(CI.High, 1.0);
}

// A window whose kernel record went missing measured nothing: as a 0 in the
// samples it drags bootstrap medians to 0 (seen on an H200: a 925x candidate
// rejected with a 95% CI of 0.00x-1052x). Such samples are left out, and
// counted.
TEST(Stats, SamplesWithoutTheirKernelRecordAreLeftOut) {
  std::vector<double> Cand, Count, Orig;
  for (int I = 0; I < 50; ++I) {
    bool Lost = I % 5 < 2; // 40% of the windows recorded no kernel
    Cand.push_back(Lost ? 0 : 31 + (I % 3));
    Count.push_back(Lost ? 0 : 1);
    Orig.push_back(29450 + I);
  }
  RatioCI Raw = bootstrapRatioCI(Orig, Cand);
  EXPECT_LT(Raw.Low, 1.0); // the defect: a 900x speedup not shown
  unsigned Dropped = 0;
  std::vector<double> Kept = samplesWithCount(Cand, Count, 1, Dropped);
  EXPECT_EQ(Dropped, 20u);
  ASSERT_EQ(Kept.size(), 30u);
  for (double U : Kept)
    EXPECT_GE(U, 31);
  RatioCI CI = bootstrapRatioCI(Orig, Kept);
  EXPECT_GT(CI.Low, 800);
  // A window with an extra record (two kernels where one is expected) is
  // not a sample of the kernel either.
  std::vector<double> Two = samplesWithCount({5, 9, 5}, {1, 2, 1}, 1, Dropped);
  EXPECT_EQ(Dropped, 1u);
  EXPECT_EQ(Two, (std::vector<double>{5, 5}));
}
