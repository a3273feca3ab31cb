//===- CandidateLaunch.cpp - how to launch a rewrite that changes the grid -===//
//
// A rewrite that changes a kernel's thread mapping (thread-mapping swap, warp
// per row) also rewrites its launch sites, by wrapping the original launch
// expressions: `grid` becomes `dim3((grid).y, (grid).x, (grid).z)`,
// `(M + 255) / 256` becomes `((M + 255) / 256) * 32`. The harness gives the
// original's shape; the candidate's follows by evaluating its launch
// expression with the original's expression standing for that shape.
//
//===----------------------------------------------------------------------===//
#include "cudal1/Verify/Harness.h"
#include "cudal1/Verify/LaunchText.h"
#include "cudal1/Model/KernelInfo.h"

#include <cctype>
#include <cstring>

namespace cudal1 {

std::string withoutSpaces(const std::string &S) {
  std::string Out;
  for (char C : S)
    if (!std::isspace((unsigned char)C))
      Out += C;
  return Out;
}

namespace {

bool identChar(char C) { return std::isalnum((unsigned char)C) || C == '_'; }

/// Replaces every occurrence of \p What in \p S that is not part of a longer
/// identifier by \p With.
std::string replaceToken(const std::string &S, const std::string &What,
                         const std::string &With) {
  if (What.empty())
    return S;
  std::string Out;
  size_t I = 0;
  while (I < S.size()) {
    size_t P = S.find(What, I);
    if (P == std::string::npos) {
      Out += S.substr(I);
      break;
    }
    bool LeftOk = P == 0 || !identChar(S[P - 1]) || !identChar(What.front());
    size_t E = P + What.size();
    bool RightOk = E >= S.size() || !identChar(S[E]) || !identChar(What.back());
    Out += S.substr(I, P - I);
    if (LeftOk && RightOk) {
      Out += With;
    } else {
      Out += What;
    }
    I = E;
  }
  return Out;
}

} // namespace

/// Drops C-style casts to integer types, which launch expressions often carry
/// and the harness evaluator does not know.
std::string dropLaunchCasts(std::string S) {
  static const char *Casts[] = {"(unsignedint)", "(unsigned)", "(int)",
                                "(size_t)",      "(long)",     "(uint32_t)",
                                "(int64_t)",     "(uint64_t)", "(longlong)"};
  for (const char *C : Casts)
    S = replaceToken(S, C, "");
  // Integer literal suffixes: 32u, 256UL.
  std::string Out;
  for (size_t I = 0; I < S.size(); ++I) {
    bool InNumber = I > 0 && std::isdigit((unsigned char)S[I - 1]);
    size_t J = I;
    while (InNumber && J < S.size() && std::strchr("uUlL", S[J]))
      ++J;
    if (J > I && (J == S.size() || !identChar(S[J]))) {
      // only when the digits before are a number, not part of a name
      size_t B = I;
      while (B > 0 && identChar(S[B - 1]))
        --B;
      if (std::isdigit((unsigned char)S[B])) {
        I = J - 1;
        continue;
      }
    }
    Out += S[I];
  }
  return Out;
}

namespace {

/// Splits "dim3(a,b,c)" into its arguments; false when \p S is not one call.
bool splitDim3(const std::string &S, std::vector<std::string> &Parts) {
  if (S.rfind("dim3(", 0) != 0 || S.back() != ')')
    return false;
  int Depth = 0;
  std::string Cur;
  for (size_t I = 5; I + 1 < S.size(); ++I) {
    char C = S[I];
    if (C == '(')
      ++Depth;
    if (C == ')' && --Depth < 0)
      return false; // "dim3(a)*(b)" is not one call
    if (C == ',' && Depth == 0) {
      Parts.push_back(Cur);
      Cur.clear();
      continue;
    }
    Cur += C;
  }
  Parts.push_back(Cur);
  return Depth == 0 && Parts.size() <= 3;
}

/// `dim3(a, b, c).y` and `(dim3(a, b, c)).y` (no spaces) become `(b)`
/// (a missing component is 1): a fix that rewrites a launch value already
/// rewritten as a dim3 (a composition over rounds) reads its components.
std::string projectDim3(std::string T) {
  for (size_t From = 0;;) {
    size_t P = T.find("dim3(", From);
    if (P == std::string::npos)
      return T;
    if (P > 0 && identChar(T[P - 1])) {
      From = P + 5;
      continue;
    }
    int Depth = 0;
    size_t Q = P + 4;
    for (; Q < T.size(); ++Q) {
      if (T[Q] == '(')
        ++Depth;
      else if (T[Q] == ')' && --Depth == 0)
        break;
    }
    if (Q >= T.size())
      return T;
    size_t B = P, E = Q + 1;
    if (P > 0 && T[P - 1] == '(' && E < T.size() && T[E] == ')') {
      B = P - 1;
      E = E + 1;
    }
    if (E + 1 < T.size() && T[E] == '.' &&
        (T[E + 1] == 'x' || T[E + 1] == 'y' || T[E + 1] == 'z') &&
        (E + 2 >= T.size() || !identChar(T[E + 2]))) {
      std::vector<std::string> Parts;
      if (splitDim3(T.substr(P, Q + 1 - P), Parts)) {
        size_t A = T[E + 1] - 'x';
        std::string C = A < Parts.size() ? Parts[A] : "1";
        T = T.substr(0, B) + "(" + C + ")" + T.substr(E + 2);
        From = B;
        continue;
      }
    }
    From = P + 5;
  }
}

/// Launch expression \p O (spaces removed) evaluates, over constants and
/// \p Names, to \p Dims: the harness runs the launch at its own values, so
/// a candidate's constant launch expression means what it says.
bool constantLaunch(const std::string &O, const std::array<uint64_t, 3> &Dims,
                    const ExprEnv &Names) {
  std::vector<std::string> Parts;
  if (!splitDim3(dropLaunchCasts(O), Parts))
    Parts = {dropLaunchCasts(O)};
  for (size_t I = 0; I < 3; ++I) {
    uint64_t Want = Dims[I];
    if (I >= Parts.size()) {
      if (Want != 1)
        return false;
      continue;
    }
    ExprValue V;
    std::string E;
    if (!evalExpr(Parts[I], Names, V, E) || V.IsFloat || V.I <= 0 ||
        uint64_t(V.I) != Want)
      return false;
  }
  return true;
}

} // namespace

std::string withOtherLaunchValue(const std::string &CandidateText,
                                 const std::string &OtherText,
                                 const std::array<uint64_t, 3> &D) {
  std::string T = withoutSpaces(CandidateText);
  std::string O = withoutSpaces(OtherText);
  if (O.empty())
    return T;
  const char *Axis[] = {"x", "y", "z"};
  for (int A = 0; A < 3; ++A) {
    T = replaceToken(T, "(" + O + ")." + Axis[A], std::to_string(D[A]));
    T = replaceToken(T, O + "." + Axis[A], std::to_string(D[A]));
  }
  if (D[1] == 1 && D[2] == 1)
    T = replaceToken(T, "(" + O + ")", std::to_string(D[0]));
  return T;
}

bool deriveCandidateDims(const std::string &OriginalText,
                         const std::string &CandidateText,
                         const std::array<uint64_t, 3> &Original,
                         std::array<uint64_t, 3> &Out, std::string &Why,
                         const ExprEnv &Names) {
  std::string O = withoutSpaces(OriginalText), C = withoutSpaces(CandidateText);
  if (O == C) {
    Out = Original;
    return true;
  }
  if (O.empty() || C.empty()) {
    Why = "no launch expression to compare";
    return false;
  }
  // The original's expression stands for the harness's shape: its
  // components, or the whole (x) where it is used as one number.
  const char *Axis[] = {"x", "y", "z"};
  std::string T = C;
  for (const std::string &Form : {"(" + O + ")", O})
    for (int A = 0; A < 3; ++A)
      T = replaceToken(T, Form + "." + Axis[A],
                       std::string(" __orig_") + Axis[A] + " ");
  T = replaceToken(T, "(" + O + ")", " __orig ");
  T = replaceToken(T, O, " __orig ");
  // Without the original's expression the candidate's must be a value of
  // its own: constants and the launch's scalar arguments (`<<<1, 256>>>`
  // for `<<<1, 1>>>`); anything else is not known for the harness.
  bool Relative = T.find("__orig") != std::string::npos;
  if (!Relative && !constantLaunch(O, Original, Names)) {
    Why = "the candidate's launch expression '" + CandidateText +
          "' does not contain the original's '" + OriginalText +
          "', which is not a constant equal to the harness's shape";
    return false;
  }
  T = projectDim3(dropLaunchCasts(withoutSpaces(T)));
  ExprEnv Env = Names;
  for (int A = 0; A < 3; ++A)
    Env[std::string("__orig_") + Axis[A]] =
        ExprValue{false, int64_t(Original[A]), 0};
  // A bare use of the original means one number only when it is one.
  if (Original[1] == 1 && Original[2] == 1)
    Env["__orig"] = ExprValue{false, int64_t(Original[0]), 0};
  std::vector<std::string> Parts;
  if (!splitDim3(T, Parts)) {
    if (T == "__orig") {
      Out = Original;
      return true;
    }
    Parts = {T};
  }
  Out = {1, 1, 1};
  for (size_t I = 0; I < Parts.size(); ++I) {
    ExprValue V;
    std::string E;
    if (!evalExpr(Parts[I], Env, V, E)) {
      Why = "cannot evaluate the candidate's launch expression '" +
            CandidateText + "': " + E;
      return false;
    }
    if (V.IsFloat || V.I <= 0) {
      Why = "the candidate's launch expression '" + CandidateText +
            "' gives a dimension that is not a positive integer";
      return false;
    }
    Out[I] = uint64_t(V.I);
  }
  return true;
}

ExprEnv launchArgNames(const std::vector<std::string> &ArgTexts,
                       const Harness &H) {
  ExprEnv Env;
  for (size_t I = 0; I < ArgTexts.size() && I < H.Args.size(); ++I) {
    const std::string &T = ArgTexts[I];
    bool Name = !T.empty() && (std::isalpha((unsigned char)T[0]) || T[0] == '_');
    for (char C : T)
      Name &= std::isalnum((unsigned char)C) || C == '_';
    if (Name && !H.Args[I].IsBuffer)
      Env[T] = H.Args[I].Scalar.Value;
  }
  return Env;
}

/// The index of the kernel argument at \p Offset of the chevron launch whose
/// `>>>` is at \p Close: top-level commas counted from the `(` after it;
/// std::nullopt when \p Offset is not inside that argument list.
std::optional<size_t> launchArgIndexAt(const std::string &Text, size_t Close,
                                       size_t Offset) {
  size_t I = Close + 3;
  while (I < Text.size() && std::isspace((unsigned char)Text[I]))
    ++I;
  if (I >= Text.size() || Text[I] != '(' || Offset <= I)
    return std::nullopt;
  int Depth = 0;
  size_t Index = 0;
  for (++I; I < Text.size() && I < Close + 8192; ++I) {
    if (I == Offset)
      return Index;
    char Ch = Text[I];
    if (Ch == '(' || Ch == '[' || Ch == '{')
      ++Depth;
    else if (Ch == ')' || Ch == ']' || Ch == '}') {
      if (Depth-- == 0)
        return std::nullopt;
    } else if (Ch == ',' && Depth == 0)
      ++Index;
  }
  return std::nullopt;
}

/// A launch-site edit of scalar argument \p Index (sync-warp-atomic-
/// reduction's grid-stride form passes `min(n, grid.x * block.x)` for n):
/// true when the replacement, with the harness's grid, block and scalar
/// arguments for the launch's own texts, evaluates to the harness's value
/// of that argument, so that the candidate run with the harness's arguments
/// is the rewritten program at the harness's values.
bool launchArgEditKeepsValue(const LaunchSite &LS, const Harness &H,
                            size_t Index, const std::string &Replacement,
                            std::string &Why) {
  if (Index >= H.Args.size() || Index >= LS.Args.size() ||
      H.Args[Index].IsBuffer) {
    Why = "a launch-site edit changes a buffer argument";
    return false;
  }
  std::string T = withOtherLaunchValue(Replacement, LS.Grid.Text, H.Grid);
  T = withOtherLaunchValue(T, LS.Block.Text, H.Block);
  for (size_t J = 0; J < LS.Args.size() && J < H.Args.size(); ++J) {
    const ExprValue &V = H.Args[J].Scalar.Value;
    if (H.Args[J].IsBuffer || V.IsFloat)
      continue;
    std::string A = "(" + withoutSpaces(LS.Args[J]) + ")";
    std::string With = "(" + std::to_string(V.I) + ")";
    for (size_t At = T.find(A); At != std::string::npos;
         At = T.find(A, At + With.size()))
      T.replace(At, A.size(), With);
  }
  ExprValue Got;
  std::string E;
  const ExprValue &Want = H.Args[Index].Scalar.Value;
  if (!evalExpr(dropLaunchCasts(T), launchArgNames(LS.Args, H), Got, E)) {
    Why = "cannot evaluate the launch-site edit of argument '" +
          LS.Args[Index] + "' at the harness's values: " + E;
    return false;
  }
  if (Got.IsFloat || Want.IsFloat || Got.I != Want.I) {
    Why = "the launch-site edit of argument '" + LS.Args[Index] +
          "' gives " + std::to_string(Got.asInt()) +
          " at the harness's values, not its " + std::to_string(Want.asInt());
    return false;
  }
  return true;
}

} // namespace cudal1
