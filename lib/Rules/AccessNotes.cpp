//===- AccessNotes.cpp - wording of findings from the access analysis -----===//
#include "AccessNotes.h"
#include "cudal1/Rules/RuleSupport.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLExtras.h"

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

static SourceLocation inKernel(const MemAccess *X) {
  return X->CallChain.empty() ? X->E->getExprLoc()
                              : X->CallChain.front()->getBeginLoc();
}

void CauseGroups::add(const MemAccess &A, const std::string &Cause) {
  // Two arrays of one name in different scopes are two causes.
  auto [It, New] = Index.try_emplace(
      std::to_string((uintptr_t)A.Base) + "\n" + A.BaseName + "\n" + Cause,
      Groups.size());
  if (New)
    Groups.emplace_back();
  Groups[It->second].push_back(&A);
}

std::vector<std::vector<const MemAccess *>>
CauseGroups::take(const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  for (std::vector<const MemAccess *> &G : Groups)
    llvm::stable_sort(G, [&](const MemAccess *X, const MemAccess *Y) {
      return SM.isBeforeInTranslationUnit(inKernel(X), inKernel(Y));
    });
  Index.clear();
  return std::move(Groups);
}

void addSameCauseNote(const ASTContext &Ctx, Finding &F,
                      const std::vector<const MemAccess *> &Group,
                      const std::string &Same, const std::string &Remedy) {
  if (Group.size() < 2)
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  // The other places in the kernel, each line once.
  unsigned First = SM.getSpellingLineNumber(inKernel(Group.front()));
  std::vector<unsigned> Lines;
  for (const MemAccess *O : Group) {
    unsigned L = SM.getSpellingLineNumber(inKernel(O));
    if (L != First && llvm::find(Lines, L) == Lines.end())
      Lines.push_back(L);
  }
  std::string Where;
  for (size_t I = 0; I < Lines.size() && I < 8; ++I)
    Where += (I ? ", " : "") + std::to_string(Lines[I]);
  if (Lines.size() > 8)
    Where += ", ...";
  size_t N = Group.size() - 1;
  std::string Text =
      std::to_string(N) + " more access" + (N > 1 ? "es" : "") + " of '" +
      Group.front()->BaseName + "' in this kernel with the same " + Same +
      (Where.empty() ? std::string(" on this line")
                     : " (line" + std::string(Lines.size() > 1 ? "s " : " ") +
                           Where + ")") +
      "; " + Remedy;
  F.Notes.push_back(makeNote(Ctx, inKernel(Group[1]), Text));
}

} // namespace cudal1
