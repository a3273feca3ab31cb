//===- AlgebraicDivisionConstant.cpp - algebraic-division-constant --------===//
//
// algebraic-division-constant: x / 2^k (a literal) becomes x * 2^-k, the
// same correctly rounded operation on the same real value (bitwise).
//
//===----------------------------------------------------------------------===//
#include "AlgebraicDivisionConstant.h"

#include "FloatTypes.h"

#include "clang/AST/Expr.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/SmallString.h"

using namespace clang;
using namespace clang::ast_matchers;
using namespace llvm;

namespace cudal1 {

RuleInfo AlgebraicDivisionConstant::info() const {
  RuleInfo I;
  I.Id = "algebraic-division-constant";
  I.Category = "algebraic";
  I.Summary = "floating division by a power of two; multiply by its exact "
              "reciprocal";
  I.Exactness = Exactness::Bitwise;
  I.Help = "IEEE division is a multi-instruction sequence on the GPU; "
           "x / 2^k equals x * 2^-k exactly (both are one correctly "
           "rounded operation on the same real value).";
  I.Doc.Detects =
      "Floating division by a literal power of two (`x / 4.0f`, `d / 2`) "
      "in device code.";
  I.Doc.WhySlow =
      "IEEE division compiles to a multi-instruction sequence (reciprocal "
      "approximation plus Newton steps and a slow path); a multiply is one "
      "instruction.";
  I.Doc.Example = R"cuda(out[i] = in[i] / 4.0f;)cuda";
  I.Doc.Fixed = R"cuda(out[i] = in[i] * 0.25f;)cuda";
  I.Doc.Fix =
      "Replaces `/ C` with `* 1/C`. Exact: 1/2^k is representable and "
      "x/2^k and x*2^-k are the same correctly rounded real value "
      "(subnormal results included). Other divisors are left to "
      "algebraic-reciprocal-hoist.";
  return I;
}

void AlgebraicDivisionConstant::registerMatchers(MatchFinder &F) {
  F.addMatcher(
      binaryOperator(hasOperatorName("/"), hasType(realFloatingPointType()))
          .bind("div"),
      this);
}

void AlgebraicDivisionConstant::check(const MatchFinder::MatchResult &R) {
  const auto *BO = R.Nodes.getNodeAs<BinaryOperator>("div");
  ASTContext &C = ctx();
  if (!BO || BO->isValueDependent() || BO->isTypeDependent())
    return;
  QualType T = BO->getType();
  if (!isFloat(T) && !isDouble(T))
    return;
  const Expr *RHS = BO->getRHS();
  Expr::EvalResult ER;
  if (!RHS->EvaluateAsRValue(ER, C) || !ER.Val.isFloat())
    return;
  APFloat V = ER.Val.getFloat();
  if (V.isNegative() || V.isZero() || !V.isFinite())
    return;
  // Power of two: the reciprocal is exact.
  APFloat Inv(V.getSemantics(), 1);
  if (Inv.divide(V, APFloat::rmNearestTiesToEven) != APFloat::opOK)
    return;
  int Exp = ilogb(V);
  APFloat Pow2 =
      scalbn(APFloat(V.getSemantics(), 1), Exp, APFloat::rmNearestTiesToEven);
  if (Pow2.compare(V) != APFloat::cmpEqual)
    return;
  if (Exp == 0)
    return; // x / 1
  // Only literals (and negated literals are excluded above): constants
  // named by variables stay as written.
  const Expr *RL = RHS->IgnoreParenImpCasts();
  if (!isa<FloatingLiteral>(RL) && !isa<IntegerLiteral>(RL))
    return;
  const FunctionDecl *FD = functionOf(*BO);
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
    return;
  if (!firstInUserCode(BO->getOperatorLoc()))
    return;
  SmallString<32> S;
  APFloat InvT = Inv;
  InvT.toString(S);
  std::string Lit = S.str().str();
  if (!StringRef(Lit).contains('.') && !StringRef(Lit).contains('e') &&
      !StringRef(Lit).contains('E'))
    Lit += ".0";
  if (isFloat(T))
    Lit += "f";
  std::string Old = sourceText(C, RHS->getSourceRange());
  Finding F = makeFinding(C, id(), BO->getOperatorLoc(),
                          "division by " + Old +
                              " is a multi-instruction IEEE division; "
                              "multiplying by " +
                              Lit +
                              " is exact and one "
                              "instruction",
                          FD);
  std::string Why;
  auto Range = editableRange(
      C, CharSourceRange::getTokenRange(BO->getOperatorLoc(), RHS->getEndLoc()),
      Why);
  if (!Range) {
    F.WhyNoFix = Why;
  } else {
    FixIt X;
    X.Description = "multiply by " + Lit;
    X.Exact = Exactness::Bitwise;
    // The RHS may be written with parentheses: keep them.
    X.Edits.push_back(makeTextEdit(C, *Range, "* " + Lit));
    F.Fix = std::move(X);
  }
  report(std::move(F));
}

} // namespace cudal1
