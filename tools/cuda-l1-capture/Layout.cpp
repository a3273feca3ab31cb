//===- Layout.cpp - kernel parameter layouts for capture ------------------===//
#include "Layout.h"
#include "MiniJson.h"
#include "cudal1/Capture/CaptureFormat.h"

#include <cxxabi.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace cudal1 {
namespace capture {

const char *paramKindName(ParamKind K) {
  switch (K) {
  case ParamKind::Pointer:
    return "pointer";
  case ParamKind::Scalar:
    return "scalar";
  case ParamKind::Aggregate:
    return "aggregate";
  }
  return "?";
}

void assignOffsets(KernelLayout &L) {
  uint64_t End = 0;
  for (auto &P : L.Params) {
    uint64_t A = P.Align ? P.Align : 1;
    P.Offset = (End + A - 1) / A * A;
    End = P.Offset + P.Size;
  }
  L.Bytes = End;
}

std::string demangle(const std::string &Mangled) {
  int Status = 0;
  char *D = abi::__cxa_demangle(Mangled.c_str(), nullptr, nullptr, &Status);
  if (Status != 0 || !D) {
    std::free(D);
    return "";
  }
  std::string S(D);
  std::free(D);
  return S;
}

static std::string trim(const std::string &S) {
  size_t B = S.find_first_not_of(" \t");
  if (B == std::string::npos)
    return "";
  size_t E = S.find_last_not_of(" \t");
  return S.substr(B, E - B + 1);
}

bool splitDemangledParams(const std::string &Demangled,
                          std::vector<std::string> &Types) {
  Types.clear();
  std::string S = trim(Demangled);
  if (S.empty() || S.back() != ')')
    return false;
  // The parameter list is the parenthesised group that ends the name.
  int Depth = 0;
  size_t Open = std::string::npos;
  for (size_t I = S.size(); I-- > 0;) {
    if (S[I] == ')')
      ++Depth;
    else if (S[I] == '(' && --Depth == 0) {
      Open = I;
      break;
    }
  }
  if (Open == std::string::npos)
    return false;
  std::string Inner = S.substr(Open + 1, S.size() - Open - 2);
  if (trim(Inner).empty() || trim(Inner) == "void")
    return true;
  int Paren = 0, Angle = 0, Square = 0;
  size_t Begin = 0;
  for (size_t I = 0; I <= Inner.size(); ++I) {
    char C = I < Inner.size() ? Inner[I] : ',';
    if (C == '(')
      ++Paren;
    else if (C == ')')
      --Paren;
    else if (C == '<')
      ++Angle;
    else if (C == '>')
      --Angle;
    else if (C == '[')
      ++Square;
    else if (C == ']')
      --Square;
    else if (C == ',' && Paren == 0 && Angle == 0 && Square == 0) {
      Types.push_back(trim(Inner.substr(Begin, I - Begin)));
      Begin = I + 1;
    }
  }
  return true;
}

namespace {
struct TypeInfo {
  uint64_t Size, Align;
};
} // namespace

/// Arithmetic and CUDA vector types (vector_types.h, x86-64/LP64), and the
/// common fixed-width typedefs Clang may print in the model.
static const std::map<std::string, TypeInfo> &knownScalars() {
  static const std::map<std::string, TypeInfo> M = [] {
    std::map<std::string, TypeInfo> T = {
        {"bool", {1, 1}},
        {"char", {1, 1}},
        {"signed char", {1, 1}},
        {"unsigned char", {1, 1}},
        {"char8_t", {1, 1}},
        {"short", {2, 2}},
        {"unsigned short", {2, 2}},
        {"char16_t", {2, 2}},
        {"int", {4, 4}},
        {"unsigned int", {4, 4}},
        {"unsigned", {4, 4}},
        {"wchar_t", {4, 4}},
        {"char32_t", {4, 4}},
        {"long", {8, 8}},
        {"unsigned long", {8, 8}},
        {"long long", {8, 8}},
        {"unsigned long long", {8, 8}},
        {"__int128", {16, 16}},
        {"unsigned __int128", {16, 16}},
        {"float", {4, 4}},
        {"double", {8, 8}},
        {"_Float16", {2, 2}},
        {"__half", {2, 2}},
        {"__nv_bfloat16", {2, 2}},
        {"__half2", {4, 4}},
        {"__nv_bfloat162", {4, 4}},
        {"half", {2, 2}},
        {"half2", {4, 4}},
        {"dim3", {12, 4}},
        {"short int", {2, 2}},
        {"short unsigned int", {2, 2}},
        {"long int", {8, 8}},
        {"long unsigned int", {8, 8}},
        {"long long int", {8, 8}},
        {"long long unsigned int", {8, 8}},
        // Typedefs (Clang's spelling in the model; never in mangled names).
        {"size_t", {8, 8}},
        {"std::size_t", {8, 8}},
        {"ptrdiff_t", {8, 8}},
        {"std::ptrdiff_t", {8, 8}},
        {"ssize_t", {8, 8}},
        {"int8_t", {1, 1}},
        {"uint8_t", {1, 1}},
        {"int16_t", {2, 2}},
        {"uint16_t", {2, 2}},
        {"int32_t", {4, 4}},
        {"uint32_t", {4, 4}},
        {"int64_t", {8, 8}},
        {"uint64_t", {8, 8}},
        {"std::int32_t", {4, 4}},
        {"std::uint32_t", {4, 4}},
        {"std::int64_t", {8, 8}},
        {"std::uint64_t", {8, 8}},
        {"uint", {4, 4}},
        {"ushort", {2, 2}},
        {"ulong", {8, 8}},
    };
    // CUDA vector types: element size e, n elements; alignment per
    // vector_types.h (3-vectors keep the element alignment).
    struct Base {
      const char *Name;
      uint64_t Elem;
    };
    const Base Bases[] = {{"char", 1},     {"uchar", 1},  {"short", 2},
                          {"ushort", 2},   {"int", 4},    {"uint", 4},
                          {"long", 8},     {"ulong", 8},  {"longlong", 8},
                          {"ulonglong", 8}, {"float", 4}, {"double", 8}};
    for (const auto &B : Bases) {
      for (unsigned N = 1; N <= 4; ++N) {
        uint64_t Size = B.Elem * N;
        uint64_t Align = N == 3 ? B.Elem : Size;
        if (N == 4 && B.Elem == 8)
          Align = 16; // long4, double4...: __builtin_align__(16)
        T[std::string(B.Name) + std::to_string(N)] = {Size, Align};
      }
      if (B.Elem == 8) {
        T[std::string(B.Name) + "4_16a"] = {32, 16};
        T[std::string(B.Name) + "4_32a"] = {32, 32};
      }
    }
    return T;
  }();
  return M;
}

/// Removes cv-qualifiers and elaborated-type keywords around a type name.
static std::string stripQualifiers(std::string S) {
  static const char *Words[] = {"const", "volatile", "struct", "class",
                                "union", "enum", "__restrict__",
                                "__restrict", "restrict"};
  bool Changed = true;
  while (Changed) {
    Changed = false;
    S = trim(S);
    for (const char *W : Words) {
      std::string Word(W);
      if (S.compare(0, Word.size() + 1, Word + " ") == 0) {
        S = S.substr(Word.size() + 1);
        Changed = true;
      }
      // A trailing qualifier: "float* const", "float *__restrict".
      if (S.size() > Word.size() &&
          S.compare(S.size() - Word.size(), Word.size(), Word) == 0) {
        char Before = S[S.size() - Word.size() - 1];
        if (Before == ' ' || Before == '*') {
          S = S.substr(0, S.size() - Word.size() - (Before == ' ' ? 1 : 0));
          Changed = true;
        }
      }
    }
  }
  return S;
}

bool classifyType(const std::string &Type, uint64_t &Size, uint64_t &Align,
                  ParamKind &Kind) {
  std::string S = stripQualifiers(Type);
  if (S.empty())
    return false;
  // Pointers (also "float* __restrict", "void (*)(int)", "int (*) [4]").
  if (S.back() == '*' || S.find("(*)") != std::string::npos ||
      S.find("(*") != std::string::npos) {
    Size = Align = 8;
    Kind = ParamKind::Pointer;
    return true;
  }
  if (S.back() == '&')
    return false; // references cannot be kernel parameters
  if (S == "decltype(nullptr)" || S == "std::nullptr_t" ||
      S == "nullptr_t") {
    Size = Align = 8;
    Kind = ParamKind::Scalar;
    return true;
  }
  const auto &M = knownScalars();
  auto It = M.find(S);
  if (It == M.end())
    return false;
  Size = It->second.Size;
  Align = It->second.Align;
  Kind = ParamKind::Scalar;
  return true;
}

bool layoutFromDemangled(const std::string &Demangled, KernelLayout &L,
                         std::string &Why) {
  L = KernelLayout();
  L.Source = "demangled";
  std::vector<std::string> Types;
  if (!splitDemangledParams(Demangled, Types)) {
    Why = "the kernel name '" + Demangled + "' has no parameter list";
    return false;
  }
  for (size_t I = 0; I < Types.size(); ++I) {
    ParamLayout P;
    P.Index = static_cast<unsigned>(I);
    P.Type = Types[I];
    if (!classifyType(Types[I], P.Size, P.Align, P.Kind)) {
      Why = "parameter " + std::to_string(I) + " has type '" + Types[I] +
            "', whose size and alignment the demangled name does not give "
            "(pass --model, the output of cuda-l1-rewrite --list-kernels "
            "--format=json)";
      return false;
    }
    L.Params.push_back(P);
  }
  assignOffsets(L);
  return true;
}

static bool readFile(const std::string &Path, std::string &Out) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return false;
  std::ostringstream SS;
  SS << In.rdbuf();
  Out = SS.str();
  return !In.bad();
}

bool KernelModel::load(const std::string &Path, std::string &Error) {
  std::string Text;
  if (!readFile(Path, Text)) {
    Error = Path + ": cannot read the kernel model";
    return false;
  }
  return loadText(Text, Path, Error);
}

static bool readParams(const capjson::Value &Ps, std::vector<ModelParam> &Out,
                       std::string &Why) {
  if (Ps.kind() != capjson::Value::Array) {
    Why = "\"parameters\" is not an array";
    return false;
  }
  for (const auto &P : Ps.elements()) {
    ModelParam M;
    if (const auto *N = P.get("name"); N && N->kind() == capjson::Value::String)
      M.Name = N->str();
    if (const auto *T = P.get("type"); T && T->kind() == capjson::Value::String)
      M.Type = T->str();
    const auto *IsPtr = P.get("isPointer");
    if (!IsPtr || IsPtr->kind() != capjson::Value::Bool) {
      Why = "a parameter has no boolean \"isPointer\"";
      return false;
    }
    M.IsPointer = IsPtr->asBool();
    const auto *Sz = P.get("sizeBytes");
    const auto *Al = P.get("alignBytes");
    M.HasSize = Sz && Al && Sz->getUInt(M.Size) && Al->getUInt(M.Align) &&
                M.Align > 0;
    Out.push_back(M);
  }
  return true;
}

bool KernelModel::loadText(const std::string &Text, const std::string &Name,
                           std::string &Error) {
  capjson::Value Root;
  std::string JsonError;
  if (!capjson::parse(Text, Root, JsonError)) {
    Error = Name + ": not JSON: " + JsonError;
    return false;
  }
  const capjson::Value *Ks = Root.get("kernels");
  if (!Ks || Ks->kind() != capjson::Value::Array) {
    Error = Name + ": no \"kernels\" array (expected the output of "
                   "cuda-l1-rewrite --list-kernels --format=json)";
    return false;
  }
  Kernels.clear();
  for (const auto &K : Ks->elements()) {
    std::string File;
    if (const auto *F = K.get("file"); F && F->kind() == capjson::Value::String)
      File = F->str();
    std::vector<ModelGlobal> Globals;
    if (const auto *Vs = K.get("variables");
        Vs && Vs->kind() == capjson::Value::Array) {
      for (const auto &V : Vs->elements()) {
        const auto *Kind = V.get("kind");
        const auto *QN = V.get("qualifiedName");
        const auto *Local = V.get("local");
        if (!Kind || Kind->kind() != capjson::Value::String || !QN ||
            QN->kind() != capjson::Value::String)
          continue;
        if (Kind->str() == "shared" ||
            (Local && Local->kind() == capjson::Value::Bool && Local->asBool()))
          continue;
        ModelGlobal G;
        G.QualifiedName = QN->str();
        G.Kind = Kind->str();
        G.Symbol = globalSymbolName(G.QualifiedName);
        Globals.push_back(G);
      }
    }
    auto Add = [&](const capjson::Value &Entry) -> bool {
      const auto *MN = Entry.get("mangledName");
      if (!MN || MN->kind() != capjson::Value::String || MN->str().empty())
        return true; // a template's own entry: see its instantiations
      ModelKernel MK;
      MK.MangledName = MN->str();
      MK.File = File;
      MK.Globals = Globals;
      const auto *Ps = Entry.get("parameters");
      std::string Why;
      if (!Ps || !readParams(*Ps, MK.Params, Why)) {
        Error = Name + ": kernel " + MK.MangledName + ": " +
                (Ps ? Why : std::string("no \"parameters\""));
        return false;
      }
      Kernels[normalizeKernelName(MK.MangledName)] = MK;
      return true;
    };
    if (!Add(K))
      return false;
    if (const auto *Is = K.get("instantiations");
        Is && Is->kind() == capjson::Value::Array)
      for (const auto &I : Is->elements())
        if (!Add(I))
          return false;
  }
  return true;
}

const ModelKernel *KernelModel::find(const std::string &MangledName) const {
  auto It = Kernels.find(normalizeKernelName(MangledName));
  return It == Kernels.end() ? nullptr : &It->second;
}

bool layoutFromModel(const ModelKernel &K, KernelLayout &L, std::string &Why) {
  L = KernelLayout();
  L.Source = "model";
  for (size_t I = 0; I < K.Params.size(); ++I) {
    const ModelParam &MP = K.Params[I];
    ParamLayout P;
    P.Index = static_cast<unsigned>(I);
    P.Type = MP.Type;
    if (!MP.HasSize) {
      Why = "the model gives no size for parameter " + std::to_string(I) +
            " ('" + MP.Type + " " + MP.Name + "')";
      return false;
    }
    P.Size = MP.Size;
    P.Align = MP.Align;
    uint64_t S, A;
    ParamKind Kind;
    if (MP.IsPointer)
      P.Kind = ParamKind::Pointer;
    else if (classifyType(MP.Type, S, A, Kind) && Kind == ParamKind::Scalar)
      P.Kind = ParamKind::Scalar;
    else
      P.Kind = ParamKind::Aggregate;
    L.Params.push_back(P);
  }
  assignOffsets(L);
  return true;
}

std::string globalSymbolName(const std::string &QualifiedName) {
  std::string Q = QualifiedName;
  if (Q.compare(0, 2, "::") == 0)
    Q = Q.substr(2);
  if (Q.empty() || Q.find_first_of("<>() ") != std::string::npos)
    return "";
  std::vector<std::string> Parts;
  size_t Begin = 0;
  for (;;) {
    size_t End = Q.find("::", Begin);
    Parts.push_back(Q.substr(Begin, End == std::string::npos ? std::string::npos
                                                             : End - Begin));
    if (End == std::string::npos)
      break;
    Begin = End + 2;
  }
  for (const auto &P : Parts)
    if (P.empty())
      return "";
  if (Parts.size() == 1)
    return Parts[0];
  std::string S = "_ZN";
  for (const auto &P : Parts)
    S += std::to_string(P.size()) + P;
  return S + "E";
}

std::string compareLayouts(const KernelLayout &L,
                           const std::vector<uint64_t> &Offsets,
                           const std::vector<uint64_t> &Sizes,
                           const std::string &Other) {
  if (Offsets.size() != L.Params.size())
    return "the " + L.Source + " layout has " +
           std::to_string(L.Params.size()) + " parameters, " + Other + " " +
           std::to_string(Offsets.size());
  for (size_t I = 0; I < Offsets.size(); ++I) {
    const auto &P = L.Params[I];
    if (P.Offset != Offsets[I] || P.Size != Sizes[I])
      return "parameter " + std::to_string(I) + " ('" + P.Type + "'): the " +
             L.Source + " layout says offset " + std::to_string(P.Offset) +
             " size " + std::to_string(P.Size) + ", " + Other + " offset " +
             std::to_string(Offsets[I]) + " size " + std::to_string(Sizes[I]);
  }
  return "";
}

} // namespace capture
} // namespace cudal1
