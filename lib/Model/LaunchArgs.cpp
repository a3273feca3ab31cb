//===- LaunchArgs.cpp - values read from the program's arguments ----------===//
//
// With --program-args, `argc`, `argv[k]` and the numbers the program reads
// from them (`atoi(argv[1])`, `std::stoi(argv[2])`, `strtod(argv[3], 0)`)
// are known while a launch's values are evaluated on the AST: sizes that
// come from the command line, and everything computed from them (lookups,
// conditions, `if (argc > 2)`), evaluate like constants.
//
//===----------------------------------------------------------------------===//
#include "LaunchEval.h"

#include "clang/AST/DeclCXX.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace clang;
using namespace llvm;

namespace cudal1 {

using launcheval::Frame;
using launcheval::Val;

namespace {

const Expr *skipStringWrappers(const Expr *E) {
  for (;;) {
    E = launcheval::skipWrappers(E)->IgnoreImpCasts();
    if (const auto *F = dyn_cast<CXXFunctionalCastExpr>(E)) {
      E = F->getSubExpr();
      continue;
    }
    // std::string(argv[1]) / a std::string parameter made from argv[1].
    const auto *C = dyn_cast<CXXConstructExpr>(E);
    const CXXRecordDecl *RD = C ? C->getConstructor()->getParent() : nullptr;
    if (!C || C->getNumArgs() < 1 || !RD || !RD->getIdentifier() ||
        (RD->getName() != "basic_string" && RD->getName() != "string"))
      return E;
    E = C->getArg(0);
  }
}

/// The kinds of conversion functions the program may read a number with.
enum class Conv { None, Int, UInt, Float, StdInt, StdUInt, StdFloat };

Conv conversionOf(StringRef Name, const FunctionDecl *FD) {
  // The C functions, also as std::atoi ... (<cstdlib>).
  if (Name == "atoi" || Name == "atol" || Name == "atoll" ||
      Name == "strtol" || Name == "strtoll" || Name == "strtoimax")
    return Conv::Int;
  if (Name == "strtoul" || Name == "strtoull" || Name == "strtoumax")
    return Conv::UInt;
  if (Name == "atof" || Name == "strtod" || Name == "strtof" ||
      Name == "strtold")
    return Conv::Float;
  if (!FD->isInStdNamespace())
    return Conv::None;
  if (Name == "stoi" || Name == "stol" || Name == "stoll")
    return Conv::StdInt;
  if (Name == "stoul" || Name == "stoull")
    return Conv::StdUInt;
  if (Name == "stof" || Name == "stod" || Name == "stold")
    return Conv::StdFloat;
  return Conv::None;
}

/// \p C calls the library's function, not a definition of the user's own
/// (which is evaluated as any other helper).
bool libraryCall(const CallExpr *C, const SourceManager &SM) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD)
    return false;
  const FunctionDecl *Def = FD->getDefinition();
  return !Def || inSystemHeader(SM, Def->getLocation());
}

/// The conversion \p C makes of its first argument, when it calls the
/// library's atoi, strtol, std::stoi ... (None otherwise).
Conv libraryConversion(StringRef Name, const CallExpr *C,
                       const SourceManager &SM) {
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || C->getNumArgs() < 1 || !libraryCall(C, SM))
    return Conv::None;
  return conversionOf(Name, FD);
}

} // namespace

bool LaunchEvaluator::Impl::isArgv(const Expr *Base, const Frame &Fr) {
  const auto *D = dyn_cast<DeclRefExpr>(skipStringWrappers(Base));
  const auto *P = D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
  if (!P)
    return false;
  const auto *F = dyn_cast<FunctionDecl>(P->getDeclContext());
  if (!F)
    return false;
  if (F->isMain())
    return P->getFunctionScopeIndex() == 1;
  // A parameter main's argv is passed to: `parse(argc, argv)`.
  for (const Frame *Cur = &Fr; Cur; Cur = Cur->Parent) {
    if (Cur->F != F && !(Cur->F && Cur->F->getCanonicalDecl() ==
                                        F->getCanonicalDecl()))
      continue;
    // A call, or a constructor (`Params p(argc, argv);`).
    if ((!Cur->Call && !Cur->Construct) || !Cur->Parent)
      return false;
    unsigned I = P->getFunctionScopeIndex();
    unsigned N = Cur->Call ? Cur->Call->getNumArgs()
                           : Cur->Construct->getNumArgs();
    if (I >= N)
      return false;
    return isArgv(Cur->Call ? Cur->Call->getArg(I)
                            : Cur->Construct->getArg(I),
                  *Cur->Parent);
  }
  return false;
}

std::optional<std::string>
LaunchEvaluator::Impl::programArg(
    const Expr *E, const Frame &Fr, std::string &Why,
    const std::function<Val(const Expr *)> *IndexVal) {
  E = skipStringWrappers(E);
  const Expr *Base = nullptr, *Index = nullptr;
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    Base = A->getBase();
    Index = A->getIdx();
  } else if (const auto *U = dyn_cast<UnaryOperator>(E)) {
    // *(argv + k)
    if (U->getOpcode() != UO_Deref)
      return std::nullopt;
    const auto *B = dyn_cast<BinaryOperator>(U->getSubExpr()->IgnoreParenImpCasts());
    if (!B || B->getOpcode() != BO_Add)
      return std::nullopt;
    Base = B->getLHS();
    Index = B->getRHS();
  } else {
    return std::nullopt;
  }
  if (!isArgv(Base, Fr))
    return std::nullopt;
  std::string Text = "'" + text(E) + "'";
  if (!ProgramArgs) {
    Why = text(E) + " is a program argument: give the program's arguments "
                    "with --program-args";
    return std::nullopt;
  }
  Val K = IndexVal ? (*IndexVal)(Index) : eval(Index, Fr);
  if (K.Kind != Val::Int) {
    Why = Text + ": the argument's index is not known" +
          (K.Why.empty() ? std::string() : " (" + K.Why + ")");
    return std::nullopt;
  }
  if (K.I.isNegative() || K.I.getZExtValue() > ProgramArgs->Args.size()) {
    Why = Text + ": argument " + toString(K.I, 10) + " of " +
          std::to_string(ProgramArgs->Args.size()) + " given by " +
          ProgramArgs->Origin;
    return std::nullopt;
  }
  uint64_t I = K.I.getZExtValue();
  return I == 0 ? std::string("program") : ProgramArgs->Args[I - 1];
}

Val LaunchEvaluator::Impl::evalArgConversion(StringRef Name, const CallExpr *C,
                                             const Frame &Fr, bool &Handled) {
  Handled = false;
  if (libraryConversion(Name, C, SM) == Conv::None)
    return Val();
  std::string Why;
  std::optional<std::string> S = programArg(C->getArg(0), Fr, Why);
  if (!S) {
    if (Why.empty())
      return Val(); // not a program argument: as before
    Handled = true;
    return Val::unknown(Why);
  }
  return convertArgString(Name, C, *S,
                          [&](unsigned I) { return eval(C->getArg(I), Fr); },
                          Handled);
}

Val LaunchEvaluator::Impl::convertArgString(
    StringRef Name, const CallExpr *C, const std::string &S,
    const std::function<Val(unsigned)> &ArgVal, bool &Handled) {
  Handled = false;
  Conv K = libraryConversion(Name, C, SM);
  if (K == Conv::None || !ProgramArgs)
    return Val();
  Handled = true;
  // The base of strtol/strtoul (argument 2) and std::stoi (argument 2).
  int Base = 10;
  bool HasBase = (K == Conv::Int || K == Conv::UInt || K == Conv::StdInt ||
                  K == Conv::StdUInt) &&
                 C->getNumArgs() >= 3 && !Name.starts_with("ato");
  if (HasBase) {
    const Expr *BE = C->getArg(2);
    if (!isa<CXXDefaultArgExpr>(BE)) {
      Val B = ArgVal(2);
      if (B.Kind != Val::Int)
        return Val::unknown("the base of '" + text(C) + "'");
      Base = int(B.I.getSExtValue());
      if (Base != 0 && (Base < 2 || Base > 36))
        return Val::unknown("the base of '" + text(C) + "' is not valid");
    }
  }
  const char *Begin = S.c_str();
  char *End = nullptr;
  errno = 0;
  Val V;
  switch (K) {
  case Conv::Int:
  case Conv::StdInt: {
    long long X = std::strtoll(Begin, &End, Base);
    V = Val::ofInt(APSInt(APInt(64, uint64_t(X), true), false));
    break;
  }
  case Conv::UInt:
  case Conv::StdUInt: {
    unsigned long long X = std::strtoull(Begin, &End, Base);
    V = Val::ofInt(APSInt(APInt(64, uint64_t(X)), true));
    break;
  }
  case Conv::Float:
  case Conv::StdFloat: {
    double X = std::strtod(Begin, &End);
    V = Val::ofFloat(X, false);
    break;
  }
  case Conv::None:
    return Val();
  }
  bool Std = K == Conv::StdInt || K == Conv::StdUInt || K == Conv::StdFloat;
  if (Std && (End == Begin || errno == ERANGE))
    return Val::unknown("'" + text(C) + "' throws on the program argument '" +
                        S + "'");
  if (errno == ERANGE)
    return Val::unknown("'" + text(C) + "': the program argument '" + S +
                        "' is out of range");
  V = convert(V, C->getType());
  V.How = "from the program argument '" + S + "' (" + text(C->getArg(0)) +
          ", " + ProgramArgs->Origin + ")";
  return V;
}

Val LaunchEvaluator::Impl::scannedArg(const CallExpr *C, unsigned K,
                                      const Frame &Fr, QualType T,
                                      bool &Handled) {
  Handled = false;
  const FunctionDecl *FD = C->getDirectCallee();
  if (!FD || !FD->getIdentifier() || FD->getName() != "sscanf" ||
      !libraryCall(C, SM) || C->getNumArgs() < 3 || K < 2 ||
      K >= C->getNumArgs())
    return Val();
  Handled = true;
  const auto *SL =
      dyn_cast<clang::StringLiteral>(C->getArg(1)->IgnoreParenImpCasts());
  if (!SL || !SL->isOrdinary())
    return Val::unknown("its format is not a string literal");
  std::string Why;
  std::optional<std::string> S = programArg(C->getArg(0), Fr, Why);
  if (!S)
    return Val::unknown(
        Why.empty() ? "it reads a string that is not a program argument"
                    : Why);
  // The stored conversions, in order; only numbers (no %s, %c, %[ or %n,
  // which would need buffers the tool does not have).
  struct Slot {
    char Conv;
    std::string Len;
  };
  const std::string NotNumber = "its format has a conversion that is not a "
                                "number (%s, %c, %[ and %n are not run)";
  std::vector<Slot> Slots;
  std::string F = SL->getString().str();
  for (size_t I = 0; I < F.size(); ++I) {
    if (F[I] != '%')
      continue;
    if (++I < F.size() && F[I] == '%')
      continue;
    bool Suppress = I < F.size() && F[I] == '*';
    if (Suppress)
      ++I;
    while (I < F.size() && std::isdigit(static_cast<unsigned char>(F[I])))
      ++I;
    std::string Len;
    while (I < F.size() && std::strchr("hljzt", F[I]) && F[I] != 0)
      Len += F[I++];
    if (I >= F.size() || !std::strchr("diouxXfeEgGaA", F[I]) || F[I] == 0 ||
        Len.size() > 2)
      return Val::unknown(NotNumber);
    if (!Suppress)
      Slots.push_back({F[I], Len});
  }
  constexpr size_t MaxSlots = 8;
  if (Slots.size() > MaxSlots)
    return Val::unknown("its format has more than 8 conversions");
  unsigned Want = K - 2;
  if (Want >= Slots.size())
    return Val::unknown(
        "no conversion of its format stores through argument " +
        std::to_string(K + 1));
  // The C library parses the argument as the program will.
  alignas(16) unsigned char B[MaxSlots][16] = {};
  int Got = std::sscanf(S->c_str(), F.c_str(), B[0], B[1], B[2], B[3], B[4],
                        B[5], B[6], B[7]);
  if (Got < 0 || unsigned(Got) <= Want)
    return Val::unknown("it stores nothing through argument " +
                        std::to_string(K + 1) + ": the program argument '" +
                        *S + "' does not match the format");
  const Slot &W = Slots[Want];
  const unsigned char *P = B[Want];
  Val V;
  if (std::strchr("fFeEgGaA", W.Conv)) {
    if (W.Len.empty()) {
      float X;
      std::memcpy(&X, P, sizeof X);
      V = Val::ofFloat(X, true);
    } else if (W.Len == "l") {
      double X;
      std::memcpy(&X, P, sizeof X);
      V = Val::ofFloat(X, false);
    } else {
      return Val::unknown(NotNumber);
    }
  } else {
    unsigned Size = W.Len == "hh"  ? 1
                    : W.Len == "h" ? 2
                    : W.Len.empty() ? 4
                                    : 8;
    uint64_t U = 0;
    std::memcpy(&U, P, Size); // little-endian: the low bytes
    bool Signed = W.Conv == 'd' || W.Conv == 'i';
    APInt X(Size * 8, U);
    V = Val::ofInt(APSInt(Signed ? X.sext(64) : X.zext(64), !Signed));
  }
  V = convert(V, T);
  V.How = "from the program argument '" + *S + "' (" + text(C) + ", " +
          ProgramArgs->Origin + ")";
  return V;
}

std::optional<int64_t>
LaunchEvaluator::Impl::compareStrings(StringRef Name, const CallExpr *C,
                                      const std::string &A,
                                      const std::string &B,
                                      const std::function<Val(unsigned)> &ArgVal,
                                      bool &Handled) {
  Handled = false;
  if (C->getNumArgs() < 2 || (Name != "strcmp" && Name != "strncmp") ||
      !libraryCall(C, SM))
    return std::nullopt;
  Handled = true;
  int R;
  if (Name == "strncmp") {
    if (C->getNumArgs() < 3)
      return std::nullopt;
    Val N = ArgVal(2);
    if (N.Kind != Val::Int || N.I.isNegative())
      return std::nullopt;
    R = std::strncmp(A.c_str(), B.c_str(), size_t(N.I.getZExtValue()));
  } else {
    R = std::strcmp(A.c_str(), B.c_str());
  }
  return R < 0 ? -1 : R > 0 ? 1 : 0;
}

Val LaunchEvaluator::Impl::evalArgc(const ParmVarDecl *P, const Frame &Fr,
                                    bool &Handled) {
  Handled = false;
  const auto *F = dyn_cast<FunctionDecl>(P->getDeclContext());
  if (!F || !F->isMain() || P->getFunctionScopeIndex() != 0)
    return Val();
  Handled = true;
  if (!ProgramArgs)
    return root(P, "the program's argument count: give the program's "
                   "arguments with --program-args");
  Val V = convert(Val::ofInt64(int64_t(ProgramArgs->Args.size()) + 1),
                  P->getType());
  V.How = "argc: " + std::to_string(ProgramArgs->Args.size()) +
          " argument(s) given by " + ProgramArgs->Origin;
  return V;
}

} // namespace cudal1
