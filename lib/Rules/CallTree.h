//===- CallTree.h - the functions a statement calls, transitively -*- C++ -*-===//
//
// Device code is inlined: what a loop or a kernel does includes the bodies
// of the user's functions it calls. Rules that look through calls walk
// them with this, to a bounded depth.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_RULES_CALLTREE_H
#define CUDAL1_RULES_CALLTREE_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang {
class FunctionDecl;
class Stmt;
} // namespace clang

namespace cudal1 {

/// True when \p Pred holds for a function definition (with a body) that
/// \p S calls: directly (level 1), or from the body of such a definition,
/// down to level \p MaxLevel. Calls without a direct callee are not
/// followed; with \p UserCodeOnly, neither are definitions in system
/// headers (CUDA's own inline functions).
bool anyCalledDefinition(
    const clang::Stmt *S, unsigned MaxLevel,
    llvm::function_ref<bool(const clang::FunctionDecl *Def)> Pred,
    bool UserCodeOnly = false);

} // namespace cudal1

#endif
