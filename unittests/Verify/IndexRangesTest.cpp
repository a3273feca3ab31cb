//===- IndexRangesTest.cpp - values of buffers used as indices ------------===//
#include "cudal1/Verify/IndexRanges.h"
#include "cudal1/Verify/Compare.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <set>

using namespace cudal1;

namespace {

IndexExpr C(int64_t V) { return IndexExpr::constant(V); }
IndexExpr P(const std::string &N) {
  IndexExpr E;
  E.Kind = IndexExpr::Param;
  E.Name = N;
  return E;
}
IndexExpr B(const std::string &N) {
  IndexExpr E;
  E.Kind = IndexExpr::Builtin;
  E.Name = N;
  return E;
}
IndexExpr Ld(unsigned Buf) {
  IndexExpr E;
  E.Kind = IndexExpr::Load;
  E.Buffer = Buf;
  return E;
}
IndexExpr Op(IndexExpr::KindT K, IndexExpr A, IndexExpr Bx) {
  return IndexExpr::op(K, std::move(A), std::move(Bx));
}
IndexExpr Rng(IndexExpr Lo, IndexExpr Hi) {
  return Op(IndexExpr::Range, std::move(Lo), std::move(Hi));
}
IndexUse use(unsigned Target, IndexExpr I, bool Write = false,
             const std::string &Text = "q[.]") {
  IndexUse U;
  U.Target = Target;
  U.Index = std::move(I);
  U.Write = Write;
  U.Access = Text;
  U.Where = "k.cu:1:1";
  return U;
}

const IndexInterval Int32{INT32_MIN, INT32_MAX};
const IndexInterval Default{0, 100};

TEST(IndexInterval, Arithmetic) {
  IndexRangeEnv Env;
  Env.Params["dim"] = 16;
  Env.Block = {256, 1, 1};
  Env.Grid = {8, 1, 1};
  Env.Loads[1] = {0, 9};
  IndexInterval R;
  std::string Why;
  // c * dim + f, f in [0, dim - 1]
  IndexExpr E = Op(IndexExpr::Add, Op(IndexExpr::Mul, Ld(1), P("dim")),
                   Rng(C(0), Op(IndexExpr::Sub, P("dim"), C(1))));
  ASSERT_TRUE(indexInterval(E, Env, R, Why)) << Why;
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 9 * 16 + 15);
  // blockIdx.x * blockDim.x + threadIdx.x
  IndexExpr T = Op(IndexExpr::Add,
                   Op(IndexExpr::Mul, B("blockIdx.x"), B("blockDim.x")),
                   B("threadIdx.x"));
  ASSERT_TRUE(indexInterval(T, Env, R, Why)) << Why;
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 8 * 256 - 1);
  // Remainder, shift, mask, min.
  ASSERT_TRUE(indexInterval(Op(IndexExpr::Rem, Ld(1), C(4)), Env, R, Why));
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 3);
  ASSERT_TRUE(indexInterval(Op(IndexExpr::Shr, Ld(1), C(1)), Env, R, Why));
  EXPECT_EQ(R.Hi, 4);
  ASSERT_TRUE(indexInterval(Op(IndexExpr::And, Ld(1), C(7)), Env, R, Why));
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 7);
  ASSERT_TRUE(indexInterval(Op(IndexExpr::Min, Ld(1), C(5)), Env, R, Why));
  EXPECT_EQ(R.Hi, 5);
  // Failures say why.
  EXPECT_FALSE(indexInterval(P("n"), Env, R, Why));
  EXPECT_NE(Why.find("'n'"), std::string::npos);
  EXPECT_FALSE(indexInterval(Op(IndexExpr::Div, C(1), Op(IndexExpr::Sub, Ld(1), C(3))),
                             Env, R, Why));
  EXPECT_NE(Why.find("0"), std::string::npos);
  EXPECT_FALSE(indexInterval(IndexExpr::opaque("the result of 'f(x)'"), Env, R,
                             Why));
  EXPECT_EQ(Why, "the result of 'f(x)'");
  EXPECT_FALSE(indexInterval(Op(IndexExpr::Mul, Ld(1), C(INT64_MAX)), Env, R,
                             Why));
  EXPECT_NE(Why.find("overflow"), std::string::npos);
}

// kmeans: membership (param 1) indexes counts[c] (32) and sums[c*dim + f]
// (32 * 16): values in [0, 31].
TEST(IndexRange, Membership) {
  IndexRangeEnv Env;
  Env.Params["dim"] = 16;
  std::vector<IndexUse> Uses = {
      use(3, Ld(1)),
      use(2, Op(IndexExpr::Add, Op(IndexExpr::Mul, Ld(1), P("dim")),
                Rng(C(0), Op(IndexExpr::Sub, P("dim"), C(1)))))};
  std::map<unsigned, uint64_t> Counts = {{1, 4096}, {2, 512}, {3, 32}};
  IndexRangeChoice R = chooseIndexRange(1, 4096, Uses, Counts, {}, Env, Int32,
                                        Default);
  ASSERT_TRUE(R.Derived) << R.Why;
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 31);
  EXPECT_EQ(R.Kind, Distribution::IntRange);
  EXPECT_EQ(R.Uses.size(), 2u);
  // A larger count of sums does not widen past counts' 32.
  Counts[2] = 100000;
  R = chooseIndexRange(1, 4096, Uses, Counts, {}, Env, Int32, Default);
  EXPECT_EQ(R.Hi, 31);
}

// out[pos[i] - 1] = i: values in [1, n], distinct (stores).
TEST(IndexRange, ScatterOffset) {
  IndexRangeEnv Env;
  std::vector<IndexUse> Uses = {use(2, Op(IndexExpr::Sub, Ld(1), C(1)), true)};
  IndexRangeChoice R = chooseIndexRange(1, 1000, Uses, {{2, 1000}}, {}, Env,
                                        Int32, Default);
  ASSERT_TRUE(R.Derived) << R.Why;
  EXPECT_EQ(R.Lo, 1);
  EXPECT_EQ(R.Hi, 1000);
  EXPECT_EQ(R.Kind, Distribution::Distinct);
  // More elements than values: plain ints, with a note.
  R = chooseIndexRange(1, 5000, Uses, {{2, 1000}}, {}, Env, Int32, Default);
  ASSERT_TRUE(R.Derived);
  EXPECT_EQ(R.Kind, Distribution::IntRange);
  EXPECT_NE(R.Note.find("collide"), std::string::npos);
}

// CSR: j in [rowptr[r], rowptr[r+1] - 1] indexes val and col (nnz): row
// starts in [0, nnz], sorted.
TEST(IndexRange, LoopBoundsSorted) {
  IndexRangeEnv Env;
  IndexExpr J = Rng(Ld(0), Op(IndexExpr::Sub, Ld(0), C(1)));
  std::vector<IndexUse> Uses = {use(2, J), use(1, J)};
  IndexRangeChoice R = chooseIndexRange(0, 1025, Uses, {{1, 8192}, {2, 8192}},
                                        {}, Env, Int32, Default);
  ASSERT_TRUE(R.Derived) << R.Why;
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 8192);
  EXPECT_EQ(R.Kind, Distribution::Sorted);
}

// dst[n - 1 - rev[i]]: a negative coefficient.
TEST(IndexRange, Reversed) {
  IndexRangeEnv Env;
  Env.Params["n"] = 4096;
  IndexExpr I = Op(IndexExpr::Sub, Op(IndexExpr::Sub, P("n"), C(1)), Ld(4));
  IndexRangeChoice R = chooseIndexRange(4, 4096, {use(5, I, true)},
                                        {{5, 4096}}, {}, Env, Int32, Default);
  ASSERT_TRUE(R.Derived) << R.Why;
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 4095);
}

// hist[data[i] >> 4] with 16 bins: not affine, but the default values
// (0..100) fit: nothing to change. With 4 bins they do not: not derived.
TEST(IndexRange, NonAffine) {
  IndexRangeEnv Env;
  IndexExpr I = Op(IndexExpr::Shr, Ld(0), C(4));
  IndexRangeChoice R =
      chooseIndexRange(0, 64, {use(1, I)}, {{1, 16}}, {}, Env, Int32, Default);
  EXPECT_FALSE(R.Derived);
  EXPECT_TRUE(R.DefaultSafe);
  EXPECT_TRUE(R.Why.empty());
  R = chooseIndexRange(0, 64, {use(1, I)}, {{1, 4}}, {}, Env, Int32, Default);
  EXPECT_FALSE(R.Derived);
  EXPECT_FALSE(R.DefaultSafe);
  EXPECT_NE(R.Why.find("not an affine function"), std::string::npos) << R.Why;
}

// x[v] (2048) and coarse[v >> 4] (16): the affine use alone allows
// [0, 2047], the shift only [0, 255]: narrowed to the default range.
TEST(IndexRange, NonAffineNarrows) {
  IndexRangeEnv Env;
  std::vector<IndexUse> Uses = {use(1, Ld(0)),
                                use(2, Op(IndexExpr::Shr, Ld(0), C(4)))};
  IndexRangeChoice R = chooseIndexRange(0, 64, Uses, {{1, 2048}, {2, 16}}, {},
                                        Env, Int32, Default);
  ASSERT_TRUE(R.Derived) << R.Why;
  EXPECT_EQ(R.Lo, 0);
  EXPECT_EQ(R.Hi, 100);
  EXPECT_NE(R.Note.find("narrowed"), std::string::npos);
  // With enough bins the affine range stays.
  R = chooseIndexRange(0, 64, Uses, {{1, 2048}, {2, 128}}, {}, Env, Int32,
                       Default);
  ASSERT_TRUE(R.Derived);
  EXPECT_EQ(R.Hi, 2047);
  EXPECT_TRUE(R.Note.empty());
}

TEST(IndexRange, NotDerived) {
  IndexRangeEnv Env;
  // An opaque use: says why.
  IndexExpr O = IndexExpr::opaque("'b' is assigned more than once");
  O.Ops.push_back(Ld(0));
  IndexRangeChoice R =
      chooseIndexRange(0, 64, {use(1, O, false, "hist[b]")}, {{1, 64}},
                       {"data", "hist"}, Env, Int32, Default);
  EXPECT_FALSE(R.Derived);
  EXPECT_NE(R.Why.find("hist[b] (k.cu:1:1): 'b' is assigned more than once"),
            std::string::npos)
      << R.Why;
  // An unknown target size.
  R = chooseIndexRange(0, 64, {use(1, Ld(0))}, {}, {"data", "hist"}, Env,
                       Int32, Default);
  EXPECT_FALSE(R.Derived);
  EXPECT_NE(R.Why.find("the size of 'hist' is not known"), std::string::npos);
  // Another buffer's values without a range.
  R = chooseIndexRange(0, 64, {use(1, Op(IndexExpr::Add, Ld(0), Ld(2)))},
                       {{1, 64}}, {"a", "q", "b"}, Env, Int32, Default);
  EXPECT_FALSE(R.Derived);
  EXPECT_NE(R.Why.find("'b'"), std::string::npos) << R.Why;
  // Impossible: the index is past the end for every value of the type.
  R = chooseIndexRange(0, 64, {use(1, Op(IndexExpr::Add, Ld(0), C(100)))},
                       {{1, 64}}, {}, Env, {0, 255}, Default);
  EXPECT_FALSE(R.Derived);
  EXPECT_NE(R.Why.find("no value keeps every index in bounds"),
            std::string::npos)
      << R.Why;
  // A difference of two loads of the same buffer: both ends at once.
  R = chooseIndexRange(0, 64, {use(1, Op(IndexExpr::Sub, Ld(0), Ld(0)))},
                       {{1, 64}}, {}, Env, Int32, Default);
  EXPECT_FALSE(R.Derived);
  EXPECT_NE(R.Why.find("both ends"), std::string::npos) << R.Why;
}

TEST(IndexRange, TypeRangeClamps) {
  IndexRangeEnv Env;
  IndexRangeChoice R = chooseIndexRange(0, 64, {use(1, Ld(0))}, {{1, 100000}},
                                        {}, Env, {0, 255}, Default);
  ASSERT_TRUE(R.Derived);
  EXPECT_EQ(R.Hi, 255);
}

TEST(Distributions, SortedAndDistinct) {
  Distribution D;
  std::string E;
  ASSERT_TRUE(parseDistribution("sorted(0, 8192)", {}, D, E)) << E;
  EXPECT_EQ(D.K, Distribution::Sorted);
  EXPECT_EQ(D.str(), "sorted(0, 8192)");
  ASSERT_TRUE(parseDistribution("distinct(1, 1000)", {}, D, E)) << E;
  EXPECT_EQ(D.K, Distribution::Distinct);
  EXPECT_FALSE(parseDistribution("sorted(5, 1)", {}, D, E));
  EXPECT_NE(E.find("lo <= hi"), std::string::npos);
  EXPECT_FALSE(parseDistribution("distinct(0.5, 3)", {}, D, E));

  Bytes S = fillBuffer(ElemKind::I32, 4, 1025, {Distribution::Sorted, 0, 8192},
                       7);
  const int32_t *SV = reinterpret_cast<const int32_t *>(S.data());
  EXPECT_TRUE(std::is_sorted(SV, SV + 1025));
  EXPECT_GE(SV[0], 0);
  EXPECT_LE(SV[1024], 8192);
  EXPECT_GT(SV[1024], 8000); // spread over the whole range
  Bytes Dv = fillBuffer(ElemKind::I32, 4, 1000,
                        {Distribution::Distinct, 1, 1000}, 7);
  const int32_t *DV = reinterpret_cast<const int32_t *>(Dv.data());
  std::set<int32_t> Seen(DV, DV + 1000);
  EXPECT_EQ(Seen.size(), 1000u);
  EXPECT_EQ(*Seen.begin(), 1);
  EXPECT_EQ(*Seen.rbegin(), 1000);
  EXPECT_FALSE(std::is_sorted(DV, DV + 1000)); // shuffled
  // Fewer values than elements: every value, about equally often.
  Bytes Few = fillBuffer(ElemKind::I32, 4, 100, {Distribution::Distinct, 0, 9},
                         3);
  const int32_t *FV = reinterpret_cast<const int32_t *>(Few.data());
  for (int V = 0; V < 10; ++V)
    EXPECT_EQ(std::count(FV, FV + 100, V), 10);
}

} // namespace
