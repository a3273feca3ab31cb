//===- UnrollPragma.cpp - innermost counted loops and #pragma unroll ------===//
#include "UnrollPragma.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/Stmt.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {

std::optional<LoopShape> unrollCandidate(ASTContext &Ctx, const ForStmt *For,
                                         const FunctionDecl *&FD) {
  FD = enclosingFunction(Ctx, DynTypedNode::create(*For));
  if (!FD || !isDeviceCode(FD) || isInInstantiation(FD))
    return std::nullopt;
  const Stmt *Body = For->getBody();
  if (Body && isLoop(Body))
    return std::nullopt;
  if (containsLoop(Body) || hasLoopHint(Ctx, For))
    return std::nullopt;
  return analyzeFor(Ctx, For);
}

bool pragmaFix(ASTContext &Ctx, const ForStmt *For, StringRef Pragma, FixIt &X,
               std::string &Why) {
  auto Indent = lineIndent(Ctx, For->getBeginLoc());
  auto P = Ctx.getParents(*For);
  if (For->getBeginLoc().isMacroID() || inMacro(For->getSourceRange())) {
    Why = "the loop comes from a macro expansion";
    return false;
  }
  if (!Indent || P.empty() || !P[0].get<CompoundStmt>()) {
    Why = "the loop does not start its own line in a { } block";
    return false;
  }
  X.Description = "add " + Pragma.str();
  X.Exact = Exactness::Bitwise;
  X.Edits.push_back(
      makeInsertion(Ctx, For->getBeginLoc(), Pragma.str() + "\n" + *Indent));
  return true;
}

} // namespace cudal1
