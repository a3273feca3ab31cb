//===- Harness.cpp - harness specs: parse, infer, template ----------------===//
#include "cudal1/Verify/Harness.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <sstream>
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace cudal1 {

ElemKind elemKindFromType(const std::string &TypeIn) {
  std::string T = TypeIn;
  // Strip qualifiers and pointer/reference marks.
  for (const char *Q : {"const ", "volatile ", "__restrict__", "__restrict",
                        "restrict", "struct "}) {
    size_t P;
    while ((P = T.find(Q)) != std::string::npos)
      T.erase(P, std::strlen(Q));
  }
  while (!T.empty() && (T.back() == ' ' || T.back() == '*' || T.back() == '&'))
    T.pop_back();
  while (!T.empty() && T.front() == ' ')
    T.erase(0, 1);
  if (StringRef(T).ends_with(" const"))
    T.resize(T.size() - 6);
  StringRef S(T);
  S.consume_front("std::");
  S.consume_front("::");
  if (S == "float")
    return ElemKind::F32;
  if (S == "double")
    return ElemKind::F64;
  if (S == "__half" || S == "half")
    return ElemKind::F16;
  if (S == "__nv_bfloat16" || S == "nv_bfloat16" || S == "bfloat16" ||
      S == "__bf16")
    return ElemKind::BF16;
  if (S == "bool")
    return ElemKind::Bool;
  if (S == "char" || S == "signed char" || S == "int8_t")
    return ElemKind::I8;
  if (S == "unsigned char" || S == "uint8_t")
    return ElemKind::U8;
  if (S == "short" || S == "short int" || S == "int16_t" ||
      S == "signed short")
    return ElemKind::I16;
  if (S == "unsigned short" || S == "uint16_t" || S == "unsigned short int")
    return ElemKind::U16;
  if (S == "int" || S == "signed" || S == "signed int" || S == "int32_t")
    return ElemKind::I32;
  if (S == "unsigned" || S == "unsigned int" || S == "uint32_t")
    return ElemKind::U32;
  if (S == "long" || S == "long int" || S == "long long" ||
      S == "long long int" || S == "int64_t" || S == "ptrdiff_t" ||
      S == "ssize_t")
    return ElemKind::I64;
  if (S == "unsigned long" || S == "unsigned long long" ||
      S == "unsigned long int" || S == "unsigned long long int" ||
      S == "uint64_t" || S == "size_t")
    return ElemKind::U64;
  return ElemKind::Bytes;
}

const char *elemKindName(ElemKind K) {
  switch (K) {
  case ElemKind::F32: return "f32";
  case ElemKind::F64: return "f64";
  case ElemKind::F16: return "f16";
  case ElemKind::BF16: return "bf16";
  case ElemKind::I8: return "i8";
  case ElemKind::I16: return "i16";
  case ElemKind::I32: return "i32";
  case ElemKind::I64: return "i64";
  case ElemKind::U8: return "u8";
  case ElemKind::U16: return "u16";
  case ElemKind::U32: return "u32";
  case ElemKind::U64: return "u64";
  case ElemKind::Bool: return "bool";
  case ElemKind::Bytes: return "bytes";
  }
  return "?";
}

unsigned elemKindSize(ElemKind K) {
  switch (K) {
  case ElemKind::F32: case ElemKind::I32: case ElemKind::U32: return 4;
  case ElemKind::F64: case ElemKind::I64: case ElemKind::U64: return 8;
  case ElemKind::F16: case ElemKind::BF16: case ElemKind::I16:
  case ElemKind::U16: return 2;
  case ElemKind::I8: case ElemKind::U8: case ElemKind::Bool: return 1;
  case ElemKind::Bytes: return 0;
  }
  return 0;
}

bool isFloatKind(ElemKind K) {
  return K == ElemKind::F32 || K == ElemKind::F64 || K == ElemKind::F16 ||
         K == ElemKind::BF16;
}

std::string Distribution::str() const {
  auto N = [](double V) {
    std::string S = formatv("{0}", V).str();
    return S;
  };
  switch (K) {
  case Uniform: return "uniform(" + N(A) + ", " + N(B) + ")";
  case Normal: return "normal(" + N(A) + ", " + N(B) + ")";
  case IntRange: return "int(" + N(A) + ", " + N(B) + ")";
  case Constant: return "constant(" + N(A) + ")";
  case Iota: return "iota(" + N(A) + ", " + N(B) + ")";
  case Zero: return "zero";
  }
  return "?";
}

bool parseDistribution(const std::string &TextIn, const ExprEnv &Env,
                       Distribution &Out, std::string &Error) {
  StringRef Text = StringRef(TextIn).trim();
  StringRef Name = Text.take_until([](char C) { return C == '('; }).trim();
  StringRef Rest = Text.drop_front(Text.take_until([](char C) {
                                         return C == '(';
                                       }).size());
  std::vector<double> Args;
  if (!Rest.empty()) {
    if (!Rest.consume_front("(") || !Rest.consume_back(")")) {
      Error = "malformed distribution '" + TextIn +
              "' (inside { } or [ ], quote values that contain commas: "
              "init: \"uniform(-1, 1)\")";
      return false;
    }
    // Split on top-level commas.
    int Depth = 0;
    size_t Start = 0;
    std::string R = Rest.str();
    for (size_t I = 0; I <= R.size(); ++I) {
      if (I < R.size() && R[I] == '(')
        ++Depth;
      else if (I < R.size() && R[I] == ')')
        --Depth;
      if (I == R.size() || (R[I] == ',' && Depth == 0)) {
        std::string Piece = StringRef(R).slice(Start, I).trim().str();
        if (!Piece.empty() || I != R.size() || !Args.empty()) {
          ExprValue V;
          std::string E;
          if (!evalExpr(Piece, Env, V, E)) {
            Error = "in '" + TextIn + "': " + E;
            return false;
          }
          Args.push_back(V.asDouble());
        }
        Start = I + 1;
      }
    }
  }
  auto Need = [&](size_t N) {
    if (Args.size() == N)
      return true;
    Error = "'" + Name.str() + "' takes " + std::to_string(N) +
            " argument(s), got " + std::to_string(Args.size()) + " in '" +
            TextIn + "'";
    return false;
  };
  if (Name == "uniform") {
    if (!Need(2))
      return false;
    Out = {Distribution::Uniform, Args[0], Args[1]};
  } else if (Name == "normal") {
    if (!Need(2))
      return false;
    if (Args[1] < 0) {
      Error = "normal(mean, stddev) needs stddev >= 0";
      return false;
    }
    Out = {Distribution::Normal, Args[0], Args[1]};
  } else if (Name == "int") {
    if (!Need(2))
      return false;
    if (Args[1] < Args[0]) {
      Error = "int(lo, hi) needs lo <= hi";
      return false;
    }
    Out = {Distribution::IntRange, Args[0], Args[1]};
  } else if (Name == "constant") {
    if (!Need(1))
      return false;
    Out = {Distribution::Constant, Args[0], 0};
  } else if (Name == "iota") {
    if (Args.empty())
      Args = {0, 1};
    else if (Args.size() == 1)
      Args.push_back(1);
    if (!Need(2))
      return false;
    Out = {Distribution::Iota, Args[0], Args[1]};
  } else if (Name == "zero") {
    if (!Need(0))
      return false;
    Out = {Distribution::Zero, 0, 0};
  } else {
    Error = "unknown distribution '" + Name.str() +
            "' (use uniform(a,b), normal(mean,stddev), int(lo,hi), "
            "constant(v), iota(start,step) or zero)";
    return false;
  }
  return true;
}

bool parseDefine(const std::string &Text, ExprEnv &Env, std::string &Error) {
  size_t Eq = Text.find('=');
  if (Eq == std::string::npos || Eq == 0) {
    Error = "--define '" + Text + "': expected NAME=VALUE";
    return false;
  }
  std::string Name = StringRef(Text).take_front(Eq).trim().str();
  ExprValue V;
  std::string E;
  if (!evalExpr(Text.substr(Eq + 1), Env, V, E)) {
    Error = "--define '" + Text + "': " + E;
    return false;
  }
  Env[Name] = V;
  return true;
}

namespace {
/// The YAML document as a tree. llvm::yaml's parser streams: a node cannot be
/// revisited after the parser moved past it, so the spec is copied first.
struct YNode {
  enum KindT { KNull, KScalar, KMap, KSeq } Kind = KNull;
  std::string Value;
  std::vector<std::pair<YNode, YNode>> Map;
  std::vector<YNode> Seq;
  unsigned Line = 0, Col = 0;
};
const YNode *asMap(const YNode *N) {
  return N && N->Kind == YNode::KMap ? N : nullptr;
}
const YNode *asSeq(const YNode *N) {
  return N && N->Kind == YNode::KSeq ? N : nullptr;
}
YNode toTree(yaml::Node *N, SourceMgr &SM) {
  YNode Y;
  if (!N)
    return Y;
  auto LC = SM.getLineAndColumn(N->getSourceRange().Start);
  Y.Line = LC.first;
  Y.Col = LC.second;
  if (auto *S = dyn_cast<yaml::ScalarNode>(N)) {
    SmallString<64> Buf;
    Y.Kind = YNode::KScalar;
    Y.Value = S->getValue(Buf).str();
  } else if (auto *B = dyn_cast<yaml::BlockScalarNode>(N)) {
    Y.Kind = YNode::KScalar;
    Y.Value = B->getValue().str();
  } else if (auto *M = dyn_cast<yaml::MappingNode>(N)) {
    Y.Kind = YNode::KMap;
    for (auto &KV : *M) {
      YNode K = toTree(KV.getKey(), SM);
      YNode V = toTree(KV.getValue(), SM);
      Y.Map.push_back({std::move(K), std::move(V)});
    }
  } else if (auto *Q = dyn_cast<yaml::SequenceNode>(N)) {
    Y.Kind = YNode::KSeq;
    for (auto &I : *Q)
      Y.Seq.push_back(toTree(&I, SM));
  }
  return Y;
}

/// Items of a sequence (or the one scalar), with items that a flow
/// sequence split inside parentheses joined again: [cdiv(N, 32), 4] has two
/// items, not three.
std::vector<std::pair<std::string, const YNode *>> items(const YNode *N) {
  std::vector<std::pair<std::string, const YNode *>> Out;
  if (!N)
    return Out;
  if (N->Kind != YNode::KSeq) {
    Out.push_back({N->Value, N});
    return Out;
  }
  int Depth = 0;
  for (const YNode &I : N->Seq) {
    if (Depth > 0 && !Out.empty())
      Out.back().first += ", " + I.Value;
    else
      Out.push_back({I.Value, &I});
    for (char C : I.Value)
      Depth += C == '(' ? 1 : C == ')' ? -1 : 0;
  }
  return Out;
}

/// Walks a parsed YAML document, turning node positions into messages.
class SpecReader {
public:
  SpecReader(SourceMgr &SM, std::string File) : SM(SM), File(std::move(File)) {}
  std::string Error;

  bool fail(const YNode *N, const std::string &Field, const std::string &Msg) {
    if (!Error.empty())
      return false;
    unsigned Line = 0, Col = 0;
    if (N) {
      Line = N->Line;
      Col = N->Col;
    }
    Error = File + ":" + std::to_string(Line) + ":" + std::to_string(Col) +
            ": " + (Field.empty() ? "" : Field + ": ") + Msg;
    return false;
  }
  bool scalar(const YNode *N, const std::string &Field, std::string &Out) {
    if (N && N->Kind == YNode::KScalar) {
      Out = N->Value;
      return true;
    }
    return fail(N, Field, "expected a value");
  }
  bool expr(const YNode *N, const std::string &Field, const ExprEnv &Env,
            ExprValue &Out) {
    std::string T;
    if (!scalar(N, Field, T))
      return false;
    std::string E;
    if (!evalExpr(T, Env, Out, E))
      return fail(N, Field, E);
    return true;
  }
  bool dims(const YNode *N, const std::string &Field, const ExprEnv &Env,
            std::array<uint64_t, 3> &Out) {
    Out = {1, 1, 1};
    if (N && N->Kind == YNode::KMap)
      return fail(N, Field, "expected a value or [x, y, z]");
    auto Items = items(N);
    if (Items.empty() || Items.size() > 3)
      return fail(N, Field, "expected 1 to 3 dimensions");
    for (size_t I = 0; I < Items.size(); ++I) {
      ExprValue V;
      std::string E;
      if (!evalExpr(Items[I].first, Env, V, E))
        return fail(Items[I].second, Field, E);
      if (V.IsFloat || V.I <= 0)
        return fail(Items[I].second, Field,
                    "dimensions must be positive integers");
      Out[I] = V.I;
    }
    return true;
  }

private:
  SourceMgr &SM;
  std::string File;
};
} // namespace

static const ParamInfo *findParam(const std::vector<ParamInfo> &Params,
                                    StringRef Name) {
  for (const auto &P : Params)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

static std::string paramNames(const std::vector<ParamInfo> &Params) {
  std::string S;
  for (const auto &P : Params)
    S += (S.empty() ? "" : ", ") + P.Name;
  return S.empty() ? "none" : S;
}

static Distribution defaultInit(ElemKind K) {
  if (isFloatKind(K))
    return {Distribution::Uniform, -1, 1};
  if (K == ElemKind::Bool)
    return {Distribution::IntRange, 0, 1};
  return {Distribution::IntRange, 0, 100};
}

static void setBufferKind(BufferSpec &B, const ParamInfo &P) {
  B.Param = P.Name;
  B.Kind = elemKindFromType(P.ElementType.empty() ? P.Type : P.ElementType);
  B.ElemSize = elemKindSize(B.Kind);
  if (B.ElemSize == 0)
    B.ElemSize = std::max<uint64_t>(1, P.ElementSizeBytes.value_or(1));
  B.ReadOnly = P.PointeeConst;
}

static bool setScalar(ScalarSpec &S, const ParamInfo &P, const ExprValue &V,
                      std::string &Err) {
  S.Param = P.Name;
  S.Kind = elemKindFromType(P.Type);
  S.Size = elemKindSize(S.Kind);
  if (S.Kind == ElemKind::Bytes) {
    Err = "parameter '" + P.Name + "' has type '" + P.Type +
          "', which the harness cannot pass yet (scalars: integer, bool, "
          "float, double, __half, __nv_bfloat16)";
    return false;
  }
  S.Value = V;
  if (!isFloatKind(S.Kind) && V.IsFloat) {
    Err = "parameter '" + P.Name + "' is an integer ('" + P.Type +
          "') but the value is not";
    return false;
  }
  return true;
}

bool parseHarnessSpec(const std::string &Text, const std::string &FileName,
                      const std::string &Kernel,
                      const std::vector<ParamInfo> &Params,
                      const ExprEnv &Defines, Harness &Out,
                      std::string &Error) {
  SourceMgr SM;
  std::string YamlErr;
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        auto *S = static_cast<std::string *>(Ctx);
        if (S->empty())
          *S = std::to_string(D.getLineNo()) + ":" +
               std::to_string(D.getColumnNo() + 1) + ": " +
               D.getMessage().str();
      },
      &YamlErr);
  yaml::Stream Stream(Text, SM);
  SpecReader R(SM, FileName);
  Out = Harness();
  Out.Kernel = Kernel;
  Out.SpecFile = FileName;

  auto DocIt = Stream.begin();
  if (DocIt == Stream.end()) {
    Error = FileName + ":1:1: empty harness spec";
    return false;
  }
  YNode Tree = toTree(DocIt->getRoot(), SM);
  const YNode *Root = &Tree;
  if (!YamlErr.empty()) {
    Error = FileName + ":" + YamlErr;
    return false;
  }
  const YNode *Map = asMap(Root);
  if (!Map) {
    if (!YamlErr.empty())
      Error = FileName + ":" + YamlErr;
    else
      R.fail(Root, "", "expected a mapping (kernel:, sizes:, grid:, block:, "
                       "params:)");
    if (Error.empty())
      Error = R.Error;
    return false;
  }

  // A spec may hold several kernels under "kernels:", or one at the top.
  const YNode *KMap = Map;
  std::map<std::string, const YNode *> Top;
  std::vector<std::pair<std::string, const YNode *>> TopKeys;
  for (auto &KV : Map->Map) {
    std::string Key;
    if (!R.scalar(&KV.first, "", Key))
      break;
    Top[Key] = &KV.second;
    TopKeys.push_back({Key, &KV.first});
  }
  if (!YamlErr.empty()) {
    Error = FileName + ":" + YamlErr;
    return false;
  }
  if (!R.Error.empty()) {
    Error = R.Error;
    return false;
  }
  std::string FieldPrefix;
  if (Top.count("kernels")) {
    auto *KS = asMap(Top["kernels"]);
    if (!KS) {
      R.fail(Top["kernels"], "kernels", "expected a mapping of kernel names");
      Error = R.Error;
      return false;
    }
    KMap = nullptr;
    std::string Names;
    for (auto &KV : KS->Map) {
      std::string Key;
      R.scalar(&KV.first, "kernels", Key);
      Names += (Names.empty() ? "" : ", ") + Key;
      if (Key == Kernel)
        KMap = asMap(&KV.second);
    }
    if (!KMap) {
      R.fail(Top["kernels"], "kernels",
             "no entry for kernel '" + Kernel + "' (entries: " + Names + ")");
      Error = R.Error;
      return false;
    }
    FieldPrefix = "kernels." + Kernel + ".";
    Top.clear();
    TopKeys.clear();
    for (auto &KV : KMap->Map) {
      std::string Key;
      if (!R.scalar(&KV.first, "", Key))
        break;
      Top[Key] = &KV.second;
      TopKeys.push_back({Key, &KV.first});
    }
  }
  auto F = [&](const std::string &S) { return FieldPrefix + S; };
  static const char *Known[] = {"kernel", "sizes",      "grid",      "block",
                                "shared_mem", "seed",   "input_sets", "params",
                                "tolerance", "kernels", "candidate"};
  for (auto &KK : TopKeys) {
    bool Ok = false;
    for (const char *K : Known)
      Ok |= KK.first == K;
    if (!Ok) {
      R.fail(KK.second, F(KK.first),
             "unknown field (fields: kernel, sizes, grid, block, shared_mem, "
             "seed, input_sets, params, tolerance, candidate)");
      Error = R.Error;
      return false;
    }
  }
  auto Fail = [&]() {
    Error = !YamlErr.empty() ? FileName + ":" + YamlErr : R.Error;
    return false;
  };
  if (Top.count("kernel")) {
    std::string K;
    if (!R.scalar(Top["kernel"], F("kernel"), K))
      return Fail();
    if (!Kernel.empty() && K != Kernel) {
      R.fail(Top["kernel"], F("kernel"),
             "spec is for kernel '" + K + "', verifying '" + Kernel + "'");
      return Fail();
    }
  }

  ExprEnv Env;
  if (Top.count("sizes")) {
    auto *SMap = asMap(Top["sizes"]);
    if (!SMap) {
      R.fail(Top["sizes"], F("sizes"), "expected a mapping NAME: value");
      return Fail();
    }
    for (auto &KV : SMap->Map) {
      std::string Name;
      if (!R.scalar(&KV.first, F("sizes"), Name))
        return Fail();
      ExprValue V;
      if (Defines.count(Name)) {
        V = Defines.at(Name);
        Out.Notes.push_back("size " + Name + " from --define");
      } else if (!R.expr(&KV.second, F("sizes." + Name), Env, V)) {
        return Fail();
      }
      Env[Name] = V;
    }
  }
  for (auto &D : Defines)
    if (!Env.count(D.first))
      Env[D.first] = D.second;
  Out.Sizes = Env;

  if (!Top.count("grid") || !Top.count("block")) {
    R.fail(Map, F(Top.count("grid") ? "block" : "grid"),
           "missing (grid and block are required)");
    return Fail();
  }
  if (!R.dims(Top["grid"], F("grid"), Env, Out.Grid) ||
      !R.dims(Top["block"], F("block"), Env, Out.Block))
    return Fail();
  if (Out.Block[0] * Out.Block[1] * Out.Block[2] > 1024) {
    R.fail(Top["block"], F("block"), "more than 1024 threads per block");
    return Fail();
  }
  if (Top.count("candidate")) {
    // The candidate's own launch shape, for rewrites that change it (thread
    // mapping swap, warp per row): expressions over the sizes and over the
    // original's grid.x .. block.z.
    auto *CMap = asMap(Top["candidate"]);
    if (!CMap) {
      R.fail(Top["candidate"], F("candidate"),
             "expected a mapping with grid and/or block");
      return Fail();
    }
    ExprEnv CEnv = Env;
    const char *Axis[] = {"x", "y", "z"};
    for (int I = 0; I < 3; ++I) {
      CEnv[std::string("grid.") + Axis[I]] = ExprValue{false, int64_t(Out.Grid[I]), 0};
      CEnv[std::string("block.") + Axis[I]] =
          ExprValue{false, int64_t(Out.Block[I]), 0};
    }
    std::array<uint64_t, 3> CG = Out.Grid, CB = Out.Block;
    for (auto &KV : CMap->Map) {
      std::string Key;
      if (!R.scalar(&KV.first, F("candidate"), Key))
        return Fail();
      if (Key != "grid" && Key != "block") {
        R.fail(&KV.first, F("candidate." + Key),
               "unknown field (fields: grid, block)");
        return Fail();
      }
      if (!R.dims(&KV.second, F("candidate." + Key), CEnv,
                  Key == "grid" ? CG : CB))
        return Fail();
      if (Key == "block" && CB[0] * CB[1] * CB[2] > 1024) {
        R.fail(&KV.second, F("candidate.block"),
               "more than 1024 threads per block");
        return Fail();
      }
    }
    Out.CandidateGrid = CG;
    Out.CandidateBlock = CB;
  }
  if (Top.count("shared_mem")) {
    ExprValue V;
    if (!R.expr(Top["shared_mem"], F("shared_mem"), Env, V))
      return Fail();
    if (V.IsFloat || V.I < 0) {
      R.fail(Top["shared_mem"], F("shared_mem"), "must be bytes >= 0");
      return Fail();
    }
    Out.SharedMem = V.I;
  }
  if (Top.count("seed")) {
    ExprValue V;
    if (!R.expr(Top["seed"], F("seed"), Env, V))
      return Fail();
    Out.Seed = V.asInt();
  }
  if (Top.count("input_sets")) {
    ExprValue V;
    if (!R.expr(Top["input_sets"], F("input_sets"), Env, V))
      return Fail();
    if (V.IsFloat || V.I < 3) {
      R.fail(Top["input_sets"], F("input_sets"),
             "at least 3 input sets are required");
      return Fail();
    }
    Out.InputSets = V.I;
  }
  if (Top.count("tolerance")) {
    auto *TMap = asMap(Top["tolerance"]);
    if (!TMap) {
      R.fail(Top["tolerance"], F("tolerance"),
             "expected a mapping (rtol, atol, half_rtol, half_atol, "
             "f64_rtol, f64_atol, ulp, scale_rtol)");
      return Fail();
    }
    Tolerance T;
    for (auto &KV : TMap->Map) {
      std::string Key;
      if (!R.scalar(&KV.first, F("tolerance"), Key))
        return Fail();
      ExprValue V;
      if (!R.expr(&KV.second, F("tolerance." + Key), Env, V))
        return Fail();
      double D = V.asDouble();
      if (D < 0) {
        R.fail(&KV.second, F("tolerance." + Key), "must be >= 0");
        return Fail();
      }
      if (Key == "rtol") T.F32Rtol = D;
      else if (Key == "atol") T.F32Atol = D;
      else if (Key == "half_rtol") T.HalfRtol = D;
      else if (Key == "half_atol") T.HalfAtol = D;
      else if (Key == "f64_rtol") T.F64Rtol = D;
      else if (Key == "f64_atol") T.F64Atol = D;
      else if (Key == "ulp") T.MaxUlp = uint64_t(D);
      else if (Key == "scale_rtol") T.ScaleRtol = D;
      else {
        R.fail(&KV.first, F("tolerance." + Key),
               "unknown field (rtol, atol, half_rtol, half_atol, f64_rtol, "
               "f64_atol, ulp, scale_rtol)");
        return Fail();
      }
    }
    Out.Tol = T;
  }

  // Parameters.
  std::map<std::string, const YNode *> PNodes;
  if (Top.count("params")) {
    auto *PMap = asMap(Top["params"]);
    if (!PMap) {
      R.fail(Top["params"], F("params"),
             "expected a mapping from parameter name to its value or buffer");
      return Fail();
    }
    for (auto &KV : PMap->Map) {
      std::string Name;
      if (!R.scalar(&KV.first, F("params"), Name))
        return Fail();
      if (!findParam(Params, Name)) {
        R.fail(&KV.first, F("params." + Name),
               "no such parameter of kernel '" + Kernel +
                   "' (parameters: " + paramNames(Params) + ")");
        return Fail();
      }
      PNodes[Name] = &KV.second;
    }
  }
  for (const auto &P : Params) {
    Harness::Arg A;
    std::string Field = F("params." + P.Name);
    auto It = PNodes.find(P.Name);
    if (It == PNodes.end()) {
      R.fail(Top.count("params") ? Top["params"] : Map, Field,
             P.IsPointer ? "missing: pointer parameter '" + P.Type +
                               "' needs { count: <elements>, init: <dist> }"
                         : "missing: scalar parameter '" + P.Type +
                               "' needs a value");
      return Fail();
    }
    const YNode *N = It->second;
    if (P.IsPointer) {
      A.IsBuffer = true;
      setBufferKind(A.Buffer, P);
      auto *BMap = asMap(N);
      if (!BMap) {
        // Shorthand: just the count.
        ExprValue V;
        if (!R.expr(N, Field + ".count", Env, V))
          return Fail();
        if (V.IsFloat || V.I <= 0) {
          R.fail(N, Field + ".count", "must be a positive integer");
          return Fail();
        }
        A.Buffer.Count = V.I;
        if (A.Buffer.ReadOnly)
          A.Buffer.Init.push_back(defaultInit(A.Buffer.Kind));
      } else {
        bool HasCount = false;
        for (auto &KV : BMap->Map) {
          std::string Key;
          if (!R.scalar(&KV.first, Field, Key))
            return Fail();
          if (Key == "count") {
            ExprValue V;
            if (!R.expr(&KV.second, Field + ".count", Env, V))
              return Fail();
            if (V.IsFloat || V.I <= 0) {
              R.fail(&KV.second, Field + ".count",
                     "must be a positive integer");
              return Fail();
            }
            A.Buffer.Count = V.I;
            HasCount = true;
          } else if (Key == "init") {
            for (auto &I : items(&KV.second)) {
              std::string E;
              if (I.second->Kind != YNode::KScalar) {
                R.fail(I.second, Field + ".init", "expected a distribution");
                return Fail();
              }
              Distribution D;
              if (!parseDistribution(I.first, Env, D, E)) {
                R.fail(I.second, Field + ".init", E);
                return Fail();
              }
              A.Buffer.Init.push_back(D);
            }
          } else if (Key == "seed") {
            ExprValue V;
            if (!R.expr(&KV.second, Field + ".seed", Env, V))
              return Fail();
            A.Buffer.Seed = V.asInt();
          } else {
            R.fail(&KV.first, Field + "." + Key,
                   "unknown field (count, init, seed)");
            return Fail();
          }
        }
        if (!HasCount) {
          R.fail(N, Field + ".count", "missing element count");
          return Fail();
        }
        if (A.Buffer.ReadOnly && A.Buffer.Init.empty())
          A.Buffer.Init.push_back(defaultInit(A.Buffer.Kind));
      }
    } else {
      ExprValue V;
      if (!R.expr(N, Field, Env, V))
        return Fail();
      std::string E;
      if (!setScalar(A.Scalar, P, V, E)) {
        R.fail(N, Field, E);
        return Fail();
      }
    }
    Out.Args.push_back(A);
  }
  if (!YamlErr.empty()) {
    Error = FileName + ":" + YamlErr;
    return false;
  }
  return true;
}

std::optional<std::pair<uint64_t, unsigned>>
findAllocationBytes(const std::string &Source, const std::string &NameIn,
                    const ExprEnv &Env) {
  std::string Name = StringRef(NameIn).trim().str();
  if (Name.empty() || Name.find_first_not_of(
                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                          "0123456789_") != std::string::npos)
    return std::nullopt;
  size_t Pos = 0;
  while ((Pos = Source.find("cudaMalloc", Pos)) != std::string::npos) {
    size_t Start = Pos;
    Pos += 10;
    if (Source.compare(Pos, 7, "Managed") == 0)
      Pos += 7;
    size_t P = Source.find_first_not_of(" \t\n", Pos);
    if (P == std::string::npos || Source[P] != '(')
      continue;
    // Split the argument list at top-level commas.
    int Depth = 0;
    std::vector<std::string> Args(1);
    size_t I = P + 1;
    for (; I < Source.size(); ++I) {
      char C = Source[I];
      if (C == '(')
        ++Depth;
      else if (C == ')') {
        if (Depth == 0)
          break;
        --Depth;
      } else if (C == ',' && Depth == 0) {
        Args.emplace_back();
        continue;
      }
      Args.back() += C;
    }
    if (Args.size() < 2)
      continue;
    std::string Dst = Args[0];
    Dst.erase(std::remove_if(Dst.begin(), Dst.end(),
                             [](char C) { return std::isspace((unsigned char)C); }),
              Dst.end());
    if (Dst != "&" + Name && Dst != "(void**)&" + Name &&
        Dst != "reinterpret_cast<void**>(&" + Name + ")")
      continue;
    // sizeof(T) -> its size, for the scalar types we know.
    std::string Bytes = Args[1];
    size_t S;
    bool Bad = false;
    while ((S = Bytes.find("sizeof")) != std::string::npos) {
      size_t Open = Bytes.find('(', S), Close = Bytes.find(')', Open);
      if (Open == std::string::npos || Close == std::string::npos) {
        Bad = true;
        break;
      }
      ElemKind K = elemKindFromType(Bytes.substr(Open + 1, Close - Open - 1));
      unsigned Size = elemKindSize(K);
      if (!Size) {
        Bad = true;
        break;
      }
      Bytes.replace(S, Close + 1 - S, std::to_string(Size));
    }
    ExprValue V;
    std::string E;
    if (Bad || !evalExpr(Bytes, Env, V, E) || V.IsFloat || V.I <= 0)
      continue;
    unsigned Line = 1 + std::count(Source.begin(), Source.begin() + Start, '\n');
    return std::make_pair(uint64_t(V.I), Line);
  }
  return std::nullopt;
}

bool inferHarness(const std::string &Kernel,
                  const std::vector<ParamInfo> &Params,
                  const LaunchFacts &Site, const ExprEnv &Defines,
                  Harness &Out, std::string &Why) {
  Out = Harness();
  Out.Kernel = Kernel;
  Out.Sizes = Defines;
  auto Dims = [&](const std::optional<std::array<uint64_t, 3>> &D,
                  const std::string &Text, const char *What,
                  std::array<uint64_t, 3> &To) {
    if (D) {
      To = *D;
      return true;
    }
    ExprValue V;
    std::string E;
    if (!Text.empty() && evalExpr(Text, Defines, V, E) && !V.IsFloat &&
        V.I > 0) {
      To = {uint64_t(V.I), 1, 1};
      return true;
    }
    Why = std::string("the launch's ") + What + " '" + Text +
          "' is not a compile-time constant" +
          (E.empty() ? "" : " (" + E + ")") + "; give it with --define";
    return false;
  };
  if (!Dims(Site.Grid, Site.GridText, "grid", Out.Grid) ||
      !Dims(Site.Block, Site.BlockText, "block", Out.Block))
    return false;
  if (Site.SharedMem)
    Out.SharedMem = *Site.SharedMem;
  uint64_t Threads = Out.Grid[0] * Out.Grid[1] * Out.Grid[2] * Out.Block[0] *
                     Out.Block[1] * Out.Block[2];
  for (size_t I = 0; I < Params.size(); ++I) {
    const ParamInfo &P = Params[I];
    Harness::Arg A;
    if (P.IsPointer) {
      A.IsBuffer = true;
      setBufferKind(A.Buffer, P);
      auto It = Defines.find(P.Name + ".count");
      std::optional<std::pair<uint64_t, unsigned>> Alloc;
      if (It == Defines.end() && I < Site.ArgTexts.size() &&
          !Site.SourceText.empty())
        Alloc = findAllocationBytes(Site.SourceText, Site.ArgTexts[I], Defines);
      if (It != Defines.end()) {
        A.Buffer.Count = It->second.asInt();
      } else if (Alloc && Alloc->first >= A.Buffer.ElemSize) {
        A.Buffer.Count = Alloc->first / A.Buffer.ElemSize;
        Out.Notes.push_back("buffer '" + P.Name + "': " +
                            std::to_string(A.Buffer.Count) +
                            " elements, from the cudaMalloc of '" +
                            Site.ArgTexts[I] + "' at line " +
                            std::to_string(Alloc->second));
      } else {
        A.Buffer.Count = Threads;
        Out.Notes.push_back("buffer '" + P.Name + "': " +
                            std::to_string(Threads) +
                            " elements assumed (one per launched thread); "
                            "set --define " + P.Name + ".count=N otherwise");
      }
      if (A.Buffer.ReadOnly)
        A.Buffer.Init.push_back(defaultInit(A.Buffer.Kind));
    } else {
      std::string Text = I < Site.ArgTexts.size() ? Site.ArgTexts[I] : "";
      ExprValue V;
      std::string E;
      auto D = Defines.find(P.Name);
      if (D != Defines.end())
        V = D->second;
      else if (Text.empty() || !evalExpr(Text, Defines, V, E)) {
        bool Ident = !Text.empty() &&
                     Text.find_first_not_of(
                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                         "0123456789_") == std::string::npos;
        Why = "the value of scalar parameter '" + P.Name + "' ('" + Text +
              "') is not known" + (E.empty() ? "" : " (" + E + ")") +
              "; give it with --define " + (Ident ? Text : P.Name) + "=VALUE";
        return false;
      }
      if (!setScalar(A.Scalar, P, V, Why))
        return false;
    }
    Out.Args.push_back(A);
  }
  return true;
}

std::string harnessTemplate(const std::string &Kernel,
                            const std::vector<ParamInfo> &Params,
                            const LaunchFacts *Site) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "# harness for " << Kernel << " (see docs/harness.md)\n";
  OS << "kernel: " << Kernel << "\n";
  OS << "sizes:\n  N: 1048576\n";
  auto DimText = [](const std::optional<std::array<uint64_t, 3>> &D,
                    const std::string &Text, const char *Default) {
    if (D)
      return formatv("[{0}, {1}, {2}]", (*D)[0], (*D)[1], (*D)[2]).str();
    if (!Text.empty())
      return "\"" + Text + "\"   # from the launch site: adjust";
    return std::string(Default);
  };
  OS << "grid: "
     << (Site ? DimText(Site->Grid, Site->GridText, "\"cdiv(N, 256)\"")
              : "\"cdiv(N, 256)\"")
     << "\n";
  OS << "block: "
     << (Site ? DimText(Site->Block, Site->BlockText, "256") : "256") << "\n";
  OS << "seed: 1234\n";
  OS << "params:\n";
  for (const auto &P : Params) {
    OS << "  " << P.Name << ": ";
    if (P.IsPointer) {
      ElemKind K = elemKindFromType(P.ElementType);
      std::string Init = isFloatKind(K) ? "uniform(-1, 1)" : "int(0, 100)";
      if (P.PointeeConst)
        OS << "{ count: N, init: \"" << Init << "\" }   # read-only input\n";
      else
        OS << "{ count: N }   # output (poisoned before each run); add init: "
              "for an in/out buffer\n";
    } else {
      ElemKind K = elemKindFromType(P.Type);
      OS << (isFloatKind(K) ? "1.5" : "N") << "   # " << P.Type << "\n";
    }
  }
  return OS.str();
}

} // namespace cudal1
