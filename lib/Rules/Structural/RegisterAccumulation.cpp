//===- RegisterAccumulation.cpp - memory-register-accumulation ------------===//
//
// A global `out[idx] op= ...` inside a loop whose `idx` does not change in
// the loop becomes a register accumulator: loaded once before the loop (or
// initialised from the store right before it), updated in the loop with the
// same operations in the same order, stored once after it. Bitwise.
//
// Legal only when nothing else in the loop can touch out[idx]: every other
// access to `out` in the loop uses the same index, every other pointer the
// loop uses provably points elsewhere (__restrict__, or separate
// cudaMalloc allocations at every visible launch site), the loop calls no
// user function, has no barrier / fence / atomic, and cannot leave the
// kernel (return, goto) before the store.
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

const char *RuleId = "memory-register-accumulation";

struct Accum {
  const Expr *Root = nullptr;               ///< the assignment
  const ArraySubscriptExpr *Lhs = nullptr;  ///< out[idx]
  const ParmVarDecl *Param = nullptr;
};

/// Loop body of \p L.
const Stmt *bodyOf(const Stmt *L) {
  if (const auto *F = dyn_cast<ForStmt>(L))
    return F->getBody();
  if (const auto *W = dyn_cast<WhileStmt>(L))
    return W->getBody();
  if (const auto *D = dyn_cast<DoStmt>(L))
    return D->getBody();
  return nullptr;
}

/// Collects, for each loop, the assignments directly in it (not in a nested
/// loop) whose left side is a subscript of a pointer parameter and which
/// read the same element (compound assignment, or x = x op e).
void collect(const Stmt *S, const Stmt *CurLoop, ASTContext &Ctx,
             const FunctionFacts &F,
             std::map<const Stmt *, std::vector<Accum>> &Out) {
  if (!S)
    return;
  if (isLoop(S)) {
    for (const Stmt *C : S->children())
      collect(C, C == bodyOf(S) ? S : CurLoop, Ctx, F, Out);
    return;
  }
  if (CurLoop) {
    if (const auto *BO = dyn_cast<BinaryOperator>(S)) {
      const auto *LHS =
          dyn_cast<ArraySubscriptExpr>(BO->getLHS()->IgnoreParens());
      bool RMW = BO->isCompoundAssignmentOp();
      if (LHS && BO->getOpcode() == BO_Assign) {
        // out[i] = out[i] op e  /  out[i] = e op out[i]
        if (const auto *R =
                dyn_cast<BinaryOperator>(BO->getRHS()->IgnoreParenImpCasts()))
          for (const Expr *Side : {R->getLHS(), R->getRHS()})
            if (sameExpr(Ctx, Side, LHS))
              RMW = true;
      }
      if (LHS && RMW) {
        const ParmVarDecl *P = rootPointerParam(LHS->getBase(), F);
        if (P)
          Out[CurLoop].push_back({BO, LHS, P});
      }
    }
  }
  for (const Stmt *C : S->children())
    collect(C, CurLoop, Ctx, F, Out);
}

/// The location just past the end of statement \p S (after its ';' when it
/// is an expression statement or a do-while).
SourceLocation endOfStmt(ASTContext &Ctx, const Stmt *S) {
  const SourceManager &SM = Ctx.getSourceManager();
  const LangOptions &LO = Ctx.getLangOpts();
  const Stmt *Last = S;
  if (const auto *D = dyn_cast<DoStmt>(S))
    Last = D; // ends at ')'
  else if (const Stmt *B = bodyOf(S))
    Last = B;
  SourceLocation E = SM.getExpansionLoc(Last->getEndLoc());
  if (isa<CompoundStmt>(Last))
    return Lexer::getLocForEndOfToken(E, 0, SM, LO);
  SourceLocation AfterSemi =
      Lexer::findLocationAfterToken(E, tok::semi, SM, LO, false);
  if (AfterSemi.isValid())
    return AfterSemi;
  return Lexer::getLocForEndOfToken(E, 0, SM, LO);
}

/// Just past statement \p S, including its ';' when it has one; a
/// declaration ends at the end of its last token.
SourceLocation afterStmt(ASTContext &Ctx, const Stmt *S) {
  if (!isa<DeclStmt>(S))
    return structural::stmtEnd(Ctx, S);
  const SourceManager &SM = Ctx.getSourceManager();
  return Lexer::getLocForEndOfToken(SM.getExpansionLoc(S->getEndLoc()), 0, SM,
                                    Ctx.getLangOpts());
}

class RegisterAccumulationCheck : public PerKernelCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = RuleId;
    I.Category = "memory";
    I.Summary = "global read-modify-write of one element in a loop -> register "
                "accumulator stored once after the loop";
    I.Exactness = Exactness::Bitwise;
    I.Help = "A loop that updates out[idx] (idx unchanged by the loop) loads "
             "and stores global memory on every iteration. The rewrite keeps "
             "the value in a register: one load (or the initialising store "
             "folded in) before the loop and one store after it, with the "
             "same operations in the same order. Applied only when nothing "
             "else in the loop can access out[idx].";
    return I;
  }

private:
  void runOn(ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
             const FunctionFacts &F, std::vector<Finding> &Out) override {
    std::map<const Stmt *, std::vector<Accum>> Cands;
    collect(K->getBody(), nullptr, Ctx, F, Cands);
    std::set<std::string> UsedNames;
    // Loops in source order.
    std::vector<const Stmt *> Loops;
    for (auto &[L, V] : Cands)
      Loops.push_back(L);
    const SourceManager &SM = Ctx.getSourceManager();
    std::sort(Loops.begin(), Loops.end(), [&](const Stmt *A, const Stmt *B) {
      return SM.isBeforeInTranslationUnit(A->getBeginLoc(), B->getBeginLoc());
    });
    std::set<std::pair<const ParmVarDecl *, const Stmt *>> Done;
    for (const Stmt *L : Loops) {
      std::set<const VarDecl *> Written = varsWrittenIn(L);
      for (const Accum &A : Cands[L]) {
        const Expr *Idx = A.Lhs->getIdx();
        // Loop-invariant index: reads no memory, no variable it uses
        // changes in the loop.
        if (!isPureNoMemory(Idx))
          continue;
        bool Invariant = true;
        forEachStmt(Idx, [&](const Stmt *S) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
            if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
              if (Written.count(V))
                Invariant = false;
        });
        forEachStmt(A.Lhs->getBase(), [&](const Stmt *S) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
            if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
              if (Written.count(V))
                Invariant = false;
        });
        if (!Invariant)
          continue;
        if (!Done.insert({A.Param, L}).second)
          continue;
        Out.push_back(analyze(Ctx, CC, K, F, L, A, UsedNames));
      }
    }
  }

  Finding analyze(ASTContext &Ctx, const CheckContext &CC,
                  const FunctionDecl *K, const FunctionFacts &F,
                  const Stmt *L, const Accum &A,
                  std::set<std::string> &UsedNames) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::string Elem = sourceText(Ctx, A.Lhs->getSourceRange());
    Finding Fd = makeFinding(
        Ctx, RuleId, A.Lhs->getBeginLoc(),
        "'" + Elem +
            "' is loaded from and stored to global memory on every iteration "
            "of the loop although its index does not change; a register "
            "accumulator needs one load and one store in all",
        K);
    Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the loop"));
    const ParmVarDecl *P = A.Param;

    // 1. Every access through `out` in the loop is out[idx] itself, read or
    //    the left side of an assignment.
    std::vector<const ArraySubscriptExpr *> Uses;
    std::string Why;
    forEachStmt(L, [&](const Stmt *S) {
      if (!Why.empty())
        return;
      const auto *DRE = dyn_cast<DeclRefExpr>(S);
      if (!DRE)
        return;
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V || !V->getType()->isPointerType())
        return;
      const ParmVarDecl *R = rootPointerParam(DRE, F);
      if (R != P)
        return;
      // Must be the base of a subscript equal to out[idx].
      auto Parents = Ctx.getParents(*DRE);
      const Expr *Cur = DRE;
      while (!Parents.empty()) {
        const auto *PE = Parents[0].get<Expr>();
        if (PE && (isa<ImplicitCastExpr>(PE) || isa<ParenExpr>(PE))) {
          Cur = PE;
          Parents = Ctx.getParents(*PE);
          continue;
        }
        break;
      }
      const ArraySubscriptExpr *AS =
          Parents.empty() ? nullptr : Parents[0].get<ArraySubscriptExpr>();
      if (!AS || AS->getBase()->IgnoreParenImpCasts() != DRE ||
          !sameExpr(Ctx, AS, A.Lhs)) {
        Why = "'" + P->getName().str() + "' is also used as '" +
              sourceText(Ctx, (AS ? (const Expr *)AS : Cur)->getSourceRange()) +
              "' in the loop, which may be the same element as '" + Elem + "'";
        return;
      }
      // The subscript is read (lvalue-to-rvalue) or assigned to.
      auto PP = Ctx.getParents(*AS);
      const Stmt *Use = PP.empty() ? nullptr : PP[0].get<Stmt>();
      while (Use && isa<ParenExpr>(Use)) {
        auto Q = Ctx.getParents(*Use);
        Use = Q.empty() ? nullptr : Q[0].get<Stmt>();
      }
      bool Ok = false;
      if (const auto *IC = dyn_cast_or_null<ImplicitCastExpr>(Use))
        Ok = IC->getCastKind() == CK_LValueToRValue;
      else if (const auto *BO = dyn_cast_or_null<BinaryOperator>(Use))
        Ok = BO->isAssignmentOp() &&
             BO->getLHS()->IgnoreParens() == AS;
      if (!Ok) {
        Why = "'" + Elem + "' is used in the loop other than by reading or "
                           "assigning it (address taken, ++/--, or passed on)";
        return;
      }
      Uses.push_back(AS);
    });
    if (!Why.empty()) {
      refuse(Fd, Why);
      return Fd;
    }
    if (A.Lhs->getType().isVolatileQualified()) {
      refuse(Fd, "'" + Elem + "' is volatile");
      return Fd;
    }

    // 2. No barrier, fence, atomic, or user call; no early exit.
    if (containsCallTo(L, {"__syncthreads", "__syncthreads_count",
                           "__syncthreads_and", "__syncthreads_or",
                           "__syncwarp", "__threadfence", "__threadfence_block",
                           "__threadfence_system", "atomic*", "__nanosleep"})) {
      refuse(Fd, "the loop has a barrier, fence or atomic: other threads "
                 "may observe '" + Elem + "' between iterations");
      return Fd;
    }
    std::string BadCall;
    forEachStmt(L, [&](const Stmt *S) {
      const auto *CE = dyn_cast<CallExpr>(S);
      if (!CE || !BadCall.empty())
        return;
      const FunctionDecl *Callee = CE->getDirectCallee();
      if (!Callee) {
        BadCall = "an indirect call";
        return;
      }
      // Calls into system headers (math functions, intrinsics) do not
      // touch user memory; user functions might.
      if (!SM.isInSystemHeader(SM.getExpansionLoc(Callee->getLocation())) &&
          !Callee->getBuiltinID())
        BadCall = "'" + Callee->getNameAsString() + "'";
    });
    if (!BadCall.empty()) {
      refuse(Fd, "the loop calls " + BadCall + ", which may access '" + Elem +
                     "'");
      return Fd;
    }
    if (containsEscape(L, /*AllowContinue=*/true)) {
      refuse(Fd, "the loop can return or jump out of the kernel before the "
                 "final store");
      return Fd;
    }

    // 3. Every other pointer used in the loop points elsewhere.
    std::set<const ParmVarDecl *> Others;
    std::string Unknown;
    forEachStmt(L, [&](const Stmt *S) {
      const auto *DRE = dyn_cast<DeclRefExpr>(S);
      if (!DRE)
        return;
      const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
      if (!V)
        return;
      bool Ptr = V->getType()->isPointerType() || V->getType()->isArrayType();
      if (!Ptr)
        return;
      if (V->getType()->isArrayType() && V->hasLocalStorage())
        return; // a local array: not global memory
      if (V->hasAttr<CUDASharedAttr>() || V->hasAttr<CUDAConstantAttr>())
        return; // different memory space: cannot alias global
      const ParmVarDecl *R = rootPointerParam(DRE, F);
      if (!R) {
        if (Unknown.empty())
          Unknown = V->getName().str();
        return;
      }
      if (R != P)
        Others.insert(R);
    });
    if (!Unknown.empty()) {
      refuse(Fd, "the loop uses pointer '" + Unknown +
                     "', whose target cannot be traced to a kernel parameter; "
                     "it may alias '" + Elem + "'");
      return Fd;
    }
    std::vector<std::string> Hows;
    for (const ParmVarDecl *Q : Others) {
      std::string How, W;
      if (!provenDistinct(Ctx, K, P, Q, How, W)) {
        refuse(Fd, W + " (mark them __restrict__ if they never overlap)");
        return Fd;
      }
      Hows.push_back(How);
    }

    // 4. Edits.
    std::string EW;
    for (const ArraySubscriptExpr *U : Uses)
      if (!editableRange(Ctx, CharSourceRange::getTokenRange(U->getSourceRange()),
                         EW)) {
        refuse(Fd, EW);
        return Fd;
      }
    if (inMacro(L->getSourceRange())) {
      refuse(Fd, "the loop comes from a macro expansion");
      return Fd;
    }
    std::string Name = structural::uniqueName(K, P->getName().str() + "_acc");
    while (UsedNames.count(Name))
      Name += "_";
    UsedNames.insert(Name);
    QualType T = A.Lhs->getType().getUnqualifiedType();
    std::string TypeText = T.getAsString(Ctx.getPrintingPolicy());
    std::string Indent = structural::indentOf(Ctx, L->getBeginLoc());

    FixIt Fix;
    Fix.Exact = Exactness::Bitwise;
    // Fold `out[idx] = init;` right before the loop into the accumulator's
    // initialisation.
    const Stmt *Prev = nullptr;
    auto LP = Ctx.getParents(*L);
    if (!LP.empty())
      if (const auto *CS = LP[0].get<CompoundStmt>()) {
        const Stmt *Last = nullptr;
        for (const Stmt *C : CS->body()) {
          if (C == L) {
            Prev = Last;
            break;
          }
          Last = C;
        }
      }
    bool Folded = false;
    if (const auto *PB = dyn_cast_or_null<BinaryOperator>(Prev))
      if (PB->getOpcode() == BO_Assign && sameExpr(Ctx, PB->getLHS(), A.Lhs) &&
          !inMacro(PB->getSourceRange())) {
        bool UsesP = false;
        forEachStmt(PB->getRHS(), [&](const Stmt *S) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(S))
            if (rootPointerParam(DRE, F) == P)
              UsesP = true;
        });
        std::string Init = sourceText(Ctx, PB->getRHS()->getSourceRange());
        if (!UsesP && !Init.empty()) {
          Fix.Edits.push_back(makeTextEdit(
              Ctx, CharSourceRange::getTokenRange(PB->getSourceRange()),
              TypeText + " " + Name + " = " + Init));
          Folded = true;
        }
      }
    if (!Folded) {
      // Inserted after the previous statement (or the block's '{') rather
      // than at the loop's first character, where another rule may put a
      // `#pragma unroll` that must stay right before the loop.
      std::string Decl = TypeText + " " + Name + " = " + Elem + ";";
      const CompoundStmt *CS =
          LP.empty() ? nullptr : LP[0].get<CompoundStmt>();
      if (Prev && !inMacro(Prev->getSourceRange()))
        Fix.Edits.push_back(makeInsertion(Ctx, afterStmt(Ctx, Prev),
                                          "\n" + Indent + Decl));
      else if (CS && !Prev)
        Fix.Edits.push_back(makeInsertion(
            Ctx, SM.getExpansionLoc(CS->getLBracLoc()).getLocWithOffset(1),
            "\n" + Indent + Decl));
      else
        Fix.Edits.push_back(
            makeInsertion(Ctx, SM.getExpansionLoc(L->getBeginLoc()),
                          Decl + "\n" + Indent));
    }
    for (const ArraySubscriptExpr *U : Uses)
      Fix.Edits.push_back(makeTextEdit(
          Ctx, CharSourceRange::getTokenRange(U->getSourceRange()), Name));
    Fix.Edits.push_back(makeInsertion(Ctx, endOfStmt(Ctx, L),
                                      "\n" + Indent + Elem + " = " + Name +
                                          ";"));
    Fix.Description = "keep '" + Elem + "' in register '" + Name +
                      "' during the loop; store it once after the loop";
    Fd.Fix = Fix;
    for (const std::string &H : Hows)
      Fd.Notes.push_back(
          makeNote(Ctx, L->getBeginLoc(), "no aliasing: " + H));
    return Fd;
  }
};


/// memory-hoist-invariant-load: a global load p[idx] that every iteration
/// of a loop performs, with idx unchanged by the loop and nothing in the
/// loop able to write p[idx], is loaded once before the loop. The load is
/// guarded by the loop's first-iteration condition, so a loop that runs zero
/// times still reads nothing. Bitwise.
class HoistInvariantLoadCheck : public PerKernelCheck {
public:
  RuleInfo info() const override {
    RuleInfo I;
    I.Id = "memory-hoist-invariant-load";
    I.Category = "memory";
    I.Summary = "global load with a loop-invariant index in every iteration -> "
                "loaded once before the loop";
    I.Exactness = Exactness::Bitwise;
    I.Help = "A load p[idx] whose index does not change in the loop is "
             "repeated every iteration unless the compiler can prove nothing "
             "in the loop writes p[idx]. The rewrite loads it once before "
             "the loop, guarded by the loop's first-iteration condition, "
             "when it proves that nothing in the loop can write the element.";
    return I;
  }

private:
  void runOn(ASTContext &Ctx, const CheckContext &CC, const FunctionDecl *K,
             const FunctionFacts &F, std::vector<Finding> &Out) override {
    std::set<std::string> Used;
    forEachStmt(K->getBody(), [&](const Stmt *S) {
      if (isLoop(S))
        runOnLoop(Ctx, K, F, S, Used, Out);
    });
  }

  /// The statements directly in the loop body (not nested in control flow).
  static std::vector<const Stmt *> topStatements(const Stmt *Body) {
    if (const auto *CS = dyn_cast<CompoundStmt>(Body))
      return std::vector<const Stmt *>(CS->body_begin(), CS->body_end());
    return {Body};
  }

  /// Loads executed unconditionally by a top-level statement: subscripts
  /// not under ?:, &&, ||, a nested statement or lambda.
  static void unconditionalLoads(const Stmt *S,
                                 std::vector<const ArraySubscriptExpr *> &Out) {
    if (!S || isa<IfStmt>(S) || isa<SwitchStmt>(S) || isLoop(S) ||
        isa<CompoundStmt>(S) || isa<LambdaExpr>(S) ||
        isa<AbstractConditionalOperator>(S))
      return;
    if (const auto *BO = dyn_cast<BinaryOperator>(S))
      if (BO->getOpcode() == BO_LAnd || BO->getOpcode() == BO_LOr) {
        unconditionalLoads(BO->getLHS(), Out);
        return;
      }
    if (const auto *AS = dyn_cast<ArraySubscriptExpr>(S))
      Out.push_back(AS);
    if (const auto *DS = dyn_cast<DeclStmt>(S)) {
      for (const Decl *D : DS->decls())
        if (const auto *V = dyn_cast<VarDecl>(D))
          unconditionalLoads(V->getInit(), Out);
      return;
    }
    for (const Stmt *C : S->children())
      unconditionalLoads(C, Out);
  }

  static bool isRead(ASTContext &Ctx, const Expr *E) {
    auto P = Ctx.getParents(*E);
    while (!P.empty() && P[0].get<ParenExpr>())
      P = Ctx.getParents(P[0]);
    const auto *IC = P.empty() ? nullptr : P[0].get<ImplicitCastExpr>();
    return IC && IC->getCastKind() == CK_LValueToRValue;
  }

  void runOnLoop(ASTContext &Ctx, const FunctionDecl *K,
                 const FunctionFacts &F, const Stmt *L,
                 std::set<std::string> &Used, std::vector<Finding> &Out) {
    const Stmt *Body = bodyOf(L);
    std::set<const VarDecl *> Written = varsWrittenIn(L);
    std::vector<const ArraySubscriptExpr *> Cands;
    for (const Stmt *S : topStatements(Body))
      unconditionalLoads(S, Cands);
    std::vector<const ArraySubscriptExpr *> Done;
    for (const ArraySubscriptExpr *AS : Cands) {
      if (!isRead(Ctx, AS))
        continue;
      const ParmVarDecl *P = rootPointerParam(AS->getBase(), F);
      if (!P || !isPureNoMemory(AS->getIdx()))
        continue;
      bool Inv = true;
      for (const Expr *E : {AS->getIdx(), AS->getBase()})
        forEachStmt(E, [&](const Stmt *X) {
          if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
            if (const auto *V = dyn_cast<VarDecl>(DRE->getDecl()))
              if (Written.count(V))
                Inv = false;
        });
      if (!Inv)
        continue;
      bool Dup = false;
      for (const ArraySubscriptExpr *D : Done)
        if (sameExpr(Ctx, D, AS))
          Dup = true;
      if (Dup)
        continue;
      Done.push_back(AS);
      Out.push_back(analyze(Ctx, K, F, L, AS, P, Used));
    }
  }

  Finding analyze(ASTContext &Ctx, const FunctionDecl *K,
                  const FunctionFacts &F, const Stmt *L,
                  const ArraySubscriptExpr *AS, const ParmVarDecl *P,
                  std::set<std::string> &Used) {
    const SourceManager &SM = Ctx.getSourceManager();
    std::string Elem = sourceText(Ctx, AS->getSourceRange());
    Finding Fd = makeFinding(
        Ctx, "memory-hoist-invariant-load", AS->getBeginLoc(),
        "'" + Elem + "' is loaded from global memory in every iteration of "
                     "the loop although its index does not change; one load "
                     "before the loop is enough",
        K);
    Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "the loop"));
    auto Fail = [&](const std::string &W) {
      refuse(Fd, W);
      return Fd;
    };
    if (AS->getType().isVolatileQualified())
      return Fail("'" + Elem + "' is volatile");
    if (containsCallTo(L, {"__syncthreads", "__syncthreads_count",
                           "__syncthreads_and", "__syncthreads_or",
                           "__syncwarp", "__threadfence", "__threadfence_block",
                           "__threadfence_system", "atomic*"}))
      return Fail("the loop has a barrier, fence or atomic: other threads may "
                  "change '" + Elem + "' between iterations");
    if (containsEscape(bodyOf(L), /*AllowContinue=*/false))
      return Fail("the loop body can skip the rest of an iteration (break, "
                  "continue, return)");
    // Writes in the loop: to locals only, or through pointers proven to
    // point elsewhere; no user calls.
    std::string Why;
    std::set<const ParmVarDecl *> Targets;
    forEachStmt(L, [&](const Stmt *S) {
      if (!Why.empty())
        return;
      const Expr *T = nullptr;
      if (const auto *BO = dyn_cast<BinaryOperator>(S); BO && BO->isAssignmentOp())
        T = BO->getLHS();
      else if (const auto *U = dyn_cast<UnaryOperator>(S);
               U && U->isIncrementDecrementOp())
        T = U->getSubExpr();
      else if (const auto *CE = dyn_cast<CallExpr>(S)) {
        const FunctionDecl *FD = CE->getDirectCallee();
        if (!FD || (!SM.isInSystemHeader(SM.getExpansionLoc(FD->getLocation())) &&
                    !FD->getBuiltinID()))
          Why = "the loop calls " +
                (FD ? "'" + FD->getNameAsString() + "'" : std::string("through a pointer")) +
                ", which may write '" + Elem + "'";
        return;
      }
      if (!T)
        return;
      T = T->IgnoreParenImpCasts();
      if (const auto *DRE = dyn_cast<DeclRefExpr>(T)) {
        const auto *V = dyn_cast<VarDecl>(DRE->getDecl());
        if (V && V->hasLocalStorage())
          return; // a local variable
        Why = "the loop writes the global variable '" +
              DRE->getDecl()->getNameAsString() + "'";
        return;
      }
      const Expr *Base = nullptr;
      if (const auto *W = dyn_cast<ArraySubscriptExpr>(T))
        Base = W->getBase();
      else if (const auto *U = dyn_cast<UnaryOperator>(T);
               U && U->getOpcode() == UO_Deref)
        Base = U->getSubExpr();
      if (Base) {
        if (const auto *BV = dyn_cast<DeclRefExpr>(Base->IgnoreParenImpCasts()))
          if (const auto *V = dyn_cast<VarDecl>(BV->getDecl()))
            if (V->getType()->isArrayType() &&
                (V->hasLocalStorage() || V->hasAttr<CUDASharedAttr>()))
              return; // local or shared array: not global memory
        const ParmVarDecl *Q = rootPointerParam(Base, F);
        if (!Q) {
          Why = "the loop writes through '" +
                sourceText(Ctx, Base->getSourceRange()) +
                "', which may point to '" + Elem + "'";
          return;
        }
        if (Q == P) {
          Why = "the loop writes through '" + P->getName().str() + "'";
          return;
        }
        Targets.insert(Q);
        return;
      }
      Why = "the loop writes '" + sourceText(Ctx, T->getSourceRange()) + "'";
    });
    if (!Why.empty())
      return Fail(Why);
    for (const ParmVarDecl *Q : Targets) {
      std::string How, W;
      if (!provenDistinct(Ctx, K, P, Q, How, W))
        return Fail(W + " (mark them __restrict__ if they never overlap)");
      Fd.Notes.push_back(makeNote(Ctx, L->getBeginLoc(), "no aliasing: " + How));
    }
    // The first-iteration condition.
    std::string First;
    if (const auto *FS = dyn_cast<ForStmt>(L)) {
      if (FS->getConditionVariable())
        return Fail("the loop condition declares a variable");
      const Expr *Cond = FS->getCond();
      if (!Cond)
        First = "true";
      else {
        if (!isPureNoMemory(Cond))
          return Fail("the loop condition reads memory or has side effects");
        std::vector<std::pair<const Stmt *, std::string>> Reps;
        if (FS->getInit()) {
          const auto *DS = dyn_cast<DeclStmt>(FS->getInit());
          const VarDecl *IV = DS && DS->isSingleDecl()
                                  ? dyn_cast<VarDecl>(DS->getSingleDecl())
                                  : nullptr;
          if (!IV || !IV->getInit() || !isPureNoMemory(IV->getInit()))
            return Fail("the loop's initialisation is not one variable "
                        "declared from a value without memory reads");
          std::string Init = sourceText(Ctx, IV->getInit()->getSourceRange());
          if (Init.empty())
            return Fail("the loop comes from a macro expansion");
          forEachStmt(Cond, [&](const Stmt *X) {
            if (const auto *DRE = dyn_cast<DeclRefExpr>(X))
              if (DRE->getDecl() == IV)
                Reps.push_back({DRE, "(" + Init + ")"});
          });
        }
        First = structural::rewrittenText(Ctx, Cond, Reps);
      }
    } else if (const auto *W = dyn_cast<WhileStmt>(L)) {
      if (W->getConditionVariable() || !isPureNoMemory(W->getCond()))
        return Fail("the loop condition reads memory or has side effects");
      First = sourceText(Ctx, W->getCond()->getSourceRange());
    } else {
      First = "true"; // do-while: the body runs at least once
    }
    if (First.empty() || inMacro(L->getSourceRange()))
      return Fail("the loop comes from a macro expansion");
    // Edits.
    std::vector<const ArraySubscriptExpr *> Uses;
    forEachStmt(L, [&](const Stmt *S) {
      if (const auto *U = dyn_cast<ArraySubscriptExpr>(S))
        if (sameExpr(Ctx, U, AS) && isRead(Ctx, U))
          Uses.push_back(U);
    });
    std::string EW;
    for (const ArraySubscriptExpr *U : Uses)
      if (!editableRange(Ctx, CharSourceRange::getTokenRange(U->getSourceRange()),
                         EW))
        return Fail(EW);
    std::string Name = structural::uniqueName(K, P->getName().str() + "_inv");
    while (Used.count(Name))
      Name += "_";
    Used.insert(Name);
    std::string TypeText = AS->getType().getUnqualifiedType().getAsString(
        Ctx.getPrintingPolicy());
    std::string Indent = structural::indentOf(Ctx, L->getBeginLoc());
    std::string Decl = "const " + TypeText + " " + Name + " = " +
                       (First == "true" ? Elem
                                        : "(" + First + ") ? " + Elem + " : " +
                                              TypeText + "()") +
                       ";";
    FixIt Fix;
    Fix.Exact = Exactness::Bitwise;
    auto LP = Ctx.getParents(*L);
    const CompoundStmt *CS = LP.empty() ? nullptr : LP[0].get<CompoundStmt>();
    const Stmt *Prev = nullptr;
    if (CS) {
      const Stmt *Last = nullptr;
      for (const Stmt *C : CS->body()) {
        if (C == L) {
          Prev = Last;
          break;
        }
        Last = C;
      }
    }
    if (Prev && !inMacro(Prev->getSourceRange()))
      Fix.Edits.push_back(
          makeInsertion(Ctx, afterStmt(Ctx, Prev), "\n" + Indent + Decl));
    else if (CS && !Prev)
      Fix.Edits.push_back(makeInsertion(
          Ctx, SM.getExpansionLoc(CS->getLBracLoc()).getLocWithOffset(1),
          "\n" + Indent + Decl));
    else if (!CS && !LP.empty()) {
      // The loop is the unbraced body of an if/for/while: `if (c) for ...`
      // becomes `if (c) {  <decl>  for ... }`.
      const Stmt *Parent = LP[0].get<Stmt>();
      SourceLocation RParen;
      if (const auto *I = dyn_cast_or_null<IfStmt>(Parent)) {
        if (I->getThen() == L)
          RParen = I->getRParenLoc();
      } else if (const auto *F = dyn_cast_or_null<ForStmt>(Parent)) {
        if (F->getBody() == L)
          RParen = F->getRParenLoc();
      } else if (const auto *W = dyn_cast_or_null<WhileStmt>(Parent)) {
        if (W->getBody() == L)
          RParen = W->getRParenLoc();
      }
      if (RParen.isInvalid() || RParen.isMacroID() ||
          inMacro(Parent->getSourceRange()))
        return Fail("the loop is not directly in a block");
      std::string PInd = structural::indentOf(Ctx, Parent->getBeginLoc());
      Fix.Edits.push_back(
          makeInsertion(Ctx, RParen.getLocWithOffset(1), " {"));
      Fix.Edits.push_back(makeInsertion(
          Ctx, SM.getExpansionLoc(L->getBeginLoc()), Decl + "\n" + Indent));
      Fix.Edits.push_back(
          makeInsertion(Ctx, afterStmt(Ctx, L), "\n" + PInd + "}"));
    } else
      return Fail("the loop is not directly in a block");
    for (const ArraySubscriptExpr *U : Uses)
      Fix.Edits.push_back(makeTextEdit(
          Ctx, CharSourceRange::getTokenRange(U->getSourceRange()), Name));
    Fix.Description = "load '" + Elem + "' once before the loop into '" +
                      Name + "'";
    Fd.Fix = Fix;
    return Fd;
  }
};

} // namespace
} // namespace structural

using structural::RegisterAccumulationCheck;
using structural::HoistInvariantLoadCheck;
CUDAL1_REGISTER_CHECK(RegisterAccumulationCheck);
CUDAL1_REGISTER_CHECK(HoistInvariantLoadCheck);

} // namespace cudal1
