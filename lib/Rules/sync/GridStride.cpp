//===- GridStride.cpp - fewer blocks, each covering several ---------------===//
#include "GridStride.h"
#include "../StoreTarget.h"
#include "../coalescing/RowWalk.h"
#include "../launch/HostStatements.h"

#include "clang/AST/Attr.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

#include <set>

using namespace clang;
using namespace llvm;

namespace cudal1 {

namespace {
/// Built-ins named \p Name in \p S (each counted once).
unsigned countBuiltin(const Stmt *S, StringRef Name) {
  unsigned N = 0;
  forEachStmt(S, [&](const Stmt *X) {
    if (isa<PseudoObjectExpr>(X) && builtinName(cast<Expr>(X)) == Name)
      ++N;
  });
  return N;
}

/// \p S names `blockIdx` or `gridDim` other than through one component
/// (`uint3 b = blockIdx;` then `b.x`).
bool wholeBlockIndex(const Stmt *S) {
  std::set<const Stmt *> InComponent;
  std::function<void(const Stmt *)> Mark = [&](const Stmt *X) {
    if (!X || !InComponent.insert(X).second)
      return;
    for (const Stmt *C : X->children())
      Mark(C);
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(X)) {
      Mark(PO->getSyntacticForm());
      for (const Expr *E : PO->semantics())
        Mark(E);
    }
  };
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *PO = dyn_cast<PseudoObjectExpr>(X);
        PO && !builtinName(PO).empty())
      Mark(PO);
  });
  bool Whole = false;
  forEachStmt(S, [&](const Stmt *X) {
    if (const auto *D = dyn_cast<DeclRefExpr>(X))
      if (D->getDecl()->getIdentifier() &&
          (D->getDecl()->getName() == "blockIdx" ||
           D->getDecl()->getName() == "gridDim") &&
          !InComponent.count(X))
        Whole = true;
  });
  return Whole;
}

} // namespace

std::optional<GridStrideText>
gridStride(ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
           const FunctionFacts &F, const Stmt *Top, const Expr *Guard,
           const std::function<bool(const CallExpr *)> &BlockEffectOk,
           std::string &Why) {
  const auto *Body = cast<CompoundStmt>(K->getBody());
  // Fewer blocks run the rest of the kernel: nothing else in it may have
  // an effect outside the block (a count of blocks, a per-block maximum,
  // a store to global memory) but the calls the caller knows are per block
  // of any size (BlockEffectOk).
  bool Effects = false;
  for (const Stmt *S : Body->body()) {
    if (S == Top)
      continue;
    forEachStmt(S, [&](const Stmt *X) {
      const Expr *Target = storeTarget(X);
      if (Target) {
        const Expr *TE = Target->IgnoreParenImpCasts();
        while (const auto *A = dyn_cast<ArraySubscriptExpr>(TE))
          TE = A->getBase()->IgnoreParenImpCasts();
        const auto *D = dyn_cast<DeclRefExpr>(TE);
        const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
        if (!V || isa<ParmVarDecl>(V) ||
            !(V->hasAttr<CUDASharedAttr>() || V->hasLocalStorage()) ||
            (V->hasLocalStorage() && V->getType()->isPointerType()))
          Effects = true;
      }
      const auto *C = dyn_cast<CallExpr>(X);
      const FunctionDecl *D = C ? C->getDirectCallee() : nullptr;
      if (!C)
        return;
      // (Cooperative groups anywhere are refused below.)
      if (D && D->getIdentifier() && D->getName() == "__syncthreads")
        return;
      if (BlockEffectOk && BlockEffectOk(C))
        return;
      if (!sideEffectFree(Ctx, C))
        Effects = true;
    });
  }
  if (Effects) {
    Why = "another statement of the kernel has an effect outside its block";
    return std::nullopt;
  }
  // The guard: `i < n`, alone or as one operand of a chain of `&&` (`x <
  // width && y < height && edges[y * width + x] == 255`), with i the global
  // index along y (tried first: a 2-D grid keeps its x extent, so warps
  // still read along rows) or along x.
  std::vector<const Expr *> Conj;
  std::function<void(const Expr *)> Flatten = [&](const Expr *E) {
    const auto *B = dyn_cast<BinaryOperator>(E->IgnoreParens());
    if (B && B->getOpcode() == BO_LAnd) {
      Flatten(B->getLHS());
      Flatten(B->getRHS());
    } else
      Conj.push_back(E);
  };
  Flatten(Guard);
  const VarDecl *I = nullptr;
  const ParmVarDecl *N = nullptr;
  const DeclStmt *IDecl = nullptr;
  bool SignedCmp = true;
  char Dim = 0;
  std::string DimWhy;
  for (char D : {'y', 'x'}) {
    std::string DS(1, D);
    for (const Expr *C : Conj) {
      const auto *Cmp = dyn_cast<BinaryOperator>(C->IgnoreParens());
      if (!Cmp || (Cmp->getOpcode() != BO_LT && Cmp->getOpcode() != BO_GT))
        continue;
      const Expr *IE =
          Cmp->getOpcode() == BO_LT ? Cmp->getLHS() : Cmp->getRHS();
      const Expr *NE =
          Cmp->getOpcode() == BO_LT ? Cmp->getRHS() : Cmp->getLHS();
      const auto *ID = dyn_cast<DeclRefExpr>(IE->IgnoreParenImpCasts());
      const auto *ND = dyn_cast<DeclRefExpr>(NE->IgnoreParenImpCasts());
      const auto *CI = ID ? dyn_cast<VarDecl>(ID->getDecl()) : nullptr;
      const auto *CN = ND ? dyn_cast<ParmVarDecl>(ND->getDecl()) : nullptr;
      if (!CI || isa<ParmVarDecl>(CI) || !CI->hasLocalStorage() || !CN ||
          !CI->getType()->isIntegerType() || !CN->getType()->isIntegerType())
        continue;
      // i: declared alone at the top level of the body from blockIdx.D *
      // blockDim.D + threadIdx.D, never assigned.
      const DeclStmt *CDecl = nullptr;
      for (const Stmt *S : Body->body())
        if (const auto *DSt = dyn_cast<DeclStmt>(S);
            DSt && DSt->isSingleDecl() && DSt->getSingleDecl() == CI)
          CDecl = DSt;
      if (!CDecl || !CI->getInit() || !isGlobalIndex(CI->getInit(), D) ||
          F.isMutated(CI) || F.isMutated(CN))
        continue;
      // A negative n converted to an unsigned comparison passes every
      // index.
      bool Signed = IE->getType()->isSignedIntegerType();
      if (!Signed && CN->getType()->isSignedIntegerType()) {
        DimWhy = "the guard compares a signed bound as unsigned";
        continue;
      }
      // i used only in the guarded statement, n only in its comparison;
      // blockIdx.D nowhere else, gridDim.D nowhere.
      if (countReferences(Body, CI) != countReferences(Top, CI) ||
          countReferences(Body, CN) != countReferences(C, CN)) {
        DimWhy = "the index or the bound is used elsewhere in the kernel";
        continue;
      }
      if (countBuiltin(Body, "blockIdx." + DS) != 1 ||
          countBuiltin(Body, "gridDim." + DS) != 0) {
        DimWhy = "the kernel reads blockIdx." + DS + " or gridDim." + DS +
                 " elsewhere";
        continue;
      }
      I = CI;
      N = CN;
      IDecl = CDecl;
      SignedCmp = Signed;
      Dim = D;
      break;
    }
    if (Dim)
      break;
  }
  if (!Dim) {
    Why = DimWhy.empty() ? "the guard has no 'i < n' with i = blockIdx.x * "
                           "blockDim.x + threadIdx.x (or along y) declared "
                           "at the top of the kernel and n a parameter"
                         : DimWhy;
    return std::nullopt;
  }
  const std::string DS(1, Dim);
  if (wholeBlockIndex(Body)) {
    Why = "the kernel reads the whole blockIdx or gridDim";
    return std::nullopt;
  }
  // A device function of the program could read blockIdx itself, and so
  // could cooperative groups (group_index()) or asm (%ctaid) anywhere.
  bool OwnCalls = false, Hidden = false, Barrier = false;
  forEachStmt(Body, [&](const Stmt *X) {
    if (isa<AsmStmt>(X))
      Hidden = true;
    if (const auto *C = dyn_cast<CallExpr>(X)) {
      OwnCalls |= !systemCallee(Ctx, C);
      const FunctionDecl *D = C->getDirectCallee();
      if (D && StringRef(D->getQualifiedNameAsString())
                   .contains("cooperative_groups"))
        Hidden = true;
    }
  });
  if (OwnCalls || Hidden || !sideEffectFree(Ctx, Guard)) {
    Why = "the kernel calls its own functions, cooperative groups or asm, "
          "or the guard has effects";
    return std::nullopt;
  }
  // The statement runs several times per thread: a barrier in it would
  // let one pass's shared-memory writes race with the previous pass's
  // reads, and a variable declared outside it and changed in it would
  // carry its value from one original block's element into the next.
  forEachStmt(Top, [&](const Stmt *X) {
    if (const auto *C = dyn_cast<CallExpr>(X))
      if (const FunctionDecl *D = C->getDirectCallee();
          D && D->getIdentifier() && D->getName().starts_with("__sync"))
        Barrier = true;
  });
  if (Barrier) {
    Why = "the guarded statement has a barrier";
    return std::nullopt;
  }
  bool Carried = false;
  forEachStmt(Top, [&](const Stmt *X) {
    const auto *D = dyn_cast<DeclRefExpr>(X);
    const auto *V = D ? dyn_cast<VarDecl>(D->getDecl()) : nullptr;
    if (V && V->hasLocalStorage() &&
        !Top->getSourceRange().fullyContains(V->getSourceRange()) &&
        F.isMutated(V))
      Carried = true;
  });
  if (Carried) {
    Why = "the guarded statement uses a variable declared before it that "
          "the kernel changes";
    return std::nullopt;
  }
  std::string VisWhy;
  if (!allLaunchesVisible(Ctx, CC, K, VisWhy)) {
    Why = VisWhy;
    return std::nullopt;
  }
  // The index declaration inside the loop: the original's text with the
  // loop's block in place of blockIdx.x.
  const SourceManager &SM = Ctx.getSourceManager();
  if (inMacro(IDecl->getSourceRange())) {
    Why = "the index comes from a macro";
    return std::nullopt;
  }
  std::string B = uniqueName(K, "cudal1_b");
  std::string DeclText = sourceText(Ctx, IDecl->getSourceRange());
  unsigned DeclBegin = SM.getFileOffset(IDecl->getBeginLoc());
  std::string Index;
  forEachStmt(I->getInit(), [&](const Stmt *X) {
    if (!isa<PseudoObjectExpr>(X) ||
        builtinName(cast<Expr>(X)) != "blockIdx." + DS || !Index.empty())
      return;
    unsigned At = SM.getFileOffset(X->getBeginLoc()) - DeclBegin;
    unsigned End = SM.getFileOffset(Lexer::getLocForEndOfToken(
                       X->getEndLoc(), 0, SM, Ctx.getLangOpts())) -
                   DeclBegin;
    if (End <= DeclText.size() && At < End)
      Index = DeclText.substr(0, At) + B + DeclText.substr(End);
  });
  if (Index.empty()) {
    Why = "the index declaration cannot be copied";
    return std::nullopt;
  }
  if (Index.back() != ';')
    Index += ";";
  std::string Wide = SignedCmp ? "long long" : "unsigned long long";
  GridStrideText G;
  // The original declaration goes (the loop declares the index): with its
  // line when it stands alone on it.
  {
    FileID FID = SM.getFileID(IDecl->getBeginLoc());
    StringRef Buf = SM.getBufferData(FID);
    unsigned Bgn = DeclBegin,
             End = SM.getFileOffset(IDecl->getEndLoc()) + 1; // past ';'
    if (End > Buf.size() || Buf[End - 1] != ';') {
      Why = "the index declaration cannot be delimited";
      return std::nullopt;
    }
    unsigned LB = Bgn, LE = End;
    while (LB > 0 && (Buf[LB - 1] == ' ' || Buf[LB - 1] == '\t'))
      --LB;
    while (LE < Buf.size() && (Buf[LE] == ' ' || Buf[LE] == '\t'))
      ++LE;
    if ((LB == 0 || Buf[LB - 1] == '\n') && LE < Buf.size() &&
        Buf[LE] == '\n') {
      Bgn = LB;
      End = LE + 1;
    }
    SourceLocation FB = SM.getLocForStartOfFile(FID);
    G.LaunchEdits.push_back(makeTextEdit(
        Ctx,
        CharSourceRange::getCharRange(FB.getLocWithOffset(Bgn),
                                      FB.getLocWithOffset(End)),
        ""));
  }
  G.Index = Index;
  G.Axis = "blockIdx." + DS + " + k * gridDim." + DS;
  G.Head = "for (unsigned int " + B + " = blockIdx." + DS + "; (" + Wide +
           ")" + B + " * blockDim." + DS + " < (" + Wide + ")(" +
           N->getName().str() + "); " + B + " += gridDim." + DS + ") {";
  // Every launch: the grid's x (or y) capped, n capped to the threads it
  // reached.
  unsigned NIdx = N->getFunctionScopeIndex();
  std::string Cap = std::to_string(GridStrideBlocks);
  bool AnyLarge = false;
  std::string NT = N->getType().getUnqualifiedType().getAsString(
      Ctx.getPrintingPolicy());
  for (const CUDAKernelCallExpr *Call : launchSitesOf(Ctx, CC, K)) {
    const CallExpr *Cfg = Call->getConfig();
    const Expr *WG = Cfg && Cfg->getNumArgs() >= 2
                         ? writtenLaunchDim(Cfg->getArg(0))
                         : nullptr;
    const Expr *WB = WG ? writtenLaunchDim(Cfg->getArg(1)) : nullptr;
    const Expr *NA = NIdx < Call->getNumArgs() ? Call->getArg(NIdx) : nullptr;
    auto Pure = [&](const Expr *W) {
      return W && !inMacro(W->getSourceRange()) &&
             !W->getType()->isRealFloatingType() &&
             (isa<DeclRefExpr>(W->IgnoreParenImpCasts()) || isPureNoMemory(W));
    };
    std::string EW;
    std::optional<CharSourceRange> GR, NR;
    // The block is only read: a macro (`BLOCK_SIZE`) is fine.
    bool BlockOk = WB && !WB->getType()->isRealFloatingType() &&
                   (isa<DeclRefExpr>(WB->IgnoreParenImpCasts()) ||
                    isPureNoMemory(WB)) &&
                   !sourceText(Ctx, WB->getSourceRange()).empty();
    if (Pure(WG) && BlockOk && Pure(NA) && !inMacro(Call->getSourceRange())) {
      GR = editableRange(Ctx,
                         CharSourceRange::getTokenRange(WG->getSourceRange()),
                         EW);
      NR = editableRange(Ctx,
                         CharSourceRange::getTokenRange(NA->getSourceRange()),
                         EW);
    }
    if (!GR || !NR) {
      Why = "a launch's grid, block or bound is not a plain expression "
            "written at the launch";
      return std::nullopt;
    }
    bool GInt = WG->getType()->isIntegralOrEnumerationType(),
         BInt = WB->getType()->isIntegralOrEnumerationType();
    std::string GT = sourceText(Ctx, WG->getSourceRange()),
                BT = sourceText(Ctx, WB->getSourceRange()),
                NAT = sourceText(Ctx, NA->getSourceRange());
    std::string NewGrid, Reach;
    auto Comps = GInt ? std::nullopt : writtenDimComponents(WG);
    if (Dim == 'x') {
      std::string GX = GInt ? "(" + GT + ")" : "(" + GT + ").x";
      std::string BX = BInt ? "(" + BT + ")" : "(" + BT + ").x";
      NewGrid =
          GInt ? "(" + GX + " < " + Cap + " ? " + GX + " : " + Cap + ")"
               : "dim3(" + GX + " < " + Cap + "u ? " + GX + " : " + Cap +
                     "u, (" + GT + ").y, (" + GT + ").z)";
      // Products in long long (`1ll *`), compared with n's own value; the
      // smaller is n's value or below it, so it converts back exactly.
      Reach = "1ll * " + GX + " * " + BX;
      // A grid of at most GridStrideBlocks blocks written as a constant
      // gains nothing.
      const Expr *GXE = GInt ? WG : nullptr;
      if (Comps && !Comps->empty())
        GXE = (*Comps)[0];
      Expr::EvalResult ER;
      if (!GXE || GXE->isValueDependent() || !GXE->EvaluateAsInt(ER, Ctx) ||
          ER.Val.getInt().getExtValue() > (int64_t)GridStrideBlocks)
        AnyLarge = true;
    } else {
      // Along y: the grid keeps its x and z extent and takes as many rows
      // of blocks as keep the whole grid within GridStrideBlocks blocks
      // (at least one).
      if (GInt) {
        Why = "a launch's grid is one-dimensional";
        return std::nullopt;
      }
      std::string GY = "(" + GT + ").y";
      std::string BY = BInt ? "1" : "(" + BT + ").y";
      std::string Other = "(" + GT + ").x * (" + GT + ").z";
      std::string CapY = "(" + Other + " == 0u || " + Other + " > " + Cap +
                         "u ? 1u : " + Cap + "u / (" + Other + "))";
      NewGrid = "dim3((" + GT + ").x, " + GY + " < " + CapY + " ? " + GY +
                " : " + CapY + ", (" + GT + ").z)";
      Reach = "1ll * " + GY + " * " + BY;
      int64_t Blocks = 1;
      bool Known = Comps && !Comps->empty();
      for (size_t A = 0; Known && A < Comps->size(); ++A) {
        Expr::EvalResult ER;
        const Expr *CE = (*Comps)[A];
        if (CE->isValueDependent() || !CE->EvaluateAsInt(ER, Ctx))
          Known = false;
        else
          Blocks *= std::max<int64_t>(ER.Val.getInt().getExtValue(), 1);
      }
      if (!Known || Blocks > (int64_t)GridStrideBlocks)
        AnyLarge = true;
    }
    // n converted to the parameter's type first, as the call converts it.
    std::string NV = "(" + NT + ")(" + NAT + ")";
    std::string NewN = "(" + NV + " < " + Reach + " ? " + NV + " : " + Reach +
                       ")";
    G.LaunchEdits.push_back(makeTextEdit(Ctx, *GR, NewGrid));
    G.LaunchEdits.push_back(makeTextEdit(Ctx, *NR, NewN));
  }
  if (G.LaunchEdits.size() < 3) {
    Why = "no launch of the kernel";
    return std::nullopt;
  }
  if (!AnyLarge) {
    Why = "every launch has a constant grid of at most " + Cap + " blocks";
    return std::nullopt;
  }
  return G;
}

} // namespace cudal1
