//===- AccessNotes.cpp - wording of findings from the access analysis -----===//
#include "AccessNotes.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"

using namespace clang;

namespace cudal1 {

const char *accessVerb(const MemAccess &A) {
  if (A.IsAtomic)
    return "atomic";
  if (A.IsRead && A.IsWrite)
    return "read-modify-write";
  return A.IsWrite ? "store" : "load";
}

std::string elementIndexText(const MemAccess &A) {
  if (!A.Address.isKnown() || !A.ElemBytes)
    return "";
  AffineExpr Q;
  for (auto &T : A.Address.terms()) {
    if (T.second % (int64_t)A.ElemBytes)
      return A.Address.str() + " (bytes)";
    AffineExpr M = AffineExpr::constant(T.second / A.ElemBytes);
    for (auto &S : T.first)
      M = M * AffineExpr::symbol(S);
    Q = Q + M;
  }
  return Q.str();
}

void addCallChainNotes(const ASTContext &Ctx, Finding &F, const MemAccess &A) {
  for (const CallExpr *CE : A.CallChain)
    F.Notes.push_back(
        makeNote(Ctx, CE->getBeginLoc(), "reached through this call"));
}

void addAccessNotes(const ASTContext &Ctx, Finding &F, const MemAccess &A,
                    const KernelAnalysis &K, const std::string &Condition,
                    const std::string &Assumption) {
  std::string Idx = elementIndexText(A);
  std::string Text = "index of '" + A.BaseName + "' in elements: " + Idx;
  if (!Condition.empty())
    Text += "; the sector count holds " + Condition;
  if (!Assumption.empty())
    Text += " (" + Assumption + ")";
  if (!Idx.empty())
    F.Notes.push_back(makeNote(
        Ctx, A.Index ? A.Index->getBeginLoc() : A.E->getExprLoc(), Text));
  if (Assumption.empty() && K.Block[0] && !K.BlockLoc.File.empty()) {
    FindingNote N;
    N.Loc = K.BlockLoc;
    N.Message = "block shape " + std::to_string(K.Block[0]) + "x" +
                std::to_string(K.Block[1]) + "x" + std::to_string(K.Block[2]) +
                " from this launch";
    F.Notes.push_back(N);
  }
  addCallChainNotes(Ctx, F, A);
}

const LoopInfo *innermostLoop(const MemAccess &A) {
  return A.Loops.empty() ? nullptr : A.Loops.back();
}

std::string loopLine(const LoopInfo &L) {
  return "line " + std::to_string(L.Loc.Line);
}

std::string iterationsText(const LoopInfo &L, const std::string &Prefix) {
  if (L.Trip == TripKind::Unknown || L.Init.dependsOnThread())
    return (Prefix.empty() ? "" : Prefix + " ") + "every iteration";
  return (Prefix.empty() ? "" : Prefix + " ") + "each of its " + L.TripText +
         " iterations";
}

} // namespace cudal1
