//===- CallTree.cpp - the functions a statement calls, transitively -------===//
#include "CallTree.h"

#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"

using namespace clang;

namespace cudal1 {

bool anyCalledDefinition(const Stmt *S, unsigned MaxLevel,
                         llvm::function_ref<bool(const FunctionDecl *)> Pred,
                         bool UserCodeOnly) {
  if (!S || MaxLevel == 0)
    return false;
  bool Found = false;
  forEachStmt(S, [&](const Stmt *X) {
    const auto *CE = dyn_cast<CallExpr>(X);
    const FunctionDecl *Callee = CE ? CE->getDirectCallee() : nullptr;
    const FunctionDecl *Def = Callee ? Callee->getDefinition() : nullptr;
    if (Found || !Def || !Def->hasBody())
      return;
    if (UserCodeOnly &&
        Def->getASTContext().getSourceManager().isInSystemHeader(
            Def->getLocation()))
      return;
    Found = Pred(Def) ||
            anyCalledDefinition(Def->getBody(), MaxLevel - 1, Pred, UserCodeOnly);
  });
  return Found;
}

} // namespace cudal1
