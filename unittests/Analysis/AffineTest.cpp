//===- AffineTest.cpp - symbolic index expressions ------------------------===//
#include "cudal1/Analysis/Affine.h"
#include "gtest/gtest.h"

using namespace cudal1;

namespace {
AffineExpr S(const char *N) { return AffineExpr::symbol(N); }
AffineExpr C(int64_t V) { return AffineExpr::constant(V); }
} // namespace

TEST(Affine, ConstantsFold) {
  AffineExpr E = C(3) + C(4) * C(5);
  ASSERT_TRUE(E.isConstant());
  EXPECT_EQ(*E.constantValue(), 23);
  EXPECT_EQ(E.str(), "23");
  EXPECT_EQ(AffineExpr().str(), "0");
}

TEST(Affine, GlobalThreadIndex) {
  AffineExpr I = S("blockIdx.x") * S("blockDim.x") + S("threadIdx.x");
  EXPECT_EQ(I.str(), "blockIdx.x*blockDim.x + threadIdx.x");
  EXPECT_TRUE(I.dependsOnThread());
  EXPECT_FALSE(I.isAffine()); // blockIdx.x*blockDim.x has degree 2
  EXPECT_EQ(I.coefficientOf("threadIdx.x"), C(1));
  EXPECT_EQ(I.coefficientOf("blockIdx.x"), S("blockDim.x"));
  EXPECT_EQ(I.coefficientOf("threadIdx.y"), C(0));
}

TEST(Affine, RowMajorIndexCoefficients) {
  // (blockIdx.y*16 + threadIdx.y) * N + blockIdx.x*16 + threadIdx.x
  AffineExpr Row = S("blockIdx.y") * C(16) + S("threadIdx.y");
  AffineExpr Col = S("blockIdx.x") * C(16) + S("threadIdx.x");
  AffineExpr Idx = Row * S("N") + Col;
  EXPECT_EQ(Idx.coefficientOf("threadIdx.x"), C(1));
  EXPECT_EQ(Idx.coefficientOf("threadIdx.y"), S("N"));
  // Bytes for 4-byte elements.
  AffineExpr Bytes = Idx * C(4);
  EXPECT_EQ(Bytes.coefficientOf("threadIdx.y"), S("N") * C(4));
}

TEST(Affine, CancellationAndSubstitution) {
  AffineExpr E = S("i") * C(2) + S("threadIdx.x") - S("i") - S("i");
  EXPECT_EQ(E, S("threadIdx.x"));
  AffineExpr F = (S("blockDim.x") * S("blockIdx.x") + S("threadIdx.x"))
                     .substitute("blockDim.x", C(256));
  EXPECT_EQ(F.str(), "256*blockIdx.x + threadIdx.x");
}

TEST(Affine, NonLinearInThreadIsUnknownCoefficient) {
  AffineExpr E = S("threadIdx.x") * S("threadIdx.x");
  EXPECT_FALSE(E.coefficientOf("threadIdx.x").isKnown());
}

TEST(Affine, UnknownPropagates) {
  AffineExpr U = AffineExpr::unknown();
  EXPECT_FALSE((U + C(1)).isKnown());
  EXPECT_FALSE((C(2) * U).isKnown());
  EXPECT_EQ(U.str(), "unknown");
}

TEST(Affine, OverflowBecomesUnknown) {
  AffineExpr Big = C(INT64_MAX);
  EXPECT_FALSE((Big + C(1)).isKnown());
  EXPECT_FALSE((Big * C(2)).isKnown());
}

TEST(Affine, DisplayDropsInternalSuffixes) {
  EXPECT_EQ(displaySymbol("k@3"), "k");
  EXPECT_EQ(displaySymbol("{N / 16}@o2"), "(N / 16)");
  EXPECT_EQ((S("k@3") * C(4) + S("threadIdx.x")).str(), "4*k + threadIdx.x");
}
