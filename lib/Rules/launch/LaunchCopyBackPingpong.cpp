//===- LaunchCopyBackPingpong.cpp - launch-copy-back-pingpong -------------===//
//
// The textbook time-step loop of a stencil on the GPU: one kernel computes
// the new grid B from A, a second copies B back into A, over the same
// elements, every step:
//
//   __global__ void step(int n, float *A, float *B) {
//     int i = ..., j = ...;
//     if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
//       B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + ...);
//   }
//   __global__ void copy(int n, float *A, float *B) {
//     int i = ..., j = ...;
//     if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
//       A[i * n + j] = B[i * n + j];
//   }
//   for (int t = 0; t < T; t++) {
//     step<<<grid, block>>>(n, A, B);
//     copy<<<grid, block>>>(n, A, B);
//   }
//
// Half of the loop's memory traffic is the copy. The fix alternates the
// step between A and a scratch copy of A (taken once, before the loop) and
// copies back once, at the end.
//
// Exactness. Let W be the elements both kernels write (the same prefix
// statements, guard and index, compared structurally with the launches'
// arguments in place of the parameters). The step writes B only on W and
// reads only A (and arrays nothing in the loop writes); the copy writes A
// only on W. So A evolves on its own: A(t+1) is A(0) outside W and
// step(A(t)) on W, and B ends as B(0) outside W, A(T) on W. The scratch
// buffer starts as a whole copy of A(0), so it also holds A(0) outside W;
// stepping from one of A and the scratch into the other gives A(t+1) in
// the target, and after the loop the copy kernel, launched with its
// arguments as written but from the buffer holding A(T), writes B (and A,
// when the scratch holds A(T)) on W. Every element of A and B ends bitwise
// as the loop leaves it; the step kernel runs unchanged.
//
// What the analysis cannot see is checked when the program runs: fewer than
// three steps (the copies would cost more than they save) or a failed
// allocation of the scratch run the loop as written.
//
//===----------------------------------------------------------------------===//
#include "LaunchCopyBackPingpong.h"
#include "../coalescing/RowWalk.h"
#include "HostStatements.h"

#include "clang/AST/ExprCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"

#include <map>
#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {

const Expr *bare(const Expr *E) { return E ? E->IgnoreParenImpCasts() : nullptr; }

/// A kernel whose body is: prefix statements (scalar declarations, `if (c)
/// return;`), then `if (G) S` or `S`, where S is one assignment to a pointer
/// parameter's element `p[e]`, or a block of local declarations ending with
/// one.
struct GuardedWrite {
  std::vector<const Stmt *> Prefix;
  const Expr *Guard = nullptr;
  std::vector<const Stmt *> Before;
  const BinaryOperator *Write = nullptr;
  const ParmVarDecl *Dst = nullptr;
  const Expr *Index = nullptr;
};

const BinaryOperator *assignment(const Stmt *S) {
  if (const auto *EWC = dyn_cast_or_null<ExprWithCleanups>(S))
    S = EWC->getSubExpr();
  const auto *B = dyn_cast_or_null<BinaryOperator>(S);
  return B && B->getOpcode() == BO_Assign ? B : nullptr;
}

bool scalarDecls(const Stmt *S) {
  const auto *DS = dyn_cast<DeclStmt>(S);
  if (!DS)
    return false;
  for (const Decl *D : DS->decls()) {
    const auto *V = dyn_cast<VarDecl>(D);
    if (!V || !V->hasLocalStorage() || !V->getType()->isScalarType() ||
        V->getType()->isPointerType() || V->getType()->isReferenceType() ||
        !V->getInit())
      return false;
  }
  return true;
}

bool earlyReturn(const Stmt *S) {
  const auto *If = dyn_cast<IfStmt>(S);
  if (!If || If->getElse() || If->getInit() || If->getConditionVariable())
    return false;
  const Stmt *T = If->getThen();
  if (const auto *CS = dyn_cast<CompoundStmt>(T))
    T = CS->size() == 1 ? CS->body_front() : nullptr;
  const auto *R = dyn_cast_or_null<ReturnStmt>(T);
  return R && !R->getRetValue();
}

std::optional<GuardedWrite> guardedWrite(const FunctionDecl *K) {
  if (!K->hasBody() || K->isTemplated() || K->isVariadic())
    return std::nullopt;
  const auto *Body = dyn_cast<CompoundStmt>(K->getBody());
  if (!Body || Body->size() == 0)
    return std::nullopt;
  GuardedWrite G;
  for (const Stmt *S : Body->body())
    if (S != Body->body_back()) {
      if (!scalarDecls(S) && !earlyReturn(S))
        return std::nullopt;
      G.Prefix.push_back(S);
    }
  const Stmt *S = Body->body_back();
  if (const auto *If = dyn_cast<IfStmt>(S)) {
    if (If->getElse() || If->getInit() || If->getConditionVariable())
      return std::nullopt;
    G.Guard = If->getCond();
    S = If->getThen();
  }
  if (const auto *CS = dyn_cast<CompoundStmt>(S)) {
    if (CS->size() == 0)
      return std::nullopt;
    for (const Stmt *X : CS->body())
      if (X != CS->body_back()) {
        if (!scalarDecls(X))
          return std::nullopt;
        G.Before.push_back(X);
      }
    S = CS->body_back();
  }
  G.Write = assignment(S);
  if (!G.Write)
    return std::nullopt;
  const auto *A = dyn_cast<ArraySubscriptExpr>(G.Write->getLHS()->IgnoreParens());
  const auto *D = A ? dyn_cast<DeclRefExpr>(bare(A->getBase())) : nullptr;
  G.Dst = D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
  if (!G.Dst || !G.Dst->getType()->isPointerType())
    return std::nullopt;
  G.Index = A->getIdx();
  return G;
}

/// Structural equality of two kernels' statements, parameters standing for
/// the arguments of their launches: a scalar parameter of each matches when
/// both launches pass the same expression, a pointer parameter only as
/// \p Buffers pairs them; locals match as their declarations pair them.
struct Equivalence {
  const ASTContext &C;
  const CUDAKernelCallExpr *LA, *LB;
  std::map<const ParmVarDecl *, const ParmVarDecl *> Buffers;
  std::map<const VarDecl *, const VarDecl *> Locals;

  bool param(const ParmVarDecl *A, const ParmVarDecl *B) {
    auto It = Buffers.find(A);
    if (It != Buffers.end())
      return It->second == B;
    if (A->getType()->isPointerType() || B->getType()->isPointerType() ||
        !C.hasSameType(A->getType(), B->getType()))
      return false;
    unsigned IA = A->getFunctionScopeIndex(), IB = B->getFunctionScopeIndex();
    return IA < LA->getNumArgs() && IB < LB->getNumArgs() &&
           sameExpr(C, LA->getArg(IA), LB->getArg(IB));
  }

  bool same(const Stmt *A, const Stmt *B) {
    if (!A || !B)
      return A == B;
    if (const auto *E = dyn_cast<Expr>(A))
      A = E->IgnoreParens();
    if (const auto *E = dyn_cast<Expr>(B))
      B = E->IgnoreParens();
    if (isa<Expr>(A) && isa<Expr>(B)) {
      std::string NA = builtinName(cast<Expr>(A)), NB = builtinName(cast<Expr>(B));
      if (!NA.empty() || !NB.empty())
        return NA == NB;
    }
    if (A->getStmtClass() != B->getStmtClass())
      return false;
    if (const auto *DA = dyn_cast<DeclRefExpr>(A)) {
      const ValueDecl *VA = DA->getDecl(), *VB = cast<DeclRefExpr>(B)->getDecl();
      const auto *PA = dyn_cast<ParmVarDecl>(VA);
      const auto *PB = dyn_cast<ParmVarDecl>(VB);
      if (PA || PB)
        return PA && PB && param(PA, PB);
      const auto *WA = dyn_cast<VarDecl>(VA);
      const auto *WB = dyn_cast<VarDecl>(VB);
      if (WA && WB && WA->hasLocalStorage() && WB->hasLocalStorage()) {
        auto It = Locals.find(WA);
        return It != Locals.end() && It->second == WB;
      }
      return VA->getCanonicalDecl() == VB->getCanonicalDecl();
    }
    if (const auto *DA = dyn_cast<DeclStmt>(A)) {
      const auto *DB = cast<DeclStmt>(B);
      auto IA = DA->decl_begin(), IB = DB->decl_begin();
      for (; IA != DA->decl_end() && IB != DB->decl_end(); ++IA, ++IB) {
        const auto *VA = dyn_cast<VarDecl>(*IA);
        const auto *VB = dyn_cast<VarDecl>(*IB);
        if (!VA || !VB || !VA->hasLocalStorage() || !VB->hasLocalStorage() ||
            !C.hasSameType(VA->getType(), VB->getType()) ||
            !same(VA->getInit(), VB->getInit()))
          return false;
        Locals[VA] = VB;
      }
      return IA == DA->decl_end() && IB == DB->decl_end();
    }
    if (const auto *MA = dyn_cast<MemberExpr>(A)) {
      const auto *MB = cast<MemberExpr>(B);
      if (MA->getMemberDecl() != MB->getMemberDecl() ||
          MA->isArrow() != MB->isArrow())
        return false;
    } else if (const auto *IA = dyn_cast<IntegerLiteral>(A)) {
      const auto *IB = cast<IntegerLiteral>(B);
      if (!C.hasSameType(IA->getType(), IB->getType()) ||
          IA->getValue() != IB->getValue())
        return false;
    } else if (const auto *FA = dyn_cast<FloatingLiteral>(A)) {
      const auto *FB = cast<FloatingLiteral>(B);
      if (!C.hasSameType(FA->getType(), FB->getType()) ||
          !FA->getValue().bitwiseIsEqual(FB->getValue()))
        return false;
    } else if (const auto *CA = dyn_cast<CharacterLiteral>(A)) {
      if (CA->getValue() != cast<CharacterLiteral>(B)->getValue())
        return false;
    } else if (const auto *BA = dyn_cast<CXXBoolLiteralExpr>(A)) {
      if (BA->getValue() != cast<CXXBoolLiteralExpr>(B)->getValue())
        return false;
    } else if (const auto *OA = dyn_cast<BinaryOperator>(A)) {
      if (OA->getOpcode() != cast<BinaryOperator>(B)->getOpcode())
        return false;
    } else if (const auto *UA = dyn_cast<UnaryOperator>(A)) {
      if (UA->getOpcode() != cast<UnaryOperator>(B)->getOpcode())
        return false;
    } else if (const auto *XA = dyn_cast<CastExpr>(A)) {
      const auto *XB = cast<CastExpr>(B);
      if (XA->getCastKind() != XB->getCastKind() ||
          !C.hasSameType(XA->getType(), XB->getType()))
        return false;
    } else if (const auto *KA = dyn_cast<CallExpr>(A)) {
      const FunctionDecl *FA = KA->getDirectCallee();
      const FunctionDecl *FB = cast<CallExpr>(B)->getDirectCallee();
      if (!FA || !FB || FA->getCanonicalDecl() != FB->getCanonicalDecl())
        return false;
    } else if (const auto *TA = dyn_cast<UnaryExprOrTypeTraitExpr>(A)) {
      const auto *TB = cast<UnaryExprOrTypeTraitExpr>(B);
      if (TA->getKind() != TB->getKind() ||
          TA->isArgumentType() != TB->isArgumentType())
        return false;
      if (TA->isArgumentType())
        return C.hasSameType(TA->getArgumentType(), TB->getArgumentType());
    } else if (const auto *IfA = dyn_cast<IfStmt>(A)) {
      const auto *IfB = cast<IfStmt>(B);
      if (IfA->getInit() || IfB->getInit() || IfA->getConditionVariable() ||
          IfB->getConditionVariable())
        return false;
    } else if (!isa<ArraySubscriptExpr, ConditionalOperator, ReturnStmt,
                    CompoundStmt>(A)) {
      return false;
    }
    auto CA = A->children(), CB = B->children();
    auto IA = CA.begin(), IB = CB.begin();
    for (; IA != CA.end() && IB != CB.end(); ++IA, ++IB)
      if (!same(*IA, *IB))
        return false;
    return IA == CA.end() && IB == CB.end();
  }
};

/// Nothing in \p K but reads of memory, its one write \p G.Write, math of
/// the system headers: no other store, atomic, barrier, shared memory,
/// output, dereference; the parameters are never changed. \p Reads gets the
/// pointer parameters read (as `p[...]`).
bool plainKernel(const ASTContext &C, const FunctionDecl *K,
                 const GuardedWrite &G, std::set<const ParmVarDecl *> &Reads,
                 std::string &Why) {
  FunctionFacts F = FunctionFacts::compute(K);
  for (const ParmVarDecl *P : K->parameters())
    if (F.isMutated(P)) {
      Why = "'" + K->getNameAsString() + "' changes its parameter '" +
            P->getNameAsString() + "'";
      return false;
    }
  const Expr *WriteBase = nullptr;
  if (const auto *A =
          dyn_cast<ArraySubscriptExpr>(G.Write->getLHS()->IgnoreParens()))
    WriteBase = bare(A->getBase());
  bool Ok = true;
  forEachStmt(K->getBody(), [&](const Stmt *X) {
    if (!Ok)
      return;
    if (const auto *B = dyn_cast<BinaryOperator>(X))
      if (B->isAssignmentOp() && B != G.Write)
        Ok = false;
    if (const auto *U = dyn_cast<UnaryOperator>(X))
      if (U->isIncrementDecrementOp() || U->getOpcode() == UO_Deref ||
          U->getOpcode() == UO_AddrOf)
        Ok = false;
    if (const auto *M = dyn_cast<MemberExpr>(X))
      if (M->isArrow())
        Ok = false;
    if (isa<GCCAsmStmt, MSAsmStmt, CXXNewExpr, CXXDeleteExpr, LambdaExpr>(X))
      Ok = false;
    // The cache-hinted stores write memory too.
    if (const auto *CE = dyn_cast<CallExpr>(X))
      Ok &= plainMathCall(C, CE) &&
            !containsCallTo(CE, {"__stcs", "__stcg", "__stwb", "__stwt"});
    if (const auto *D = dyn_cast<DeclRefExpr>(X)) {
      if (const auto *V = dyn_cast<VarDecl>(D->getDecl())) {
        if (V->hasAttr<CUDASharedAttr>())
          Ok = false;
        // A pointer in a global variable may point into either buffer.
        if (V->hasGlobalStorage() && !isa<ParmVarDecl>(V) &&
            (V->getType()->isPointerType() ||
             V->getType()->isReferenceType()))
          Ok = false;
        if (const auto *P = dyn_cast<ParmVarDecl>(V)) {
          if (P->getType()->isPointerType() || P->getType()->isArrayType()) {
            if (D == WriteBase)
              return;
            // Read as p[...] only.
            const auto &Ps = const_cast<ASTContext &>(C).getParents(*D);
            const Expr *Up = D;
            const Stmt *Parent = Ps.empty() ? nullptr : Ps[0].get<Stmt>();
            while (Parent && isa<ImplicitCastExpr, ParenExpr>(Parent)) {
              Up = cast<Expr>(Parent);
              const auto &Pp = const_cast<ASTContext &>(C).getParents(*Parent);
              Parent = Pp.empty() ? nullptr : Pp[0].get<Stmt>();
            }
            const auto *AS = dyn_cast_or_null<ArraySubscriptExpr>(Parent);
            if (!AS || AS->getBase() != Up)
              Ok = false;
            else
              Reads.insert(P);
          } else if (!P->getType()->isScalarType()) {
            Ok = false;
          }
        }
      }
    }
  });
  if (!Ok)
    Why = "'" + K->getNameAsString() +
          "' does more than compute one element and store it (another "
          "store, an atomic, a barrier, shared memory, a call of the "
          "program's own functions, a pointer used other than as p[...])";
  return Ok;
}

/// The launch that is statement \p S (`k<<<...>>>(...);`), else null.
const CUDAKernelCallExpr *launchStatement(const Stmt *S) {
  if (const auto *EWC = dyn_cast_or_null<ExprWithCleanups>(S))
    S = EWC->getSubExpr();
  return dyn_cast_or_null<CUDAKernelCallExpr>(S);
}

/// The argument \p L passes for parameter \p P as a plain variable.
const VarDecl *argVar(const CUDAKernelCallExpr *L, const ParmVarDecl *P) {
  unsigned I = P->getFunctionScopeIndex();
  if (I >= L->getNumArgs() || !isa<DeclRefExpr>(bare(L->getArg(I))))
    return nullptr;
  return varOf(L->getArg(I));
}

/// The one `cudaMalloc(&V, bytes)` / `cudaMallocManaged(&V, bytes[, f])` of
/// \p V in \p Fn, before \p Before.
const CallExpr *allocationOf(const ASTContext &C, const FunctionDecl *Fn,
                             const VarDecl *V, SourceLocation Before) {
  const SourceManager &SM = C.getSourceManager();
  const CallExpr *Found = nullptr;
  unsigned Count = 0;
  forEachStmt(Fn->getBody(), [&](const Stmt *S) {
    const auto *CE = dyn_cast<CallExpr>(S);
    const FunctionDecl *Callee = CE ? CE->getDirectCallee() : nullptr;
    if (!Callee || !Callee->getIdentifier() || CE->getNumArgs() < 2)
      return;
    StringRef N = Callee->getName();
    if (N != "cudaMalloc" && N != "cudaMallocManaged")
      return;
    const auto *U = dyn_cast<UnaryOperator>(CE->getArg(0)->IgnoreParenCasts());
    if (U && U->getOpcode() == UO_AddrOf && varOf(U->getSubExpr()) == V) {
      Found = CE;
      ++Count;
    }
  });
  if (Count != 1 ||
      !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Found->getEndLoc()),
                                    SM.getExpansionLoc(Before)))
    return nullptr;
  return Found;
}

/// The step launch \p L1 of \p K1 (\p SW) in \p Fn reads A (\p AArg, the
/// variable \p VA) through exactly one parameter (\p InP), writes B (\p BArg,
/// \p VB) and nothing else, does not read B, and every other array it reads
/// is a separate allocation; A and B are separate allocations. \p Why says
/// what fails.
bool stepLegal(const ASTContext &C, const FunctionDecl *Fn,
               const FunctionDecl *K1, const CUDAKernelCallExpr *L1,
               const GuardedWrite &SW, const VarDecl *VA, const VarDecl *VB,
               const Expr *AArg, const Expr *BArg, const ParmVarDecl *&InP,
               std::string &Why) {
  std::string N1 = K1->getNameAsString();
  std::string AN = VA->getNameAsString(), BN = VB->getNameAsString();
  InP = nullptr;
  if (!isa<TranslationUnitDecl>(K1->getDeclContext())) {
    Why = "'" + N1 + "' is in a namespace or a class (the launches are "
          "written with its plain name)";
    return false;
  }
  unsigned AUses = 0, BUses = 0;
  for (const ParmVarDecl *P : K1->parameters()) {
    const VarDecl *V = argVar(L1, P);
    if (V == VA) {
      ++AUses;
      InP = P;
    }
    if (V == VB)
      ++BUses;
  }
  if (AUses != 1 || BUses != 1) {
    Why = "'" + N1 + "' is not passed '" + AN + "' and '" + BN + "' once each";
    return false;
  }
  if (L1->getNumArgs() != K1->getNumParams()) {
    Why = "a launch passes default arguments";
    return false;
  }
  std::set<const ParmVarDecl *> Reads;
  if (!plainKernel(C, K1, SW, Reads, Why))
    return false;
  if (Reads.count(SW.Dst)) {
    Why = "'" + N1 + "' reads '" + BN + "', which it writes";
    return false;
  }
  for (const ParmVarDecl *P : Reads) {
    if (P == InP)
      continue;
    const Expr *Arg = L1->getArg(P->getFunctionScopeIndex());
    for (const Expr *Other : {AArg, BArg}) {
      std::string W;
      if (!distinctHostArgs(const_cast<ASTContext &>(C), Fn, Arg, Other, W)) {
        Why = "'" + N1 + "' reads '" + sourceText(C, Arg->getSourceRange()) +
              "', which may point into '" +
              (Other == AArg ? AN : BN) + "' (" + W + ")";
        return false;
      }
    }
  }
  std::string W;
  if (!distinctHostArgs(const_cast<ASTContext &>(C), Fn, AArg, BArg, W)) {
    Why = "'" + AN + "' and '" + BN + "' are not proven separate allocations (" +
          W + ")";
    return false;
  }
  return true;
}

/// The variables \p E reads are never written in \p Fn, and locals among
/// them are declared in a block that holds \p At.
bool fixedAt(const ASTContext &C, const FunctionDecl *Fn, const Expr *E,
             const Stmt *At) {
  const SourceManager &SM = C.getSourceManager();
  std::set<const VarDecl *> Written = varsWrittenIn(Fn->getBody());
  bool Fixed = isPure(const_cast<ASTContext &>(C), E);
  // Another declaration of one of its names in the function may hide it
  // at the loop.
  std::map<std::string, unsigned> Declared;
  forEachStmt(Fn->getBody(), [&](const Stmt *X) {
    if (const auto *DS = dyn_cast<DeclStmt>(X))
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          ++Declared[V->getNameAsString()];
  });
  for (const ParmVarDecl *P : Fn->parameters())
    ++Declared[P->getNameAsString()];
  forEachStmt(E, [&](const Stmt *X) {
    const auto *D = dyn_cast<DeclRefExpr>(X);
    const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (!V)
      return;
    Fixed &= !Written.count(V) &&
             (V->hasLocalStorage() || V->getType().isConstQualified());
    Fixed &= !V->hasLocalStorage() || Declared[V->getNameAsString()] == 1;
    if (isa<ParmVarDecl>(V) || !V->hasLocalStorage())
      return;
    DynTypedNode N = DynTypedNode::create(*V);
    const CompoundStmt *Scope = nullptr;
    for (unsigned Depth = 0; Depth < 3 && !Scope; ++Depth) {
      auto Ps = const_cast<ASTContext &>(C).getParents(N);
      if (Ps.empty())
        break;
      Scope = Ps[0].get<CompoundStmt>();
      N = Ps[0];
    }
    Fixed &= Scope &&
             !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(At->getBeginLoc()),
                                           SM.getExpansionLoc(V->getLocation())) &&
             !SM.isBeforeInTranslationUnit(SM.getExpansionLoc(Scope->getRBracLoc()),
                                           SM.getExpansionLoc(At->getEndLoc()));
  });
  return Fixed;
}

/// The one cudaMemcpy / cudaMemcpyAsync call in \p S.
const CallExpr *memcpyIn(const Stmt *S) {
  const CallExpr *Found = nullptr;
  unsigned N = 0;
  forEachStmt(S, [&](const Stmt *X) {
    const auto *CE = dyn_cast<CallExpr>(X);
    const FunctionDecl *F = CE ? CE->getDirectCallee() : nullptr;
    if (F && F->getIdentifier() &&
        (F->getName() == "cudaMemcpy" || F->getName() == "cudaMemcpyAsync")) {
      Found = CE;
      ++N;
    }
  });
  return N == 1 ? Found : nullptr;
}

/// \p Call runs whenever statement \p S does: between them only casts,
/// parentheses, comparisons, a declaration's initialiser, blocks, an `if`'s
/// condition and `do ... while (0)` (an error-check macro around the call).
bool unconditional(ASTContext &C, const CallExpr *Call, const Stmt *S) {
  DynTypedNode N = DynTypedNode::create(*(const Stmt *)Call);
  for (unsigned D = 0; D < 32; ++D) {
    const Stmt *Cur = N.get<Stmt>();
    if (Cur == S)
      return true;
    auto Ps = C.getParents(N);
    if (Ps.empty())
      return false;
    const DynTypedNode &P = Ps[0];
    if (const auto *PS = P.get<Stmt>()) {
      if (isa<ImplicitCastExpr, ParenExpr, CStyleCastExpr, ExprWithCleanups,
              CompoundStmt, DeclStmt>(PS)) {
      } else if (const auto *B = dyn_cast<BinaryOperator>(PS)) {
        if (B->isLogicalOp() || B->isAssignmentOp() || B->isCommaOp())
          return false;
      } else if (const auto *If = dyn_cast<IfStmt>(PS)) {
        if (If->getCond() != Cur)
          return false;
      } else if (const auto *Do = dyn_cast<DoStmt>(PS)) {
        auto Zero = evalInt(C, Do->getCond());
        if (!Zero || *Zero != 0)
          return false;
      } else {
        return false;
      }
    } else if (!P.get<VarDecl>()) {
      return false;
    }
    N = P;
  }
  return false;
}

/// The plain variable \p E names, through parentheses and casts.
const VarDecl *plainVar(const Expr *E) {
  const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenCasts());
  return D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
}

const char *HelperText = R"cuda(#ifndef CUDAL1_PINGPONG_COPY
#define CUDAL1_PINGPONG_COPY
// cuda-l1 (launch-copy-back-pingpong): the copy of a whole cudaMalloc
// allocation that starts the alternating buffers, 16 bytes per access
// (cudaMalloc returns 256-byte aligned pointers), the tail byte by byte.
static __global__ void cudal1_pingpong_copy_kernel(uint4 *__restrict__ d, const uint4 *__restrict__ s,
                                                   unsigned long long n16, unsigned char *__restrict__ db,
                                                   const unsigned char *__restrict__ sb, unsigned long long n) {
  unsigned long long t = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  unsigned long long step = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i = t; i < n16; i += step)
    d[i] = s[i];
  for (unsigned long long i = n16 * 16 + t; i < n; i += step)
    db[i] = sb[i];
}
static void cudal1_pingpong_copy(void *d, const void *s, unsigned long long n) {
  unsigned long long n16 = n / 16, blocks = (n16 + 255) / 256;
  if (blocks < 1)
    blocks = 1;
  if (blocks > 8192)
    blocks = 8192;
  cudal1_pingpong_copy_kernel<<<(unsigned)blocks, 256>>>((uint4 *)d, (const uint4 *)s, n16, (unsigned char *)d,
                                                         (const unsigned char *)s, n);
}
#endif
)cuda";

} // namespace

RuleInfo LaunchCopyBackPingpong::info() const {
  RuleInfo I;
  I.Id = "launch-copy-back-pingpong";
  I.Category = "launch";
  I.Summary = "a time-step loop copies the new grid back into the old one "
              "with a kernel after every step: alternate the two instead";
  I.Exactness = Exactness::Bitwise;
  I.ExactnessNote = "bitwise (the step kernel runs unchanged; both arrays "
                    "end as the loop leaves them)";
  I.Help =
      "The loop launches a step kernel that reads A and writes B, then a "
      "kernel that copies B back into A over the same elements. The copy "
      "moves as many bytes as the step. Stepping alternately from A into a "
      "scratch copy of A and back needs no copy but one at the end.";
  I.Doc.Detects =
      "A `for` loop counting up by one whose body launches two kernels "
      "with the same grid and block, and otherwise only checks errors or "
      "synchronises: first a step kernel that stores one element `B[e]` "
      "and reads A (and arrays the loop does not write), then a copy "
      "kernel `A[e] = B[e]`, where both kernels compute the element the "
      "same way (the same declarations, early returns, guard and index, "
      "compared as syntax trees with each launch's arguments in place of "
      "the parameters; locals may have other names). A and B are local "
      "pointers, each set only by one `cudaMalloc` in the function before "
      "the loop, not changed in the loop. Also the copy back written as `cudaMemcpy(A, B, bytes, "
      "cudaMemcpyDeviceToDevice)` (or `cudaMemcpyDefault`, `cudaMemcpyAsync` "
      "on the default stream, inside an error-check macro or not) after a "
      "step kernel that stores one element of B: `bytes` must be the size "
      "expression of both `cudaMalloc` calls, and what decides the element "
      "the step writes (its declarations, guard and index) must read no "
      "memory and no argument the loop changes. Reported without a fix when "
      "a condition of the rewrite fails (the message says which).";
  I.Doc.WhySlow =
      "A stencil step reads its grid and writes the new one: two passes "
      "over memory. Copying the new grid back is two more. On large grids "
      "both kernels are bound by memory bandwidth, so the copy takes about "
      "as long as the step.";
  I.Doc.Example = R"cuda(__global__ void step(int n, float *A, float *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    B[i * n + j] = 0.2f * (A[i * n + j] + A[i * n + j - 1] + A[i * n + j + 1] +
                           A[(i + 1) * n + j] + A[(i - 1) * n + j]);
}
__global__ void copy(int n, float *A, float *B) {
  int i = blockIdx.y * blockDim.y + threadIdx.y;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 1 && i < n - 1 && j >= 1 && j < n - 1)
    A[i * n + j] = B[i * n + j];
}
...
cudaMalloc(&A, sizeof(float) * n * n);
cudaMalloc(&B, sizeof(float) * n * n);
...
for (int t = 0; t < tsteps; t++) {   // warning
  step<<<grid, block>>>(n, A, B);
  copy<<<grid, block>>>(n, A, B);
})cuda";
  I.Doc.Fixed = R"cuda({
  // cuda-l1 launch-copy-back-pingpong: ...
  decltype(A) cudal1_pp = nullptr;
  bool cudal1_pingpong = (tsteps) - (0) >= 3;
  if (cudal1_pingpong && cudaMalloc((void **)&cudal1_pp, (size_t)(sizeof(float) * n * n)) != cudaSuccess) {
    (void)cudaGetLastError();
    cudal1_pingpong = false;
  }
  if (cudal1_pingpong) {
    cudal1_pingpong_copy(cudal1_pp, A, (size_t)(sizeof(float) * n * n));
    decltype(A) cudal1_src = A, cudal1_dst = cudal1_pp;
    bool cudal1_ran = false;
    for (int t = 0; t < tsteps; t++) {
      step<<<grid, block>>>(n, cudal1_src, cudal1_dst);
      { decltype(A) cudal1_t = cudal1_src; cudal1_src = cudal1_dst; cudal1_dst = cudal1_t; }
      cudal1_ran = true;
    }
    if (cudal1_ran) {
      copy<<<grid, block>>>(n, B, cudal1_src);
      if (cudal1_src != A)
        copy<<<grid, block>>>(n, A, cudal1_src);
    }
    cudaFree(cudal1_pp);
  } else {
    for (int t = 0; t < tsteps; t++) { ... as written ... }
  }
})cuda";
  I.Doc.Fix =
      "Replaces the loop with: a scratch allocation of A's size (A's "
      "`cudaMalloc` size expression, whose variables the function never "
      "changes), a whole copy of A into it (one kernel, "
      "`cudal1_pingpong_copy`, inserted once per file before the function), "
      "the loop with its header and error checks as written, the step "
      "launched from one buffer into the other and the two swapped, and "
      "after it the copy kernel launched with its own arguments, from the "
      "buffer holding the last step, into B and, when that buffer is the "
      "scratch, into A; then the scratch is freed. The original loop stays "
      "as the fallback: it runs when the loop would make fewer than three "
      "steps, or when the scratch cannot be allocated (that allocation "
      "error is cleared). Legal because the step writes B only where the "
      "copy writes A, and reads neither B nor any array that aliases A or "
      "B (separate cudaMalloc allocations), so A's next value depends only "
      "on A's current one and on A's first value outside the written "
      "elements, which the scratch copy holds too. Host code and a new copy "
      "kernel: `--fix` applies it, and so does `--fix --verify=run` "
      "(nothing new to run on its own; it says so). The cudaMemcpy variant "
      "needs no scratch: after the first step and copy, written as before, "
      "A and B are equal everywhere, so the later steps alternate between "
      "them (the copy's statement becomes the swap of two pointers), and "
      "the copy's statement, with the two pointers in place of A and B, "
      "copies the last step's buffer into the other one after the loop, "
      "when the loop made two steps or more.";
  return I;
}

void LaunchCopyBackPingpong::checkTranslationUnit() {
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  const SharedRuleFacts &SF = sharedFacts(C, context());
  for (const FunctionDecl *K2 : SF.Kernels) {
    // The copy kernel: `A[e] = B[e]` (same index), A and B two pointer
    // parameters to one element type.
    auto CW = guardedWrite(K2);
    if (!CW || !CW->Before.empty())
      continue;
    const auto *Src = dyn_cast<ArraySubscriptExpr>(bare(CW->Write->getRHS()));
    const auto *SrcRef = Src ? dyn_cast<DeclRefExpr>(bare(Src->getBase())) : nullptr;
    const auto *SrcP = SrcRef ? dyn_cast<ParmVarDecl>(SrcRef->getDecl()) : nullptr;
    if (!SrcP || SrcP == CW->Dst || !SrcP->getType()->isPointerType() ||
        !sameExpr(C, Src->getIdx(), CW->Index) ||
        CW->Dst->getType()->getPointeeType().getCanonicalType().getUnqualifiedType() !=
            SrcP->getType()->getPointeeType().getCanonicalType().getUnqualifiedType())
      continue;
    for (const CUDAKernelCallExpr *L2 : launchSitesOf(C, context(), K2)) {
      if (!isUserCode(L2->getBeginLoc()))
        continue;
      const FunctionDecl *Fn = functionOf(*L2);
      if (!Fn || !isHostCode(Fn) || isInInstantiation(Fn) || Fn->isTemplated())
        continue;
      const CompoundStmt *Body = nullptr;
      const Stmt *S2 = nullptr;
      const ForStmt *Loop = loopOfLaunch(C, L2, S2, Body);
      if (!Loop)
        continue;
      // The step launch: the other launch of the loop, before the copy.
      std::vector<const Stmt *> Ss(Body->body_begin(), Body->body_end());
      const Stmt *S1 = nullptr;
      unsigned Launches = 0;
      bool CopyAfterStep = false;
      for (const Stmt *S : Ss) {
        bool IsLaunch = launchStatement(S);
        if (!IsLaunch)
          forEachStmt(S, [&](const Stmt *X) {
            IsLaunch |= isa<CUDAKernelCallExpr>(X);
          });
        if (!IsLaunch)
          continue;
        ++Launches;
        if (S == S2)
          CopyAfterStep = S1 != nullptr;
        else
          S1 = S;
      }
      const CUDAKernelCallExpr *L1 = launchStatement(S1);
      const FunctionDecl *K1 = L1 ? L1->getDirectCallee() : nullptr;
      if (Launches != 2 || !CopyAfterStep || !K1 || K1 == K2)
        continue;
      auto SW = guardedWrite(K1);
      if (!SW)
        continue;
      // The buffers: the copy writes A from B; the step writes B.
      const VarDecl *VA = argVar(L2, CW->Dst), *VB = argVar(L2, SrcP);
      if (!VA || !VB || VA == VB || argVar(L1, SW->Dst) != VB)
        continue;
      // Idempotence: the loop kept as the fallback of an earlier fix.
      {
        bool Fallback = false;
        DynTypedNode N = DynTypedNode::create(*(const Stmt *)Loop);
        for (unsigned D = 0; D < 2 && !Fallback; ++D) {
          auto Ps = C.getParents(N);
          if (Ps.empty())
            break;
          if (const auto *If = Ps[0].get<IfStmt>())
            Fallback = If->getElse() == N.get<Stmt>() &&
                       sourceText(C, If->getCond()->getSourceRange())
                               .find("cudal1_pingpong") != std::string::npos;
          N = Ps[0];
        }
        if (Fallback)
          continue;
      }
      if (!firstInUserCode(Loop->getBeginLoc()))
        continue;
      std::string N1 = K1->getNameAsString(), N2 = K2->getNameAsString();
      std::string AN = VA->getNameAsString(), BN = VB->getNameAsString();
      Finding &F = reportLater(finding(
          Loop->getBeginLoc(),
          "every step of this loop copies '" + BN + "' back into '" + AN +
              "' with a kernel ('" + N2 + "' after '" + N1 +
              "'): stepping alternately between '" + AN +
              "' and a copy of it leaves one copy, at the end",
          nullptr, SourceRange(Loop->getBeginLoc(), Loop->getRParenLoc())));
      note(F, L1->getBeginLoc(), "the step");
      note(F, L2->getBeginLoc(), "the copy back");

      // --- legality -----------------------------------------------------------
      const ParmVarDecl *InP = nullptr;
      std::string Why;
      if (!stepLegal(C, Fn, K1, L1, *SW, VA, VB,
                     L2->getArg(CW->Dst->getFunctionScopeIndex()),
                     L2->getArg(SrcP->getFunctionScopeIndex()), InP, Why)) {
        refuse(F, Why);
        continue;
      }
      std::set<const ParmVarDecl *> Reads2;
      if (L2->getNumArgs() != K2->getNumParams()) {
        refuse(F, "a launch passes default arguments");
        continue;
      }
      if (!isa<TranslationUnitDecl>(K2->getDeclContext())) {
        refuse(F, "'" + N2 + "' is in a namespace or a class (the launches "
                      "are written with its plain name)");
        continue;
      }
      if (!plainKernel(C, K2, *CW, Reads2, Why)) {
        refuse(F, Why);
        continue;
      }
      // The copy reads nothing but its source element: its declarations,
      // guard and index read no memory (the final copies pass other
      // buffers for its parameters).
      if (Reads2.size() != 1 || !Reads2.count(SrcP) ||
          countReferences(K2->getBody(), SrcP) != 1 ||
          countReferences(K2->getBody(), CW->Dst) != 1) {
        refuse(F, "'" + N2 + "' reads memory other than its source element");
        continue;
      }
      // Both kernels write the same elements: the same statements before
      // the store, the same guard, the same index, with the launches'
      // arguments for the parameters.
      Equivalence Eq{C, L1, L2, {}, {}};
      Eq.Buffers[InP] = CW->Dst;
      Eq.Buffers[SW->Dst] = SrcP;
      bool Same = SW->Prefix.size() == CW->Prefix.size() &&
                  (SW->Guard == nullptr) == (CW->Guard == nullptr);
      for (size_t I = 0; Same && I < SW->Prefix.size(); ++I)
        Same = Eq.same(SW->Prefix[I], CW->Prefix[I]);
      Same = Same && Eq.same(SW->Guard, CW->Guard);
      Same = Same && Eq.same(SW->Index, CW->Index);
      if (!Same) {
        refuse(F, "'" + N1 + "' and '" + N2 +
                      "' do not compute the element they write the same way "
                      "(declarations, guard and index, with the launches' "
                      "arguments)");
        continue;
      }
      const CallExpr *Cfg1 = L1->getConfig(), *Cfg2 = L2->getConfig();
      if (!Cfg1 || !Cfg2 || Cfg1->getNumArgs() < 2 || Cfg2->getNumArgs() < 2 ||
          !sameExpr(C, Cfg1->getArg(0), Cfg2->getArg(0)) ||
          !sameExpr(C, Cfg1->getArg(1), Cfg2->getArg(1))) {
        refuse(F, "the two launches do not have the same grid and block");
        continue;
      }
      if (!defaultStreamNoSharedMemory(C, L1) ||
          !defaultStreamNoSharedMemory(C, L2)) {
        refuse(F, "a launch names dynamic shared memory or a stream");
        continue;
      }
      // The loop: counting up by one, the other statements error checks.
      auto Shape = analyzeFor(C, Loop);
      if (!Shape || Shape->Step != 1 ||
          (Shape->Cmp != BO_LT && Shape->Cmp != BO_LE && Shape->Cmp != BO_NE) ||
          !isPure(C, Shape->Init) || !isPure(C, Shape->Bound)) {
        refuse(F, "the loop does not count up by one to a bound without side "
                  "effects");
        continue;
      }
      std::set<const VarDecl *> Changed = varsChangedIn(Loop);
      auto Invariant = [&](const Expr *E) {
        bool Ok = pureLaunchValue(C, E);
        forEachStmt(E, [&](const Stmt *X) {
          if (const auto *D = dyn_cast<DeclRefExpr>(X))
            if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
              Ok &= !Changed.count(V);
        });
        return Ok;
      };
      auto Dim = [](const Expr *E) {
        const Expr *W = writtenLaunchDim(E);
        return W ? W : E;
      };
      bool Inv = Invariant(Shape->Bound) && Invariant(Dim(Cfg2->getArg(0))) &&
                 Invariant(Dim(Cfg2->getArg(1)));
      for (const Expr *A : L2->arguments())
        Inv &= Invariant(A);
      for (const Expr *A : L1->arguments())
        Inv &= isPure(C, A);
      if (!Inv) {
        refuse(F, "the copy's arguments, the launch shape or the loop's bound "
                  "change in the loop (the copy runs after it), or an "
                  "argument has side effects");
        continue;
      }
      if (Changed.count(VA) || Changed.count(VB)) {
        refuse(F, "the loop changes '" + AN + "' or '" + BN + "'");
        continue;
      }
      std::vector<const Stmt *> Checks;
      for (const Stmt *S : Ss) {
        if (S == S1 || S == S2)
          continue;
        if (!errorCheckOnly(C, S, {VA, VB})) {
          Why = "the loop does more than the two launches and error checks "
                "(line " +
                std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
                ")";
          break;
        }
      }
      if (!Why.empty()) {
        refuse(F, Why);
        continue;
      }
      // The scratch copy's size: A's allocation, whose size expression
      // reads nothing the function changes.
      const CallExpr *Alloc = allocationOf(C, Fn, VA, Loop->getBeginLoc());
      std::string AllocWhy;
      if (!Alloc || !distinctHostArgs(C, Fn, L2->getArg(CW->Dst->getFunctionScopeIndex()),
                                      L2->getArg(SrcP->getFunctionScopeIndex()),
                                      AllocWhy)) {
        refuse(F, "'" + AN + "' is not set by one cudaMalloc of this function "
                      "before the loop: the size of a copy is not known");
        continue;
      }
      const Expr *Size = Alloc->getArg(1);
      if (!fixedAt(C, Fn, Size, Loop)) {
        refuse(F, "the size of the allocation of '" + AN +
                      "' reads a variable the function changes or that is "
                      "not visible at the loop");
        continue;
      }
      // --- edits --------------------------------------------------------------
      auto Edit = loopEdit(C, Loop, Fn, Why);
      if (!Edit) {
        refuse(F, Why);
        continue;
      }
      const CharSourceRange *ER = &Edit->first;
      SourceLocation TopLoc = Edit->second;
      std::string Ind = indentOf(C, Loop->getBeginLoc());
      std::string LoopText = sourceText(C, Loop->getSourceRange());
      std::string Header =
          sourceText(C, SourceRange(Loop->getBeginLoc(), Loop->getRParenLoc()));
      std::string SizeT = sourceText(C, Size->getSourceRange());
      std::string InitT = sourceText(C, Shape->Init->getSourceRange());
      std::string BoundT = sourceText(C, Shape->Bound->getSourceRange());
      auto ArgTexts = [&](const CUDAKernelCallExpr *L,
                          std::map<unsigned, std::string> Replace) {
        std::string T;
        for (unsigned I = 0; I < L->getNumArgs(); ++I) {
          std::string A = Replace.count(I)
                              ? Replace[I]
                              : sourceText(C, L->getArg(I)->getSourceRange());
          if (A.empty())
            return std::string();
          T += (I ? ", " : "") + A;
        }
        return T;
      };
      auto Config = [&](const CallExpr *Cfg) {
        std::string G = sourceText(C, Cfg->getArg(0)->getSourceRange());
        std::string B = sourceText(C, Cfg->getArg(1)->getSourceRange());
        return G.empty() || B.empty() ? std::string() : "<<<" + G + ", " + B + ">>>";
      };
      std::string PP = freshName(C, context(), Fn, "cudal1_pp");
      std::string Flag = freshName(C, context(), Fn, "cudal1_pingpong");
      std::string SrcV = freshName(C, context(), Fn, "cudal1_src");
      std::string DstV = freshName(C, context(), Fn, "cudal1_dst");
      std::string TmpV = freshName(C, context(), Fn, "cudal1_t");
      std::string RanV = freshName(C, context(), Fn, "cudal1_ran");
      std::string Step1 = ArgTexts(L1, {{InP->getFunctionScopeIndex(), SrcV},
                                        {SW->Dst->getFunctionScopeIndex(), DstV}});
      std::string IntoB = ArgTexts(L2, {{CW->Dst->getFunctionScopeIndex(), BN},
                                        {SrcP->getFunctionScopeIndex(), SrcV}});
      std::string IntoA = ArgTexts(L2, {{CW->Dst->getFunctionScopeIndex(), AN},
                                        {SrcP->getFunctionScopeIndex(), SrcV}});
      std::string Cfg1T = Config(Cfg1), Cfg2T = Config(Cfg2);
      std::string BodyText;
      bool TextOk = !LoopText.empty() && !Header.empty() && !SizeT.empty() &&
                    !InitT.empty() && !BoundT.empty() && !Step1.empty() &&
                    !IntoB.empty() && !IntoA.empty() && !Cfg1T.empty() &&
                    !Cfg2T.empty();
      for (const Stmt *S : Ss) {
        if (S == S2)
          continue;
        std::string T = S == S1 ? N1 + Cfg1T + "(" + Step1 + ");"
                                : statementText(C, S);
        TextOk &= !T.empty();
        BodyText += "\n" + Ind + "      " + T;
      }
      if (!TextOk) {
        refuse(F, "the loop's statements cannot be read from the file");
        continue;
      }
      std::string Min = Shape->Cmp == BO_LE ? "2" : "3";
      std::string SizeE = "(size_t)(" + SizeT + ")";
      std::string I1 = Ind + "  ", I2 = Ind + "    ", I3 = Ind + "      ";
      std::string Text =
          "{\n" + I1 + "// cuda-l1 launch-copy-back-pingpong: the steps ('" +
          N1 + "') alternate between '" + AN + "' and a copy of it; '" + N2 +
          "' copies back once, at the end\n" + I1 + "decltype(" + AN + ") " +
          PP + " = nullptr;\n" + I1 + "bool " + Flag + " = (" + BoundT +
          ") - (" + InitT + ") >= " + Min + ";\n" + I1 + "if (" + Flag +
          " && cudaMalloc((void **)&" + PP + ", " + SizeE +
          ") != cudaSuccess) {\n" + I2 + "(void)cudaGetLastError();\n" + I2 +
          Flag + " = false;\n" + I1 + "}\n" + I1 + "if (" + Flag + ") {\n" +
          I2 + "cudal1_pingpong_copy(" + PP + ", " + AN + ", " + SizeE +
          ");\n" + I2 + "decltype(" + AN + ") " + SrcV + " = " + AN + ", " +
          DstV + " = " + PP + ";\n" + I2 + "bool " + RanV + " = false;\n" +
          I2 + Header + " {" + BodyText + "\n" + I3 + "{\n" + I3 +
          "  decltype(" + AN + ") " + TmpV + " = " + SrcV + ";\n" + I3 +
          "  " + SrcV + " = " + DstV + ";\n" + I3 + "  " + DstV + " = " +
          TmpV + ";\n" + I3 + "}\n" + I3 + RanV + " = true;\n" + I2 + "}\n" +
          I2 + "if (" + RanV + ") {\n" + I3 + N2 + Cfg2T + "(" + IntoB +
          ");\n" + I3 + "if (" + SrcV + " != " + AN + ")\n" + I3 + "  " + N2 +
          Cfg2T + "(" + IntoA + ");\n" + I2 + "}\n" + I2 + "cudaFree(" + PP +
          ");\n" + I1 + "} else {\n" + I2 + reindent(LoopText, "    ") + "\n" +
          I1 + "}\n" + Ind + "}";
      FixIt X;
      X.Exact = Exactness::Bitwise;
      X.HostOnly = true;
      X.Description = "the steps of '" + N1 + "' alternate between '" + AN +
                      "' and a copy of it; '" + N2 + "' runs once, after the "
                      "loop";
      X.Edits.push_back(makeTextEdit(C, *ER, Text));
      if (C.getTranslationUnitDecl()
              ->lookup(&C.Idents.get("cudal1_pingpong_copy"))
              .empty())
        X.Edits.push_back(
            makeInsertion(C, TopLoc, std::string(HelperText) + "\n"));
      F.Fix = std::move(X);
    }
  }
  checkMemcpyLoops();
}

void LaunchCopyBackPingpong::checkMemcpyLoops() {
  ASTContext &C = ctx();
  const SourceManager &SM = C.getSourceManager();
  const SharedRuleFacts &SF = sharedFacts(C, context());
  for (const FunctionDecl *K1 : SF.Kernels) {
    auto SW = guardedWrite(K1);
    if (!SW)
      continue;
    for (const CUDAKernelCallExpr *L1 : launchSitesOf(C, context(), K1)) {
      if (!isUserCode(L1->getBeginLoc()))
        continue;
      const FunctionDecl *Fn = functionOf(*L1);
      if (!Fn || !isHostCode(Fn) || isInInstantiation(Fn) || Fn->isTemplated())
        continue;
      const CompoundStmt *Body = nullptr;
      const Stmt *S1 = nullptr;
      const ForStmt *Loop = loopOfLaunch(C, L1, S1, Body);
      if (!Loop)
        continue;
      // One launch; one device-to-device copy after it, from what the step
      // writes into what it reads.
      std::vector<const Stmt *> Ss(Body->body_begin(), Body->body_end());
      const Stmt *SM2 = nullptr;
      const CallExpr *Copy = nullptr;
      unsigned Launches = 0, Copies = 0;
      bool After = false;
      for (const Stmt *S : Ss) {
        forEachStmt(S, [&](const Stmt *X) {
          Launches += isa<CUDAKernelCallExpr>(X);
        });
        if (S == S1) {
          After = true;
          continue;
        }
        if (const CallExpr *M = memcpyIn(S)) {
          ++Copies;
          if (After) {
            SM2 = S;
            Copy = M;
          }
        }
      }
      if (Launches != 1 || Copies != 1 || !Copy || Copy->getNumArgs() < 4)
        continue;
      const VarDecl *VA = plainVar(Copy->getArg(0));
      const VarDecl *VB = plainVar(Copy->getArg(1));
      if (!VA || !VB || VA == VB || argVar(L1, SW->Dst) != VB ||
          !VA->getType()->isPointerType() || !VB->getType()->isPointerType() ||
          !C.hasSameType(VA->getType(), VB->getType()))
        continue;
      // Device to device (or default, the pointers being device memory).
      {
        const Expr *Kind = Copy->getArg(3)->IgnoreParenImpCasts();
        const auto *D = dyn_cast<DeclRefExpr>(Kind);
        std::string KN = D ? D->getDecl()->getNameAsString() : "";
        if (KN != "cudaMemcpyDeviceToDevice" && KN != "cudaMemcpyDefault")
          continue;
      }
      // Idempotence: a loop this rule wrote.
      if (sourceText(C, Loop->getBody()->getSourceRange())
              .find("cudal1_pingpong") != std::string::npos)
        continue;
      if (!firstInUserCode(Loop->getBeginLoc()))
        continue;
      std::string N1 = K1->getNameAsString();
      std::string AN = VA->getNameAsString(), BN = VB->getNameAsString();
      Finding &F = reportLater(finding(
          Loop->getBeginLoc(),
          "every step of this loop copies '" + BN + "' back into '" + AN +
              "' with cudaMemcpy (after '" + N1 +
              "'): after the first step the two are equal, and stepping "
              "alternately between them leaves one copy, at the end",
          nullptr, SourceRange(Loop->getBeginLoc(), Loop->getRParenLoc())));
      note(F, L1->getBeginLoc(), "the step");
      note(F, Copy->getBeginLoc(), "the copy back");

      // --- legality -----------------------------------------------------------
      const ParmVarDecl *InP = nullptr;
      std::string Why;
      // The step's own arguments for A and B (plain variables; the copy's
      // may be cast to void *).
      const Expr *AArg = nullptr;
      for (const ParmVarDecl *P : K1->parameters())
        if (argVar(L1, P) == VA)
          AArg = L1->getArg(P->getFunctionScopeIndex());
      const Expr *BArg = L1->getArg(SW->Dst->getFunctionScopeIndex());
      if (!AArg) {
        refuse(F, "'" + N1 + "' is not passed '" + AN + "'");
        continue;
      }
      if (!stepLegal(C, Fn, K1, L1, *SW, VA, VB, AArg, BArg, InP, Why)) {
        refuse(F, Why);
        continue;
      }
      // The copy runs in every step, as a statement of its own that the
      // fix can run after the loop: no declaration the body uses later,
      // nothing declared in the loop (its variable included).
      std::set<const VarDecl *> Changed = varsChangedIn(Loop);
      {
        std::set<const VarDecl *> Own;
        forEachStmt(SM2, [&](const Stmt *X) {
          if (const auto *DS = dyn_cast<DeclStmt>(X))
            for (const Decl *D : DS->decls())
              if (const auto *V = dyn_cast<VarDecl>(D))
                Own.insert(V);
        });
        bool Outside = false;
        forEachStmt(SM2, [&](const Stmt *X) {
          if (const auto *D = dyn_cast<DeclRefExpr>(X))
            if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
              Outside |= Changed.count(V) && !Own.count(V);
        });
        if (isa<DeclStmt>(SM2) || Outside ||
            !unconditional(C, Copy, SM2)) {
          refuse(F, "the copy is not a statement that runs in every step on "
                    "its own (it is conditional, declares a variable, or "
                    "reads one the loop changes)");
          continue;
        }
      }
      // The loop's header neither calls nor reads the buffers.
      {
        bool Plain = true;
        for (const Stmt *H : {Loop->getInit(), (const Stmt *)Loop->getCond(),
                              (const Stmt *)Loop->getInc()})
          forEachStmt(H, [&](const Stmt *X) {
            if (isa<CallExpr>(X))
              Plain = false;
            if (const auto *D = dyn_cast<DeclRefExpr>(X))
              if (D->getDecl() == VA || D->getDecl() == VB)
                Plain = false;
          });
        if (!Plain) {
          refuse(F, "the loop's header calls a function or reads the buffers");
          continue;
        }
      }
      // The element written is decided before the guard's block.
      {
        std::set<const VarDecl *> Inner;
        for (const Stmt *S : SW->Before)
          if (const auto *DS = dyn_cast<DeclStmt>(S))
            for (const Decl *D : DS->decls())
              if (const auto *V = dyn_cast<VarDecl>(D))
                Inner.insert(V);
        bool UsesInner = false;
        forEachStmt(SW->Index, [&](const Stmt *X) {
          if (const auto *D = dyn_cast<DeclRefExpr>(X))
            if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
              UsesInner |= Inner.count(V) > 0;
        });
        if (UsesInner) {
          refuse(F, "the index '" + N1 + "' writes at depends on a value "
                    "computed inside its guard");
          continue;
        }
      }
      if (Copy->getNumArgs() > 4) {
        const Expr *St = Copy->getArg(4);
        if (!isa<CXXDefaultArgExpr>(St) && !isZeroConstant(C, St) &&
            !St->IgnoreParenImpCasts()->isNullPointerConstant(
                C, Expr::NPC_ValueDependentIsNotNull)) {
          refuse(F, "the copy is on a stream");
          continue;
        }
      }
      if (!defaultStreamNoSharedMemory(C, L1)) {
        refuse(F, "the launch names dynamic shared memory or a stream");
        continue;
      }
      // The copy covers both allocations whole: after it, the two buffers
      // are equal everywhere the step can read.
      const CallExpr *AllocA = allocationOf(C, Fn, VA, Loop->getBeginLoc());
      const CallExpr *AllocB = allocationOf(C, Fn, VB, Loop->getBeginLoc());
      const Expr *Bytes = Copy->getArg(2);
      auto SameSize = [&](const CallExpr *Al) {
        if (!Al)
          return false;
        const Expr *S = Al->getArg(1);
        if (sameExpr(C, S, Bytes))
          return true;
        auto X = evalInt(C, S), Y = evalInt(C, Bytes);
        return X && Y && *X == *Y;
      };
      if (!SameSize(AllocA) || !SameSize(AllocB) ||
          !fixedAt(C, Fn, Bytes, Loop)) {
        refuse(F, "the copy is not of the whole of both allocations (the "
                  "same size expression as both cudaMalloc calls of this "
                  "function, reading variables the function never changes)");
        continue;
      }
      // The step writes the same elements in every iteration: what decides
      // its element reads no memory and no argument the loop changes.
      bool Fixed = true;
      auto Decides = [&](const Stmt *S) {
        forEachStmt(S, [&](const Stmt *X) {
          const auto *D = dyn_cast<DeclRefExpr>(X);
          const auto *P = D ? dyn_cast<ParmVarDecl>(D->getDecl()) : nullptr;
          if (!P)
            return;
          if (P->getType()->isPointerType() || P->getType()->isArrayType()) {
            Fixed = false;
            return;
          }
          const Expr *Arg = L1->getArg(P->getFunctionScopeIndex());
          Fixed &= isPure(C, Arg);
          forEachStmt(Arg, [&](const Stmt *Y) {
            if (const auto *DA = dyn_cast<DeclRefExpr>(Y))
              if (const auto *V = dyn_cast<VarDecl>(DA->getDecl()))
                Fixed &= !Changed.count(V);
          });
        });
      };
      for (const Stmt *S : SW->Prefix)
        Decides(S);
      Decides(SW->Guard);
      Decides(SW->Index);
      const CallExpr *Cfg1 = L1->getConfig();
      if (!Fixed || !Cfg1 || Cfg1->getNumArgs() < 2) {
        refuse(F, "the elements '" + N1 + "' writes may change from one step "
                  "to the next (its guard or index reads memory or an "
                  "argument the loop changes)");
        continue;
      }
      for (const Expr *D : {Cfg1->getArg(0), Cfg1->getArg(1)}) {
        const Expr *W = writtenLaunchDim(D);
        forEachStmt(W ? W : D, [&](const Stmt *Y) {
          if (const auto *DA = dyn_cast<DeclRefExpr>(Y))
            if (const auto *V = dyn_cast<VarDecl>(DA->getDecl()))
              Fixed &= !Changed.count(V);
        });
      }
      bool ArgsPure = true;
      for (const Expr *A : L1->arguments())
        ArgsPure &= isPure(C, A);
      if (!Fixed || !ArgsPure) {
        refuse(F, "the launch shape changes in the loop, or an argument has "
                  "side effects");
        continue;
      }
      if (Changed.count(VA) || Changed.count(VB)) {
        refuse(F, "the loop changes '" + AN + "' or '" + BN + "'");
        continue;
      }
      for (const Stmt *S : Ss) {
        if (S == S1)
          continue;
        if (!errorCheckOnly(C, S, {VA, VB}, S == SM2 ? Copy : nullptr)) {
          Why = "the loop does more than the launch, the copy and error "
                "checks (line " +
                std::to_string(SM.getExpansionLineNumber(S->getBeginLoc())) +
                ")";
          break;
        }
      }
      if (!Why.empty()) {
        refuse(F, Why);
        continue;
      }
      // --- edits --------------------------------------------------------------
      auto Edit = loopEdit(C, Loop, Fn, Why);
      if (!Edit) {
        refuse(F, Why);
        continue;
      }
      const CharSourceRange *ER = &Edit->first;
      std::string Ind = indentOf(C, Loop->getBeginLoc());
      std::string Header =
          sourceText(C, SourceRange(Loop->getBeginLoc(), Loop->getRParenLoc()));
      std::string SrcV = freshName(C, context(), Fn, "cudal1_src");
      std::string DstV = freshName(C, context(), Fn, "cudal1_dst");
      std::string TmpV = freshName(C, context(), Fn, "cudal1_t");
      std::string StepsV = freshName(C, context(), Fn, "cudal1_pingpong_steps");
      std::string Args;
      bool TextOk = !Header.empty();
      for (unsigned I = 0; I < L1->getNumArgs(); ++I) {
        std::string A = I == InP->getFunctionScopeIndex() ? SrcV
                        : I == SW->Dst->getFunctionScopeIndex()
                            ? DstV
                            : sourceText(C, L1->getArg(I)->getSourceRange());
        TextOk &= !A.empty();
        Args += (I ? ", " : "") + A;
      }
      std::string G = sourceText(C, Cfg1->getArg(0)->getSourceRange());
      std::string B = sourceText(C, Cfg1->getArg(1)->getSourceRange());
      std::string CopyText = statementText(C, SM2);
      std::string Final =
          rewrittenText(C, SM2, {{Copy->getArg(0)->IgnoreParenCasts(), DstV},
                                 {Copy->getArg(1)->IgnoreParenCasts(), SrcV}});
      if (!Final.empty() && !CopyText.empty() && CopyText.back() == ';' &&
          Final.back() != ';')
        Final += ";";
      TextOk &= !G.empty() && !B.empty() && !CopyText.empty() && !Final.empty();
      std::string I1 = Ind + "  ", I2 = Ind + "    ", I3 = Ind + "      ";
      std::string BodyText;
      for (const Stmt *S : Ss) {
        if (S == S1) {
          BodyText += "\n" + I2 + N1 + "<<<" + G + ", " + B + ">>>(" + Args +
                      ");";
        } else if (S == SM2) {
          BodyText += "\n" + I2 + "if (" + StepsV + " == 0) {\n" + I3 +
                      CopyText + "\n" + I2 + "} else {\n" + I3 + "decltype(" +
                      AN + ") " + TmpV + " = " + SrcV + ";\n" + I3 + SrcV +
                      " = " + DstV + ";\n" + I3 + DstV + " = " + TmpV +
                      ";\n" + I2 + "}\n" + I2 + "++" + StepsV + ";";
        } else {
          std::string T = statementText(C, S);
          TextOk &= !T.empty();
          BodyText += "\n" + I2 + T;
        }
      }
      if (!TextOk) {
        refuse(F, "the loop's statements cannot be read from the file");
        continue;
      }
      std::string Text =
          "{\n" + I1 + "// cuda-l1 launch-copy-back-pingpong: after the first "
          "step '" + AN + "' and '" + BN + "' are equal; the steps ('" + N1 +
          "') alternate between them and one copy at the end makes them "
          "equal again\n" + I1 + "decltype(" + AN + ") " + SrcV + " = " + AN +
          ", " + DstV + " = " + BN + ";\n" + I1 + "long long " + StepsV +
          " = 0;\n" + I1 + Header + " {" + BodyText + "\n" + I1 + "}\n" +
          I1 + "if (" + StepsV + " > 1) {\n" + I2 + Final + "\n" + I1 +
          "}\n" + Ind + "}";
      FixIt X;
      X.Exact = Exactness::Bitwise;
      X.HostOnly = true;
      X.Description = "the steps of '" + N1 + "' alternate between '" + AN +
                      "' and '" + BN + "'; one copy after the loop";
      X.Edits.push_back(makeTextEdit(C, *ER, Text));
      F.Fix = std::move(X);
    }
  }
}

} // namespace cudal1
