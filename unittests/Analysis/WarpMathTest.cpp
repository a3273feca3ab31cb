//===- WarpMathTest.cpp - sectors per request and bank conflicts ----------===//
#include "cudal1/Analysis/Affine.h"
#include "gtest/gtest.h"

using namespace cudal1;

namespace {
AffineExpr S(const char *N) { return AffineExpr::symbol(N); }
AffineExpr C(int64_t V) { return AffineExpr::constant(V); }
const BlockShape Unknown{0, 0, 0};
AffineExpr tx() { return S("threadIdx.x"); }
AffineExpr ty() { return S("threadIdx.y"); }
} // namespace

TEST(GlobalRequest, ConsecutiveFloatsAreCoalesced) {
  WarpRequest W = analyzeGlobalRequest(tx() * C(4), 4, 4, {256, 1, 1});
  EXPECT_EQ(W.Class, AccessClass::Coalesced);
  EXPECT_EQ(W.Sectors, 4u);
  EXPECT_EQ(W.IdealSectors, 4u);
  EXPECT_EQ(*W.StrideElems, 1);
}

TEST(GlobalRequest, DoublesAndFloat4) {
  EXPECT_EQ(analyzeGlobalRequest(tx() * C(8), 8, 8, Unknown).Sectors, 8u);
  WarpRequest V = analyzeGlobalRequest(tx() * C(16), 16, 16, Unknown);
  EXPECT_EQ(V.Class, AccessClass::Coalesced);
  EXPECT_EQ(V.Sectors, 16u);
  EXPECT_EQ(V.IdealSectors, 16u);
}

TEST(GlobalRequest, StrideTwoDoublesTraffic) {
  WarpRequest W = analyzeGlobalRequest(tx() * C(8), 4, 4, Unknown);
  EXPECT_EQ(W.Class, AccessClass::Strided);
  EXPECT_EQ(W.Sectors, 8u);
  EXPECT_DOUBLE_EQ(W.Factor, 2.0);
  EXPECT_EQ(*W.StrideElems, 2);
}

TEST(GlobalRequest, ArrayOfStructuresField) {
  // struct { float x, y, z; }: p[i].y -> 12*i + 4
  WarpRequest W = analyzeGlobalRequest(tx() * C(12) + C(4), 4, 4, Unknown);
  EXPECT_EQ(W.Class, AccessClass::Strided);
  EXPECT_EQ(W.Sectors, 12u);
  EXPECT_DOUBLE_EQ(W.Factor, 3.0);
  EXPECT_EQ(*W.StrideElems, 3);
}

TEST(GlobalRequest, LargeConstantStrideIsOneSectorPerLane) {
  WarpRequest W = analyzeGlobalRequest(tx() * C(4096), 4, 4, Unknown);
  EXPECT_EQ(W.Class, AccessClass::Strided);
  EXPECT_EQ(W.Sectors, 32u);
  EXPECT_DOUBLE_EQ(W.Factor, 8.0);
}

TEST(GlobalRequest, ThreadInSlowDimensionIsUncoalesced) {
  // A[(blockIdx.x*blockDim.x + threadIdx.x) * N + k]
  AffineExpr Row = S("blockIdx.x") * S("blockDim.x") + tx();
  AffineExpr Addr = (Row * S("N") + S("k@1")) * C(4);
  WarpRequest W = analyzeGlobalRequest(Addr, 4, 4, Unknown);
  EXPECT_EQ(W.Class, AccessClass::Uncoalesced);
  EXPECT_EQ(W.Sectors, 32u);
  EXPECT_EQ(W.StrideText, "N");
  EXPECT_FALSE(W.Condition.empty());
  EXPECT_FALSE(W.Assumption.empty()); // block shape unknown
}

TEST(GlobalRequest, BroadcastWhenNoLaneDependence) {
  WarpRequest W = analyzeGlobalRequest(S("k@1") * C(4), 4, 4, {128, 1, 1});
  EXPECT_EQ(W.Class, AccessClass::Broadcast);
  EXPECT_EQ(W.Sectors, 1u);
}

TEST(GlobalRequest, TwoDimensionalBlocksUseTheLaunchShape) {
  // row*N + col with a 16x16 block: a warp covers 2 rows x 16 columns,
  // 2 x 64 bytes = 4 sectors: as good as 1-D.
  AffineExpr Addr = (ty() * S("N") + tx()) * C(4);
  WarpRequest W = analyzeGlobalRequest(Addr, 4, 4, {16, 16, 1});
  EXPECT_EQ(W.Class, AccessClass::Coalesced);
  EXPECT_EQ(W.Sectors, 4u);
  // The transposed access col*N + row: 16 columns x 2 adjacent rows.
  AffineExpr T = (tx() * S("N") + ty()) * C(4);
  WarpRequest WT = analyzeGlobalRequest(T, 4, 4, {16, 16, 1});
  EXPECT_EQ(WT.Class, AccessClass::Uncoalesced);
  EXPECT_EQ(WT.Sectors, 16u);
  EXPECT_TRUE(WT.Assumption.empty());
}

TEST(GlobalRequest, FlattenedTwoDimensionalIndexWithKnownBlock) {
  // threadIdx.y * 8 + threadIdx.x with an 8x4 block: 32 consecutive floats.
  AffineExpr Addr = (ty() * C(8) + tx()) * C(4);
  EXPECT_EQ(analyzeGlobalRequest(Addr, 4, 4, {8, 4, 1}).Class,
            AccessClass::Coalesced);
}

TEST(GlobalRequest, UnknownAddress) {
  WarpRequest W = analyzeGlobalRequest(AffineExpr::unknown(), 4, 4, Unknown);
  EXPECT_EQ(W.Class, AccessClass::Unknown);
  EXPECT_FALSE(W.Why.empty());
  WarpRequest Q = analyzeGlobalRequest(tx() * tx() * C(4), 4, 4, Unknown);
  EXPECT_EQ(Q.Class, AccessClass::Unknown);
}

TEST(SharedRequest, ConsecutiveWordsHaveNoConflict) {
  BankResult B = analyzeSharedRequest(tx() * C(4), 4, Unknown);
  ASSERT_TRUE(B.Known);
  EXPECT_EQ(B.Ways, 1u);
  EXPECT_EQ(B.Wavefronts, 1u);
}

TEST(SharedRequest, ColumnOfA32x32TileIs32Way) {
  // tile[threadIdx.x][threadIdx.y] with float tile[32][32]
  BankResult B = analyzeSharedRequest(tx() * C(128) + ty() * C(4), 4,
                                      {32, 8, 1});
  ASSERT_TRUE(B.Known);
  EXPECT_EQ(B.Ways, 32u);
  EXPECT_EQ(B.Wavefronts, 32u);
  EXPECT_EQ(*B.StrideWords, 32);
}

TEST(SharedRequest, PaddingRemovesTheConflict) {
  BankResult B = analyzeSharedRequest(tx() * C(132) + ty() * C(4), 4,
                                      {32, 8, 1});
  ASSERT_TRUE(B.Known);
  EXPECT_EQ(B.Ways, 1u);
}

TEST(SharedRequest, EvenStridesConflict) {
  EXPECT_EQ(analyzeSharedRequest(tx() * C(8), 4, Unknown).Ways, 2u);
  EXPECT_EQ(analyzeSharedRequest(tx() * C(16), 4, Unknown).Ways, 4u);
  EXPECT_EQ(analyzeSharedRequest(tx() * C(12), 4, Unknown).Ways, 1u);
}

TEST(SharedRequest, BroadcastAndWideAccesses) {
  EXPECT_EQ(analyzeSharedRequest(C(0), 4, Unknown).Ways, 1u);
  // float2, consecutive: two half-warp phases, no conflict.
  BankResult B2 = analyzeSharedRequest(tx() * C(8), 8, Unknown);
  EXPECT_EQ(B2.Wavefronts, 2u);
  EXPECT_EQ(B2.Ideal, 2u);
  // float4, consecutive: four quarter-warp phases.
  BankResult B4 = analyzeSharedRequest(tx() * C(16), 16, Unknown);
  EXPECT_EQ(B4.Wavefronts, 4u);
  EXPECT_EQ(B4.Ideal, 4u);
}

TEST(SharedRequest, SymbolicStrideIsUnknown) {
  BankResult B = analyzeSharedRequest(tx() * S("s@1") * C(8), 4, Unknown);
  EXPECT_FALSE(B.Known);
}

TEST(WarpLanes, ShapeFromLaunch) {
  std::string A;
  auto L = warpLanes({16, 16, 1}, A);
  EXPECT_TRUE(A.empty());
  EXPECT_EQ(L[17][0], 1);
  EXPECT_EQ(L[17][1], 1);
  auto U = warpLanes({0, 0, 0}, A);
  EXPECT_FALSE(A.empty());
  EXPECT_EQ(U[31][0], 31);
}
