//===- Reductions.cpp - sync-sequential-reduction, sync-warp-atomic-reduction
//
// sync-sequential-reduction: the interleaved shared-memory tree
//   for (s = 1; s < N; s *= 2) { if (tid % (2*s) == 0) X[tid] op= X[tid+s];
//                                __syncthreads(); }
// (a divergent branch in every warp, a modulo per step, 2-way and worse
// bank conflicts) becomes sequential addressing
//   for (s = N/2; s > 0; s >>= 1) { if (tid < s) X[tid] op= X[tid+s];
//                                   __syncthreads(); }
// Only X[0] keeps its meaning (checked: the kernel reads nothing else of X
// after the loop). Integers: bitwise; floating point: reassociating.
//
// sync-warp-atomic-reduction: an atomicAdd of every thread to one address
// becomes a warp-shuffle reduction and one atomicAdd per warp. Every lane
// of every warp must reach it (statement at the top level of the kernel,
// optionally under one `if (cond)`, no earlier return) and the block size
// must be a multiple of 32. Integers: bitwise; floating point:
// reassociating.
//
//===----------------------------------------------------------------------===//
#include "StructuralSupport.h"

#include "clang/AST/Attr.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

using namespace clang;
using namespace llvm;

namespace cudal1 {
namespace structural {
namespace {

bool isThreadX(const Expr *E, const FunctionFacts &F) {
  return toAffine(E, F) == AffineExpr::symbol("threadIdx.x");
}

const VarDecl *declRefVar(const Expr *E) {
  if (const auto *D = dyn_cast<DeclRefExpr>(E->IgnoreParenImpCasts()))
    return dyn_cast<VarDecl>(D->getDecl());
  return nullptr;
}

bool isPow2(uint64_t V) { return V && !(V & (V - 1)); }

class SequentialReductionCheck : public PerKernelCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "sync-sequential-reduction";
    I.Category = "sync";
    I.Summary = "interleaved tree reduction (tid % (2*s) == 0) -> sequential "
                "addressing (tid < s)";
    I.Exactness = Exactness::Reassociating;
    I.Help = "The interleaved shared-memory reduction keeps only every "
             "(2*s)-th thread busy, so every warp diverges at every step, and "
             "its accesses conflict in the banks. Sequential addressing "
             "(s from N/2 down, tid < s) keeps the active threads packed in "
             "the first warps. The additions pair different elements: bitwise "
             "for integers, within tolerance for floating point.";
    return I;
  }

private:
  void runOn(ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
             const FunctionFacts &F, std::vector<Finding> &Out) override {
    forEachStmt(K->getBody(), [&](const Stmt *S) {
      if (const auto *L = dyn_cast<ForStmt>(S))
        match(Ctx, CC, K, F, L, Out);
    });
  }

  void match(ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
             const FunctionFacts &F, const ForStmt *L,
             std::vector<Finding> &Out) {
    // for (T s = 1; s < BOUND; s *= 2 | s <<= 1 | s = s * 2)
    const auto *DS = dyn_cast_or_null<DeclStmt>(L->getInit());
    if (!DS || !DS->isSingleDecl())
      return;
    const auto *S = dyn_cast<VarDecl>(DS->getSingleDecl());
    if (!S || !S->getInit() || !S->getType()->isIntegerType())
      return;
    Expr::EvalResult ER;
    if (!S->getInit()->EvaluateAsInt(ER, Ctx) || ER.Val.getInt() != 1)
      return;
    const auto *C = dyn_cast_or_null<BinaryOperator>(L->getCond());
    if (!C || C->getOpcode() != BO_LT || declRefVar(C->getLHS()) != S)
      return;
    const Expr *Bound = C->getRHS();
    const Expr *Inc = L->getInc() ? L->getInc()->IgnoreParens() : nullptr;
    const auto *IB = dyn_cast_or_null<BinaryOperator>(Inc);
    if (!IB || declRefVar(IB->getLHS()) != S)
      return;
    auto ConstIs = [&](const Expr *E, int64_t V) {
      Expr::EvalResult R;
      return E->EvaluateAsInt(R, Ctx) && R.Val.getInt() == V;
    };
    bool Doubling =
        (IB->getOpcode() == BO_MulAssign && ConstIs(IB->getRHS(), 2)) ||
        (IB->getOpcode() == BO_ShlAssign && ConstIs(IB->getRHS(), 1));
    if (!Doubling)
      return;
    // Body: { if (tid % (2*s) == 0) <update>; __syncthreads(); }
    const auto *Body = dyn_cast<CompoundStmt>(L->getBody());
    if (!Body || Body->size() != 2)
      return;
    const auto *If = dyn_cast<IfStmt>(Body->body_front());
    const auto *Sync = dyn_cast<CallExpr>(Body->body_back());
    if (!If || !Sync || !Sync->getDirectCallee() ||
        Sync->getDirectCallee()->getName() != "__syncthreads" ||
        If->getElse() || If->getInit() || If->getConditionVariable())
      return;
    const auto *Eq = dyn_cast<BinaryOperator>(If->getCond()->IgnoreParens());
    if (!Eq || Eq->getOpcode() != BO_EQ || !ConstIs(Eq->getRHS(), 0))
      return;
    const auto *Rem = dyn_cast<BinaryOperator>(Eq->getLHS()->IgnoreParenImpCasts());
    if (!Rem || Rem->getOpcode() != BO_Rem)
      return;
    std::map<const VarDecl *, std::string> Syms{{S, "s@red"}};
    if (!isThreadX(Rem->getLHS(), F) ||
        toAffine(Rem->getRHS(), F, Syms) !=
            AffineExpr::constant(2) * AffineExpr::symbol("s@red"))
      return;
    const Expr *Tid = Rem->getLHS()->IgnoreParenImpCasts();
    std::string TidText = sourceText(Ctx, Tid->getSourceRange());

    Finding Fd = makeFinding(
        Ctx, "sync-sequential-reduction", If->getCond()->getBeginLoc(),
        "interleaved tree reduction: '" +
            sourceText(Ctx, If->getCond()->getSourceRange()) +
            "' leaves most threads of every warp idle at every step (divergent "
            "branches, a modulo per step, bank conflicts); sequential "
            "addressing keeps the active threads in the first warps",
        K);
    Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the reduction loop"));
    // The update: X[tid] op= X[tid + s] (or X[tid] = X[tid] op X[tid+s],
    // or X[tid] = f(X[tid], X[tid+s])) with X in shared memory.
    const Stmt *Upd = If->getThen();
    if (const auto *CS = dyn_cast<CompoundStmt>(Upd)) {
      if (CS->size() != 1) {
        refuse(Fd, "the reduction step is not a single update statement");
        Out.push_back(Fd);
        return;
      }
      Upd = CS->body_front();
    }
    const auto *UA = dyn_cast<BinaryOperator>(Upd);
    const auto *LHS = UA ? dyn_cast<ArraySubscriptExpr>(UA->getLHS()->IgnoreParens())
                         : nullptr;
    const VarDecl *X = LHS ? declRefVar(LHS->getBase()) : nullptr;
    if (!UA || !UA->isAssignmentOp() || !X || !X->hasAttr<CUDASharedAttr>() ||
        !isThreadX(LHS->getIdx(), F)) {
      refuse(Fd, "the reduction step is not 'X[tid] op= X[tid + s]' on a "
                 "__shared__ array");
      Out.push_back(Fd);
      return;
    }
    std::string Why;
    bool ReadsPartner = false;
    forEachStmt(UA->getRHS(), [&](const Stmt *St) {
      if (const auto *AS = dyn_cast<ArraySubscriptExpr>(St)) {
        if (declRefVar(AS->getBase()) != X) {
          Why = "the reduction step reads other arrays";
          return;
        }
        AffineExpr I = toAffine(AS->getIdx(), F, Syms);
        if (I == AffineExpr::symbol("threadIdx.x") + AffineExpr::symbol("s@red"))
          ReadsPartner = true;
        else if (I != AffineExpr::symbol("threadIdx.x"))
          Why = "the reduction step reads '" +
                sourceText(Ctx, AS->getSourceRange()) + "'";
      }
      if (isa<CallExpr>(St)) {
        const auto *CE = cast<CallExpr>(St);
        const FunctionDecl *FD = CE->getDirectCallee();
        std::string N = FD && FD->getIdentifier() ? FD->getName().str() : "";
        if (N != "max" && N != "min" && N != "fmaxf" && N != "fminf" &&
            N != "fmax" && N != "fmin")
          Why = "the reduction step calls '" + N + "'";
      }
    });
    if (Why.empty() && !ReadsPartner)
      Why = "the reduction step does not read X[tid + s]";
    if (!Why.empty()) {
      refuse(Fd, Why);
      Out.push_back(Fd);
      return;
    }
    // After the loop, only X[0] is read.
    const SourceManager &SM = Ctx.getSourceManager();
    forEachStmt(K->getBody(), [&](const Stmt *St) {
      const auto *AS = dyn_cast<ArraySubscriptExpr>(St);
      if (!AS || declRefVar(AS->getBase()) != X)
        return;
      if (!SM.isBeforeInTranslationUnit(L->getEndLoc(), AS->getBeginLoc()))
        return;
      if (!ConstIs(AS->getIdx(), 0))
        Why = "the kernel reads '" + sourceText(Ctx, AS->getSourceRange()) +
              "' after the loop; only element 0 keeps its value";
    });
    if (!Why.empty()) {
      refuse(Fd, Why);
      Out.push_back(Fd);
      return;
    }
    // The number of elements reduced must be a power of two.
    FixIt Fix;
    std::string BoundText = sourceText(Ctx, Bound->getSourceRange());
    Expr::EvalResult BR;
    if (Bound->EvaluateAsInt(BR, Ctx)) {
      if (!isPow2(BR.Val.getInt().getZExtValue())) {
        refuse(Fd, "the reduction bound " + BoundText +
                       " is not a power of two");
        Out.push_back(Fd);
        return;
      }
    } else if (builtinName(Bound) == "blockDim.x") {
      auto Block = structural::constantBlock(CC, K, Why);
      if (!Block) {
        Fix.Proven = false;
        Fd.Notes.push_back(makeNote(
            Ctx, L->getBeginLoc(),
            "needs blockDim.x to be a power of two: " + Why));
      } else if (!isPow2((*Block)[0]) || (*Block)[1] != 1 || (*Block)[2] != 1) {
        refuse(Fd, "the block size is not a one-dimensional power of two");
        Out.push_back(Fd);
        return;
      }
    } else {
      refuse(Fd, "the reduction bound '" + BoundText +
                     "' is neither a constant nor blockDim.x");
      Out.push_back(Fd);
      return;
    }
    if (inMacro(L->getSourceRange()) || BoundText.empty() || TidText.empty()) {
      refuse(Fd, "the loop comes from a macro expansion");
      Out.push_back(Fd);
      return;
    }
    QualType ET = LHS->getType();
    Fix.Exact = ET->isIntegerType() ? Exactness::Bitwise
                                    : Exactness::Reassociating;
    if (Fix.Exact == Exactness::Reassociating) {
      Fix.Rtol = 1e-5;
      Fix.Atol = 1e-6;
      Fix.ScaleRtol = 1e-4; // outputs that cancel to ~0
    }
    // Max/min are exact in any order.
    if (UA->getOpcode() == BO_Assign) {
      bool MinMax = false;
      forEachStmt(UA->getRHS(), [&](const Stmt *St) {
        if (isa<CallExpr>(St))
          MinMax = true;
      });
      if (MinMax)
        Fix.Exact = Exactness::Bitwise;
    }
    std::string TypeText =
        S->getType().getUnqualifiedType().getAsString(Ctx.getPrintingPolicy());
    std::string SN = S->getName().str();
    Fix.Edits.push_back(makeTextEdit(
        Ctx,
        CharSourceRange::getCharRange(
            L->getLParenLoc().getLocWithOffset(1), L->getRParenLoc()),
        TypeText + " " + SN + " = (" + BoundText + ") / 2; " + SN + " > 0; " +
            SN + " >>= 1"));
    Fix.Edits.push_back(makeTextEdit(
        Ctx, CharSourceRange::getTokenRange(If->getCond()->getSourceRange()),
        TidText + " < " + SN));
    Fix.Description = "sequential addressing: " + SN + " from " + BoundText +
                      "/2 down, threads " + TidText + " < " + SN + " add";
    Fd.Fix = Fix;
    Out.push_back(Fd);
  }
};

class WarpAtomicReductionCheck : public PerKernelCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "sync-warp-atomic-reduction";
    I.Category = "sync";
    I.Summary = "every thread atomically adds to one address -> warp-shuffle "
                "sum, then one atomicAdd per warp";
    I.Exactness = Exactness::Reassociating;
    I.Help = "atomicAdd from every thread to the same address serialises 32 "
             "updates per warp in the memory system. Summing the warp's "
             "values with __shfl_down_sync first leaves one atomic per warp. "
             "Every lane must reach the atomic (no earlier return, only one "
             "guard, block size a multiple of 32). Bitwise for integers, "
             "reassociating for floating point.";
    return I;
  }

private:
  void runOn(ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
             const FunctionFacts &F, std::vector<Finding> &Out) override {
    forEachStmt(K->getBody(), [&](const Stmt *S) {
      if (const auto *CE = dyn_cast<CallExpr>(S))
        match(Ctx, CC, K, F, CE, Out);
    });
  }

  void match(ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
             const FunctionFacts &F, const CallExpr *CE,
             std::vector<Finding> &Out) {
    const FunctionDecl *FD = CE->getDirectCallee();
    if (!FD || !FD->getIdentifier() || FD->getName() != "atomicAdd" ||
        CE->getNumArgs() != 2)
      return;
    const Expr *Addr = CE->getArg(0);
    const ParmVarDecl *P = rootPointerParam(Addr, F);
    if (!P)
      return;
    // Address the same for every thread of the block.
    bool Uniform = true;
    forEachStmt(Addr, [&](const Stmt *S) {
      if (const auto *E = dyn_cast<Expr>(S)) {
        if (StringRef(builtinName(E)).starts_with("threadIdx"))
          Uniform = false;
        if (const auto *D = dyn_cast<DeclRefExpr>(E))
          if (const auto *V = dyn_cast<VarDecl>(D->getDecl()))
            if (!V->getType()->isPointerType() && !isBlockUniform(D, F))
              Uniform = false;
      }
    });
    if (!Uniform)
      return;
    QualType VT = CE->getArg(1)->getType().getUnqualifiedType();
    std::string VTs = VT.getAsString(Ctx.getPrintingPolicy());
    Finding Fd = makeFinding(
        Ctx, "sync-warp-atomic-reduction", CE->getBeginLoc(),
        "every thread does an atomicAdd to the same address '" +
            sourceText(Ctx, Addr->getSourceRange()) +
            "': the 32 lanes of a warp are serialised; a warp-shuffle sum "
            "first leaves one atomic per warp",
        K);
    auto Fail = [&](const std::string &W) {
      refuse(Fd, W);
      Out.push_back(Fd);
    };
    if (VTs != "float" && VTs != "double" && VTs != "int" &&
        VTs != "unsigned int" && VTs != "unsigned long long") {
      Fail("the value type '" + VTs + "' has no warp shuffle");
      return;
    }
    // The call is a statement of the kernel body, or the then-branch of an
    // `if` that is.
    const auto *Body = cast<CompoundStmt>(K->getBody());
    auto P1 = Ctx.getParents(*CE);
    const Stmt *Top = CE;
    const Expr *Guard = nullptr;
    const IfStmt *GuardIf = nullptr;
    if (!P1.empty() && P1[0].get<CompoundStmt>() == Body) {
      Top = CE;
    } else if (!P1.empty()) {
      const Stmt *Par = P1[0].get<Stmt>();
      if (const auto *CS = dyn_cast_or_null<CompoundStmt>(Par);
          CS && CS->size() == 1) {
        auto P2 = Ctx.getParents(*CS);
        Par = P2.empty() ? nullptr : P2[0].get<Stmt>();
      }
      const auto *If = dyn_cast_or_null<IfStmt>(Par);
      bool AtTop = false;
      if (If) {
        auto P3 = Ctx.getParents(*If);
        AtTop = !P3.empty() && P3[0].get<CompoundStmt>() == Body;
      }
      // `if (tid == 0)`-style guards pick one thread (per warp or block):
      // the atomic is already rare, not this pattern.
      bool PicksOne = false;
      if (If)
        forEachStmt(If->getCond(), [&](const Stmt *X) {
          if (const auto *B = dyn_cast<BinaryOperator>(X))
            if (B->getOpcode() == BO_EQ)
              PicksOne = true;
        });
      if (PicksOne)
        return;
      if (If && !If->getElse() && !If->getInit() &&
          !If->getConditionVariable() && AtTop) {
        Top = If;
        Guard = If->getCond();
        GuardIf = If;
      } else {
        Fail("the atomic is inside a loop or nested control flow: not every "
             "lane of a warp reaches it the same number of times");
        return;
      }
    }
    for (const Stmt *S : Body->body()) {
      if (S == Top)
        break;
      if (containsEscape(S, false)) {
        Fail("a statement before the atomic may return early: not every lane "
             "of a warp reaches it");
        return;
      }
    }
    if (containsCallTo(K->getBody(), {"__shfl*"})) {
      Fail("the kernel already uses warp shuffles");
      return;
    }
    std::string Why;
    auto Block = structural::constantBlock(CC, K, Why);
    if (!Block) {
      Fail(Why + "; the warp shuffle needs full warps (block size a multiple "
                 "of 32)");
      return;
    }
    uint64_t Threads = (*Block)[0] * (*Block)[1] * (*Block)[2];
    if (Threads % 32) {
      Fail("the block has " + std::to_string(Threads) +
           " threads, not a multiple of 32: the last warp is partial");
      return;
    }
    if (inMacro(Top->getSourceRange())) {
      Fail("the atomic comes from a macro expansion");
      return;
    }
    std::string AddrText = sourceText(Ctx, Addr->getSourceRange());
    std::string ValText = sourceText(Ctx, CE->getArg(1)->getSourceRange());
    std::string GuardText = Guard ? sourceText(Ctx, Guard->getSourceRange()) : "";
    if (AddrText.empty() || ValText.empty() || (Guard && GuardText.empty())) {
      Fail("the atomic's operands come from a macro expansion");
      return;
    }
    std::string V = structural::uniqueName(K, "cudal1_v");
    std::string Ind = structural::indentOf(Ctx, Top->getBeginLoc());
    std::string I1 = Ind + "  ";
    bool OneD = (*Block)[1] == 1 && (*Block)[2] == 1;
    std::string Lane =
        OneD ? "(threadIdx.x & 31u)"
             : "(((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + "
               "threadIdx.x) & 31u)";
    std::string T = "{ // cuda-l1 sync-warp-atomic-reduction\n";
    if (Guard)
      T += I1 + VTs + " " + V + " = (" + GuardText + ") ? (" + VTs + ")(" +
           ValText + ") : (" + VTs + ")0;\n";
    else
      T += I1 + VTs + " " + V + " = " + ValText + ";\n";
    T += I1 + "for (int cudal1_o = 16; cudal1_o > 0; cudal1_o >>= 1)\n";
    T += I1 + "  " + V + " += __shfl_down_sync(0xffffffffu, " + V +
         ", cudal1_o);\n";
    T += I1 + "if (" + Lane + " == 0u)\n";
    T += I1 + "  atomicAdd(" + AddrText + ", " + V + ");\n";
    T += Ind + "}";
    FixIt Fix;
    Fix.Exact = VT->isIntegerType() ? Exactness::Bitwise
                                    : Exactness::Reassociating;
    if (Fix.Exact == Exactness::Reassociating) {
      Fix.Rtol = 1e-4;
      Fix.Atol = 1e-5;
      Fix.ScaleRtol = 1e-4; // outputs that cancel to ~0
    }
    SourceLocation E = Top->getEndLoc();
    CharSourceRange R = CharSourceRange::getTokenRange(Top->getBeginLoc(), E);
    // Take the statement's ';'.
    const SourceManager &SM = Ctx.getSourceManager();
    SourceLocation AfterSemi = Lexer::findLocationAfterToken(
        SM.getExpansionLoc(E), tok::semi, SM, Ctx.getLangOpts(), false);
    if (AfterSemi.isValid() && !isa<CompoundStmt>(
                                   GuardIf ? GuardIf->getThen() : (const Stmt *)CE))
      R = CharSourceRange::getCharRange(SM.getExpansionLoc(Top->getBeginLoc()),
                                        AfterSemi);
    Fix.Edits.push_back(makeTextEdit(Ctx, R, T));
    Fix.Description = "warp-shuffle sum, then one atomicAdd per warp";
    Fd.Fix = Fix;
    Out.push_back(Fd);
  }
};

} // namespace
} // namespace structural

using structural::SequentialReductionCheck;
using structural::WarpAtomicReductionCheck;
CUDAL1_REGISTER_CHECK(SequentialReductionCheck);
CUDAL1_REGISTER_CHECK(WarpAtomicReductionCheck);

} // namespace cudal1
