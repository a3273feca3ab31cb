//===- StructuralSupport.cpp - legality helpers of structural rewrites ---===//
#include "StructuralSupport.h"
#include "cudal1/Model/KernelModel.h"

#include "clang/AST/Attr.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/FoldingSet.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace clang;
using namespace llvm;

namespace cudal1 {
namespace structural {

bool isLoop(const Stmt *S) {
  return isa<ForStmt>(S) || isa<WhileStmt>(S) || isa<DoStmt>(S);
}

void forEachStmt(const Stmt *S, const std::function<void(const Stmt *)> &Fn) {
  if (!S)
    return;
  Fn(S);
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(S)) {
    // Only the syntactic form: the semantic copies would be seen twice.
    forEachStmt(PO->getSyntacticForm(), Fn);
    return;
  }
  if (const auto *DS = dyn_cast<DeclStmt>(S)) {
    for (const Decl *D : DS->decls())
      if (const auto *V = dyn_cast<VarDecl>(D))
        if (V->getInit())
          forEachStmt(V->getInit(), Fn);
    return;
  }
  for (const Stmt *C : S->children())
    forEachStmt(C, Fn);
}

static const VarDecl *varOf(const Expr *E) {
  E = E->IgnoreParenImpCasts();
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E))
    return dyn_cast<VarDecl>(DRE->getDecl());
  return nullptr;
}

std::set<const VarDecl *> varsWrittenIn(const Stmt *Body) {
  std::set<const VarDecl *> W;
  forEachStmt(Body, [&](const Stmt *S) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      if (BO->isAssignmentOp())
        if (const VarDecl *V = varOf(BO->getLHS()))
          W.insert(V);
    } else if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
      if (UO->isIncrementDecrementOp() || UO->getOpcode() == UO_AddrOf)
        if (const VarDecl *V = varOf(UO->getSubExpr()))
          W.insert(V);
    } else if (const auto *OC = dyn_cast<CXXOperatorCallExpr>(S)) {
      if (OC->isAssignmentOp() && OC->getNumArgs() > 0)
        if (const VarDecl *V = varOf(OC->getArg(0)))
          W.insert(V);
    } else if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      // Bound to a non-const reference or to a pointer to non-const: the
      // variable may change through it.
      for (const Decl *D : DS->decls())
        if (const auto *RV = dyn_cast<VarDecl>(D))
          if (RV->getType()->isReferenceType() &&
              !RV->getType().getNonReferenceType().isConstQualified() &&
              RV->getInit())
            if (const VarDecl *V = varOf(RV->getInit()))
              W.insert(V);
    } else if (const auto *CE = dyn_cast<CallExpr>(S)) {
      // Passed by non-const reference.
      if (const FunctionDecl *Callee = CE->getDirectCallee())
        for (unsigned I = 0; I < CE->getNumArgs() && I < Callee->getNumParams();
             ++I) {
          QualType T = Callee->getParamDecl(I)->getType();
          if (T->isReferenceType() &&
              !T.getNonReferenceType().isConstQualified())
            if (const VarDecl *V = varOf(CE->getArg(I)))
              W.insert(V);
        }
    }
  });
  return W;
}

FunctionFacts FunctionFacts::compute(const FunctionDecl *FD) {
  FunctionFacts F;
  F.FD = FD;
  if (FD && FD->getBody())
    F.Mutated = varsWrittenIn(FD->getBody());
  return F;
}

std::string builtinName(const Expr *E) {
  if (!E)
    return "";
  E = E->IgnoreParenImpCasts();
  if (const auto *PO = dyn_cast<PseudoObjectExpr>(E))
    E = PO->getSyntacticForm()->IgnoreParenImpCasts();
  const Expr *Base = nullptr;
  StringRef Member;
  if (const auto *P = dyn_cast<MSPropertyRefExpr>(E)) {
    Base = P->getBaseExpr();
    Member = P->getPropertyDecl()->getName();
  } else if (const auto *M = dyn_cast<MemberExpr>(E)) {
    Base = M->getBase();
    if (const auto *ND = M->getMemberDecl(); ND && ND->getIdentifier())
      Member = ND->getName();
  }
  if (!Base || Member.size() != 1)
    return "";
  Base = Base->IgnoreParenImpCasts();
  if (const auto *OVE = dyn_cast<OpaqueValueExpr>(Base))
    if (OVE->getSourceExpr())
      Base = OVE->getSourceExpr()->IgnoreParenImpCasts();
  const auto *DRE = dyn_cast<DeclRefExpr>(Base);
  if (!DRE || !DRE->getDecl()->getIdentifier())
    return "";
  StringRef Var = DRE->getDecl()->getName();
  if (Var != "threadIdx" && Var != "blockIdx" && Var != "blockDim" &&
      Var != "gridDim")
    return "";
  if (Member != "x" && Member != "y" && Member != "z")
    return "";
  return (Var + "." + Member).str();
}

static bool isLocalVar(const VarDecl *V) {
  return V && V->hasLocalStorage() && !isa<ParmVarDecl>(V);
}

AffineExpr toAffine(const Expr *E, const FunctionFacts &F,
                    const std::map<const VarDecl *, std::string> &Syms) {
  if (!E)
    return AffineExpr::unknown();
  E = E->IgnoreParens();
  if (const auto *CE = dyn_cast<CastExpr>(E)) {
    if (!CE->getType()->isIntegralOrEnumerationType() ||
        !CE->getSubExpr()->getType()->isIntegralOrEnumerationType())
      return AffineExpr::unknown();
    return toAffine(CE->getSubExpr(), F, Syms);
  }
  std::string B = builtinName(E);
  if (!B.empty())
    return AffineExpr::symbol(B);
  if (const auto *IL = dyn_cast<IntegerLiteral>(E))
    return AffineExpr::constant(IL->getValue().getSExtValue());
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return AffineExpr::unknown();
    auto It = Syms.find(V);
    if (It != Syms.end())
      return AffineExpr::symbol(It->second);
    if (F.isMutated(V))
      return AffineExpr::unknown();
    if (isa<ParmVarDecl>(V))
      return V->getType()->isIntegralOrEnumerationType()
                 ? AffineExpr::symbol(V->getName().str())
                 : AffineExpr::unknown();
    if (isLocalVar(V) && V->getInit() &&
        V->getType()->isIntegralOrEnumerationType())
      return toAffine(V->getInit(), F, Syms);
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
    AffineExpr L = toAffine(BO->getLHS(), F, Syms);
    AffineExpr R = toAffine(BO->getRHS(), F, Syms);
    if (!L.isKnown() || !R.isKnown())
      return AffineExpr::unknown();
    switch (BO->getOpcode()) {
    case BO_Add:
      return L + R;
    case BO_Sub:
      return L - R;
    case BO_Mul:
      return L * R;
    case BO_Shl:
      if (auto C = R.constantValue(); C && *C >= 0 && *C < 31)
        return L * AffineExpr::constant(int64_t(1) << *C);
      return AffineExpr::unknown();
    default:
      break;
    }
  }
  if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
    if (UO->getOpcode() == UO_Minus) {
      AffineExpr S = toAffine(UO->getSubExpr(), F, Syms);
      return S.isKnown() ? -S : S;
    }
    if (UO->getOpcode() == UO_Plus)
      return toAffine(UO->getSubExpr(), F, Syms);
  }
  if (E->getType()->isIntegralOrEnumerationType() && !E->isValueDependent()) {
    Expr::EvalResult R;
    if (E->EvaluateAsInt(R, F.FD->getASTContext()))
      return AffineExpr::constant(R.Val.getInt().getSExtValue());
  }
  return AffineExpr::unknown();
}

bool isPureNoMemory(const Expr *E) {
  bool Ok = true;
  forEachStmt(E, [&](const Stmt *S) {
    if (isa<CallExpr>(S) || isa<ArraySubscriptExpr>(S) ||
        isa<CXXNewExpr>(S) || isa<CXXDeleteExpr>(S) || isa<StmtExpr>(S) ||
        isa<LambdaExpr>(S)) {
      Ok = false;
      return;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(S))
      if (UO->getOpcode() == UO_Deref || UO->isIncrementDecrementOp())
        Ok = false;
    if (const auto *BO = dyn_cast<BinaryOperator>(S))
      if (BO->isAssignmentOp() || BO->getOpcode() == BO_Comma)
        Ok = false;
    if (const auto *ME = dyn_cast<MemberExpr>(S))
      if (ME->isArrow())
        Ok = false;
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
        if (!V->hasLocalStorage() && !V->isConstexpr() &&
            !(V->getType().isConstQualified() &&
              V->getType()->isIntegralOrEnumerationType()))
          Ok = false; // a global variable: a memory read
  });
  // Built-ins are pseudo-objects whose syntactic form has no call.
  return Ok;
}

bool isBlockUniform(const Expr *E, const FunctionFacts &F) {
  if (!E)
    return false;
  E = E->IgnoreParenCasts();
  std::string B = builtinName(E);
  if (!B.empty())
    return !StringRef(B).starts_with("threadIdx");
  if (isa<IntegerLiteral>(E) || isa<FloatingLiteral>(E) ||
      isa<CXXBoolLiteralExpr>(E) || isa<CharacterLiteral>(E) ||
      isa<UnaryExprOrTypeTraitExpr>(E))
    return true;
  if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
    if (isa<EnumConstantDecl>(DRE->getDecl()))
      return true;
    const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
    if (!V)
      return false;
    if (F.isMutated(V))
      return false;
    if (isa<ParmVarDecl>(V))
      return true;
    if (V->isConstexpr() || (!V->hasLocalStorage() &&
                             V->getType().isConstQualified() &&
                             V->getType()->isIntegralOrEnumerationType()))
      return true;
    if (isLocalVar(V) && V->getInit() && !V->isStaticLocal())
      return isBlockUniform(V->getInit(), F);
    return false;
  }
  if (const auto *BO = dyn_cast<BinaryOperator>(E))
    return !BO->isAssignmentOp() && BO->getOpcode() != BO_Comma &&
           isBlockUniform(BO->getLHS(), F) && isBlockUniform(BO->getRHS(), F);
  if (const auto *UO = dyn_cast<UnaryOperator>(E))
    return UO->getOpcode() != UO_Deref && !UO->isIncrementDecrementOp() &&
           UO->getOpcode() != UO_AddrOf && isBlockUniform(UO->getSubExpr(), F);
  if (const auto *CO = dyn_cast<ConditionalOperator>(E))
    return isBlockUniform(CO->getCond(), F) &&
           isBlockUniform(CO->getTrueExpr(), F) &&
           isBlockUniform(CO->getFalseExpr(), F);
  return false;
}

const ParmVarDecl *rootPointerParam(const Expr *E, const FunctionFacts &F) {
  for (unsigned Depth = 0; E && Depth < 32; ++Depth) {
    E = E->IgnoreParenCasts();
    if (const auto *DRE = dyn_cast<DeclRefExpr>(E)) {
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V || F.isMutated(V))
        return nullptr;
      if (const auto *P = dyn_cast<ParmVarDecl>(V))
        return P->getType()->isPointerType() ? P : nullptr;
      if (isLocalVar(V) && V->getInit() && V->getType()->isPointerType()) {
        E = V->getInit();
        continue;
      }
      return nullptr;
    }
    if (const auto *BO = dyn_cast<BinaryOperator>(E)) {
      if (BO->getOpcode() != BO_Add && BO->getOpcode() != BO_Sub)
        return nullptr;
      E = BO->getLHS()->getType()->isPointerType() ? BO->getLHS()
                                                    : BO->getRHS();
      continue;
    }
    if (const auto *UO = dyn_cast<UnaryOperator>(E)) {
      // &p[i]
      if (UO->getOpcode() != UO_AddrOf)
        return nullptr;
      const Expr *S = UO->getSubExpr()->IgnoreParens();
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S)) {
        E = AS->getBase();
        continue;
      }
      return nullptr;
    }
    return nullptr;
  }
  return nullptr;
}

namespace {
class LaunchFinder : public RecursiveASTVisitor<LaunchFinder> {
public:
  const FunctionDecl *K;
  std::vector<const CUDAKernelCallExpr *> Found;
  bool VisitCUDAKernelCallExpr(CUDAKernelCallExpr *E) {
    if (const FunctionDecl *C = E->getDirectCallee())
      if (C->getCanonicalDecl() == K->getCanonicalDecl())
        Found.push_back(E);
    return true;
  }
};

class KernelFinder : public RecursiveASTVisitor<KernelFinder> {
public:
  std::vector<const FunctionDecl *> Found;
  bool VisitFunctionDecl(FunctionDecl *FD) {
    if (FD->hasAttr<CUDAGlobalAttr>() && FD->doesThisDeclarationHaveABody())
      Found.push_back(FD);
    return true;
  }
};
} // namespace

std::vector<const CUDAKernelCallExpr *>
launchSitesOf(ASTContext &Ctx, const FunctionDecl *Kernel) {
  LaunchFinder LF;
  LF.K = Kernel;
  LF.TraverseDecl(Ctx.getTranslationUnitDecl());
  return LF.Found;
}

std::vector<const FunctionDecl *> userKernels(ASTContext &Ctx,
                                              const CheckContext &CC) {
  KernelFinder KF;
  KF.TraverseDecl(Ctx.getTranslationUnitDecl());
  std::vector<const FunctionDecl *> Out;
  const SourceManager &SM = Ctx.getSourceManager();
  for (const FunctionDecl *FD : KF.Found) {
    if (FD->isTemplateInstantiation() || FD->getDescribedFunctionTemplate() ||
        FD->isDependentContext())
      continue;
    SourceLocation L = SM.getExpansionLoc(FD->getLocation());
    if (SM.isInSystemHeader(L))
      continue;
    if (CC.IsUserFile && !CC.IsUserFile(makeSourceLoc(SM, L).File))
      continue;
    Out.push_back(FD);
  }
  return Out;
}

/// \p V (a local of \p Fn) is set only by cudaMalloc-like calls: every use
/// is a read or `&V` passed as the first argument of cudaMalloc*.
static bool onlyCudaMalloced(ASTContext &Ctx, const FunctionDecl *Fn,
                             const VarDecl *V, std::string &Why) {
  if (V->getInit() && !V->getInit()->isNullPointerConstant(
                          Ctx, Expr::NPC_ValueDependentIsNotNull)) {
    Why = "'" + V->getName().str() + "' is initialised from another pointer";
    return false;
  }
  bool Allocated = false, Ok = true;
  forEachStmt(Fn->getBody(), [&](const Stmt *S) {
    if (!Ok)
      return;
    const auto *CE = dyn_cast<CallExpr>(S);
    if (CE && CE->getNumArgs() > 0) {
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (Callee && Callee->getIdentifier() &&
          Callee->getName().starts_with("cudaMalloc")) {
        const Expr *A = CE->getArg(0)->IgnoreParenCasts();
        if (const auto *UO = dyn_cast<UnaryOperator>(A))
          if (UO->getOpcode() == UO_AddrOf && varOf(UO->getSubExpr()) == V)
            Allocated = true;
      }
    }
  });
  // Every other mention must be a plain read.
  std::set<const VarDecl *> W = varsWrittenIn(Fn->getBody());
  if (W.count(V)) {
    // Address taken: allowed only for the cudaMalloc calls counted above.
    unsigned AddrUses = 0, MallocUses = 0;
    forEachStmt(Fn->getBody(), [&](const Stmt *S) {
      if (const auto *UO = dyn_cast<UnaryOperator>(S)) {
        if (UO->getOpcode() == UO_AddrOf && varOf(UO->getSubExpr()) == V)
          ++AddrUses;
        else if (UO->isIncrementDecrementOp() && varOf(UO->getSubExpr()) == V)
          Ok = false;
      }
      if (const auto *BO = dyn_cast<BinaryOperator>(S))
        if (BO->isAssignmentOp() && varOf(BO->getLHS()) == V)
          Ok = false;
      if (const auto *CE = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *Callee = CE->getDirectCallee();
        if (CE->getNumArgs() > 0 && Callee && Callee->getIdentifier() &&
            Callee->getName().starts_with("cudaMalloc")) {
          const Expr *A = CE->getArg(0)->IgnoreParenCasts();
          if (const auto *UO = dyn_cast<UnaryOperator>(A))
            if (UO->getOpcode() == UO_AddrOf && varOf(UO->getSubExpr()) == V)
              ++MallocUses;
        }
      }
    });
    // The template cudaMalloc overload forwards; count the user's calls only
    // once: every &V must be a cudaMalloc argument.
    if (AddrUses > MallocUses)
      Ok = false;
  }
  if (!Ok) {
    Why = "'" + V->getName().str() +
          "' is assigned or its address is used other than by cudaMalloc";
    return false;
  }
  if (!Allocated) {
    Why = "'" + V->getName().str() + "' is not set by cudaMalloc";
    return false;
  }
  return true;
}

namespace {
class CallerFinder : public RecursiveASTVisitor<CallerFinder> {
public:
  const FunctionDecl *Fn;
  std::vector<const CallExpr *> Found;
  bool VisitCallExpr(CallExpr *E) {
    if (isa<CUDAKernelCallExpr>(E))
      return true;
    if (const FunctionDecl *C = E->getDirectCallee())
      if (C->getCanonicalDecl() == Fn->getCanonicalDecl())
        Found.push_back(E);
    return true;
  }
};
} // namespace

/// The values of \p AP and \p AQ (arguments in host function \p Fn) point
/// into different objects: different local variables each set only by
/// cudaMalloc; a fresh cudaMalloc allocation and a parameter of \p Fn (it
/// existed before the allocation); or two parameters of \p Fn whose
/// arguments are distinct, recursively, at every call of \p Fn in the file.
static bool distinctArgs(ASTContext &Ctx, const FunctionDecl *Fn,
                         const Expr *AP, const Expr *AQ, unsigned Depth,
                         std::string &Why) {
  const VarDecl *VP = varOf(AP), *VQ = varOf(AQ);
  if (!VP || !VQ) {
    Why = "the arguments are not plain variables";
    return false;
  }
  if (VP == VQ) {
    Why = "alias: passes '" + VP->getName().str() + "' for both";
    return false;
  }
  std::set<const VarDecl *> W = varsWrittenIn(Fn->getBody());
  auto IsParam = [&](const VarDecl *V) {
    return isa<ParmVarDecl>(V) && !W.count(V) && V->getType()->isPointerType();
  };
  std::string WP, WQ;
  bool FreshP = isLocalVar(VP) && onlyCudaMalloced(Ctx, Fn, VP, WP);
  bool FreshQ = isLocalVar(VQ) && onlyCudaMalloced(Ctx, Fn, VQ, WQ);
  if (FreshP && FreshQ)
    return true;
  if ((FreshP && IsParam(VQ)) || (FreshQ && IsParam(VP)))
    return true;
  if (IsParam(VP) && IsParam(VQ)) {
    if (Depth >= 3) {
      Why = "the pointers come through too many host functions";
      return false;
    }
    CallerFinder CF;
    CF.Fn = Fn;
    CF.TraverseDecl(Ctx.getTranslationUnitDecl());
    if (CF.Found.empty()) {
      Why = "'" + VP->getName().str() + "' and '" + VQ->getName().str() +
            "' are parameters of '" + Fn->getNameAsString() +
            "', which is not called in this file";
      return false;
    }
    unsigned IP = cast<ParmVarDecl>(VP)->getFunctionScopeIndex();
    unsigned IQ = cast<ParmVarDecl>(VQ)->getFunctionScopeIndex();
    for (const CallExpr *C : CF.Found) {
      const FunctionDecl *G = enclosingFunction(Ctx, DynTypedNode::create(*C));
      if (!G || !G->getBody() || C->getNumArgs() <= std::max(IP, IQ)) {
        Why = "a call of '" + Fn->getNameAsString() + "' is not analysable";
        return false;
      }
      if (!distinctArgs(Ctx, G, C->getArg(IP), C->getArg(IQ), Depth + 1, Why))
        return false;
    }
    return true;
  }
  if (!WP.empty() && !FreshP)
    Why = WP;
  else if (!WQ.empty() && !FreshQ)
    Why = WQ;
  else
    Why = "'" + VP->getName().str() + "' and '" + VQ->getName().str() +
          "' are not separate cudaMalloc allocations";
  return false;
}

bool provenDistinct(ASTContext &Ctx, const FunctionDecl *K,
                    const ParmVarDecl *P, const ParmVarDecl *Q,
                    std::string &How, std::string &Why) {
  if (P == Q) {
    Why = "both accesses go through '" + P->getName().str() + "'";
    return false;
  }
  for (const ParmVarDecl *R : {P, Q})
    if (R->getType().isRestrictQualified()) {
      How = "'" + R->getName().str() + "' is __restrict__";
      return true;
    }
  auto Sites = launchSitesOf(Ctx, K);
  if (Sites.empty()) {
    Why = "'" + P->getName().str() + "' and '" + Q->getName().str() +
          "' may alias: they are not __restrict__ and no launch site of '" +
          K->getName().str() + "' is visible in this file";
    return false;
  }
  unsigned PI = P->getFunctionScopeIndex(), QI = Q->getFunctionScopeIndex();
  for (const CUDAKernelCallExpr *Site : Sites) {
    std::string Loc =
        makeSourceLoc(Ctx.getSourceManager(), Site->getBeginLoc()).str();
    if (Site->getNumArgs() <= std::max(PI, QI)) {
      Why = "the launch at " + Loc + " has too few arguments";
      return false;
    }
    const FunctionDecl *Fn =
        enclosingFunction(Ctx, DynTypedNode::create(*Site));
    if (!Fn || !Fn->getBody()) {
      Why = "the function launching at " + Loc + " is not visible";
      return false;
    }
    std::string W;
    if (!distinctArgs(Ctx, Fn, Site->getArg(PI), Site->getArg(QI), 0, W)) {
      Why = "'" + P->getName().str() + "' and '" + Q->getName().str() +
            "' may alias at the launch at " + Loc + ": " + W;
      if (W.rfind("alias:", 0) == 0)
        Why = "'" + P->getName().str() + "' and '" + Q->getName().str() +
              "' alias: the launch at " + Loc + W.substr(6);
      return false;
    }
  }
  How = "every launch site in this file passes separate cudaMalloc "
        "allocations for '" +
        P->getName().str() + "' and '" + Q->getName().str() + "'";
  return true;
}

std::optional<std::array<uint64_t, 3>>
constantBlock(const CheckContext &CC, const FunctionDecl *K, std::string &Why) {
  if (!CC.Model) {
    Why = "no kernel model (launch sites unknown)";
    return std::nullopt;
  }
  std::string QN = K->getQualifiedNameAsString();
  std::optional<std::array<uint64_t, 3>> Block;
  unsigned N = 0;
  for (const LaunchSite &S : CC.Model->LaunchSites) {
    if (S.Kernel != QN)
      continue;
    ++N;
    if (!S.Block.Dim) {
      Why = "the block size at the launch at " + S.Loc.str() + " ('" +
            S.Block.Text + "') is not a compile-time constant";
      return std::nullopt;
    }
    if (Block && *Block != *S.Block.Dim) {
      Why = "the launch sites use different block sizes";
      return std::nullopt;
    }
    Block = S.Block.Dim;
  }
  if (!N) {
    Why = "no launch site of '" + K->getName().str() +
          "' is visible in this file, so its block size is unknown";
    return std::nullopt;
  }
  return Block;
}

std::string indentOf(const ASTContext &Ctx, SourceLocation L) {
  const SourceManager &SM = Ctx.getSourceManager();
  L = SM.getExpansionLoc(L);
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(L), &Invalid);
  if (Invalid)
    return "";
  unsigned Off = SM.getFileOffset(L);
  unsigned B = Off;
  while (B > 0 && Buf[B - 1] != '\n')
    --B;
  unsigned E = B;
  while (E < Buf.size() && (Buf[E] == ' ' || Buf[E] == '\t'))
    ++E;
  return Buf.substr(B, E - B).str();
}

std::string uniqueName(const FunctionDecl *FD, const std::string &Base) {
  std::set<std::string> Names;
  for (const ParmVarDecl *P : FD->parameters())
    Names.insert(P->getName().str());
  forEachStmt(FD->getBody(), [&](const Stmt *S) {
    if (const auto *DS = dyn_cast<DeclStmt>(S))
      for (const Decl *D : DS->decls())
        if (const auto *ND = dyn_cast<NamedDecl>(D))
          if (ND->getIdentifier())
            Names.insert(ND->getName().str());
    if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
      if (DRE->getDecl()->getIdentifier())
        Names.insert(DRE->getDecl()->getName().str());
  });
  if (!Names.count(Base))
    return Base;
  for (unsigned I = 2;; ++I) {
    std::string N = Base + std::to_string(I);
    if (!Names.count(N))
      return N;
  }
}

std::string rewrittenText(
    const ASTContext &Ctx, const Stmt *E,
    const std::vector<std::pair<const Stmt *, std::string>> &Replacements) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  CharSourceRange R = Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()), SM, LO);
  if (R.isInvalid())
    return "";
  unsigned B = SM.getFileOffset(R.getBegin()), End = SM.getFileOffset(R.getEnd());
  bool Invalid = false;
  StringRef Buf = SM.getBufferData(SM.getFileID(R.getBegin()), &Invalid);
  if (Invalid)
    return "";
  struct Rep {
    unsigned Off, Len;
    std::string Text;
  };
  std::vector<Rep> Reps;
  for (const auto &[Sub, Text] : Replacements) {
    CharSourceRange SR = Lexer::makeFileCharRange(
        CharSourceRange::getTokenRange(Sub->getSourceRange()), SM, LO);
    if (SR.isInvalid())
      return "";
    unsigned SB = SM.getFileOffset(SR.getBegin()),
             SE = SM.getFileOffset(SR.getEnd());
    if (SB < B || SE > End || SM.getFileID(SR.getBegin()) !=
                                  SM.getFileID(R.getBegin()))
      return "";
    Reps.push_back({SB - B, SE - SB, Text});
  }
  std::sort(Reps.begin(), Reps.end(),
            [](const Rep &A, const Rep &B) { return A.Off > B.Off; });
  std::string S = Buf.substr(B, End - B).str();
  unsigned Prev = S.size() + 1;
  for (const Rep &Rp : Reps) {
    if (Rp.Off + Rp.Len > Prev)
      return ""; // overlapping
    S.replace(Rp.Off, Rp.Len, Rp.Text);
    Prev = Rp.Off;
  }
  return S;
}

bool sameExpr(const ASTContext &Ctx, const Expr *A, const Expr *B) {
  if (!A || !B)
    return false;
  llvm::FoldingSetNodeID IA, IB;
  A->IgnoreParenImpCasts()->Profile(IA, Ctx, /*Canonical=*/true);
  B->IgnoreParenImpCasts()->Profile(IB, Ctx, /*Canonical=*/true);
  return IA == IB;
}

bool containsCallTo(const Stmt *S, std::initializer_list<StringRef> Names) {
  bool Found = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *CE = dyn_cast<CallExpr>(X))
      if (const FunctionDecl *FD = CE->getDirectCallee())
        if (FD->getIdentifier())
          for (StringRef N : Names)
            if (FD->getName() == N ||
                (N.ends_with("*") && FD->getName().starts_with(N.drop_back())))
              Found = true;
  });
  return Found;
}

static bool escapes(const Stmt *S, bool InLoop, bool InSwitch,
                    bool AllowContinue) {
  if (!S)
    return false;
  if (isa<ReturnStmt>(S) || isa<GotoStmt>(S) || isa<IndirectGotoStmt>(S))
    return true;
  if (isa<BreakStmt>(S))
    return !InLoop && !InSwitch;
  if (isa<ContinueStmt>(S))
    return !InLoop && !AllowContinue;
  if (isa<LambdaExpr>(S))
    return false;
  bool Loop = isLoop(S) || isa<CXXForRangeStmt>(S);
  bool Sw = isa<SwitchStmt>(S);
  for (const Stmt *C : S->children())
    if (escapes(C, InLoop || Loop, InSwitch || Sw, AllowContinue))
      return true;
  return false;
}

bool containsEscape(const Stmt *S, bool AllowContinue) {
  return escapes(S, false, false, AllowContinue);
}

/// Just past statement \p S, including its ';' when it has one.
SourceLocation stmtEnd(ASTContext &Ctx, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  SourceLocation E = SM.getExpansionLoc(S->getEndLoc());
  const Stmt *Last = S;
  while (true) {
    if (const auto *F = dyn_cast<ForStmt>(Last))
      Last = F->getBody();
    else if (const auto *W = dyn_cast<WhileStmt>(Last))
      Last = W->getBody();
    else if (const auto *I = dyn_cast<IfStmt>(Last))
      Last = I->getElse() ? I->getElse() : I->getThen();
    else
      break;
  }
  if (isa<CompoundStmt>(Last))
    return Lexer::getLocForEndOfToken(E, 0, SM, LO);
  SourceLocation A = Lexer::findLocationAfterToken(E, tok::semi, SM, LO, false);
  return A.isValid() ? A : Lexer::getLocForEndOfToken(E, 0, SM, LO);
}

void PerKernelCheck::run(ASTContext &Ctx, const CheckContext &CC,
                         std::vector<Finding> &Out) {
  for (const FunctionDecl *K : structural::userKernels(Ctx, CC)) {
    FunctionFacts F = FunctionFacts::compute(K);
    runOn(Ctx, CC, K, F, Out);
  }
}

void refuse(Finding &F, const std::string &Why) {
  F.Fix.reset();
  F.WhyNoFix = Why;
}

} // namespace structural
} // namespace cudal1
