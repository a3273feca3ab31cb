//===- FloatTypes.h - float data computed in double --------------*- C++
//-*-===//
//
// Private to the algebraic rules about double precision on float data
// (algebraic-float-literal, algebraic-float-math): which values are float
// data promoted to double, and whether a double result goes straight back
// to float.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_ALGEBRAIC_FLOATTYPES_H
#define CUDAL1_LIB_RULES_ALGEBRAIC_FLOATTYPES_H

#include "clang/AST/Expr.h"
#include "llvm/ADT/APFloat.h"

namespace clang {
class ASTContext;
} // namespace clang

namespace cudal1 {

bool isFloat(clang::QualType T);
bool isDouble(clang::QualType T);
/// A float value promoted to double by an implicit conversion (not a
/// written cast): ImplicitCastExpr<FloatingCast> of a float expression.
bool isPromotedFloat(const clang::Expr *E);
/// A double value computed only from promoted floats and double literals
/// (+ - * / of those); \p AnyFloat is set when a promoted float is seen.
bool floatDerived(const clang::Expr *E, bool &AnyFloat);
/// \p E is converted to float right away.
bool convertedToFloat(clang::ASTContext &Ctx, const clang::Expr *E);
/// \p V is exactly representable as a float.
bool exactlyFloat(const llvm::APFloat &V);

} // namespace cudal1

#endif
