//===- HarnessTest.cpp - spec parsing, expressions, inference -------------===//
#include "cudal1/Verify/Harness.h"
#include "cudal1/Verify/Compare.h"
#include "cudal1/Verify/LaunchText.h"
#include "cudal1/Model/KernelInfo.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace cudal1;

namespace {
std::vector<ParamInfo> saxpyParams() {
  ParamInfo X = makeParam("x", "const float *", "const float", true, true, 8, 4);
  ParamInfo Y = makeParam("y", "float *", "float", true, false, 8, 4);
  ParamInfo A = makeParam("a", "float", "float", false, false, 4, 4);
  ParamInfo N = makeParam("n", "int", "int", false, false, 4, 4);
  Y.Index = 1;
  A.Index = 2;
  N.Index = 3;
  return {X, Y, A, N};
}

bool parse(const std::string &Text, Harness &H, std::string &Err,
           ExprEnv Defines = {}) {
  return parseHarnessSpec(Text, "h.yaml", "saxpy", saxpyParams(), Defines, H,
                          Err);
}
} // namespace

TEST(Expr, Arithmetic) {
  ExprEnv Env{{"N", {false, 1000, 0}}};
  ExprValue V;
  std::string E;
  ASSERT_TRUE(evalExpr("cdiv(N, 256) * 2 + 1", Env, V, E)) << E;
  EXPECT_EQ(V.I, 9);
  ASSERT_TRUE(evalExpr("N / 3", Env, V, E));
  EXPECT_EQ(V.I, 333);
  ASSERT_TRUE(evalExpr("N / 4.0", Env, V, E));
  EXPECT_TRUE(V.IsFloat);
  EXPECT_DOUBLE_EQ(V.F, 250.0);
  ASSERT_TRUE(evalExpr("-(2 + 3) % 4", Env, V, E));
  EXPECT_EQ(V.I, -1);
  ASSERT_TRUE(evalExpr("max(N, 5000) - min(3, 2)", Env, V, E));
  EXPECT_EQ(V.I, 4998);
  ASSERT_TRUE(evalExpr("1e-3", Env, V, E));
  EXPECT_DOUBLE_EQ(V.F, 1e-3);
  ASSERT_TRUE(evalExpr("1 << 22", Env, V, E)) << E;
  EXPECT_EQ(V.I, 4194304);
  ASSERT_TRUE(evalExpr("(N >> 2) + 1 << 1", Env, V, E)) << E;
  EXPECT_EQ(V.I, 502);
  ASSERT_TRUE(evalExpr("0x10 + 2.5f", Env, V, E));
  EXPECT_DOUBLE_EQ(V.asDouble(), 18.5);
  // The functions of inferred specs: ceil/floor/int give integers.
  ASSERT_TRUE(evalExpr("ceil(float(N) / 256.0)", Env, V, E)) << E;
  EXPECT_FALSE(V.IsFloat);
  EXPECT_EQ(V.I, 4);
  ASSERT_TRUE(evalExpr("floor(N / 3.0) + int(2.9)", Env, V, E)) << E;
  EXPECT_EQ(V.I, 335);
  ASSERT_TRUE(evalExpr("float(N) / 8", Env, V, E));
  EXPECT_DOUBLE_EQ(V.F, 125.0);
  // Comparisons (1 or 0) and c ? a : b, as C writes a clamp.
  ASSERT_TRUE(evalExpr("N > 1 ? (N < 65535 ? N : 65535) : 1", Env, V, E)) << E;
  EXPECT_EQ(V.I, 1000);
  ASSERT_TRUE(evalExpr("N * 100 > 1 ? (N * 100 < 65535 ? N * 100 : 65535) : 1",
                       Env, V, E))
      << E;
  EXPECT_EQ(V.I, 65535);
  ASSERT_TRUE(evalExpr("(N - 2000) > 1 ? 7 : 1", Env, V, E)) << E;
  EXPECT_EQ(V.I, 1);
  ASSERT_TRUE(evalExpr("(N <= 1000) + (N >= 1001) + (N == 1000) + (N != 3)",
                       Env, V, E))
      << E;
  EXPECT_EQ(V.I, 3);
  ASSERT_TRUE(evalExpr("1 << 2 < 5", Env, V, E)) << E; // << binds tighter
  EXPECT_EQ(V.I, 1);
  EXPECT_FALSE(evalExpr("N > 1 ? 2", Env, V, E));
  EXPECT_NE(E.find("':'"), std::string::npos) << E;
}

// 64-bit overflow is an error naming it, never undefined behaviour (found by
// FuzzHarnessSpec under UBSan: cdiv(M, 1000...029) added past INT64_MAX).
TEST(Expr, OverflowIsAnError) {
  ExprEnv Env{{"M", ExprValue{false, 8192, 0}}};
  ExprValue V;
  std::string E;
  EXPECT_FALSE(evalExpr("cdiv(M, 100000000000000000000000000029)", Env, V, E));
  EXPECT_NE(E.find("does not fit 64 bits"), std::string::npos) << E;
  for (const char *T : {"9223372036854775807 + 1", "-9223372036854775807 - 2",
                        "4611686018427387904 * 2", "1 << 62 << 1",
                        "cdiv(9223372036854775807, 2)"}) {
    E.clear();
    EXPECT_FALSE(evalExpr(T, Env, V, E)) << T;
    EXPECT_NE(E.find("overflow"), std::string::npos) << T << ": " << E;
  }
  E.clear();
  EXPECT_FALSE(evalExpr("cdiv(M, -2)", Env, V, E));
  EXPECT_TRUE(evalExpr("9223372036854775807", Env, V, E)) << E;
  EXPECT_EQ(V.I, INT64_MAX);
  EXPECT_TRUE(evalExpr("1 << 62", Env, V, E)) << E;
  EXPECT_EQ(V.I, int64_t(1) << 62);
}

TEST(Expr, Errors) {
  ExprValue V;
  std::string E;
  EXPECT_FALSE(evalExpr("M * 2", {}, V, E));
  EXPECT_EQ(E, "unknown name 'M'");
  EXPECT_FALSE(evalExpr("4 / 0", {}, V, E));
  EXPECT_EQ(E, "division by zero");
  EXPECT_FALSE(evalExpr("(1 + 2", {}, V, E));
  EXPECT_EQ(E, "missing ')'");
  EXPECT_FALSE(evalExpr("sqrt(4, 2)", {}, V, E));
  EXPECT_EQ(E, "unknown function 'sqrt'");
  EXPECT_FALSE(evalExpr("?", {}, V, E));
  EXPECT_EQ(E, "not known: the tool could not infer this value; replace '?' "
               "with it (or --define its name)");
  EXPECT_FALSE(evalExpr("1 $ 2", {}, V, E));
  EXPECT_NE(E.find("unexpected '$'"), std::string::npos);
}

TEST(Distribution, Parse) {
  Distribution D;
  std::string E;
  ExprEnv Env{{"N", {false, 10, 0}}};
  ASSERT_TRUE(parseDistribution("uniform(-1, 1)", Env, D, E));
  EXPECT_EQ(D.K, Distribution::Uniform);
  EXPECT_EQ(D.A, -1);
  ASSERT_TRUE(parseDistribution("normal(0, 2.5)", Env, D, E));
  EXPECT_EQ(D.K, Distribution::Normal);
  EXPECT_EQ(D.B, 2.5);
  ASSERT_TRUE(parseDistribution("int(0, N - 1)", Env, D, E));
  EXPECT_EQ(D.K, Distribution::IntRange);
  EXPECT_EQ(D.B, 9);
  ASSERT_TRUE(parseDistribution("constant(3)", Env, D, E));
  EXPECT_EQ(D.K, Distribution::Constant);
  ASSERT_TRUE(parseDistribution("iota", Env, D, E));
  EXPECT_EQ(D.K, Distribution::Iota);
  EXPECT_EQ(D.B, 1);
  ASSERT_TRUE(parseDistribution("zero", Env, D, E));
  EXPECT_EQ(D.K, Distribution::Zero);
  EXPECT_FALSE(parseDistribution("unifrm(0,1)", Env, D, E));
  EXPECT_NE(E.find("unknown distribution 'unifrm'"), std::string::npos);
  EXPECT_FALSE(parseDistribution("uniform(0)", Env, D, E));
  EXPECT_NE(E.find("takes 2 argument(s), got 1"), std::string::npos);
  EXPECT_FALSE(parseDistribution("int(5, 1)", Env, D, E));
  EXPECT_FALSE(parseDistribution("normal(0, -1)", Env, D, E));
  // A program's own table: the values as given, printed back the same.
  ASSERT_TRUE(parseDistribution("values(13, 11, N * 4, 0.5)", Env, D, E)) << E;
  EXPECT_EQ(D.K, Distribution::Values);
  EXPECT_EQ(D.List, (std::vector<double>{13, 11, 40, 0.5}));
  EXPECT_EQ(D.str(), "values(13, 11, 40, 0.5)");
  EXPECT_FALSE(parseDistribution("values()", Env, D, E));
  EXPECT_NE(E.find("'values' takes at least one value"), std::string::npos);
}

TEST(HarnessSpec, ValuesAsPrintedByTheInference) {
  // --print-harness writes a table's values quoted inside { } (commas);
  // block style needs no quotes.
  Harness H;
  std::string E;
  ASSERT_TRUE(parse(R"Y(kernel: saxpy
grid: 1
block: 32
params:
  x: { count: 3, init: "values(9, 76, 50)" }
  y:
    count: 2
    init: values(0.1111111119389534, 0.5)
  a: 1
  n: 3
)Y",
                    H, E))
      << E;
  ASSERT_EQ(H.Args.size(), 4u);
  ASSERT_EQ(H.Args[0].Buffer.Init.size(), 1u);
  EXPECT_EQ(H.Args[0].Buffer.Init[0].K, Distribution::Values);
  EXPECT_EQ(H.Args[0].Buffer.Init[0].List,
            (std::vector<double>{9, 76, 50}));
  ASSERT_EQ(H.Args[1].Buffer.Init.size(), 1u);
  EXPECT_EQ(H.Args[1].Buffer.Init[0].List.size(), 2u);
  EXPECT_EQ(float(H.Args[1].Buffer.Init[0].List[0]), 1.0f / 9);
}

TEST(HarnessSpec, Full) {
  Harness H;
  std::string E;
  ASSERT_TRUE(parse(R"Y(kernel: saxpy
sizes:
  N: 1000
  M: N * 2
grid: cdiv(N, 256)
block: 256
seed: 7
input_sets: 4
params:
  x: { count: N, init: ["uniform(-1, 1)", "normal(0, 1)"] }
  y: { count: M, init: zero }
  a: 2.5
  n: N
tolerance: { rtol: 1e-3, ulp: 4, scale_rtol: 1e-4 }
)Y",
                    H, E))
      << E;
  EXPECT_EQ(H.Grid[0], 4u);
  EXPECT_EQ(H.Grid[1], 1u);
  EXPECT_EQ(H.Block[0], 256u);
  EXPECT_EQ(H.Seed, 7u);
  EXPECT_EQ(H.InputSets, 4u);
  ASSERT_EQ(H.Args.size(), 4u);
  EXPECT_TRUE(H.Args[0].IsBuffer);
  EXPECT_TRUE(H.Args[0].Buffer.ReadOnly);
  EXPECT_EQ(H.Args[0].Buffer.Count, 1000u);
  EXPECT_EQ(H.Args[0].Buffer.Init.size(), 2u);
  EXPECT_EQ(H.Args[0].Buffer.Kind, ElemKind::F32);
  EXPECT_EQ(H.Args[1].Buffer.Count, 2000u);
  EXPECT_FALSE(H.Args[1].Buffer.ReadOnly);
  EXPECT_FALSE(H.Args[2].IsBuffer);
  EXPECT_EQ(H.Args[2].Scalar.Kind, ElemKind::F32);
  EXPECT_DOUBLE_EQ(H.Args[2].Scalar.Value.asDouble(), 2.5);
  EXPECT_EQ(H.Args[3].Scalar.Kind, ElemKind::I32);
  EXPECT_EQ(H.Args[3].Scalar.Value.I, 1000);
  ASSERT_TRUE(H.Tol.has_value());
  EXPECT_DOUBLE_EQ(H.Tol->F32Rtol, 1e-3);
  EXPECT_DOUBLE_EQ(H.Tol->F32Atol, 1e-5);
  EXPECT_EQ(H.Tol->MaxUlp, 4u);
  EXPECT_DOUBLE_EQ(H.Tol->ScaleRtol, 1e-4);
}

TEST(HarnessSpec, OutputWithoutInitIsPoisonedOutput) {
  Harness H;
  std::string E;
  ASSERT_TRUE(parse("grid: 1\nblock: [32, 4]\nparams:\n  x: 128\n  y: 128\n"
                    "  a: 1\n  n: 128\n",
                    H, E))
      << E;
  EXPECT_EQ(H.Block[1], 4u);
  EXPECT_EQ(H.Args[0].Buffer.Init.size(), 1u); // read-only: default init
  EXPECT_TRUE(H.Args[1].Buffer.Init.empty());  // output: poisoned
}

// Half and bf16 scalars are passed in their own 2 bytes; a struct passed by
// value is refused with the parameter's name and type.
TEST(HarnessSpec, HalfScalarsAndStructScalars) {
  std::vector<ParamInfo> P = {makeParam("y", "__half *", "__half", true, false, 8, 2),
                                makeParam("a", "__half", "", false, false, 2, 0),
                                makeParam("b", "__nv_bfloat16", "", false, false, 2, 0)};
  Harness H;
  std::string E;
  ASSERT_TRUE(parseHarnessSpec("grid: 1\nblock: 32\nparams:\n  y: 32\n"
                               "  a: 1.5\n  b: -2\n",
                               "h.yaml", "k", P, {}, H, E))
      << E;
  ASSERT_EQ(H.Args.size(), 3u);
  EXPECT_EQ(H.Args[1].Scalar.Kind, ElemKind::F16);
  EXPECT_EQ(H.Args[1].Scalar.Size, 2u);
  EXPECT_EQ(H.Args[2].Scalar.Kind, ElemKind::BF16);
  EXPECT_EQ(scalarArgBytes(H.Args[1].Scalar), (Bytes{0x00, 0x3E}));
  EXPECT_EQ(scalarArgBytes(H.Args[2].Scalar), (Bytes{0x00, 0xC0}));

  std::vector<ParamInfo> Q = {makeParam("p", "Params", "", false, false, 24, 0)};
  Harness H2;
  EXPECT_FALSE(parseHarnessSpec("grid: 1\nblock: 32\nparams:\n  p: 1\n",
                                "h.yaml", "k", Q, {}, H2, E));
  EXPECT_NE(E.find("parameter 'p' has type 'Params', which the harness cannot "
                   "pass yet"),
            std::string::npos)
      << E;
}

TEST(HarnessSpec, DefinesOverrideSizes) {
  Harness H;
  std::string E;
  ExprEnv D{{"N", {false, 64, 0}}};
  ASSERT_TRUE(parse("sizes: {N: 1000}\ngrid: cdiv(N, 32)\nblock: 32\nparams:\n"
                    "  x: N\n  y: N\n  a: 1\n  n: N\n",
                    H, E, D))
      << E;
  EXPECT_EQ(H.Grid[0], 2u);
  EXPECT_EQ(H.Args[0].Buffer.Count, 64u);
}

TEST(HarnessSpec, KernelsSection) {
  Harness H;
  std::string E;
  ASSERT_TRUE(parse("kernels:\n  other:\n    grid: 1\n  saxpy:\n    grid: 2\n"
                    "    block: 64\n    params: {x: 8, y: 8, a: 1, n: 8}\n",
                    H, E))
      << E;
  EXPECT_EQ(H.Grid[0], 2u);
  EXPECT_FALSE(parse("kernels:\n  other:\n    grid: 1\n", H, E));
  EXPECT_EQ(E, "h.yaml:2:3: kernels: no entry for kernel 'saxpy' (entries: "
               "other)");
}

struct ErrorCase {
  const char *Text;
  const char *Error;
};

TEST(HarnessSpec, ErrorsNameFileLineAndField) {
  const ErrorCase Cases[] = {
      {"grid: 1\nblock: 32\nparams:\n  x: N\n",
       "h.yaml:4:6: params.x.count: unknown name 'N'"},
      {"grid: 1\nblock: 32\nparams:\n  x: 8\n  y: 8\n  a: 1\n",
       "h.yaml:4:3: params.n: missing: scalar parameter 'int' needs a value"},
      {"grid: 1\nblock: 32\nparams:\n  x: 8\n  y: 8\n  a: 1\n  n: 8\n  z: 1\n",
       "h.yaml:8:3: params.z: no such parameter of kernel 'saxpy' (parameters: "
       "x, y, a, n)"},
      {"grid: 1\nblock: 32\nparams:\n  x: { count: 8, init: \"unifrm(0, 1)\" }\n",
       "h.yaml:4:24: params.x.init: unknown distribution 'unifrm' (use "
       "uniform(a,b), normal(mean,stddev), int(lo,hi), constant(v), "
       "iota(start,step), sorted(lo,hi), distinct(lo,hi), values(v0, v1, ...) or zero)"},
      {"grid: 1\nblock: 2048\n",
       "h.yaml:2:8: block: more than 1024 threads per block"},
      {"grid: [0]\nblock: 32\n",
       "h.yaml:1:8: grid: dimensions must be positive integers"},
      {"grid: 1\n", "h.yaml:1:1: block: missing (grid and block are required)"},
      {"grid: 1\nblock: 32\ninput_sets: 2\n",
       "h.yaml:3:13: input_sets: at least 3 input sets are required"},
      {"grid: 1\nblock: 32\nsizs: {N: 1}\n",
       "h.yaml:3:1: sizs: unknown field (fields: kernel, sizes, grid, block, "
       "shared_mem, seed, input_sets, params, tolerance, candidate)"},
      {"grid: 1\nblock: 32\nparams:\n  x: { cnt: 8 }\n",
       "h.yaml:4:8: params.x.cnt: unknown field (count, before, init, seed, role)"},
      {"grid: 1\nblock: 32\nparams:\n  x: 8\n  y: 8\n  a: 1\n  n: 1.5\n",
       "h.yaml:7:6: params.n: parameter 'n' is an integer ('int') but the "
       "value is not"},
      {"grid: 1\nblock: 32\ntolerance: {rtol: -1}\n",
       "h.yaml:3:19: tolerance.rtol: must be >= 0"},
      {"kernel: other\ngrid: 1\nblock: 32\n",
       "h.yaml:1:9: kernel: spec is for kernel 'other', verifying 'saxpy'"},
  };
  for (const auto &C : Cases) {
    Harness H;
    std::string E;
    EXPECT_FALSE(parse(C.Text, H, E)) << C.Text;
    EXPECT_EQ(E, C.Error) << C.Text;
  }
}

TEST(HarnessSpec, UnquotedCommaInFlowStyleExplained) {
  Harness H;
  std::string E;
  EXPECT_FALSE(parse("grid: 1\nblock: 32\nparams:\n  x: { count: 8, init: "
                     "uniform(0, 1) }\n",
                     H, E));
  EXPECT_NE(E.find("quote values that contain commas"), std::string::npos)
      << E;
}

TEST(HarnessSpec, FlowSequencesKeepParentheses) {
  Harness H;
  std::string E;
  ASSERT_TRUE(parse("sizes: {N: 100}\ngrid: [cdiv(N, 32), max(N, 2)]\n"
                    "block: [32, 4]\nparams:\n  x:\n    count: N\n"
                    "    init: [uniform(-1, 1), normal(0, 2), iota]\n"
                    "  y: 8\n  a: 1\n  n: 8\n",
                    H, E))
      << E;
  EXPECT_EQ(H.Grid[0], 4u);
  EXPECT_EQ(H.Grid[1], 100u);
  ASSERT_EQ(H.Args[0].Buffer.Init.size(), 3u);
  EXPECT_EQ(H.Args[0].Buffer.Init[1].K, Distribution::Normal);
  EXPECT_EQ(H.Args[0].Buffer.Init[1].B, 2.0);
}

TEST(HarnessSpec, BlockStyleNeedsNoQuotes) {
  Harness H;
  std::string E;
  EXPECT_TRUE(parse("grid: 1\nblock: 32\nparams:\n  x:\n    count: 8\n"
                    "    init: uniform(0, 1)\n  y: 8\n  a: 1\n  n: 8\n",
                    H, E))
      << E;
}

TEST(HarnessSpec, YamlSyntaxError) {
  Harness H;
  std::string E;
  EXPECT_FALSE(parse("grid: [1, 2\nblock: 32\n", H, E));
  EXPECT_EQ(E.rfind("h.yaml:", 0), 0u) << E;
}

TEST(ElemKind, FromType) {
  EXPECT_EQ(elemKindFromType("const float"), ElemKind::F32);
  EXPECT_EQ(elemKindFromType("float *__restrict__"), ElemKind::F32);
  EXPECT_EQ(elemKindFromType("__half"), ElemKind::F16);
  EXPECT_EQ(elemKindFromType("const __nv_bfloat16"), ElemKind::BF16);
  EXPECT_EQ(elemKindFromType("unsigned int"), ElemKind::U32);
  EXPECT_EQ(elemKindFromType("size_t"), ElemKind::U64);
  EXPECT_EQ(elemKindFromType("long long"), ElemKind::I64);
  EXPECT_EQ(elemKindFromType("std::int8_t"), ElemKind::I8);
  EXPECT_EQ(elemKindFromType("float4"), ElemKind::Bytes);
}

namespace {
ValueInfo intValue(int64_t V) {
  ValueInfo I;
  I.Kind = ValueInfo::Integer;
  I.Int = V;
  return I;
}
ValueInfo dimValue(uint64_t X, std::string Expr = "") {
  ValueInfo I;
  I.Kind = ValueInfo::Dim;
  I.Dims = {X, 1, 1};
  I.DimExprs[0] = Expr;
  return I;
}
ValueInfo buffer(uint64_t Bytes, std::string Expr = "") {
  ValueInfo I;
  I.Kind = ValueInfo::Pointer;
  if (Expr.empty())
    I.Bytes = Bytes;
  I.Expr = Expr;
  I.Allocation = "cudaMalloc at main.cu:3:3";
  return I;
}
/// saxpy<<<4, 256>>>(x (4096 bytes), y (8192 bytes), 2.0f, 1024)
LaunchValues saxpyLaunch() {
  LaunchValues V;
  V.Grid = dimValue(4);
  V.Block = dimValue(256);
  V.SharedMem = intValue(0);
  ValueInfo A;
  A.Kind = ValueInfo::Floating;
  A.Float = 2.0;
  V.Args = {buffer(4096), buffer(8192), A, intValue(1024)};
  return V;
}
std::vector<BufferUse> saxpyUses(bool YRead) {
  BufferUse X{0, true, false, false}, Y{1, YRead, true, false};
  return {X, Y};
}
} // namespace

TEST(InferHarness, FromLaunchValues) {
  InferredHarness R =
      inferHarness("saxpy", saxpyParams(), saxpyLaunch(), saxpyUses(true), {});
  ASSERT_TRUE(R.Complete) << R.Missing.front();
  const Harness &H = R.H;
  EXPECT_EQ(H.Grid[0], 4u);
  EXPECT_EQ(H.Block[0], 256u);
  EXPECT_EQ(H.Args[0].Buffer.Count, 1024u);
  EXPECT_EQ(H.Args[1].Buffer.Count, 2048u);
  EXPECT_DOUBLE_EQ(H.Args[2].Scalar.Value.asDouble(), 2.0);
  EXPECT_EQ(H.Args[3].Scalar.Value.I, 1024);
  // x const: input; y read and written: in/out (initialised, not read-only).
  EXPECT_TRUE(H.Args[0].Buffer.ReadOnly);
  EXPECT_FALSE(H.Args[1].Buffer.ReadOnly);
  EXPECT_FALSE(H.Args[1].Buffer.Init.empty());
  ASSERT_FALSE(R.Notes.empty());
  EXPECT_EQ(R.Notes[0],
            "buffer 'x': 1024 elements, from cudaMalloc at main.cu:3:3");
  // The printed spec parses back to the same harness.
  Harness P;
  std::string E;
  ASSERT_TRUE(parse(R.Spec, P, E)) << E << "\n" << R.Spec;
  EXPECT_EQ(P.Args[1].Buffer.Count, 2048u);
  EXPECT_FALSE(P.Args[1].Buffer.ReadOnly);
  EXPECT_FALSE(P.Args[1].Buffer.Init.empty());
}

TEST(InferHarness, RolesFromAccessesNotConst) {
  std::vector<ParamInfo> Ps = saxpyParams();
  Ps[0].PointeeConst = false; // x: float *, only read by the kernel
  // y only written: an output (poisoned)...
  InferredHarness R =
      inferHarness("saxpy", Ps, saxpyLaunch(), saxpyUses(false), {});
  ASSERT_TRUE(R.Complete);
  EXPECT_TRUE(R.H.Args[0].Buffer.ReadOnly);
  EXPECT_FALSE(R.H.Args[0].Buffer.Init.empty());
  EXPECT_TRUE(R.H.Args[1].Buffer.Init.empty());
  EXPECT_NE(R.Spec.find("x: { count: 1024, init: \"uniform(-1, 1)\", role: "
                        "input }"),
            std::string::npos)
      << R.Spec;
  Harness P;
  std::string E;
  ASSERT_TRUE(parse(R.Spec, P, E)) << E;
  EXPECT_TRUE(P.Args[0].Buffer.ReadOnly);
  // ...unless the host fills it first: in/out.
  LaunchValues V = saxpyLaunch();
  V.Args[1].HostInitialised = true;
  V.Args[1].HostInit = "cudaMemcpy at main.cu:5:3";
  R = inferHarness("saxpy", Ps, V, saxpyUses(false), {});
  EXPECT_FALSE(R.H.Args[1].Buffer.Init.empty());
  EXPECT_FALSE(R.H.Args[1].Buffer.ReadOnly);
  // Not analysed, or escaping the analysis: in/out, never read-only.
  R = inferHarness("saxpy", Ps, saxpyLaunch(), {}, {});
  EXPECT_FALSE(R.H.Args[0].Buffer.ReadOnly);
  EXPECT_FALSE(R.H.Args[0].Buffer.Init.empty());
  std::vector<BufferUse> Esc = saxpyUses(false);
  Esc[0].Escaped = true;
  R = inferHarness("saxpy", Ps, saxpyLaunch(), Esc, {});
  EXPECT_FALSE(R.H.Args[0].Buffer.ReadOnly);
}

TEST(InferHarness, UnknownNamesAndDefines) {
  LaunchValues V = saxpyLaunch();
  V.Grid = dimValue(0, "(n + 255) / 256");
  V.Args[0] = buffer(0, "n * 4");
  V.Args[1] = buffer(0, "n * 8 - 16");
  V.Args[3].Expr = "n";
  V.Unknowns = {{"n", "main.cu:9:13", "initialised from 'atoi(argv[1])'"}};
  InferredHarness R =
      inferHarness("saxpy", saxpyParams(), V, saxpyUses(true), {});
  EXPECT_FALSE(R.Complete);
  ASSERT_EQ(R.Missing.size(), 1u);
  EXPECT_EQ(R.Missing[0],
            "'n' (main.cu:9:13): initialised from 'atoi(argv[1])'");
  EXPECT_NE(R.Spec.find("  n: \"?\"   # cuda-l1: unknown: initialised from "
                        "'atoi(argv[1])' (main.cu:9:13)"),
            std::string::npos)
      << R.Spec;
  EXPECT_NE(R.Spec.find("grid: [(n + 255) / 256, 1, 1]"), std::string::npos);
  EXPECT_NE(R.Spec.find("x: { count: n,"), std::string::npos) << R.Spec;
  EXPECT_NE(R.Spec.find("y: { count: (n * 8 - 16) / 4,"), std::string::npos);
  // The spec is refused until the "?" is replaced, naming the field.
  Harness P;
  std::string E;
  EXPECT_FALSE(parse(R.Spec, P, E));
  EXPECT_NE(E.find("sizes.n: not known"), std::string::npos) << E;
  // --define n completes the inference and the spec.
  ExprEnv D{{"n", {false, 1000, 0}}};
  R = inferHarness("saxpy", saxpyParams(), V, saxpyUses(true), D);
  ASSERT_TRUE(R.Complete);
  EXPECT_EQ(R.H.Grid[0], 4u);
  EXPECT_EQ(R.H.Args[0].Buffer.Count, 1000u);
  EXPECT_EQ(R.H.Args[1].Buffer.Count, 1996u);
  EXPECT_EQ(R.H.Args[3].Scalar.Value.I, 1000);
  ASSERT_TRUE(parse(R.Spec, P, E, D)) << E << "\n" << R.Spec;
  EXPECT_EQ(P.Args[1].Buffer.Count, 1996u);
}

TEST(InferHarness, MissingValuesNamed) {
  LaunchValues V = saxpyLaunch();
  V.Block = ValueInfo();
  V.Block.Why = "'threads' is modified at main.cu:12:5, in a loop around the "
                "launch";
  V.Args[1] = ValueInfo();
  V.Args[1].Why = "'s.ptr' is a member of a structure";
  InferredHarness R =
      inferHarness("saxpy", saxpyParams(), V, saxpyUses(true), {});
  EXPECT_FALSE(R.Complete);
  ASSERT_EQ(R.Missing.size(), 2u);
  EXPECT_EQ(R.Missing[0], "block: 'threads' is modified at main.cu:12:5, in a "
                          "loop around the launch");
  EXPECT_EQ(R.Missing[1], "buffer 'y': 's.ptr' is a member of a structure");
  // A buffer size given with --define <param>.count, a scalar the launch does
  // not show with --define <param>; a known scalar is never replaced.
  V = saxpyLaunch();
  V.Args[1] = ValueInfo();
  V.Args[2] = ValueInfo();
  ExprEnv D{{"y.count", {false, 77, 0}}, {"a", {true, 0, 1.5}},
            {"n", {false, 5, 0}}};
  R = inferHarness("saxpy", saxpyParams(), V, saxpyUses(true), D);
  ASSERT_TRUE(R.Complete) << R.Missing.front();
  EXPECT_EQ(R.H.Args[1].Buffer.Count, 77u);
  EXPECT_DOUBLE_EQ(R.H.Args[2].Scalar.Value.asDouble(), 1.5);
  EXPECT_EQ(R.H.Args[3].Scalar.Value.I, 1024);
}

TEST(HarnessSpec, Roles) {
  Harness H;
  std::string E;
  ASSERT_TRUE(parse("grid: 1\nblock: 32\nparams:\n  x: 32\n"
                    "  y: { count: 32, role: input }\n  a: 1\n  n: 32\n",
                    H, E))
      << E;
  EXPECT_TRUE(H.Args[1].Buffer.ReadOnly);
  EXPECT_FALSE(H.Args[1].Buffer.Init.empty());
  ASSERT_TRUE(parse("grid: 1\nblock: 32\nparams:\n  x: 32\n"
                    "  y: { count: 32, role: inout }\n  a: 1\n  n: 32\n",
                    H, E));
  EXPECT_FALSE(H.Args[1].Buffer.ReadOnly);
  EXPECT_FALSE(H.Args[1].Buffer.Init.empty());
  EXPECT_FALSE(parse("grid: 1\nblock: 32\nparams:\n  x: { count: 32, role: "
                     "output }\n  y: 32\n  a: 1\n  n: 32\n",
                     H, E));
  EXPECT_EQ(E, "h.yaml:4:25: params.x.role: 'x' points to const: it can only "
               "be an input");
  EXPECT_FALSE(parse("grid: 1\nblock: 32\nparams:\n  x: 32\n  y: { count: "
                     "32, init: zero, role: output }\n  a: 1\n  n: 32\n",
                     H, E));
  EXPECT_NE(E.find("an output is poisoned before each run"),
            std::string::npos);
  EXPECT_FALSE(parse("grid: 1\nblock: 32\nparams:\n  x: 32\n  y: { count: "
                     "32, role: both }\n  a: 1\n  n: 32\n",
                     H, E));
  EXPECT_NE(E.find("unknown role 'both' (input, inout or output)"),
            std::string::npos);
}

TEST(HarnessTemplate, ParsesBack) {
  std::string T = harnessTemplate("saxpy", saxpyParams());
  EXPECT_NE(T.find("x: { count: N, init: \"uniform(-1, 1)\" }"),
            std::string::npos)
      << T;
  Harness H;
  std::string E;
  EXPECT_TRUE(parse(T, H, E)) << E << "\n" << T;
}

TEST(Define, Parse) {
  ExprEnv Env;
  std::string E;
  ASSERT_TRUE(parseDefine("N=1024", Env, E));
  ASSERT_TRUE(parseDefine("M=N*2", Env, E));
  EXPECT_EQ(Env["M"].I, 2048);
  EXPECT_FALSE(parseDefine("N", Env, E));
  EXPECT_EQ(E, "--define 'N': expected NAME=VALUE");
  EXPECT_FALSE(parseDefine("K=Q+1", Env, E));
}

TEST(HarnessSpec, CandidateLaunchShape) {
  Harness H;
  std::string E;
  ASSERT_TRUE(parse("sizes: {N: 1000}\ngrid: [cdiv(N, 256), 2]\nblock: 256\n"
                    "candidate:\n  grid: [grid.y, grid.x * 32]\n"
                    "  block: [block.x / 2, 2]\n"
                    "params: {x: N, y: N, a: 1, n: N}\n",
                    H, E))
      << E;
  ASSERT_TRUE(H.CandidateGrid.has_value());
  ASSERT_TRUE(H.CandidateBlock.has_value());
  EXPECT_EQ((*H.CandidateGrid)[0], 2u);
  EXPECT_EQ((*H.CandidateGrid)[1], 128u);
  EXPECT_EQ((*H.CandidateBlock)[0], 128u);
  EXPECT_EQ((*H.CandidateBlock)[1], 2u);
  // Without the section the candidate is launched like the original.
  Harness H2;
  ASSERT_TRUE(parse("grid: 4\nblock: 256\nparams: {x: 1024, y: 1024, a: 1, "
                    "n: 1024}\n",
                    H2, E))
      << E;
  EXPECT_FALSE(H2.CandidateGrid.has_value());
  // Errors name the field.
  Harness H3;
  EXPECT_FALSE(parse("grid: 4\nblock: 256\ncandidate:\n  threads: 3\n"
                     "params: {x: 1024, y: 1024, a: 1, n: 1024}\n",
                     H3, E));
  EXPECT_NE(E.find("h.yaml:4:"), std::string::npos) << E;
  EXPECT_NE(E.find("candidate.threads"), std::string::npos) << E;
  EXPECT_FALSE(parse("grid: 4\nblock: 256\ncandidate: {block: [64, 32]}\n"
                     "params: {x: 1024, y: 1024, a: 1, n: 1024}\n",
                     H3, E));
  EXPECT_NE(E.find("more than 1024 threads"), std::string::npos) << E;
}

TEST(CandidateLaunch, DerivedFromRewrittenLaunchSites) {
  std::array<uint64_t, 3> Out;
  std::string Why;
  // Thread-mapping swap: the components of a dim3 variable exchanged.
  ASSERT_TRUE(deriveCandidateDims("grid", "dim3((grid).y, (grid).x, (grid).z)",
                                  {256, 64, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{64, 256, 1}));
  // Warp per row: the grid expression times 32 (whitespace does not matter).
  ASSERT_TRUE(deriveCandidateDims("(M + 255) / 256", "((M+255)/256) * 32",
                                  {4, 1, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{128, 1, 1}));
  ASSERT_TRUE(deriveCandidateDims("blocks", "blocks * 32u", {10, 1, 1}, Out,
                                  Why))
      << Why;
  EXPECT_EQ(Out[0], 320u);
  // Unchanged text: the original's shape.
  ASSERT_TRUE(deriveCandidateDims("dim3(16, 16)", "dim3(16,16)", {8, 8, 1},
                                  Out, Why));
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{8, 8, 1}));
  // launch-small-block on a block launch-redundant-threads rewrote in an
  // earlier round (the grid already given as numbers): the components of
  // the dim3 written in the candidate are read.
  ASSERT_TRUE(deriveCandidateDims(
      "block",
      "dim3(262144 % 8 == 0 ? (dim3(block.x, 1, block.z)).x * 8 : "
      "(dim3(block.x, 1, block.z)).x, (dim3(block.x, 1, block.z)).y, "
      "(dim3(block.x, 1, block.z)).z)",
      {32, 8, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{256, 1, 1}));
  ASSERT_TRUE(deriveCandidateDims("grid",
                                  "dim3((grid).x % 8 == 0 ? (grid).x / 8 : "
                                  "(grid).x, (grid).y, (grid).z)",
                                  {262145, 1, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{262145, 1, 1}));
  // A block that depends on the grid: the grid's components are numbers
  // first (a longer name that contains 'grid' is left alone).
  EXPECT_EQ(withOtherLaunchValue("dim3((grid).x % 8 == 0 ? (block).x * 8 : "
                                 "(block).x, (block).y, grids.x)",
                                 "grid", {64, 1, 1}),
            "dim3(64%8==0?(block).x*8:(block).x,(block).y,grids.x)");
  // coalescing-thread-mapping-swap's reshape: the grid reads the block
  // (and the other way round), as the rewritten launch site writes them.
  const std::string C = "((grid).y * (block).y % (block).x + (grid).x * "
                        "(block).x % (block).y == 0 && (grid).x * (block).x "
                        "/ (block).y <= 65535)";
  const std::string Grid = "dim3(" + C + " ? (grid).y * (block).y / (block).x"
                           " : (grid).y, " + C + " ? (grid).x * (block).x / "
                           "(block).y : (grid).x, (grid).z)";
  const std::string Block = "dim3(" + C + " ? (block).x : (block).y, " + C +
                            " ? (block).y : (block).x, (block).z)";
  ASSERT_TRUE(deriveCandidateDims(
      "grid", withOtherLaunchValue(Grid, "block", {32, 8, 1}), {128, 512, 1},
      Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{128, 512, 1}));
  ASSERT_TRUE(deriveCandidateDims(
      "block", withOtherLaunchValue(Block, "grid", {128, 512, 1}), {32, 8, 1},
      Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{32, 8, 1}));
  // Extents that do not divide: the fallback swaps grid and block.
  ASSERT_TRUE(deriveCandidateDims(
      "grid", withOtherLaunchValue(Grid, "block", {32, 8, 1}), {4, 3, 1}, Out,
      Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{3, 4, 1}));
  // Not built around the original: cannot tell.
  EXPECT_FALSE(deriveCandidateDims("(M + 255) / 256", "M / 8", {4, 1, 1}, Out,
                                   Why));
  EXPECT_NE(Why.find("does not contain"), std::string::npos) << Why;
  // The original used as one number while it has two dimensions.
  EXPECT_FALSE(deriveCandidateDims("grid", "grid * 2", {4, 4, 1}, Out, Why));
  // A name is not mistaken inside a longer one.
  EXPECT_FALSE(deriveCandidateDims("n", "nblocks * 2", {4, 1, 1}, Out, Why));
  // launch-distribute-loop: y blocks from a scalar argument of the launch,
  // whose value the harness gives (launchArgNames).
  Harness H;
  H.Args.resize(3);
  H.Args[0].IsBuffer = true;
  H.Args[1].Scalar.Value = ExprValue{false, 2048, 0};
  H.Args[2].Scalar.Value = ExprValue{false, 7, 0};
  ExprEnv Names = launchArgNames({"out", "n", "m + 1"}, H);
  EXPECT_EQ(Names.size(), 1u); // out is a buffer, m + 1 not a name
  ASSERT_TRUE(deriveCandidateDims(
      "grid3", "dim3(grid3.x, n > 1 ? (n < 65535 ? n : 65535) : 1, grid3.z)",
      {5, 1, 1}, Out, Why, Names))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{5, 2048, 1}));
  EXPECT_FALSE(deriveCandidateDims("grid3", "dim3(grid3.x, n, grid3.z)",
                                   {5, 1, 1}, Out, Why));
  // coalescing-thread-mapping-swap's reshape: the grid of the swapped
  // extents when they divide by the block and fit gridDim.y, else grid and
  // block swapped; the block's components substituted first (as FixVerify
  // does), the condition read with && and ||.
  {
    const std::string C = "((grid).y * (block).y % (block).x + (grid).x * "
                          "(block).x % (block).y == 0 && (grid).x * "
                          "(block).x / (block).y <= 65535)";
    const std::string G = "dim3(" + C + " ? (grid).y * (block).y / (block).x"
                          " : (grid).y, " + C + " ? (grid).x * (block).x / "
                          "(block).y : (grid).x, (grid).z)";
    const std::string B = "dim3(" + C + " ? (block).x : (block).y, " + C +
                          " ? (block).y : (block).x, (block).z)";
    // 2048 x 2048 with 32x8 blocks: grid (64, 256) becomes (64, 256).
    ASSERT_TRUE(deriveCandidateDims(
        "grid", withOtherLaunchValue(G, "block", {32, 8, 1}), {64, 256, 1},
        Out, Why))
        << Why;
    EXPECT_EQ(Out, (std::array<uint64_t, 3>{64, 256, 1}));
    ASSERT_TRUE(deriveCandidateDims(
        "block", withOtherLaunchValue(B, "grid", {64, 256, 1}), {32, 8, 1},
        Out, Why))
        << Why;
    EXPECT_EQ(Out, (std::array<uint64_t, 3>{32, 8, 1}));
    // 200 x 150: grid (7, 19); 19 * 8 = 152 does not divide by 32: swapped.
    ASSERT_TRUE(deriveCandidateDims(
        "grid", withOtherLaunchValue(G, "block", {32, 8, 1}), {7, 19, 1}, Out,
        Why))
        << Why;
    EXPECT_EQ(Out, (std::array<uint64_t, 3>{19, 7, 1}));
    ASSERT_TRUE(deriveCandidateDims(
        "block", withOtherLaunchValue(B, "grid", {7, 19, 1}), {32, 8, 1}, Out,
        Why))
        << Why;
    EXPECT_EQ(Out, (std::array<uint64_t, 3>{8, 32, 1}));
    ExprValue V;
    std::string E;
    ASSERT_TRUE(evalExpr("1 && 0 || 2 > 1", {}, V, E)) << E;
    EXPECT_EQ(V.I, 1);
    ASSERT_TRUE(evalExpr("0 || 1 && 0", {}, V, E)) << E;
    EXPECT_EQ(V.I, 0);
  }
  // launch-single-thread-reduction: a constant block replaces `1`.
  ASSERT_TRUE(deriveCandidateDims("1", "256", {1, 1, 1}, Out, Why)) << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{256, 1, 1}));
  ASSERT_TRUE(deriveCandidateDims("dim3(1)", "dim3(256, 1)", {1, 1, 1}, Out,
                                  Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{256, 1, 1}));
}

// sync-warp-atomic-reduction's grid-stride form: the grid capped at 2048
// blocks, and n passed as min(n, grid.x * block.x), which is n wherever the
// harness's grid covers it.
TEST(CandidateLaunch, GridStrideLaunch) {
  std::array<uint64_t, 3> Out{};
  std::string Why;
  // The capped grid of an int grid, then of a dim3 grid.
  ASSERT_TRUE(deriveCandidateDims("blocks",
                                  "((blocks) < 2048 ? (blocks) : 2048)",
                                  {65536, 1, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{2048, 1, 1}));
  ASSERT_TRUE(deriveCandidateDims("(n + 255) / 256",
                                  "(((n + 255) / 256) < 2048 ? ((n + 255) / "
                                  "256) : 2048)",
                                  {100, 1, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{100, 1, 1}));
  ASSERT_TRUE(deriveCandidateDims(
      "grid", "dim3((grid).x < 2048u ? (grid).x : 2048u, (grid).y, (grid).z)",
      {4096, 2, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{2048, 2, 1}));

  // The argument: where the harness's grid covers n, the edit keeps n.
  LaunchSite LS;
  LS.Grid.Text = "blocks";
  LS.Block.Text = "BLOCK_SIZE";
  LS.Args = {"d_x", "d_sum", "n"};
  Harness H;
  H.Grid = {65536, 1, 1};
  H.Block = {256, 1, 1};
  H.Args.resize(3);
  H.Args[0].IsBuffer = H.Args[1].IsBuffer = true;
  H.Args[2].Scalar.Value = ExprValue{false, 16777216, 0};
  const std::string NArg = "((n) < 1ll * (blocks) * (BLOCK_SIZE) ? (n) : 1ll "
                           "* (blocks) * (BLOCK_SIZE))";
  EXPECT_TRUE(launchArgEditKeepsValue(LS, H, 2, NArg, Why)) << Why;
  // n not a multiple of the block: still n.
  H.Args[2].Scalar.Value = ExprValue{false, 16777000, 0};
  EXPECT_TRUE(launchArgEditKeepsValue(LS, H, 2, NArg, Why)) << Why;
  // A grid that does not reach n: the candidate would get another n.
  H.Grid = {1000, 1, 1};
  EXPECT_FALSE(launchArgEditKeepsValue(LS, H, 2, NArg, Why));
  EXPECT_NE(Why.find("gives 256000"), std::string::npos) << Why;
  // An expression argument and dim3 launch values.
  LS.Grid.Text = "grid";
  LS.Block.Text = "block";
  LS.Args = {"d_x", "d_sum", "rows * cols"};
  H.Grid = {64, 1, 1};
  H.Block = {128, 1, 1};
  H.Args[2].Scalar.Value = ExprValue{false, 8000, 0};
  EXPECT_TRUE(launchArgEditKeepsValue(
      LS, H, 2,
      "((rows * cols) < 1ll * (grid).x * (block).x ? (rows * cols) : 1ll * "
      "(grid).x * (block).x)",
      Why))
      << Why;
  // A literal argument (its text is its value): evaluated, not looped on.
  LS.Args = {"d_x", "d_sum", "8000"};
  EXPECT_TRUE(launchArgEditKeepsValue(
      LS, H, 2,
      "((int)(8000) < 1ll * (grid).x * (block).x ? (int)(8000) : 1ll * "
      "(grid).x * (block).x)",
      Why))
      << Why;
  // A buffer argument is never edited this way.
  EXPECT_FALSE(launchArgEditKeepsValue(LS, H, 0, "d_x + 1", Why));

  // Along y (sobel's count): the grid keeps x and z and takes
  // 2048 / (x * z) rows of blocks, at least one; h capped to the rows the
  // original grid reached.
  const std::string CapY = "((blocks).x * (blocks).z == 0u || (blocks).x * "
                           "(blocks).z > 2048u ? 1u : 2048u / ((blocks).x * "
                           "(blocks).z))";
  const std::string GridY = "dim3((blocks).x, (blocks).y < " + CapY +
                            " ? (blocks).y : " + CapY + ", (blocks).z)";
  ASSERT_TRUE(
      deriveCandidateDims("blocks", GridY, {128, 512, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{128, 16, 1}));
  ASSERT_TRUE(deriveCandidateDims("blocks", GridY, {128, 3, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{128, 3, 1}));
  ASSERT_TRUE(deriveCandidateDims("blocks", GridY, {4096, 64, 1}, Out, Why))
      << Why;
  EXPECT_EQ(Out, (std::array<uint64_t, 3>{4096, 1, 1}));
  LaunchSite LY;
  LY.Grid.Text = "blocks";
  LY.Block.Text = "threads";
  LY.Args = {"d_edges", "d_count", "width", "height"};
  Harness HY;
  HY.Grid = {128, 512, 1};
  HY.Block = {32, 8, 1};
  HY.Args.resize(4);
  HY.Args[0].IsBuffer = HY.Args[1].IsBuffer = true;
  HY.Args[2].Scalar.Value = ExprValue{false, 4096, 0};
  HY.Args[3].Scalar.Value = ExprValue{false, 4096, 0};
  const std::string HArg = "((int)(height) < 1ll * (blocks).y * (threads).y "
                           "? (int)(height) : 1ll * (blocks).y * "
                           "(threads).y)";
  EXPECT_TRUE(launchArgEditKeepsValue(LY, HY, 3, HArg, Why)) << Why;
  HY.Grid = {128, 100, 1}; // 800 rows of 4096
  EXPECT_FALSE(launchArgEditKeepsValue(LY, HY, 3, HArg, Why));
  EXPECT_NE(Why.find("gives 800"), std::string::npos) << Why;

  // Where the argument is: commas inside parentheses do not count.
  const std::string Text = "k<<<g, b>>>(x, f(a, b), n + 1);";
  size_t Close = Text.find(">>>");
  EXPECT_EQ(launchArgIndexAt(Text, Close, Text.find("x,")), 0u);
  EXPECT_EQ(launchArgIndexAt(Text, Close, Text.find("a,")), 1u);
  EXPECT_EQ(launchArgIndexAt(Text, Close, Text.find("n + 1")), 2u);
  EXPECT_EQ(launchArgIndexAt(Text, Close, Text.find(";")), std::nullopt);
}

namespace {
/// `__global__ void k(float *u, Cell c, Empty e)` with `struct Cell { int n;
/// struct { float x; double y; } o; }` (n at 0, o.x at 8, o.y at 16; 24
/// bytes) and an empty `struct Empty {}`.
std::vector<ParamInfo> recordParams() {
  ParamInfo U = makeParam("u", "float *", "float", true, false, 8, 4);
  ParamInfo C = makeParam("c", "Cell", "Cell", false, false, 24, 24);
  C.Index = 1;
  C.IsRecord = true;
  C.Members = {{"n", 0, "int", 4}, {"o.x", 8, "float", 4},
               {"o.y", 16, "double", 8}};
  ParamInfo E = makeParam("e", "Empty", "Empty", false, false, 1, 1);
  E.Index = 2;
  E.IsRecord = true;
  return {U, C, E};
}
} // namespace

TEST(HarnessSpec, StructureByValueMemberByMember) {
  Harness H;
  std::string E;
  ASSERT_TRUE(parseHarnessSpec(R"Y(kernel: k
grid: 1
block: 32
params:
  u: { count: 32 }
  c: { n: 3, o.x: 0.5, o.y: n * 2 }
  e: {}
)Y",
                               "h.yaml", "k", recordParams(),
                               {{"n", {false, 4, 0}}}, H, E))
      << E;
  ASSERT_EQ(H.Args.size(), 3u);
  const ScalarSpec &C = H.Args[1].Scalar;
  EXPECT_TRUE(C.Record);
  ASSERT_EQ(C.Members.size(), 3u);
  Bytes B = scalarArgBytes(C);
  ASSERT_EQ(B.size(), 24u);
  int32_t N;
  float X;
  double Y;
  std::memcpy(&N, &B[0], 4);
  std::memcpy(&X, &B[8], 4);
  std::memcpy(&Y, &B[16], 8);
  EXPECT_EQ(N, 3);
  EXPECT_EQ(X, 0.5f);
  EXPECT_EQ(Y, 8.0);
  EXPECT_EQ(B[4], 0); // padding
  EXPECT_EQ(scalarArgBytes(H.Args[2].Scalar), (Bytes{0}));
}

TEST(HarnessSpec, StructureByValueErrors) {
  auto Err = [](const std::string &C) {
    Harness H;
    std::string E;
    EXPECT_FALSE(parseHarnessSpec("kernel: k\ngrid: 1\nblock: 32\nparams:\n"
                                  "  u: { count: 32 }\n  c: " +
                                      C + "\n  e: {}\n",
                                  "h.yaml", "k", recordParams(), {}, H, E));
    return E;
  };
  EXPECT_NE(Err("{ n: 3, o.x: 1 }").find("params.c.o.y: missing: member "
                                         "'o.y' ('double') needs a value"),
            std::string::npos)
      << Err("{ n: 3, o.x: 1 }");
  EXPECT_NE(Err("{ n: 3, o.x: 1, o.y: 2, z: 1 }")
                .find("params.c.z: no such member of 'Cell' (members: n, "
                      "o.x, o.y)"),
            std::string::npos);
  EXPECT_NE(Err("{ n: 1.5, o.x: 1, o.y: 2 }")
                .find("member 'n' is an integer ('int') but the value is "
                      "not"),
            std::string::npos);
  EXPECT_NE(Err("7").find("parameter 'c' is a structure ('Cell'): give its "
                          "members as { n: <value>, o.x: <value>, o.y: "
                          "<value> }"),
            std::string::npos)
      << Err("7");
}

// `bias: null`: a pointer parameter the launch gives a null pointer (an
// optional buffer left out) is passed as a zero address, with no buffer;
// `null` is a value for pointers only.
TEST(HarnessSpec, NullPointerParameter) {
  std::vector<ParamInfo> Ps = {
      makeParam("out", "float *", "float", true, false, 8, 4),
      makeParam("bias", "const float *", "float", true, true, 8, 4),
      makeParam("n", "int", "int", false, false, 4, 4)};
  Harness H;
  std::string E;
  ASSERT_TRUE(parseHarnessSpec("kernel: k\ngrid: 1\nblock: 32\nparams:\n"
                               "  out: { count: 32 }\n  bias: null\n  n: 32\n",
                               "h.yaml", "k", Ps, {}, H, E))
      << E;
  ASSERT_EQ(H.Args.size(), 3u);
  EXPECT_TRUE(H.Args[0].IsBuffer);
  EXPECT_FALSE(H.Args[1].IsBuffer);
  EXPECT_TRUE(H.Args[1].Scalar.Null);
  Bytes B = scalarArgBytes(H.Args[1].Scalar);
  ASSERT_EQ(B.size(), sizeof(void *));
  EXPECT_EQ(B, Bytes(sizeof(void *), 0));
  Harness H2;
  EXPECT_FALSE(parseHarnessSpec("kernel: k\ngrid: 1\nblock: 32\nparams:\n"
                                "  out: { count: 32 }\n  bias: null\n"
                                "  n: null\n",
                                "h.yaml", "k", Ps, {}, H2, E));
  EXPECT_NE(E.find("params.n"), std::string::npos) << E;
}

// `before: 8`: a buffer whose pointer is 8 elements into it (past a halo);
// the buffer holds before + count elements. A negative or fractional
// `before` names the field.
TEST(HarnessSpec, ElementsBeforeThePointer) {
  std::vector<ParamInfo> Ps = {
      makeParam("out", "float *", "float", true, false, 8, 4),
      makeParam("in", "const float *", "float", true, true, 8, 4)};
  Harness H;
  std::string E;
  ASSERT_TRUE(parseHarnessSpec("kernel: k\ngrid: 1\nblock: 32\nparams:\n"
                               "  out: { count: 32 }\n"
                               "  in: { count: 40, before: 8 }\n",
                               "h.yaml", "k", Ps, {}, H, E))
      << E;
  ASSERT_EQ(H.Args.size(), 2u);
  EXPECT_EQ(H.Args[0].Buffer.Before, 0u);
  EXPECT_EQ(H.Args[1].Buffer.Before, 8u);
  EXPECT_EQ(H.Args[1].Buffer.Count, 40u);
  EXPECT_EQ(H.Args[1].Buffer.total(), 48u);
  Harness H2;
  EXPECT_FALSE(parseHarnessSpec("kernel: k\ngrid: 1\nblock: 32\nparams:\n"
                                "  out: { count: 32 }\n"
                                "  in: { count: 40, before: -1 }\n",
                                "h.yaml", "k", Ps, {}, H2, E));
  EXPECT_NE(E.find("params.in.before"), std::string::npos) << E;
}
