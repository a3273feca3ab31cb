//===- Harness.cpp - harness specs: parse, infer, template ----------------===//
#include "cudal1/Verify/Harness.h"
#include "HarnessParams.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
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
    char Buf[32];
    // Integers exactly (sizes of large buffers: "int(0, 16777215)", not
    // "1.67772e+07"); other numbers in the shortest form that reads back.
    if (V == std::floor(V) && std::fabs(V) < 9007199254740992.0)
      std::snprintf(Buf, sizeof(Buf), "%.0f", V);
    else {
      std::snprintf(Buf, sizeof(Buf), "%g", V);
      if (std::strtod(Buf, nullptr) != V)
        std::snprintf(Buf, sizeof(Buf), "%.17g", V);
    }
    return std::string(Buf);
  };
  switch (K) {
  case Uniform: return "uniform(" + N(A) + ", " + N(B) + ")";
  case Normal: return "normal(" + N(A) + ", " + N(B) + ")";
  case IntRange: return "int(" + N(A) + ", " + N(B) + ")";
  case Constant: return "constant(" + N(A) + ")";
  case Iota: return "iota(" + N(A) + ", " + N(B) + ")";
  case Zero: return "zero";
  case Sorted: return "sorted(" + N(A) + ", " + N(B) + ")";
  case Distinct: return "distinct(" + N(A) + ", " + N(B) + ")";
  case Values: {
    std::string S = "values(";
    for (size_t I = 0; I < List.size(); ++I)
      S += (I ? ", " : "") + N(List[I]);
    return S + ")";
  }
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
  } else if (Name == "sorted" || Name == "distinct") {
    if (!Need(2))
      return false;
    if (Args[1] < Args[0] || Args[0] != std::floor(Args[0]) ||
        Args[1] != std::floor(Args[1])) {
      Error = Name.str() + "(lo, hi) needs integers lo <= hi";
      return false;
    }
    Out = {Name == "sorted" ? Distribution::Sorted : Distribution::Distinct,
           Args[0], Args[1]};
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
  } else if (Name == "values") {
    if (Args.empty()) {
      Error = "'values' takes at least one value in '" + TextIn + "'";
      return false;
    }
    Out = {Distribution::Values, 0, 0};
    Out.List = Args;
  } else {
    Error = "unknown distribution '" + Name.str() +
            "' (use uniform(a,b), normal(mean,stddev), int(lo,hi), "
            "constant(v), iota(start,step), sorted(lo,hi), distinct(lo,hi), "
            "values(v0, v1, ...) or zero)";
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

std::string harnessTemplate(const std::string &Kernel,
                            const std::vector<ParamInfo> &Params) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "# harness for " << Kernel << " (see docs/harness.md)\n";
  OS << "kernel: " << Kernel << "\n";
  OS << "sizes:\n  N: 1048576\n";
  OS << "grid: \"cdiv(N, 256)\"\n";
  OS << "block: 256\n";
  OS << "seed: 1234\n";
  OS << "params:\n";
  for (const auto &P : Params) {
    OS << "  " << P.Name << ": ";
    if (P.IsPointer) {
      ElemKind K = elemKindFromType(P.ScalarType.empty() ? P.ElementType
                                                         : P.ScalarType);
      std::string Init = isFloatKind(K) ? "uniform(-1, 1)" : "int(0, 100)";
      if (P.PointeeConst)
        OS << "{ count: N, init: \"" << Init << "\" }   # read-only input\n";
      else
        OS << "{ count: N }   # output (poisoned before each run); add init: "
              "for an in/out buffer, and role: input for one the kernel only "
              "reads\n";
    } else {
      ElemKind K =
          elemKindFromType(P.ScalarType.empty() ? P.Type : P.ScalarType);
      OS << (isFloatKind(K) ? "1.5" : "N") << "   # " << P.Type << "\n";
    }
  }
  return OS.str();
}

} // namespace cudal1
