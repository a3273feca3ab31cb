//===- SpelledType.h - types as the source writes them ----------*- C++ -*-===//
//
// The one helper every rule uses to name the type of a local it declares
// (register accumulators, hoisted loads, reciprocals, loop variables): the
// type as spelled in the source (a macro such as `#define DATA_TYPE float`,
// a typedef, a template parameter), never the canonical type, so that the
// rewritten code stays right when the macro or typedef changes. Part of the
// rule support (implemented in RuleSupport.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_SPELLEDTYPE_H
#define CUDAL1_RULES_SPELLEDTYPE_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/TypeLoc.h"

#include <string>

namespace clang {
class DeclaratorDecl;
class Expr;
} // namespace clang

namespace cudal1 {

/// The type \p T (top-level qualifiers dropped) as the source spells it,
/// for declaring a new local: the macro (`#define DATA_TYPE float` gives
/// "DATA_TYPE"), typedef or template parameter that \p Written (the type
/// written in a declaration) uses, never the canonical type. Without a
/// written type of the same type, \p T printed with the sugar it carries.
/// Every fix that declares a variable names its type with this.
std::string spelledType(const clang::ASTContext &Ctx, clang::QualType T,
                        const clang::TypeLoc *Written);
/// The same for a value of \p From's type where \p From reads a variable,
/// a field, or an element of one (p[i], *p: the element type written in
/// p's declaration).
std::string spelledType(const clang::ASTContext &Ctx, clang::QualType T,
                        const clang::Expr *From);
/// The declared type of \p D as written (top-level qualifiers dropped).
std::string spelledType(const clang::ASTContext &Ctx,
                        const clang::DeclaratorDecl *D);

} // namespace cudal1

#endif
