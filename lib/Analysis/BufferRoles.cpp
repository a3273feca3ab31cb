//===- BufferRoles.cpp - how kernels use their pointer parameters ---------===//
#include "cudal1/Analysis/BufferRoles.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/Expr.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "cudal1/Analysis/AstFacts.h"

using namespace clang;

namespace cudal1 {

namespace {
/// KernelInfo::key() of the kernel (or kernel template) \p K belongs to.
std::string kernelKey(const SourceManager &SM, const FunctionDecl *K) {
  const FunctionDecl *D = K->getTemplateInstantiationPattern();
  if (!D)
    D = K;
  const FunctionTemplateDecl *FTD = D->getDescribedFunctionTemplate();
  SourceRange R = FTD ? FTD->getSourceRange() : D->getSourceRange();
  return D->getQualifiedNameAsString() + "@" +
         makeSourceLoc(SM, R.getBegin()).str();
}
/// A square root or logarithm, by its unqualified name.
bool needsNonNegative(StringRef N) {
  static const char *const Names[] = {
      "sqrt",      "sqrtf",      "rsqrt",      "rsqrtf",     "__fsqrt_rn",
      "__fsqrt_rz", "__fsqrt_ru", "__fsqrt_rd", "__dsqrt_rn", "__frsqrt_rn",
      "log",       "logf",       "__logf",     "log2",       "log2f",
      "__log2f",   "log10",      "log10f",     "__log10f"};
  for (const char *X : Names)
    if (N == X)
      return true;
  return false;
}

/// The kernel's pointer parameters whose loads \p E is built from with
/// + * / (through casts, parentheses, non-negative literals and locals
/// initialised once and never written after: not in \p Written, the
/// kernel's varsWrittenIn), into \p Out; false when \p E has anything else
/// (a subtraction, a negation, a call, a written local).
bool nonNegativeOfLoads(const Expr *E, const FunctionDecl *K,
                        const std::set<const VarDecl *> &Written,
                        std::set<const ParmVarDecl *> &Out, unsigned Depth = 0) {
  if (Depth > 8)
    return false;
  E = E->IgnoreParenImpCasts();
  if (const auto *C = dyn_cast<CStyleCastExpr>(E))
    return nonNegativeOfLoads(C->getSubExpr(), K, Written, Out, Depth + 1);
  if (const auto *B = dyn_cast<BinaryOperator>(E)) {
    if (B->getOpcode() != BO_Add && B->getOpcode() != BO_Mul &&
        B->getOpcode() != BO_Div)
      return false;
    return nonNegativeOfLoads(B->getLHS(), K, Written, Out, Depth + 1) &&
           nonNegativeOfLoads(B->getRHS(), K, Written, Out, Depth + 1);
  }
  if (const auto *F = dyn_cast<FloatingLiteral>(E))
    return !F->getValue().isNegative();
  if (isa<IntegerLiteral>(E))
    return true;
  if (const auto *A = dyn_cast<ArraySubscriptExpr>(E)) {
    const auto *D =
        dyn_cast<DeclRefExpr>(A->getBase()->IgnoreParenImpCasts());
    const auto *P = D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
    if (!P || P->getDeclContext() != K || !P->getType()->isPointerType() ||
        !A->getType()->isRealFloatingType())
      return false;
    Out.insert(P);
    return true;
  }
  if (const auto *D = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(D->getDecl());
    if (!V || !V->hasLocalStorage() || isa<ParmVarDecl>(V) || !V->getInit())
      return false;
    return !Written.count(V) &&
           nonNegativeOfLoads(V->getInit(), K, Written, Out, Depth + 1);
  }
  return false;
}

/// The kernel's pointer parameter of integer elements that \p E points
/// into: `P`, `P + k`, `&P[k]`; null otherwise.
const ParmVarDecl *intBufferOf(const Expr *E, const FunctionDecl *K) {
  E = E->IgnoreParenImpCasts();
  if (const auto *U = dyn_cast<UnaryOperator>(E);
      U && U->getOpcode() == UO_AddrOf)
    if (const auto *A =
            dyn_cast<ArraySubscriptExpr>(U->getSubExpr()->IgnoreParens()))
      E = A->getBase()->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(E); B && B->isAdditiveOp())
    E = (B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS())
            ->IgnoreParenImpCasts();
  const auto *D = dyn_cast<DeclRefExpr>(E);
  const auto *P = D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
  if (!P || P->getDeclContext() != K || !P->getType()->isPointerType() ||
      !P->getType()->getPointeeType()->isIntegerType())
    return nullptr;
  return P;
}

} // namespace

void addDomainUses(ASTContext &Ctx, const KernelAnalysis &KA, KernelInfo &K) {
  const FunctionDecl *F = KA.Kernel;
  if (!F || !F->getBody())
    return;
  const SourceManager &SM = Ctx.getSourceManager();
  const std::set<const VarDecl *> Written = varsWrittenIn(F->getBody());
  auto TextOf = [&](const CallExpr *CE) {
    std::string Text =
        Lexer::getSourceText(
            SM.getExpansionRange(CE->getSourceRange()),
            SM, Ctx.getLangOpts())
            .str();
    if (Text.size() > 60)
      Text = Text.substr(0, 57) + "...";
    return Text + " (" + makeSourceLoc(SM, CE->getBeginLoc()).brief() + ")";
  };
  forEachStmt(F->getBody(), [&](const Stmt *S) {
    const auto *CE = dyn_cast<CallExpr>(S);
    const FunctionDecl *Callee = CE ? CE->getDirectCallee() : nullptr;
    if (!Callee || !Callee->getIdentifier())
      return;
    StringRef N = Callee->getName();
    if ((N.starts_with("atomicCAS") || N.starts_with("atomicExch")) &&
        CE->getNumArgs() >= 2) {
      if (const ParmVarDecl *P = intBufferOf(CE->getArg(0), F))
        for (BufferUse &U : K.BufferUses)
          if (U.Param == P->getFunctionScopeIndex() && U.LockUse.empty())
            U.LockUse = TextOf(CE);
      return;
    }
    if (CE->getNumArgs() != 1 || !needsNonNegative(N))
      return;
    std::set<const ParmVarDecl *> Bufs;
    if (!nonNegativeOfLoads(CE->getArg(0), F, Written, Bufs) || Bufs.empty())
      return;
    std::string Text = TextOf(CE);
    for (const ParmVarDecl *P : Bufs)
      for (BufferUse &U : K.BufferUses)
        if (U.Param == P->getFunctionScopeIndex() && U.NonNegativeUse.empty())
          U.NonNegativeUse = Text;
  });
}

void addBufferUses(ASTContext &Ctx, const AnalysisResults &A,
                   ProjectModel &Model) {
  std::map<std::string, KernelInfo *> ByKey;
  for (KernelInfo &K : Model.Kernels)
    ByKey[K.key()] = &K;
  std::set<KernelInfo *> Seen;
  for (const KernelAnalysis &KA : A.Kernels) {
    auto It = ByKey.find(kernelKey(Ctx.getSourceManager(), KA.Kernel));
    if (It == ByKey.end())
      continue;
    KernelInfo &K = *It->second;
    if (Seen.insert(&K).second)
      K.BufferUses.clear();
    bool UnknownWrites = KA.EscapedBases.count(nullptr);
    for (unsigned I = 0; I < KA.Kernel->getNumParams(); ++I) {
      const ParmVarDecl *P = KA.Kernel->getParamDecl(I);
      if (!P->getType()->isPointerType())
        continue;
      auto U = std::find_if(K.BufferUses.begin(), K.BufferUses.end(),
                            [&](const BufferUse &B) { return B.Param == I; });
      if (U == K.BufferUses.end()) {
        K.BufferUses.push_back(BufferUse());
        U = K.BufferUses.end() - 1;
        U->Param = I;
      }
      U->Read |= KA.ReadBases.count(P) > 0;
      U->Written |= KA.WrittenBases.count(P) > 0;
      U->Escaped |= KA.EscapedBases.count(P) > 0 || UnknownWrites;
    }
    addIndexUses(Ctx, KA, K);
    addDomainUses(Ctx, KA, K);
  }
}

} // namespace cudal1
