//===- HarnessInfer.cpp - a harness from a launch's values ----------------===//
//
// The model gives, per launch site, the values of its grid, block, shared
// memory and arguments evaluated on the AST (cudal1/Model/LaunchValues.h),
// and, per kernel, how its body uses each pointer (BufferUse, from the
// access analysis). This turns one tuple of those values into a Harness and
// into a spec (docs/harness.md) that says what it found and marks only what
// is missing.
//
//===----------------------------------------------------------------------===//
#include "HarnessParams.h"
#include "cudal1/Verify/Harness.h"
#include "cudal1/Verify/IndexRanges.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace cudal1 {

namespace {

/// The value a floating-point scalar computed from data gets (exact in
/// every floating type, not 0 or 1, which would hide a multiply or an add).
constexpr double ChosenFloat = 0.75;

std::string numberText(const ExprValue &V) {
  if (!V.IsFloat)
    return std::to_string(V.I);
  char Buf[64];
  std::snprintf(Buf, sizeof(Buf), "%.9g", V.F);
  std::string S = Buf;
  if (std::strtod(S.c_str(), nullptr) != V.F) {
    std::snprintf(Buf, sizeof(Buf), "%.17g", V.F);
    S = Buf;
  }
  if (S.find_first_of(".eEn") == std::string::npos)
    S += ".0";
  return S;
}

/// A number of a `float` parameter: the shortest text that reads back as
/// the same float ("0.9", not 0.89999997615814209).
std::string floatNumberText(double D) {
  float F = float(D);
  if (double(F) != D || !std::isfinite(F))
    return numberText(ExprValue{true, 0, D});
  char Buf[64];
  for (int Prec = 1; Prec <= 9; ++Prec) {
    std::snprintf(Buf, sizeof(Buf), "%.*g", Prec, double(F));
    if (std::strtof(Buf, nullptr) == F)
      break;
  }
  std::string S = Buf;
  if (S.find_first_of(".eEn") == std::string::npos)
    S += ".0";
  return S;
}

/// \p Bytes (an expression) over \p Size: "n * 4" over 4 is "n", else
/// "(bytes) / size".
std::string countExpr(const std::string &Bytes, unsigned Size) {
  // The operators outside parentheses: folding needs exactly one, a '*' by
  // a multiple of the element size.
  int Depth = 0;
  size_t Star = std::string::npos;
  unsigned Ops = 0;
  for (size_t I = 0; I < Bytes.size(); ++I) {
    char C = Bytes[I];
    Depth += C == '(' ? 1 : C == ')' ? -1 : 0;
    if (Depth == 0 && I > 0 && I + 1 < Bytes.size() && Bytes[I - 1] == ' ' &&
        Bytes[I + 1] == ' ' && std::strchr("+-*/%<>", C)) {
      ++Ops;
      Star = C == '*' ? I : Star;
    }
  }
  if (Ops == 1 && Star != std::string::npos) {
    StringRef K = StringRef(Bytes).drop_front(Star + 1).trim();
    uint64_t N = 0;
    if (!K.getAsInteger(10, N) && Size && N % Size == 0) {
      std::string X = StringRef(Bytes).take_front(Star).trim().str();
      return N == Size ? X : X + " * " + std::to_string(N / Size);
    }
  }
  return "(" + Bytes + ") / " + std::to_string(Size);
}

/// The placeholder of a value the tool could not find.
const char *Unknown = "\"?\"";

/// Builds one InferredHarness.
class Inference {
public:
  Inference(const std::string &Kernel, const std::vector<ParamInfo> &Params,
            const LaunchValues &V, const std::vector<BufferUse> &Uses,
            const ExprEnv &Defines, InferredHarness &Out)
      : Kernel(Kernel), Params(Params), V(V), Uses(Uses), Defines(Defines),
        Out(Out) {}

  void run();

private:
  /// A scalar: its value (true) or why not; \p Text is its spec text.
  bool scalar(const ValueInfo &I, ExprValue &Val, std::string &Text,
              const std::string &What);
  bool dims(const ValueInfo &I, std::array<uint64_t, 3> &D, std::string &Text,
            const char *What);
  void sizes();
  void buffer(const ParamInfo &P, const ValueInfo *A, Harness::Arg &Arg);
  void value(const ParamInfo &P, const ValueInfo *A, Harness::Arg &Arg);
  void record(const ParamInfo &P, const ValueInfo *A, Harness::Arg &Arg);
  void missing(const std::string &What) { Out.Missing.push_back(What); }
  /// Evaluates an expression over the unknown names (listed as missing by
  /// sizes() unless --define'd): other failures are missing values too.
  bool evaluate(const std::string &Text, ExprValue &V, const std::string &What) {
    std::string E;
    if (evalExpr(Text, Env, V, E))
      return true;
    if (!StringRef(E).starts_with("unknown name"))
      missing(What + ": '" + Text + "': " + E);
    return false;
  }
  const BufferUse *useOf(unsigned Index) const {
    for (const BufferUse &U : Uses)
      if (U.Param == Index)
        return &U;
    return nullptr;
  }

  /// The spec line of a buffer, built once its init is final.
  std::string bufferLine(const ParamInfo &P, const BufferSpec &B);
  /// Values of integer buffers used as indices of other buffers
  /// (BufferUse::IndexUses): the range that keeps those indices in bounds.
  void indexRanges();

  struct BufferText {
    std::string Count, Tail, Index;
  };
  std::map<unsigned, BufferText> BufferTexts;
  std::map<unsigned, std::string> ValueLines;
  std::map<unsigned, uint64_t> Counts;        ///< known buffer sizes
  std::map<std::string, ExprValue> ScalarValues; ///< known scalars

  const std::string &Kernel;
  const std::vector<ParamInfo> &Params;
  const LaunchValues &V;
  const std::vector<BufferUse> &Uses;
  const ExprEnv &Defines;
  InferredHarness &Out;
  ExprEnv Env;
  std::string Sizes, Launch, ParamLines;
};

bool Inference::scalar(const ValueInfo &I, ExprValue &Val, std::string &Text,
                       const std::string &What) {
  if (I.Kind == ValueInfo::Integer || I.Kind == ValueInfo::Floating) {
    if (I.Expr.empty()) {
      Val.IsFloat = I.Kind == ValueInfo::Floating;
      Val.I = I.Int;
      Val.F = I.Float;
      Text = numberText(Val);
      return true;
    }
    Text = I.Expr;
    return evaluate(I.Expr, Val, What);
  }
  Text = Unknown;
  missing(What + ": " + (I.Why.empty() ? "not known" : I.Why));
  return false;
}

bool Inference::dims(const ValueInfo &I, std::array<uint64_t, 3> &D,
                     std::string &Text, const char *What) {
  if (I.Kind != ValueInfo::Dim) {
    Text = Unknown;
    Text += std::string("   # cuda-l1: unknown: ") + I.Why;
    missing(std::string(What) + ": " + (I.Why.empty() ? "not known" : I.Why));
    return false;
  }
  bool Ok = true;
  Text = "[";
  for (unsigned K = 0; K < 3; ++K) {
    ExprValue X{false, int64_t(I.Dims[K]), 0};
    if (!I.DimExprs[K].empty()) {
      Ok &= evaluate(I.DimExprs[K], X, What);
      Text += (K ? ", " : "") + I.DimExprs[K];
    } else {
      Text += (K ? ", " : "") + std::to_string(I.Dims[K]);
    }
    if (Ok && (X.IsFloat || X.I <= 0)) {
      missing(formatv("{0}: component {1} is {2}, not a positive integer",
                      What, K, numberText(X)));
      Ok = false;
    }
    D[K] = Ok ? uint64_t(X.I) : 1;
  }
  Text += "]";
  return Ok;
}

void Inference::sizes() {
  Env = Defines;
  raw_string_ostream OS(Sizes);
  for (const UnknownValue &U : V.Unknowns) {
    auto It = Defines.find(U.Name);
    if (It != Defines.end()) {
      OS << "  " << U.Name << ": " << numberText(It->second)
         << "   # from --define; " << U.Why << " (" << U.Where << ")\n";
      continue;
    }
    OS << "  " << U.Name << ": " << Unknown << "   # cuda-l1: unknown: "
       << U.Why << " (" << U.Where << ")\n";
    missing("'" + U.Name + "' (" + U.Where + "): " + U.Why);
  }
}

/// The value of an element of kind \p K whose every byte is \p Byte (a
/// `cudaMemset`): exact for integers up to 32 bits, -1 or 0 for 64 bits,
/// 0 for floats; none otherwise.
std::optional<double> valueOfBytes(unsigned Byte, ElemKind K) {
  if (Byte == 0 && K != ElemKind::Bytes)
    return 0.0;
  if (isFloatKind(K) || K == ElemKind::Bytes || K == ElemKind::Bool)
    return std::nullopt;
  unsigned Size = elemKindSize(K);
  bool Signed = K == ElemKind::I8 || K == ElemKind::I16 ||
                K == ElemKind::I32 || K == ElemKind::I64;
  if (Size == 8)
    return Signed && Byte == 0xff ? std::optional<double>(-1.0)
                                  : std::nullopt;
  uint64_t U = 0;
  for (unsigned I = 0; I < Size; ++I)
    U = (U << 8) | Byte;
  if (Signed && (U >> (8 * Size - 1)))
    return double(int64_t(U) - int64_t(uint64_t(1) << (8 * Size)));
  return double(U);
}

/// What a pointer's buffer is for: input (only read: initialised, must come
/// back unchanged), in/out (initialised, compared) or output (poisoned,
/// compared). From the access analysis, not from `const`.
void setRole(BufferSpec &B, const ParamInfo &P, const BufferUse *U,
             const ValueInfo *A, std::string &Why) {
  bool HostInit = A && A->HostInitialised;
  bool Input = false, Output = false;
  if (P.PointeeConst) {
    Input = true;
    Why = "input: const";
  } else if (!U) {
    Why = "in/out: its accesses were not analysed";
  } else if (U->Escaped) {
    Why = "in/out: the kernel may write it where the analysis cannot follow";
  } else if (U->Read && U->Written) {
    Why = "in/out: read and written by the kernel";
  } else if (U->Written && HostInit) {
    Why = "in/out: written by the kernel, and the host sets it first (" +
          A->HostInit + ")";
  } else if (U->Written) {
    Output = true;
    Why = "output: only written by the kernel (poisoned before each run)";
  } else {
    Input = true;
    Why = U->Read ? "input: only read by the kernel"
                  : "input: not accessed by the kernel";
  }
  B.ReadOnly = Input;
  if (!Output && B.Init.empty())
    B.Init.push_back(defaultInit(B.Kind));
  if (Output)
    B.Init.clear();
}

void Inference::buffer(const ParamInfo &P, const ValueInfo *A,
                       Harness::Arg &Arg) {
  if (A && A->Kind == ValueInfo::Pointer && A->Null &&
      Defines.find(P.Name + ".count") == Defines.end()) {
    // The launch passes a null pointer (an optional buffer left out): so
    // does the harness.
    setNullPointer(Arg.Scalar, P.Name);
    raw_string_ostream OS(ValueLines[P.Index]);
    OS << "  " << P.Name << ": null   # " << P.Type << "; " << A->Allocation
       << "\n";
    Out.Notes.push_back("buffer '" + P.Name + "': " + A->Allocation +
                        ", passed as such");
    return;
  }
  Arg.IsBuffer = true;
  BufferSpec &B = Arg.Buffer;
  setBufferKind(B, P);
  std::string Why, CountText, Comment;
  setRole(B, P, useOf(P.Index), A, Why);
  auto Def = Defines.find(P.Name + ".count");
  bool Ok = false;
  if (Def != Defines.end()) {
    B.Count = Def->second.asInt();
    CountText = std::to_string(B.Count);
    Comment = "count from --define";
    Ok = B.Count > 0;
  } else if (A && A->Kind == ValueInfo::Pointer && A->Bytes) {
    B.Count = *A->Bytes / B.ElemSize;
    CountText = std::to_string(B.Count);
    Comment = A->Allocation;
    Ok = B.Count > 0;
    // A pointer into its allocation (past a halo or a header): the elements
    // before it are the kernel's too (`in[i - 1]` at i = 0).
    if (A->LeadBytes && *A->LeadBytes % B.ElemSize == 0)
      B.Before = *A->LeadBytes / B.ElemSize;
    if (!Ok)
      missing("buffer '" + P.Name + "': " + A->Allocation +
              " holds less than one element");
  } else if (A && A->Kind == ValueInfo::Pointer && !A->Expr.empty()) {
    CountText = countExpr(A->Expr, B.ElemSize);
    ExprValue X;
    Ok = evaluate(CountText, X, "buffer '" + P.Name + "'") && !X.IsFloat &&
         X.I > 0;
    B.Count = Ok ? uint64_t(X.I) : 0;
    Comment = A->Allocation;
  } else {
    CountText = Unknown;
    std::string W = A ? A->Why : "no value for it at the launch";
    Comment = "cuda-l1: unknown: " + W;
    missing("buffer '" + P.Name + "': " + W);
  }
  Ok &= B.Count > 0;
  if (Def == Defines.end() && Ok && A && A->Bytes && *A->Bytes % B.ElemSize)
    Out.Notes.push_back(formatv("buffer '{0}': {1} bytes are not a whole "
                                "number of {2}-byte elements",
                                P.Name, *A->Bytes, B.ElemSize));
  if (Def == Defines.end() && A && !A->Allocation.empty() && Ok)
    Out.Notes.push_back(formatv("buffer '{0}': {1} elements, from {2}", P.Name,
                                B.Count, A->Allocation));
  BufferText &T = BufferTexts[P.Index];
  T.Count = CountText;
  T.Tail = Why;
  if (!Comment.empty())
    T.Tail += "; " + Comment;
  if (A && A->HostInitialised && !A->HostInit.empty())
    T.Tail += "; host data: " + A->HostInit;
  // The program copies a constant host array in, covering the buffer: its
  // own values (index tables, shapes, strides) rather than random ones.
  if (Ok && A && !B.Init.empty() && !A->HostValues.empty() &&
      B.Count == A->HostValues.size()) {
    Distribution D;
    D.K = Distribution::Values;
    D.List = A->HostValues;
    B.Init = {D};
  }
  // A lock, slot or flag array (atomicCAS/atomicExch on its elements) that
  // the host fills with one value: that value. Random ones can leave the
  // original waiting forever (a lock taken) or probing a table with no
  // empty slot. Other buffers keep random values even so: they tell an
  // accumulation from a plain store that a zero start would not.
  if (const BufferUse *U = useOf(P.Index);
      Ok && U && !U->LockUse.empty() && !B.Init.empty()) {
    std::optional<double> V;
    if (A && A->HostFill)
      V = A->HostFill;
    else if (A && A->HostSetByte)
      V = valueOfBytes(*A->HostSetByte, B.Kind);
    if (!V)
      T.Tail += "; cuda-l1: the kernel takes these values in " + U->LockUse +
                ": random values may leave it waiting, and the tool cannot tell "
                "the host's; if the program starts them from one value (a "
                "free lock, an empty slot), give it (init: \"zero\" or "
                "\"constant(v)\")";
    if (V) {
      Distribution D;
      D.K = *V == 0 ? Distribution::Zero : Distribution::Constant;
      D.A = *V;
      B.Init = {D};
      T.Tail += "; values " + D.str() + " as the host sets them: the kernel "
                "takes them in " + U->LockUse;
      Out.Notes.push_back("buffer '" + P.Name + "': values " + D.str() +
                          " as the host sets them (" + A->HostInit +
                          "): the kernel takes them in " + U->LockUse);
    }
  }
  // Values that reach a square root or logarithm through + * / only: drawn
  // from [0, 1), so that the original's output is not NaN throughout.
  if (const BufferUse *U = useOf(P.Index);
      U && !U->NonNegativeUse.empty() && isFloatKind(B.Kind) &&
      B.Init.size() == 1 && B.Init.front().K == Distribution::Uniform &&
      B.Init.front().A < 0) {
    B.Init = {Distribution{Distribution::Uniform, 0, 1}};
    T.Tail += "; values in [0, 1): they reach " + U->NonNegativeUse;
    Out.Notes.push_back("buffer '" + P.Name + "': values uniform(0, 1): " +
                        "they reach " + U->NonNegativeUse);
  }
  if (Ok)
    Counts[P.Index] = B.Count;
}

std::string Inference::bufferLine(const ParamInfo &P, const BufferSpec &B) {
  const BufferText &T = BufferTexts[P.Index];
  std::string S;
  raw_string_ostream OS(S);
  OS << "  " << P.Name << ": { count: " << T.Count;
  if (B.Before)
    OS << ", before: " << B.Before;
  if (!B.Init.empty())
    OS << ", init: \"" << B.Init.front().str() << "\"";
  if (B.ReadOnly && !P.PointeeConst)
    OS << ", role: input";
  OS << " }   # " << T.Tail << T.Index << "\n";
  return S;
}

void Inference::indexRanges() {
  Harness &H = Out.H;
  IndexRangeEnv Env;
  Env.Grid = H.Grid;
  Env.Block = H.Block;
  for (const auto &KV : ScalarValues)
    if (!KV.second.IsFloat)
      Env.Params[KV.first] = KV.second.I;
  std::vector<std::string> Names;
  for (const ParamInfo &P : Params) {
    if (Names.size() <= P.Index)
      Names.resize(P.Index + 1);
    Names[P.Index] = P.Name;
  }
  // The integer buffers with a range of values: the ranges other index
  // expressions see.
  auto RangeOf = [&](const Harness::Arg &A, IndexInterval &R) {
    const BufferSpec &B = A.Buffer;
    if (!A.IsBuffer || B.Init.empty() || !integerTypeRange(B.Kind, R))
      return false;
    const Distribution &D = B.Init.front();
    if (D.K == Distribution::Values) {
      R = {int64_t(*std::min_element(D.List.begin(), D.List.end())),
           int64_t(*std::max_element(D.List.begin(), D.List.end()))};
      return true;
    }
    if (D.K != Distribution::IntRange && D.K != Distribution::Sorted &&
        D.K != Distribution::Distinct)
      return false;
    R = {int64_t(D.A), int64_t(D.B)};
    return true;
  };
  for (const ParamInfo &P : Params) {
    IndexInterval R;
    size_t Pos = &P - Params.data();
    if (Pos < H.Args.size() && RangeOf(H.Args[Pos], R))
      Env.Loads[P.Index] = R;
  }
  for (const ParamInfo &P : Params) {
    const BufferUse *U = useOf(P.Index);
    size_t Pos = &P - Params.data();
    if (!U || U->IndexUses.empty() || Pos >= H.Args.size())
      continue;
    Harness::Arg &Arg = H.Args[Pos];
    BufferSpec &B = Arg.Buffer;
    BufferText &T = BufferTexts[P.Index];
    IndexInterval TypeRange, Default;
    if (!Arg.IsBuffer || B.Init.empty())
      continue; // an output: the kernel writes the values it then uses
    if (B.Init.front().K == Distribution::Values)
      continue; // the program's own values
    if (!integerTypeRange(B.Kind, TypeRange) || !RangeOf(Arg, Default)) {
      std::string W = "buffer '" + P.Name + "': its values index " +
                      U->IndexUses.front().Access + " (" +
                      U->IndexUses.front().Where +
                      "): no range chosen for values of type " + P.Type;
      Out.Notes.push_back(W);
      T.Index = "; cuda-l1: values used as indices, not integers: range "
                "not derived";
      continue;
    }
    IndexRangeChoice C =
        chooseIndexRange(P.Index, B.Count, U->IndexUses, Counts, Names, Env,
                         TypeRange, Default);
    if (C.Derived) {
      B.Init = {Distribution{C.Kind, double(C.Lo), double(C.Hi)}};
      Env.Loads[P.Index] = {C.Lo, C.Hi};
      std::string Uses;
      for (size_t I = 0; I < C.Uses.size(); ++I)
        Uses += (I ? ", " : "") + C.Uses[I];
      Out.Notes.push_back(formatv("buffer '{0}': values {1}: they index {2}",
                                  P.Name, B.Init.front().str(), Uses));
      T.Index = "; values index " + Uses;
      if (!C.Note.empty()) {
        T.Index += " (" + C.Note + ")";
        Out.Notes.push_back("buffer '" + P.Name + "': " + C.Note);
      }
    } else if (!C.DefaultSafe && !C.Why.empty()) {
      Out.Notes.push_back("buffer '" + P.Name + "': " + C.Why +
                          "; its values are not chosen to keep indices "
                          "in bounds");
      T.Index = "; cuda-l1: range not derived: " + C.Why;
    }
  }
}

void Inference::record(const ParamInfo &P, const ValueInfo *A,
                       Harness::Arg &Arg) {
  std::string Text, Comment = P.Type;
  std::vector<ExprValue> Values;
  bool Ok = true;
  if (!A || A->Kind != ValueInfo::Record) {
    Ok = false;
    Text = Unknown;
    std::string Why = A && !A->Why.empty() ? A->Why
                      : !P.RecordWhyNot.empty()
                          ? "'" + P.Type + "': " + P.RecordWhyNot
                          : "no value for it at the launch";
    missing("parameter '" + P.Name + "': " + Why);
    Comment += "; cuda-l1: unknown: " + Why;
  } else {
    Text = "{";
    for (size_t I = 0; I < P.Members.size(); ++I) {
      const ParamInfo::Member &M = P.Members[I];
      ElemKind MK = elemKindFromType(M.ScalarType);
      std::string Name = P.Name + "." + M.Path, T;
      ExprValue X;
      // --define <param>.<member>=V for a member the launch does not show.
      auto Def = Defines.find(Name);
      if (I < A->Members.size() &&
          A->Members[I].Kind != ValueInfo::Unknown) {
        if (!scalar(A->Members[I], X, T, "parameter '" + Name + "'"))
          Ok = false;
        else if (X.IsFloat && isFloatKind(MK) && MK != ElemKind::F64 &&
                 A->Members[I].Expr.empty())
          T = floatNumberText(X.F);
      } else if (Def != Defines.end()) {
        X = Def->second;
        T = numberText(X);
      } else {
        Ok = false;
        T = Unknown;
        std::string Why = I < A->Members.size() ? A->Members[I].Why
                                                : "not known";
        missing("parameter '" + Name + "': " + Why);
        Comment += "; cuda-l1: unknown: " + Why;
      }
      Text += (I ? ", " : " ") + M.Path + ": " + T;
      Values.push_back(X);
    }
    Text += P.Members.empty() ? "}" : " }";
    if (!A->How.empty())
      Comment += "; " + A->How;
  }
  std::string Err;
  if (Ok && !setRecord(Arg.Scalar, P, Values, Err)) {
    missing(Err);
    Comment += "; cuda-l1: " + Err;
  }
  raw_string_ostream OS(ValueLines[P.Index]);
  OS << "  " << P.Name << ": " << Text << "   # " << Comment << "\n";
}

void Inference::value(const ParamInfo &P, const ValueInfo *A,
                      Harness::Arg &Arg) {
  if (P.IsRecord) {
    record(P, A, Arg);
    return;
  }
  ExprValue X;
  std::string Text, Comment = P.Type;
  bool Ok;
  // --define <param>=V gives a value the launch does not show (a known
  // value of the launch is never replaced: the name may be a host variable
  // of another launch).
  auto Def = Defines.find(P.Name);
  if (Def != Defines.end() && (!A || A->Kind == ValueInfo::Unknown)) {
    X = Def->second;
    Text = numberText(X);
    Comment += "; from --define";
    Ok = true;
  } else if (A && A->Kind == ValueInfo::Unknown &&
             StringRef(A->Why).contains("an element of '") &&
             isFloatKind(elemKindFromType(P.ScalarType.empty() ? P.Type
                                                               : P.ScalarType))) {
    // A floating-point element of a host array the program fills at run
    // time (HeCBench rfs's factor[n]): data, a test input like the
    // buffers' generated data. Original and candidate get the same value,
    // so the comparison stays sound; a value the original cannot run with
    // (a fault, a NaN output, a time-out) is reported as a harness error.
    // Nothing else of the harness is derived from it (it is not entered in
    // ScalarValues: a size computed from it stays unknown).
    X = ExprValue{true, 0, ChosenFloat};
    Text = floatNumberText(ChosenFloat);
    Comment += "; cuda-l1: chosen: " + A->Why;
    Out.Notes.push_back("parameter '" + P.Name + "': " + Text +
                        " chosen (a floating-point value from data: " +
                        A->Why + ")");
    ++Out.Chosen;
    std::string Err;
    if (!setScalar(Arg.Scalar, P, X, Err)) {
      missing(Err);
      Comment += "; cuda-l1: " + Err;
    }
    raw_string_ostream OS(ValueLines[P.Index]);
    OS << "  " << P.Name << ": " << Text << "   # " << Comment << "\n";
    return;
  } else if (A) {
    Ok = scalar(*A, X, Text, "parameter '" + P.Name + "'");
    if (!A->How.empty())
      Comment += "; " + A->How;
    if (A->Kind == ValueInfo::Unknown)
      Comment += "; cuda-l1: unknown: " + A->Why;
  } else {
    Ok = false;
    Text = Unknown;
    missing("parameter '" + P.Name + "': no value for it at the launch");
  }
  std::string Err;
  if (Ok && !setScalar(Arg.Scalar, P, X, Err)) {
    missing(Err);
    Comment += "; cuda-l1: " + Err;
  } else if (Ok && X.IsFloat && Arg.Scalar.Kind != ElemKind::F64 &&
             isFloatKind(Arg.Scalar.Kind) && (!A || A->Expr.empty())) {
    Text = floatNumberText(X.F);
  }
  if (Ok)
    ScalarValues[P.Name] = X;
  raw_string_ostream OS(ValueLines[P.Index]);
  OS << "  " << P.Name << ": " << Text << "   # " << Comment << "\n";
}

void Inference::run() {
  sizes();
  Harness &H = Out.H;
  std::string GridText, BlockText, SharedText;
  dims(V.Grid, H.Grid, GridText, "grid");
  dims(V.Block, H.Block, BlockText, "block");
  if (H.Block[0] * H.Block[1] * H.Block[2] > 1024)
    missing("block: more than 1024 threads per block");
  ExprValue S;
  if (scalar(V.SharedMem, S, SharedText, "shared memory")) {
    if (S.IsFloat || S.I < 0)
      missing("shared memory: " + numberText(S) + " is not a byte count");
    else
      H.SharedMem = uint64_t(S.I);
  }
  for (const ParamInfo &P : Params) {
    const ValueInfo *A = P.Index < V.Args.size() ? &V.Args[P.Index] : nullptr;
    Harness::Arg Arg;
    if (P.IsPointer)
      buffer(P, A, Arg);
    else
      value(P, A, Arg);
    H.Args.push_back(Arg);
  }
  H.Kernel = Kernel;
  H.Sizes = Env;
  indexRanges();
  for (const ParamInfo &P : Params) {
    const Harness::Arg &A = H.Args[&P - Params.data()];
    ParamLines += A.IsBuffer ? bufferLine(P, A.Buffer) : ValueLines[P.Index];
  }
  Out.Complete = Out.Missing.empty();
  raw_string_ostream OS(Out.Spec);
  if (!Sizes.empty())
    OS << "sizes:\n" << Sizes;
  OS << "grid: " << GridText << "\n";
  OS << "block: " << BlockText << "\n";
  if (SharedText != "0")
    OS << "shared_mem: " << SharedText << "\n";
  OS << "params:\n" << ParamLines;
}

} // namespace

InferredHarness inferHarness(const std::string &Kernel,
                             const std::vector<ParamInfo> &Params,
                             const LaunchValues &V,
                             const std::vector<BufferUse> &Uses,
                             const ExprEnv &Defines) {
  InferredHarness Out;
  Inference(Kernel, Params, V, Uses, Defines, Out).run();
  for (const std::string &P : V.Path)
    Out.Notes.push_back("values through " + P);
  return Out;
}

std::string launchSummary(const LaunchValues &V,
                          const std::vector<ParamInfo> &Params) {
  auto Dim = [](const ValueInfo &I) {
    if (I.Kind != ValueInfo::Dim)
      return std::string("?");
    std::string S = "[";
    for (unsigned K = 0; K < 3; ++K)
      S += (K ? ", " : "") + (I.DimExprs[K].empty()
                                  ? std::to_string(I.Dims[K])
                                  : I.DimExprs[K]);
    return S + "]";
  };
  std::string S = "grid " + Dim(V.Grid) + ", block " + Dim(V.Block);
  for (const ParamInfo &P : Params) {
    if (P.Index >= V.Args.size())
      break;
    const ValueInfo &A = V.Args[P.Index];
    S += ", " + P.Name + " ";
    if (!A.Expr.empty())
      S += A.Expr + (A.Kind == ValueInfo::Pointer ? " bytes" : "");
    else if (A.Kind == ValueInfo::Integer)
      S += std::to_string(A.Int);
    else if (A.Kind == ValueInfo::Floating)
      S += numberText(ExprValue{true, 0, A.Float});
    else if (A.Kind == ValueInfo::Pointer && A.Bytes)
      S += std::to_string(*A.Bytes) + " bytes";
    else if (A.Kind == ValueInfo::Pointer && A.Null)
      S += "null";
    else if (A.Kind == ValueInfo::Record && A.known()) {
      S += "{";
      for (size_t I = 0; I < A.Members.size() && I < P.Members.size(); ++I)
        S += (I ? ", " : "") + P.Members[I].Path + ": " +
             (A.Members[I].Kind == ValueInfo::Floating
                  ? numberText(ExprValue{true, 0, A.Members[I].Float})
                  : std::to_string(A.Members[I].Int));
      S += "}";
    } else
      S += "?";
  }
  if (!V.Path.empty())
    S += " (through " + V.Path.back() + ")";
  return S;
}

} // namespace cudal1
