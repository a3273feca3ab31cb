//===- RestrictWrites.h - every write through an allowed parameter -*- C++ -*-===//
//
// Private to memory-restrict and memory-ldg: when every write of a kernel
// goes through a __restrict__ pointer parameter, the compiler already knows
// that nothing else aliases what it writes (an object written through a
// restrict pointer is reached only through it) and that the other pointers'
// data is read-only: more __restrict__ or __ldg changes no instruction.
//
//===----------------------------------------------------------------------===//
#ifndef CUDAL1_LIB_RULES_MEMORY_RESTRICTWRITES_H
#define CUDAL1_LIB_RULES_MEMORY_RESTRICTWRITES_H

#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/Stmt.h"
#include "clang/Basic/SourceManager.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace cudal1 {

namespace restrict_writes {
/// The pointer a write to \p LHS goes through, or null for memory of the
/// thread or the block (a local, a local or __shared__ array). \p Unknown is
/// set for a write to memory the analysis cannot name (a global variable).
inline const clang::Expr *writtenPointer(const clang::Expr *LHS,
                                         bool &Unknown) {
  const clang::Expr *E = LHS->IgnoreParenImpCasts();
  while (true) {
    if (const auto *AS = llvm::dyn_cast<clang::ArraySubscriptExpr>(E)) {
      if (AS->getBase()->IgnoreParenImpCasts()->getType()->isArrayType()) {
        E = AS->getBase()->IgnoreParenImpCasts();
        continue;
      }
      return AS->getBase();
    }
    if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(E);
        U && U->getOpcode() == clang::UO_Deref)
      return U->getSubExpr();
    if (const auto *M = llvm::dyn_cast<clang::MemberExpr>(E)) {
      if (M->isArrow())
        return M->getBase();
      E = M->getBase()->IgnoreParenImpCasts();
      continue;
    }
    if (const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(E)) {
      const auto *V = llvm::dyn_cast<clang::VarDecl>(D->getDecl());
      if (!V || (!V->hasLocalStorage() && !V->hasAttr<clang::CUDASharedAttr>()))
        Unknown = true;
      return nullptr;
    }
    Unknown = true;
    return nullptr;
  }
}

/// The parameter \p P points into (`p`, `p + k`), or null.
inline const clang::ParmVarDecl *pointerParam(const clang::Expr *P) {
  P = P->IgnoreParenImpCasts();
  while (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(P)) {
    if (B->getOpcode() != clang::BO_Add && B->getOpcode() != clang::BO_Sub)
      return nullptr;
    P = (B->getLHS()->getType()->isPointerType() ? B->getLHS() : B->getRHS())
            ->IgnoreParenImpCasts();
  }
  const auto *D = llvm::dyn_cast<clang::DeclRefExpr>(P);
  return D ? llvm::dyn_cast<clang::ParmVarDecl>(D->getDecl()) : nullptr;
}

inline bool walk(const clang::Stmt *S, const clang::SourceManager &SM,
                 llvm::function_ref<bool(const clang::ParmVarDecl *)> Allowed,
                 unsigned Depth) {
  if (!S)
    return true;
  if (llvm::isa<clang::AsmStmt>(S))
    return false;
  const clang::Expr *Target = nullptr;
  if (const auto *B = llvm::dyn_cast<clang::BinaryOperator>(S);
      B && B->isAssignmentOp())
    Target = B->getLHS();
  else if (const auto *U = llvm::dyn_cast<clang::UnaryOperator>(S);
           U && U->isIncrementDecrementOp())
    Target = U->getSubExpr();
  if (Target) {
    bool Unknown = false;
    const clang::Expr *P = writtenPointer(Target, Unknown);
    if (Unknown)
      return false;
    if (P) {
      const clang::ParmVarDecl *Parm = pointerParam(P);
      if (!Parm || !Allowed(Parm))
        return false;
    }
  }
  if (const auto *CE = llvm::dyn_cast<clang::CallExpr>(S)) {
    const clang::FunctionDecl *FD = CE->getDirectCallee();
    if (!FD)
      return false;
    std::string N = FD->getIdentifier() ? FD->getName().lower() : "";
    // Atomics, fences and printf keep nvcc on coherent loads.
    if (N.find("atomic") != std::string::npos ||
        N.find("fence") != std::string::npos ||
        N.find("printf") != std::string::npos)
      return false;
    const clang::FunctionDecl *Def = FD->getDefinition();
    bool System = SM.isInSystemHeader(FD->getLocation());
    if (!System && FD->getBuiltinID() == 0) {
      // The user's function: its writes are the kernel's (its pointer
      // arguments are not followed: any it writes through is unknown).
      if (!Def || !Def->hasBody() || Depth >= 3)
        return false;
      for (const clang::ParmVarDecl *Q : FD->parameters())
        if (Q->getType()->isPointerType() || Q->getType()->isReferenceType())
          return false;
      if (!walk(Def->getBody(), SM, Allowed, Depth + 1))
        return false;
    }
  }
  for (const clang::Stmt *C : S->children())
    if (!walk(C, SM, Allowed, Depth))
      return false;
  return true;
}
} // namespace restrict_writes

/// Every write of kernel \p FD goes through a pointer parameter \p Allowed
/// accepts (or to the thread's or the block's own memory), and the kernel
/// has no atomic, fence, printf, inline assembly or call the tool cannot
/// follow.
inline bool writesOnlyThrough(
    const clang::FunctionDecl *FD, const clang::SourceManager &SM,
    llvm::function_ref<bool(const clang::ParmVarDecl *)> Allowed) {
  return FD->getBody() &&
         restrict_writes::walk(FD->getBody(), SM, Allowed, 0);
}

} // namespace cudal1

#endif
