//===- AlgebraicFloatMath.cpp - algebraic-float-math ----------------------===//
//
// algebraic-float-math: sqrt/exp/sin/... called on float data computes in
// double; the fix calls the float version (sqrtf, expf, ...). Where the
// call cannot be rewritten (the result stays double, an argument mixes in
// double values) the finding has no fix (this rule took over
// algebraic-double-math).
//
//===----------------------------------------------------------------------===//
#include "AlgebraicFloatMath.h"

#include "FloatTypes.h"

#include "clang/AST/Expr.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <functional>
#include <optional>

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

namespace {

/// Maximum ulp error of CUDA's float function (CUDA Math API, "Single
/// Precision Mathematical Functions"), plus 1 for the double version rounded
/// to float. 0 = correctly rounded in both: bitwise.
std::optional<unsigned> floatVersionUlp(StringRef Name) {
  static const StringMap<unsigned> M = {
      {"sqrt", 0},     {"fabs", 0},  {"floor", 0}, {"ceil", 0},  {"trunc", 0},
      {"round", 0},    {"rint", 0},  {"fmin", 0},  {"fmax", 0},  {"fmod", 0},
      {"copysign", 0}, {"exp", 3},   {"exp2", 3},  {"exp10", 3}, {"expm1", 2},
      {"log", 2},      {"log2", 2},  {"log10", 3}, {"log1p", 2}, {"sin", 3},
      {"cos", 3},      {"tan", 5},   {"asin", 3},  {"acos", 3},  {"atan", 3},
      {"atan2", 4},    {"sinh", 4},  {"cosh", 3},  {"tanh", 3},  {"pow", 5},
      {"cbrt", 2},     {"hypot", 4}, {"erf", 3},   {"erfc", 5},  {"rsqrt", 3}};
  auto It = M.find(Name);
  if (It == M.end())
    return std::nullopt;
  return It->second;
}

/// The double-precision math functions whose float data is reported even
/// when the call cannot be rewritten.
bool isDoubleMathName(StringRef N) {
  static const StringSet<> Names = {
      "sqrt",  "cbrt",   "exp",    "exp2",   "exp10", "expm1", "log",   "log2",
      "log10", "log1p",  "sin",    "cos",    "tan",   "asin",  "acos",  "atan",
      "atan2", "sinh",   "cosh",   "tanh",   "pow",   "fabs",  "floor", "ceil",
      "round", "trunc",  "fmod",   "fmin",   "fmax",  "hypot", "erf",   "erfc",
      "rsqrt", "sincos", "lgamma", "tgamma", "fma"};
  return Names.count(N);
}

/// A cast to double written in \p E: the code asks for double precision.
bool containsCastToDouble(const Expr *E) {
  if (!E)
    return false;
  if (const auto *C = dyn_cast<ExplicitCastExpr>(E))
    if (isDouble(C->getType()))
      return true;
  for (const Stmt *Ch : E->children())
    if (containsCastToDouble(dyn_cast_or_null<Expr>(Ch)))
      return true;
  return false;
}

/// A float value converted to double somewhere in \p E (not below a call).
bool containsFloatPromotion(const Expr *E, unsigned D = 0) {
  if (!E || D > 12)
    return false;
  if (isPromotedFloat(E))
    return true;
  if (isa<CallExpr>(E))
    return false;
  for (const Stmt *C : E->children())
    if (const auto *CE = dyn_cast_or_null<Expr>(C))
      if (containsFloatPromotion(CE, D + 1))
        return true;
  return false;
}

/// A double constant: a const double variable initialised with a literal
/// (`const double A1 = 0.31938153;`).
bool doubleConstant(const Expr *E) {
  const auto *DRE = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts());
  const auto *V = DRE ? dyn_cast<VarDecl>(DRE->getDecl()) : nullptr;
  if (!V || !isDouble(V->getType()) || !V->getType().isConstQualified() ||
      !V->getInit())
    return false;
  const Expr *I = V->getInit()->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(I))
    if (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus)
      I = U->getSubExpr()->IgnoreParenImpCasts();
  return isa<FloatingLiteral>(I);
}

/// Float data computed in double: promoted floats, double literals and
/// constants, double math calls on float data, and + - * / of those.
bool floatData(const Expr *E, unsigned D = 0) {
  E = E->IgnoreParens();
  if (D > 16)
    return false;
  if (isPromotedFloat(E) || doubleConstant(E))
    return true;
  if (const auto *L = dyn_cast<FloatingLiteral>(E))
    return isDouble(L->getType());
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    return (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus) &&
           floatData(U->getSubExpr(), D + 1);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    return isDouble(B->getType()) &&
           (B->isAdditiveOp() || B->isMultiplicativeOp()) &&
           B->getOpcode() != BO_Rem && floatData(B->getLHS(), D + 1) &&
           floatData(B->getRHS(), D + 1);
  if (const auto *CE = dyn_cast<CallExpr>(E)) {
    const FunctionDecl *Fn = CE->getDirectCallee();
    if (!Fn || !Fn->getIdentifier() || !isDoubleMathName(Fn->getName()) ||
        !isDouble(CE->getType()) || CE->getNumArgs() == 0)
      return false;
    for (const Expr *A : CE->arguments())
      if (!floatData(A, D + 1))
        return false;
    return true;
  }
  return false;
}

/// The double result of \p Call goes back to float through double + - * /
/// whose other operands are float data computed in double (promoted floats,
/// double literals, their arithmetic, or double math calls on them):
/// `sin(x * PI) * cos(y * PI) + 1.0` stored to a float, `RSQRT2PI *
/// exp(-0.5 * d * d) * poly` with const double coefficients. The double
/// precision of the call's result does not survive the final conversion
/// beyond what the arithmetic in between can amplify.
bool reachesFloat(ASTContext &C, const Expr *Call) {
  const Expr *E = Call;
  for (unsigned D = 0; D < 8; ++D) {
    const Expr *P = parentSkippingParens(C, E);
    if (!P)
      return false;
    if (const auto *IC = dyn_cast<ImplicitCastExpr>(P))
      return IC->getCastKind() == CK_FloatingCast && isFloat(IC->getType());
    if (const auto *U = dyn_cast<UnaryOperator>(P)) {
      if (U->getOpcode() != UO_Minus && U->getOpcode() != UO_Plus)
        return false;
      E = P;
      continue;
    }
    const auto *B = dyn_cast<BinaryOperator>(P);
    if (!B || !isDouble(B->getType()) ||
        !(B->isAdditiveOp() || B->isMultiplicativeOp()) ||
        B->getOpcode() == BO_Rem)
      return false;
    const Expr *Other = B->getLHS()->IgnoreParens() == E->IgnoreParens()
                            ? B->getRHS()
                            : B->getLHS();
    if (!floatData(Other))
      return false;
    E = P;
  }
  return false;
}

/// The use of an object-like macro that is the whole literal (`PI` for
/// `#define PI 3.14159`), as a file range: the macro's use is edited, never
/// its definition. std::nullopt for any other literal.
std::optional<CharSourceRange> ownMacroRange(const ASTContext &C,
                                             const FloatingLiteral *L) {
  const SourceManager &SM = C.getSourceManager();
  SourceLocation B = L->getBeginLoc(), E = L->getEndLoc();
  SourceLocation MB, ME;
  if (!B.isMacroID() || SM.isMacroArgExpansion(B) ||
      !Lexer::isAtStartOfMacroExpansion(B, SM, C.getLangOpts(), &MB) ||
      !Lexer::isAtEndOfMacroExpansion(E, SM, C.getLangOpts(), &ME) ||
      !MB.isFileID() || !ME.isFileID() || MB != ME)
    return std::nullopt;
  return CharSourceRange::getTokenRange(MB, ME);
}

} // namespace

RuleInfo AlgebraicFloatMath::info() const {
  RuleInfo I;
  I.Id = "algebraic-float-math";
  I.Category = "algebraic";
  I.Summary = "double-precision math function called on float data; use "
              "the float version (sqrtf, expf, ...)";
  I.Exactness = Exactness::Ulp;
  I.Help = "sqrt/exp/sin/... on a value promoted from float run the "
           "double-precision routine (slow FP64 on most GPUs) and the "
           "result is rounded back to float. The float version is exact "
           "(bitwise) for correctly rounded functions (sqrt, fabs, floor, "
           "fmin, ...) and within the function's documented ulp bound plus "
           "one otherwise. A double literal float cannot hold (`x * PI`) "
           "is rounded to float, and a result that reaches float through "
           "double arithmetic on float data (`sin(a) * cos(b) + 1.0` "
           "stored to a float) keeps that arithmetic: both are compared "
           "within tolerance. Calls whose result stays double, or whose "
           "arguments mix in double variables, are reported without a fix.";
  I.ExactnessNote =
      "bitwise for correctly rounded functions (sqrt, fabs, floor, ceil, "
      "fmin, fmax, ...); ulp otherwise (documented CUDA bound + 1, +2 when "
      "arithmetic in the arguments moves to float); within tolerance "
      "(reassociating) when a double literal is rounded to float or the "
      "result reaches float through double arithmetic";
  I.Doc.Detects =
      "A double-precision math function (`sqrt`, `exp`, `sin`, ...) whose "
      "arguments are float values promoted to double (possibly with "
      "double literals, `sqrt(x * 2.0)`, `sin(x * PI)`), in device "
      "code, and whose result is converted back to float: right away, or "
      "through double `+ - * /` with other float data "
      "(`a[i] = sin(x * PI) * cos(y * PI) + 1.0;`).\n"
      "\n"
      "It also reports, without a fix, calls whose result stays double or "
      "whose arguments mix in double values (this rule took over "
      "`algebraic-double-math`); not when the code casts to double itself.";
  I.Doc.WhySlow =
      "The double routine runs on the FP64 units (and is longer); the "
      "precision is thrown away when the result is stored as float.";
  I.Doc.Example = R"cuda(out[i] = sqrt(x * 2.0);
out[i] = exp(x + 1.0);
#define PI 3.14159265358979
a[i] = sin(x[i] * PI) * cos(y[i] * PI) + 1.0;)cuda";
  I.Doc.Fixed = R"cuda(out[i] = sqrtf(x * 2.0f);
out[i] = expf(x + 1.0f);
#define PI 3.14159265358979
a[i] = sinf(x[i] * (float)PI) * cosf(y[i] * (float)PI) + 1.0;)cuda";
  I.Doc.Fix =
      "Renames the function to its float version and suffixes the double "
      "literals of the arguments (a literal that is a macro of its own, "
      "`PI`, is cast where it is used: `(float)PI`; the macro is not "
      "changed). The arithmetic around the call is left as it is (other "
      "rules move it to float). Calls that already resolve to the float "
      "overloads of CUDA's headers (`sqrt(x)` with float x) are not "
      "reported.";
  return I;
}

void AlgebraicFloatMath::registerMatchers(MatchFinder &F) {
  F.addMatcher(
      callExpr(
          callee(functionDecl(returns(realFloatingPointType())).bind("fn")))
          .bind("call"),
      this);
}

void AlgebraicFloatMath::check(const MatchFinder::MatchResult &R) {
  const auto *Call = R.Nodes.getNodeAs<CallExpr>("call");
  const auto *Fn = R.Nodes.getNodeAs<FunctionDecl>("fn");
  if (!Call || !Fn || !Fn->getIdentifier() || !isDouble(Call->getType()))
    return;
  auto Ulp = floatVersionUlp(Fn->getName());
  if (Call->getNumArgs() == 0)
    return;
  ASTContext &C = ctx();
  // The double function on float data at all: reported even when the call
  // cannot be rewritten.
  bool OnFloatData =
      isDoubleMathName(Fn->getName()) && Fn->getNumParams() &&
      isDouble(Fn->getParamDecl(0)->getType()) &&
      llvm::any_of(Call->arguments(),
                   [](const Expr *A) { return containsFloatPromotion(A); }) &&
      llvm::none_of(Call->arguments(),
                    [](const Expr *A) { return containsCastToDouble(A); });
  std::string NoFix;
  if (!Ulp)
    NoFix = "the float version of '" + Fn->getName().str() +
            "' has no known error bound";
  for (const ParmVarDecl *P : Fn->parameters())
    if (!isDouble(P->getType()))
      NoFix = "a parameter of '" + Fn->getName().str() + "' is not a double";
  // Every argument: float data computed in double only because of
  // promotion (a promoted float, an exactly representable double literal,
  // or + - * / of those).
  std::vector<const FloatingLiteral *> Lits;
  bool AnyFloat = false, Inner = false, Rounded = false;
  std::function<bool(const Expr *)> FloatDerived = [&](const Expr *E) {
    E = E->IgnoreParens();
    if (isPromotedFloat(E)) {
      AnyFloat = true;
      return true;
    }
    if (const auto *L = dyn_cast<FloatingLiteral>(E)) {
      if (!isDouble(L->getType()))
        return false;
      // A literal float cannot hold (`x * 3.14159265358979`) is rounded
      // to float: the argument moves by up to half an ulp of float. Not
      // one that would overflow, or underflow to zero or a subnormal
      // (`p + 1e-300`, a guard against log(0)).
      if (!exactlyFloat(L->getValue())) {
        APFloat V = L->getValue();
        bool Loses = false;
        V.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &Loses);
        if (!V.isFiniteNonZero() || V.isDenormal())
          return false;
        Rounded = true;
      }
      Lits.push_back(L);
      return true;
    }
    if (const auto *B = dyn_cast<BinaryOperator>(E)) {
      if (!isDouble(B->getType()) ||
          !(B->isAdditiveOp() || B->isMultiplicativeOp()) ||
          B->getOpcode() == BO_Rem)
        return false;
      Inner = true;
      return FloatDerived(B->getLHS()) && FloatDerived(B->getRHS());
    }
    if (const auto *U = dyn_cast<UnaryOperator>(E))
      if (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus)
        return FloatDerived(U->getSubExpr());
    return false;
  };
  bool MixesDouble = false;
  if (NoFix.empty())
    for (const Expr *A : Call->arguments())
      if (!FloatDerived(A)) {
        MixesDouble = true;
        NoFix = "an argument is not float data alone (it mixes in double "
                "values), so the float function would compute something "
                "else";
      }
  if (NoFix.empty() && !AnyFloat)
    return;
  // The result goes back to float, right away or through double arithmetic
  // on float data (then only within tolerance: the arithmetic in between
  // can amplify the float function's error).
  bool Through = false;
  if (NoFix.empty() && !convertedToFloat(C, Call)) {
    Through = reachesFloat(C, Call);
    if (!Through)
      NoFix = "the double result is used as a double, not converted back "
              "to float";
  }
  if (!NoFix.empty() && !OnFloatData)
    return;
  const FunctionDecl *FD = functionOf(*Call);
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
    return;
  if (!firstInUserCode(Call->getBeginLoc()))
    return;
  std::string Name = Fn->getName().str();
  // With double literals in an argument of float data alone, the argument
  // is double only because of them: the literals are the cause.
  // Cause the call is in double, and what makes it the float function.
  std::string Cause = " on a float value", Remedy = "use";
  if (MixesDouble) {
    Cause = " on an argument that mixes float data with double values";
    Remedy = "with the argument in float it is";
  } else if (!Lits.empty()) {
    std::string T = sourceText(C, Lits.front()->getSourceRange());
    Cause = ": its argument is float data made double by " +
          (T.empty() ? std::string("double constants")
                     : "the double constant '" + T + "'" +
                           (Lits.size() > 1
                                ? " (and " + std::to_string(Lits.size() - 1) +
                                      " more)"
                                : std::string()));
    Remedy = "with float constants it is";
  }
  std::string Msg = "'" + Name + "' computes in double" + Cause +
                    " (FP64 runs at 1/2 to 1/64 of the FP32 rate); " + Remedy +
                    " '" + Name + "f'";
  Finding F = makeFinding(C, id(), Call->getBeginLoc(), Msg, FD);
  if (!NoFix.empty()) {
    reportWithoutFix(std::move(F), NoFix);
    return;
  }
  std::string Why;
  const Expr *Callee = Call->getCallee()->IgnoreParenImpCasts();
  auto ER = editableRange(
      C, CharSourceRange::getTokenRange(Callee->getSourceRange()), Why);
  FixIt X;
  if (ER) {
    X.Edits.push_back(makeTextEdit(C, *ER, Name + "f"));
    for (const FloatingLiteral *L : Lits) {
      // Written in the file (or a macro argument): the f suffix; a macro of
      // its own: a cast where it is used.
      std::string W;
      std::optional<CharSourceRange> Ed = editableRange(
          C, CharSourceRange::getTokenRange(L->getSourceRange()), W);
      std::string T = Ed ? sourceText(C, L->getSourceRange()) : "";
      bool OwnMacro = false;
      if (!Ed || T.empty()) {
        if (auto MR = ownMacroRange(C, L)) {
          T = sourceText(C, MR->getAsRange());
          Ed = editableRange(C, *MR, W);
          OwnMacro = true;
        }
      }
      if (!Ed || T.empty()) {
        Why = C.getSourceManager().isMacroArgExpansion(L->getBeginLoc())
                  ? "a double literal of the arguments is written in a "
                    "macro's argument"
              : L->getBeginLoc().isMacroID() || W.empty()
                  ? "a double literal of the arguments is spelled in a macro "
                    "that is more than the literal"
                  : W;
        ER.reset();
        break;
      }
      X.Edits.push_back(makeTextEdit(C, *Ed, OwnMacro ? "(float)" + T : T + "f"));
    }
  }
  if (!ER) {
    F.WhyNoFix = Why;
  } else {
    X.Description = "call " + Name + "f";
    // Arithmetic inside the arguments moves from double to float too.
    unsigned U = *Ulp + (Inner ? 2 : 0);
    X.Exact = U == 0 ? Exactness::Bitwise : Exactness::Ulp;
    X.Ulp = U;
    if (Rounded || Through) {
      // No ulp bound on the stored value: compared within tolerance.
      X.Exact = Exactness::Reassociating;
      X.Ulp = 0;
      F.Notes.push_back(makeNote(
          C, Call->getBeginLoc(),
          Rounded ? "a double literal of the arguments is rounded to float: "
                    "the fix is checked within tolerance, not an ulp bound"
                  : "the result reaches float through double arithmetic, "
                    "which can amplify the float function's error: the fix "
                    "is checked within tolerance, not an ulp bound"));
    }
    F.Fix = std::move(X);
  }
  report(std::move(F));
}

} // namespace cudal1
