//===- LoopTraffic.cpp - global memory an iteration moves -----------------===//
#include "LoopTraffic.h"
#include "cudal1/Analysis/AccessAnalysis.h"
#include "cudal1/Analysis/AstFacts.h"

#include "clang/AST/Attr.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"

#include <functional>
#include <optional>
#include <set>
#include <string>

using namespace clang;

namespace cudal1 {

/// Does \p Base (a pointer or array expression) reach global memory: a
/// pointer parameter, a global array, or a local pointer computed from one
/// of those (p + k)? Shared and local arrays, pointers to them and pointers
/// loaded from memory do not count.
static bool reachesGlobal(const Expr *Base, unsigned Depth = 0) {
  if (!Base || Depth > 6)
    return false;
  Base = Base->IgnoreParenImpCasts();
  if (const auto *B = dyn_cast<BinaryOperator>(Base)) {
    if (B->getOpcode() != BO_Add && B->getOpcode() != BO_Sub)
      return false;
    return reachesGlobal(B->getLHS()->getType()->isPointerType() ? B->getLHS()
                                                                 : B->getRHS(),
                         Depth + 1);
  }
  const auto *D = dyn_cast<DeclRefExpr>(Base);
  const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
  if (!V || V->hasAttr<CUDASharedAttr>())
    return false;
  if (isa<ParmVarDecl>(V))
    return V->getType()->isPointerType();
  if (V->hasGlobalStorage() && !V->isStaticLocal())
    return true;
  if (V->hasLocalStorage() && V->getType()->isPointerType() && V->getInit())
    return reachesGlobal(V->getInit(), Depth + 1);
  return false;
}

/// Does \p E read a variable of \p Changed (or memory)?
static bool variesIn(const Expr *E, const std::set<const VarDecl *> &Changed) {
  bool Varies = false;
  std::function<void(const Stmt *)> W = [&](const Stmt *S) {
    if (!S || Varies || isa<PseudoObjectExpr>(S)) // threadIdx.x: fixed
      return;
    if (const auto *D = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl()); V && Changed.count(V))
        Varies = true;
    if (isa<ArraySubscriptExpr>(S) || isa<CallExpr>(S))
      Varies = true;
    if (const auto *U = dyn_cast<UnaryOperator>(S);
        U && U->getOpcode() == UO_Deref)
      Varies = true;
    for (const Stmt *C : S->children())
      W(C);
  };
  W(E);
  return Varies;
}

uint64_t globalBytesPerIteration(const ASTContext &Ctx, const Stmt *Loop) {
  std::set<const VarDecl *> Changed = varsChangedIn(Loop);
  std::set<std::string> Seen;
  uint64_t Bytes = 0;
  auto Count = [&](const Expr *E, const Expr *Base, const Expr *Index,
                   QualType T, bool Written) {
    if (!reachesGlobal(Base) || T->isIncompleteType() || T->isSizelessType() ||
        T->isArrayType())
      return;
    if (!Written && !variesIn(Base, Changed) &&
        (!Index || !variesIn(Index, Changed)))
      return;
    std::string Text = oneLineText(Ctx, E->getSourceRange());
    if (!Text.empty() && Seen.insert(Text + (Written ? "#w" : "")).second)
      // A template's pattern: the element's size is not known there (and
      // asking for it recurses without end); 1 byte, the least it can be.
      Bytes += T->isDependentType() ? 1 : Ctx.getTypeSizeInChars(T).getQuantity();
  };
  std::function<void(const Stmt *, bool)> Walk = [&](const Stmt *S,
                                                     bool Written) {
    if (!S)
      return;
    // A field of an element (p[i].x, p->x): the field's bytes.
    if (const auto *M = dyn_cast<MemberExpr>(S);
        M && !M->getType()->isRecordType() && isa<FieldDecl>(M->getMemberDecl())) {
      const Expr *B = M->getBase()->IgnoreParenImpCasts();
      if (M->isArrow()) {
        Count(M, B, nullptr, M->getType(), Written);
        Walk(B, false);
        return;
      }
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(B)) {
        Count(M, AS->getBase(), AS->getIdx(), M->getType(), Written);
        Walk(AS->getBase(), false);
        Walk(AS->getIdx(), false);
        return;
      }
    }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S))
      Count(AS, AS->getBase(), AS->getIdx(), AS->getType(), Written);
    else if (const auto *U = dyn_cast<UnaryOperator>(S);
             U && U->getOpcode() == UO_Deref)
      Count(U, U->getSubExpr(), nullptr, U->getType(), Written);
    else if (const auto *U = dyn_cast<UnaryOperator>(S);
             U && U->getOpcode() == UO_AddrOf)
      return; // &p[i]: an address, not an access
    if (const auto *B = dyn_cast<BinaryOperator>(S); B && B->isAssignmentOp()) {
      Walk(B->getLHS(), true);
      if (B->isCompoundAssignmentOp())
        Walk(B->getLHS(), false);
      Walk(B->getRHS(), false);
      return;
    }
    // An asynchronous copy from global memory (`__pipeline_memcpy_async(dst,
    // src, 16)`, `cuda::memcpy_async`, `cooperative_groups::memcpy_async`):
    // its source's bytes, the size argument when it is a constant, else
    // the source's element.
    if (const auto *CE = dyn_cast<CallExpr>(S))
      if (const FunctionDecl *FD = CE->getDirectCallee();
          FD && FD->getIdentifier() && FD->getName().contains("memcpy_async")) {
        std::optional<uint64_t> Size;
        for (const Expr *A : CE->arguments()) {
          Expr::EvalResult R;
          if (A->getType()->isIntegerType() && !A->isValueDependent() &&
              A->EvaluateAsInt(R, Ctx) && R.Val.getInt().isStrictlyPositive())
            Size = R.Val.getInt().getZExtValue();
        }
        for (const Expr *A : CE->arguments()) {
          const Expr *Src = A->IgnoreParenImpCasts();
          if (!Src->getType()->isPointerType() || !reachesGlobal(Src) ||
              !variesIn(Src, Changed))
            continue;
          QualType T = Src->getType()->getPointeeType();
          uint64_t B = Size ? *Size
                       : T->isIncompleteType() || T->isDependentType() ||
                               T->isVoidType()
                           ? 1
                           : Ctx.getTypeSizeInChars(T).getQuantity();
          std::string Text = oneLineText(Ctx, CE->getSourceRange());
          if (Seen.insert(Text).second)
            Bytes += B;
          break;
        }
      }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
      // the index and base may read memory too (not the element again)
      Walk(AS->getBase(), false);
      Walk(AS->getIdx(), false);
      return;
    }
    for (const Stmt *C : S->children())
      Walk(C, false);
  };
  Walk(loopBody(Loop), false);
  return Bytes;
}


} // namespace cudal1
