//===- CompareTest.cpp - fill, poison, guards, ulp, tolerance -------------===//
#include "cudal1/Verify/Compare.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>

using namespace cudal1;

namespace {
Bytes floats(std::initializer_list<float> L) {
  Bytes B(L.size() * 4);
  size_t I = 0;
  for (float F : L)
    std::memcpy(&B[4 * I++], &F, 4);
  return B;
}
float at(const Bytes &B, size_t I) {
  float F;
  std::memcpy(&F, &B[4 * I], 4);
  return F;
}
} // namespace

TEST(Fill, DeterministicAndInRange) {
  Distribution U{Distribution::Uniform, -2, 3};
  Bytes A = fillBuffer(ElemKind::F32, 4, 1000, U, 5);
  Bytes B = fillBuffer(ElemKind::F32, 4, 1000, U, 5);
  Bytes C = fillBuffer(ElemKind::F32, 4, 1000, U, 6);
  EXPECT_EQ(A, B);
  EXPECT_NE(A, C);
  for (size_t I = 0; I < 1000; ++I) {
    EXPECT_GE(at(A, I), -2.0f);
    EXPECT_LE(at(A, I), 3.0f);
  }
}

TEST(Fill, ValuesInOrderThenCycled) {
  Distribution D;
  D.K = Distribution::Values;
  D.List = {9, 76, 50};
  Bytes I = fillBuffer(ElemKind::I32, 4, 5, D, 3);
  std::vector<int32_t> Got(5);
  std::memcpy(Got.data(), I.data(), 20);
  EXPECT_EQ(Got, (std::vector<int32_t>{9, 76, 50, 9, 76}));
  D.List = {0.25, 1.0f / 3};
  Bytes F = fillBuffer(ElemKind::F32, 4, 2, D, 3);
  EXPECT_EQ(at(F, 0), 0.25f);
  EXPECT_EQ(at(F, 1), 1.0f / 3);
}

TEST(Fill, NormalMoments) {
  Bytes A = fillBuffer(ElemKind::F64, 8, 100000,
                       {Distribution::Normal, 5, 2}, 1);
  double Sum = 0, Sq = 0;
  for (size_t I = 0; I < 100000; ++I) {
    double D;
    std::memcpy(&D, &A[8 * I], 8);
    Sum += D;
    Sq += D * D;
  }
  double Mean = Sum / 1e5, Var = Sq / 1e5 - Mean * Mean;
  EXPECT_NEAR(Mean, 5.0, 0.05);
  EXPECT_NEAR(std::sqrt(Var), 2.0, 0.05);
}

TEST(Fill, IntIotaConstantZero) {
  Bytes I = fillBuffer(ElemKind::I32, 4, 1000, {Distribution::IntRange, 3, 5},
                       9);
  for (size_t K = 0; K < 1000; ++K) {
    int32_t V;
    std::memcpy(&V, &I[4 * K], 4);
    EXPECT_TRUE(V >= 3 && V <= 5);
  }
  Bytes Io = fillBuffer(ElemKind::F32, 4, 4, {Distribution::Iota, 1, 2}, 0);
  EXPECT_EQ(at(Io, 3), 7.0f);
  Bytes C = fillBuffer(ElemKind::U8, 1, 3, {Distribution::Constant, 7, 0}, 0);
  EXPECT_EQ(C, Bytes({7, 7, 7}));
  Bytes Z = fillBuffer(ElemKind::F64, 8, 2, {Distribution::Zero, 0, 0}, 0);
  EXPECT_EQ(Z, Bytes(16, 0));
  Bytes H = fillBuffer(ElemKind::F16, 2, 2, {Distribution::Constant, 1.5, 0}, 0);
  uint16_t Hv;
  std::memcpy(&Hv, &H[0], 2);
  EXPECT_EQ(Hv, 0x3e00);
  EXPECT_EQ(halfToFloat(Hv), 1.5f);
  Bytes Bf = fillBuffer(ElemKind::BF16, 2, 1, {Distribution::Constant, -2, 0}, 0);
  uint16_t Bv;
  std::memcpy(&Bv, &Bf[0], 2);
  EXPECT_EQ(bf16ToFloat(Bv), -2.0f);
}

TEST(Poison, NaNForFloatsFFForInts) {
  Bytes P = poisonBuffer(ElemKind::F32, 4, 3);
  for (size_t I = 0; I < 3; ++I)
    EXPECT_TRUE(std::isnan(at(P, I)));
  EXPECT_EQ(poisonBuffer(ElemKind::I32, 4, 2), Bytes(8, 0xFF));
  Bytes H = poisonBuffer(ElemKind::F16, 2, 1);
  uint16_t Hv;
  std::memcpy(&Hv, &H[0], 2);
  EXPECT_TRUE(std::isnan(halfToFloat(Hv)));
  Bytes D = poisonBuffer(ElemKind::F64, 8, 1);
  double Dv;
  std::memcpy(&Dv, &D[0], 8);
  EXPECT_TRUE(std::isnan(Dv));
}

TEST(Guard, DetectsAnyChange) {
  Bytes G = guardPattern(4096);
  uint64_t First = 0;
  EXPECT_EQ(checkGuard(G.data(), G.size(), First), 0u);
  G[100] ^= 1;
  G[4000] = guardByte(4000) + 1;
  EXPECT_EQ(checkGuard(G.data(), G.size(), First), 2u);
  EXPECT_EQ(First, 100u);
  // A zero write and an 0xFF write both show (the pattern has neither
  // everywhere).
  Bytes Z = guardPattern(64);
  Bytes Orig = Z;
  for (size_t I = 0; I < 64; ++I)
    EXPECT_TRUE(Orig[I] != 0 || Orig[(I + 1) % 64] != 0);
}

TEST(Ulp, Distances) {
  EXPECT_EQ(ulpDistance(1.0f, 1.0f), 0u);
  EXPECT_EQ(ulpDistance(1.0f, std::nextafter(1.0f, 2.0f)), 1u);
  EXPECT_EQ(ulpDistance(-0.0f, 0.0f), 0u);
  EXPECT_EQ(ulpDistance(std::nextafter(0.0f, -1.0f), std::nextafter(0.0f, 1.0f)),
            2u);
  EXPECT_EQ(ulpDistance(NAN, 1.0f), UINT64_MAX);
  EXPECT_EQ(ulpDistance(double(NAN), double(NAN)), 0u);
  EXPECT_EQ(ulpDistance(1.0, std::nextafter(std::nextafter(1.0, 2.0), 2.0)), 2u);
}

TEST(Compare, BitwiseAndTolerance) {
  Tolerance T;
  Bytes Ref = floats({1.0f, 2.0f, 1000.0f});
  Bytes Near = floats({1.0f, 2.0f * (1 + 5e-5f), 1000.0f});
  Bytes Far = floats({1.0f, 2.0f * (1 + 5e-4f), 1000.0f});
  Bytes Poison = poisonBuffer(ElemKind::F32, 4, 3);
  EXPECT_TRUE(compareBuffer("o", ElemKind::F32, 4, Ref, Ref, Poison, true, T).ok());
  BufferDiff B = compareBuffer("o", ElemKind::F32, 4, Ref, Near, Poison, true, T);
  EXPECT_EQ(B.Mismatches, 1u);
  EXPECT_EQ(B.FirstBad, 1u);
  EXPECT_GT(B.BytesDiffering, 0u);
  EXPECT_TRUE(compareBuffer("o", ElemKind::F32, 4, Ref, Near, Poison, false, T).ok());
  BufferDiff F = compareBuffer("o", ElemKind::F32, 4, Ref, Far, Poison, false, T);
  EXPECT_EQ(F.Mismatches, 1u);
  EXPECT_NEAR(F.MaxRelErr, 5e-4, 1e-6);
  EXPECT_NE(F.str().find("o: 1 of 3 elements differ; first at [1]"),
            std::string::npos)
      << F.str();
}

// Equal runs are skipped a block of 4096 elements at a time: a difference
// anywhere (the first element of a block, the last element of the buffer, an
// element past a partial block) is still found and counted exactly.
TEST(Compare, DifferencesFoundPastEqualBlocks) {
  Tolerance T;
  const uint64_t N = 3 * 4096 + 100;
  Bytes Ref(N), Poison = poisonBuffer(ElemKind::U8, 1, N);
  for (uint64_t I = 0; I < N; ++I)
    Ref[I] = uint8_t(I * 7);
  EXPECT_TRUE(compareBuffer("px", ElemKind::U8, 1, Ref, Ref, Poison, false, T).ok());
  Bytes Got = Ref;
  for (uint64_t I : {uint64_t(4096), uint64_t(2 * 4096 + 4095), N - 1})
    Got[I] ^= 1;
  BufferDiff D = compareBuffer("px", ElemKind::U8, 1, Ref, Got, Poison, false, T);
  EXPECT_EQ(D.Mismatches, 3u);
  EXPECT_EQ(D.FirstBad, 4096u);
  EXPECT_EQ(D.BytesDiffering, 3u);
  EXPECT_EQ(D.Elements, N);
  // Floats within tolerance in one block, one beyond it in a later block.
  std::vector<float> V(2 * 4096, 1.0f);
  Bytes FRef(V.size() * 4), FGot(V.size() * 4);
  std::memcpy(FRef.data(), V.data(), FRef.size());
  V[10] = 1.0f + 5e-5f;
  V[4096 + 3] = 1.0f + 5e-3f;
  std::memcpy(FGot.data(), V.data(), FGot.size());
  BufferDiff F = compareBuffer("f", ElemKind::F32, 4, FRef, FGot,
                               poisonBuffer(ElemKind::F32, 4, 2 * 4096), false, T);
  EXPECT_EQ(F.Mismatches, 1u);
  EXPECT_EQ(F.FirstBad, 4096u + 3);
  EXPECT_NEAR(F.MaxRelErr, 5e-3, 1e-5);
}

TEST(Compare, UnwrittenPoisonCounted) {
  Tolerance T;
  Bytes Ref = floats({1, 2, 3, 4});
  Bytes Poison = poisonBuffer(ElemKind::F32, 4, 4);
  Bytes Got = Ref;
  std::memcpy(&Got[8], &Poison[8], 8); // last two never written
  BufferDiff D = compareBuffer("out", ElemKind::F32, 4, Ref, Got, Poison, false, T);
  EXPECT_EQ(D.Mismatches, 2u);
  EXPECT_EQ(D.Unwritten, 2u);
  EXPECT_NE(D.str().find("2 never written: still poison"), std::string::npos);
  EXPECT_NE(D.str().find("expected 3, got nan"), std::string::npos) << D.str();
}

TEST(Compare, NaNsMatchNaNs) {
  Tolerance T;
  Bytes Ref = floats({NAN, 1});
  Bytes Got = floats({NAN, 1});
  EXPECT_TRUE(compareBuffer("o", ElemKind::F32, 4, Ref, Got, {}, false, T).ok());
  Bytes Got2 = floats({0, 1});
  EXPECT_FALSE(compareBuffer("o", ElemKind::F32, 4, Ref, Got2, {}, false, T).ok());
}

TEST(Compare, UlpOption) {
  Tolerance T;
  T.F32Rtol = 0;
  T.F32Atol = 0;
  T.MaxUlp = 2;
  float A = 1.0f, B = std::nextafter(std::nextafter(A, 2.0f), 2.0f);
  float C = std::nextafter(B, 2.0f);
  EXPECT_TRUE(compareBuffer("o", ElemKind::F32, 4, floats({A}), floats({B}), {},
                            false, T).ok());
  BufferDiff D = compareBuffer("o", ElemKind::F32, 4, floats({A}), floats({C}),
                               {}, false, T);
  EXPECT_FALSE(D.ok());
  EXPECT_EQ(D.MaxUlp, 3u);
}

// A sum that cancels: the second output is near zero, its error follows the
// size of the first. scale_rtol judges it against the buffer's largest value,
// and still rejects a wrong value.
TEST(Compare, ScaleRtolForCancellingSums) {
  Tolerance T;
  Bytes Ref = floats({1000, 0.001f});
  BufferDiff D = compareBuffer("o", ElemKind::F32, 4, Ref,
                               floats({1000, 0.002f}), {}, false, T);
  EXPECT_EQ(D.Mismatches, 1u);
  EXPECT_DOUBLE_EQ(D.MaxAbsRef, 1000);
  EXPECT_NE(D.str().find("max abs err / max |expected| 1.0000000"),
            std::string::npos) << D.str();
  T.ScaleRtol = 1e-5; // allows 0.01 here
  EXPECT_TRUE(compareBuffer("o", ElemKind::F32, 4, Ref, floats({1000, 0.002f}),
                            {}, false, T).ok());
  EXPECT_FALSE(compareBuffer("o", ElemKind::F32, 4, Ref, floats({1000, 0.5f}),
                             {}, false, T).ok());
  // Infinite references do not set the scale.
  BufferDiff I = compareBuffer("o", ElemKind::F32, 4, floats({INFINITY, 1}),
                               floats({INFINITY, 1.5f}), {}, false, T);
  EXPECT_DOUBLE_EQ(I.MaxAbsRef, 1);
  EXPECT_FALSE(I.ok());
  // Bitwise stays bitwise.
  EXPECT_FALSE(compareBuffer("o", ElemKind::F32, 4, Ref, floats({1000, 0.002f}),
                             {}, true, T).ok());
}

// The original's own sensitivity: per element, Factor times its move under
// perturbed inputs; an element allowed more passes, the others do not.
TEST(Compare, ConditioningAllowancePerElement) {
  Bytes Ref = floats({1e6f, 1.0f, 2.0f, NAN});
  Bytes Moved = floats({1e6f + 64, 1.0f, 2.0f, 3.0f});
  std::vector<double> A =
      conditioningAllowance(ElemKind::F32, 4, Ref, Moved, 4.0);
  ASSERT_EQ(A.size(), 4u);
  EXPECT_DOUBLE_EQ(A[0], 256.0);
  EXPECT_DOUBLE_EQ(A[1], 0.0);
  EXPECT_DOUBLE_EQ(A[3], 0.0); // not finite: no allowance
  Tolerance T;
  Bytes Got = floats({1e6f + 200, 1.0f, 2.0f, NAN});
  EXPECT_FALSE(
      compareBuffer("y", ElemKind::F32, 4, Ref, Got, {}, false, T).ok());
  EXPECT_TRUE(
      compareBuffer("y", ElemKind::F32, 4, Ref, Got, {}, false, T, &A).ok());
  // The allowance of element 0 does not cover element 1.
  Bytes Off = floats({1e6f, 1.5f, 2.0f, NAN});
  EXPECT_FALSE(
      compareBuffer("y", ElemKind::F32, 4, Ref, Off, {}, false, T, &A).ok());
  // Bitwise stays bitwise.
  EXPECT_FALSE(
      compareBuffer("y", ElemKind::F32, 4, Ref, Got, {}, true, T, &A).ok());
  // Overflow: NaN against inf matches only with an allowance.
  Bytes Nan = floats({1e6f, 1.0f, 2.0f, INFINITY});
  EXPECT_FALSE(
      compareBuffer("y", ElemKind::F32, 4, Ref, Nan, {}, false, T).ok());
  EXPECT_TRUE(
      compareBuffer("y", ElemKind::F32, 4, Ref, Nan, {}, false, T, &A).ok());
  // Not the other infinity, not the poison of an unwritten element.
  Bytes PosInf = floats({1e6f, 1.0f, 2.0f, INFINITY});
  Bytes NegInf = floats({1e6f, 1.0f, 2.0f, -INFINITY});
  EXPECT_FALSE(compareBuffer("y", ElemKind::F32, 4, PosInf, NegInf, {}, false,
                             T, &A)
                   .ok());
  Bytes Poison = floats({0, 0, 0, NAN});
  EXPECT_FALSE(compareBuffer("y", ElemKind::F32, 4, PosInf, Poison, Poison,
                             false, T, &A)
                   .ok());
  // ... and never a finite value against a non-finite one.
  Bytes Fin = floats({1e6f, 1.0f, 2.0f, 5.0f});
  EXPECT_FALSE(
      compareBuffer("y", ElemKind::F32, 4, Ref, Fin, {}, false, T, &A).ok());
}

TEST(Compare, PerturbWithinRoundingMovesFloatsByTwoToTheMinus18) {
  Bytes B = floats({1.0f, -3.0f, 0.0f, INFINITY, 1024.0f});
  Bytes C = B;
  perturbWithinRounding(ElemKind::F32, 4, C, 7);
  for (size_t I = 0; I < 5; ++I) {
    float Was = at(B, I), Now = at(C, I);
    if (!std::isfinite(Was) || Was == 0) {
      EXPECT_TRUE(Was == Now || (std::isnan(Was) && std::isnan(Now)));
      continue;
    }
    EXPECT_NE(Was, Now) << I;
    EXPECT_NEAR(std::fabs(Now / Was - 1), std::ldexp(1.0, -18), 1e-6) << I;
  }
  Bytes D = B;
  perturbWithinRounding(ElemKind::F32, 4, D, 7);
  EXPECT_EQ(C, D); // deterministic
  // Doubles move by 2^-47; half is not perturbed.
  Bytes Dbl(8);
  double One = 1.0;
  std::memcpy(Dbl.data(), &One, 8);
  perturbWithinRounding(ElemKind::F64, 8, Dbl, 3);
  double Moved;
  std::memcpy(&Moved, Dbl.data(), 8);
  EXPECT_NEAR(std::fabs(Moved - 1.0), std::ldexp(1.0, -47), 1e-16);
  Bytes Half(4, 0x3c);
  Bytes HalfSame = Half;
  perturbWithinRounding(ElemKind::F16, 2, Half, 3);
  EXPECT_EQ(Half, HalfSame);
  Bytes Ints(8, 5);
  Bytes Same = Ints;
  perturbWithinRounding(ElemKind::I32, 4, Ints, 7);
  EXPECT_EQ(Ints, Same);
}

// A per-thread atomic sum reordered by a warp sum: the tolerance grows with
// the number of terms, 2(n-1)u, between the kind's rtol and 1e-2, only for
// the buffers named in GridSums.
TEST(Compare, GridSumToleranceGrowsWithTheTerms) {
  EXPECT_DOUBLE_EQ(gridSumRtol(ElemKind::F32, 1, 1e-4), 1e-4);
  EXPECT_DOUBLE_EQ(gridSumRtol(ElemKind::F32, 100, 1e-4), 1e-4); // 1.2e-5
  EXPECT_NEAR(gridSumRtol(ElemKind::F32, 8193, 1e-4),
              2.0 * 8192 * std::ldexp(1.0, -24), 1e-12); // 9.8e-4
  EXPECT_DOUBLE_EQ(gridSumRtol(ElemKind::F32, 1u << 20, 1e-4), 1e-2);
  EXPECT_NEAR(gridSumRtol(ElemKind::F64, 1u << 20, 1e-9), 1e-9, 1e-15);
  EXPECT_DOUBLE_EQ(gridSumRtol(ElemKind::I32, 1u << 20, 0), 0);

  Tolerance T;
  T.GridSums = {"res"};
  std::string Note;
  // 1M threads: a 5.6e-4 relative difference (seen on the H200 for such a
  // sum) passes on 'res', fails on another buffer and beyond 1e-2.
  Tolerance R = toleranceForBuffer(T, "res", ElemKind::F32, 1u << 20, &Note);
  EXPECT_DOUBLE_EQ(R.F32Rtol, 1e-2);
  EXPECT_NE(Note.find("'res' sums up to 1048576 terms"), std::string::npos)
      << Note;
  Bytes Ref = floats({698475.5f});
  EXPECT_TRUE(compareBuffer("res", ElemKind::F32, 4, Ref, floats({698867.7f}),
                            {}, false, R).ok());
  EXPECT_FALSE(compareBuffer("res", ElemKind::F32, 4, Ref,
                             floats({698475.5f * 1.02f}), {}, false, R).ok());
  std::string None;
  Tolerance O = toleranceForBuffer(T, "out", ElemKind::F32, 1u << 20, &None);
  EXPECT_DOUBLE_EQ(O.F32Rtol, T.F32Rtol);
  EXPECT_TRUE(None.empty());
  EXPECT_FALSE(compareBuffer("out", ElemKind::F32, 4, Ref, floats({698867.7f}),
                             {}, false, O).ok());
  // Few threads: nothing wider, nothing said.
  std::string Small;
  EXPECT_DOUBLE_EQ(
      toleranceForBuffer(T, "res", ElemKind::F32, 256, &Small).F32Rtol,
      T.F32Rtol);
  EXPECT_TRUE(Small.empty());
}

TEST(Compare, ScalarArgBytes) {
  ScalarSpec S;
  S.Kind = ElemKind::F32;
  S.Size = 4;
  S.Value = {true, 0, 2.5};
  EXPECT_EQ(scalarArgBytes(S), (Bytes{0x00, 0x00, 0x20, 0x40}));
  S.Kind = ElemKind::F16;
  S.Size = 2;
  S.Value = {false, 3, 0}; // an integer value for a half parameter
  EXPECT_EQ(scalarArgBytes(S), (Bytes{0x00, 0x42}));
  S.Kind = ElemKind::BF16;
  S.Value = {true, 0, 1.5};
  EXPECT_EQ(scalarArgBytes(S), (Bytes{0xC0, 0x3F}));
  // 64-bit integers keep every bit (no detour through double).
  S.Kind = ElemKind::I64;
  S.Size = 8;
  S.Value = {false, 0x123456789ABCDEF1LL, 0};
  EXPECT_EQ(scalarArgBytes(S),
            (Bytes{0xF1, 0xDE, 0xBC, 0x9A, 0x78, 0x56, 0x34, 0x12}));
  S.Kind = ElemKind::Bool;
  S.Size = 1;
  S.Value = {false, 7, 0};
  EXPECT_EQ(scalarArgBytes(S), (Bytes{1}));
}

TEST(Compare, IntegersExact) {
  Tolerance T;
  Bytes Ref(8, 0), Got(8, 0);
  Got[4] = 1;
  BufferDiff D = compareBuffer("i", ElemKind::I32, 4, Ref, Got, {}, false, T);
  EXPECT_EQ(D.Mismatches, 1u);
  EXPECT_EQ(D.FirstBadText, "expected 0, got 1");
}

TEST(Compare, HalfTolerance) {
  Tolerance T;
  double Atol, Rtol;
  toleranceFor(ElemKind::BF16, T, Atol, Rtol);
  EXPECT_DOUBLE_EQ(Rtol, 1e-2);
  toleranceFor(ElemKind::F32, T, Atol, Rtol);
  EXPECT_DOUBLE_EQ(Rtol, 1e-4);
  EXPECT_DOUBLE_EQ(Atol, 1e-5);
  Bytes Ref = fillBuffer(ElemKind::F16, 2, 1, {Distribution::Constant, 1.0, 0}, 0);
  Bytes Got = fillBuffer(ElemKind::F16, 2, 1, {Distribution::Constant, 1.0 + 1.0 / 256, 0}, 0);
  EXPECT_TRUE(compareBuffer("h", ElemKind::F16, 2, Ref, Got, {}, false, T).ok());
  Bytes Got2 = fillBuffer(ElemKind::F16, 2, 1, {Distribution::Constant, 1.1, 0}, 0);
  EXPECT_FALSE(compareBuffer("h", ElemKind::F16, 2, Ref, Got2, {}, false, T).ok());
}
