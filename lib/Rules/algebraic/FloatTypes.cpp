//===- FloatTypes.cpp - float data computed in double ---------------------===//
#include "FloatTypes.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

// A null type (a dependent initialiser's ParenListExpr) is neither.
bool isFloat(QualType T) {
  return !T.isNull() && T.getCanonicalType()->isSpecificBuiltinType(BuiltinType::Float);
}
bool isDouble(QualType T) {
  return !T.isNull() && T.getCanonicalType()->isSpecificBuiltinType(BuiltinType::Double);
}

bool isPromotedFloat(const Expr *E) {
  const auto *IC = dyn_cast<ImplicitCastExpr>(E->IgnoreParens());
  return IC && IC->getCastKind() == CK_FloatingCast &&
         isFloat(IC->getSubExpr()->getType()) && isDouble(IC->getType());
}

bool floatDerived(const Expr *E, bool &AnyFloat) {
  E = E->IgnoreParens();
  if (isPromotedFloat(E)) {
    AnyFloat = true;
    return true;
  }
  if (const auto *L = dyn_cast<FloatingLiteral>(E))
    return isDouble(L->getType());
  if (const auto *U = dyn_cast<UnaryOperator>(E))
    if (U->getOpcode() == UO_Minus || U->getOpcode() == UO_Plus)
      return floatDerived(U->getSubExpr(), AnyFloat);
  if (const auto *B = dyn_cast<BinaryOperator>(E))
    if (isDouble(B->getType()) &&
        (B->isAdditiveOp() || B->isMultiplicativeOp()) &&
        B->getOpcode() != BO_Rem)
      return floatDerived(B->getLHS(), AnyFloat) &&
             floatDerived(B->getRHS(), AnyFloat);
  return false;
}

bool convertedToFloat(ASTContext &Ctx, const Expr *E) {
  const Expr *P = parentSkippingParens(Ctx, E);
  const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(P);
  return IC && IC->getCastKind() == CK_FloatingCast && isFloat(IC->getType());
}

bool exactlyFloat(const APFloat &V) {
  APFloat F = V;
  bool LosesInfo = false;
  F.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &LosesInfo);
  return !LosesInfo;
}

} // namespace cudal1
