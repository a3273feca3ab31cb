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
           "one otherwise. Calls whose result stays double, or whose "
           "arguments mix in double values, are reported without a fix.";
  I.ExactnessNote =
      "bitwise for correctly rounded functions (sqrt, fabs, floor, ceil, "
      "fmin, fmax, ...); ulp otherwise (documented CUDA bound + 1, +2 when "
      "arithmetic in the arguments moves to float)";
  I.Doc.Detects =
      "A double-precision math function (`sqrt`, `exp`, `sin`, ...) whose "
      "arguments are float values promoted to double (possibly with "
      "exactly representable double literals, `sqrt(x * 2.0)`), in device "
      "code, and whose result is converted back to float.\n"
      "\n"
      "It also reports, without a fix, calls whose result stays double or "
      "whose arguments mix in double values (this rule took over "
      "`algebraic-double-math`); not when the code casts to double itself.";
  I.Doc.WhySlow =
      "The double routine runs on the FP64 units (and is longer); the "
      "precision is thrown away when the result is stored as float.";
  I.Doc.Example = R"cuda(out[i] = sqrt(x * 2.0);
out[i] = exp(x + 1.0);)cuda";
  I.Doc.Fixed = R"cuda(out[i] = sqrtf(x * 2.0f);
out[i] = expf(x + 1.0f);)cuda";
  I.Doc.Fix =
      "Renames the function to its float version and suffixes the double "
      "literals of the arguments. Calls that already resolve to the float "
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
  bool AnyFloat = false, Inner = false;
  std::function<bool(const Expr *)> FloatDerived = [&](const Expr *E) {
    E = E->IgnoreParens();
    if (isPromotedFloat(E)) {
      AnyFloat = true;
      return true;
    }
    if (const auto *L = dyn_cast<FloatingLiteral>(E)) {
      if (!isDouble(L->getType()) || !exactlyFloat(L->getValue()))
        return false;
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
    return false;
  };
  if (NoFix.empty())
    for (const Expr *A : Call->arguments())
      if (!FloatDerived(A))
        NoFix = "an argument is not float data alone (it mixes in double "
                "values), so the float function would compute something "
                "else";
  if (NoFix.empty() && !AnyFloat)
    return;
  if (NoFix.empty() && !convertedToFloat(C, Call))
    NoFix = "the double result is used as a double, not converted back to "
            "float";
  if (!NoFix.empty() && !OnFloatData)
    return;
  const FunctionDecl *FD = functionOf(*Call);
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
    return;
  if (!firstInUserCode(Call->getBeginLoc()))
    return;
  std::string Name = Fn->getName().str();
  Finding F = makeFinding(C, id(), Call->getBeginLoc(),
                          "'" + Name +
                              "' computes in double on a float value (FP64 "
                              "runs at 1/2 to 1/64 of the FP32 rate); use '" +
                              Name + "f'",
                          FD);
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
      std::string T = sourceText(C, L->getSourceRange());
      auto LR = editableRange(
          C, CharSourceRange::getTokenRange(L->getSourceRange()), Why);
      if (!LR || T.empty()) {
        ER.reset();
        break;
      }
      X.Edits.push_back(makeTextEdit(C, *LR, T + "f"));
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
    F.Fix = std::move(X);
  }
  report(std::move(F));
}

} // namespace cudal1
